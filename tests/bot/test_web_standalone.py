"""The memory page under ``familiars api`` and across restarts (issue 22): beside a running bot
it only reads and says who owns the workspace; alone it owns the workspace and writes through
the same commands; a session outlives a restart and the loss of ``familiars.db``; the command
line's link signs in."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from familiars.bot._api import StatusSources, create_app
from familiars.bot._web.standalone import standalone_backend
from familiars.cli import app as cli_app
from familiars.memory import WorkspaceBusyError, WorkspaceLock, make_record
from tests.bot.web_fixtures import (
    ANN,
    BASE,
    BOB_KEY,
    LINK_RE,
    client,
    command,
    csrf_of,
    link_for,
    path_of,
    post,
    running,
    seed,
    settings_for,
    sign_in,
)

pytestmark = pytest.mark.timeout(120)


def _client(app: object) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url=BASE)


def _first_id(html: str) -> str:
    return "m_" + html.split('href="/web/memories/m_', 1)[1].split('"', 1)[0]


async def test_beside_a_running_bot_the_page_reads_and_refuses_changes_naming_the_owner(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await seed(bot)
        url = await link_for(bot)
        settings = settings_for(ws)
        async with standalone_backend(settings) as web:  # type: ignore[arg-type]
            assert web.read_only is not None
            app = create_app(StatusSources(settings), web=web)  # type: ignore[arg-type]
            async with _client(app) as http:
                await sign_in(http, url)
                page = await http.get("/web/memories")
                assert "green tea" in page.text
                rid, csrf = _first_id(page.text), csrf_of(page.text)
                detail = await http.get(f"/web/memories/{rid}")
                assert "only reads" in detail.text and "Save the correction" not in detail.text
                refused = await post(http, f"/web/memories/{rid}/forget", {"csrf": csrf})
                assert refused.status_code == 409
                assert "owns this workspace" in refused.text and "pid" in refused.text
                # The People page reads the bot's records afresh: one told after it opened.
                told = "The user's sister is called Emma."
                rec = make_record(told, scope="user", category="relation", user_key=BOB_KEY)
                await bot.memory.store.append(rec)
                people = await http.get("/web/people")
                assert people.status_code == 200 and ">Emma</text>" in people.text
                assert ">sister</text>" in people.text
        assert rid in await command(bot, "memory", "list")  # still there


async def test_alone_it_owns_the_workspace_and_changes_go_through_the_commands(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await seed(bot)
    settings = settings_for(ws)
    async with standalone_backend(settings) as web:  # type: ignore[arg-type]
        assert web.read_only is None
        with pytest.raises(WorkspaceBusyError):  # nobody else writes meanwhile
            WorkspaceLock(ws, "familiars memory add").acquire(wait_s=0)
        token = web.sessions.new_link(BOB_KEY, "agent_0", is_owner=False)
        app = create_app(StatusSources(settings), web=web)  # type: ignore[arg-type]
        async with _client(app) as http:
            await post(http, "/web/login", {"t": token})
            page = await http.get("/web/memories?q=tea")
            rid, csrf = _first_id(page.text), csrf_of(page.text)
            done = await post(http, f"/web/memories/{rid}/forget", {"csrf": csrf})
            assert done.status_code == 303
            listing = (await http.get("/web/memories")).text
            assert "Forgotten" in listing and "green tea" not in listing.split("<h1>")[1]
    assert not any("green tea" in p.read_text() for p in ws.glob("users/*/*.md"))


async def test_the_command_lines_link_points_where_familiars_api_serves(tmp_path: Path) -> None:
    """``familiars api --port 18123`` serves elsewhere than the config says: the link
    ``familiars memory link`` prints leads there (it led to the config's port), and back to
    the config's once it has stopped."""
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await seed(bot)
    served = settings_for(ws, port=18123)

    def link() -> str:
        result = CliRunner().invoke(cli_app, ["-w", str(ws), "memory", "link", "--user", BOB_KEY])
        assert result.exit_code == 0, result.output
        found = LINK_RE.search(result.output)
        assert found is not None
        return found.group(1)

    async with standalone_backend(served):  # type: ignore[arg-type]
        during = await asyncio.to_thread(link)
    assert during.startswith("http://127.0.0.1:18123/web/login?t="), during
    assert not (await asyncio.to_thread(link)).startswith("http://127.0.0.1:18123/")


async def test_a_session_outlives_a_restart_and_the_loss_of_the_database(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await seed(bot)
        async with client(bot) as http:
            answer = await sign_in(http, await link_for(bot))
            cookie = answer.headers["set-cookie"].split(";", 1)[0]
    (ws / "familiars.db").unlink()
    async with running(ws) as bot, client(bot) as http:
        page = await http.get("/web/memories", headers={"Cookie": cookie})
        assert page.status_code == 200 and "green tea" in page.text
    stored = (ws / "state" / "web_sessions.json").read_text()
    assert cookie.split("=", 1)[1] not in stored  # only its digest is kept
    assert oct((ws / "state" / "web_sessions.json").stat().st_mode & 0o777) == "0o600"


def test_the_command_lines_link_signs_that_person_in(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    async def seeded() -> None:
        async with running(ws) as bot:
            await seed(bot)

    async def signed_in(url: str) -> str:
        async with running(ws) as bot, client(bot) as http:
            page = await http.get(path_of(url))
            assert BOB_KEY in page.text
            await sign_in(http, url)
            return (await http.get("/web/memories")).text

    asyncio.run(seeded())
    result = CliRunner().invoke(cli_app, ["-w", str(ws), "memory", "link", "--user", BOB_KEY])
    assert result.exit_code == 0, result.output
    found = LINK_RE.search(result.output)
    assert found is not None
    bad = CliRunner().invoke(cli_app, ["-w", str(ws), "memory", "link", "--user", "../x"])
    assert bad.exit_code != 0
    assert "green tea" in asyncio.run(signed_in(found.group(1)))


async def test_memory_edit_in_chat_is_a_correction_kept_in_the_history(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        await seed(bot)
        listing = await command(bot, "memory", "list")
        rid = next(line.split("`")[1] for line in listing.splitlines() if "green tea" in line)
        said = await command(bot, "memory", "edit", rid, "The", "user", "likes", "oolong.")
        assert said.startswith("Corrected: The user likes oolong.")
        listing = await command(bot, "memory", "list")
        assert "oolong" in listing and "green tea" not in listing
        new_id = next(line.split("`")[1] for line in listing.splitlines() if "oolong" in line)
        events = await bot.memory.store.history(new_id)
        assert [e["event"] for e in events][-2:] == ["deprecate", "upsert"]
        assert events[-1]["record"]["edited_via"] == "telegram"
        assert "no memory" in (await command(bot, "memory", "edit", rid, "x", user=ANN)).lower()
