"""The memory page under attack (issue 22): each way in that must stay shut, tried against
the real runtime's app (offline, API on) over HTTP. Every test also shows the honest way
works, so a refusal is the check's doing and not a broken page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.bot._web import WebSessions
from familiars.memory import load_people, make_record
from tests.bot.web_fixtures import (
    ANN,
    ANN_KEY,
    BASE,
    BOB_KEY,
    ONERROR,
    OWNER,
    SCRIPT,
    client,
    command,
    csrf_of,
    link_for,
    path_of,
    post,
    running,
    say,
    seed,
    sign_in,
)

pytestmark = pytest.mark.timeout(120)


def first_record_id(html: str) -> str:
    return html.split('href="/web/memories/m_', 1)[1].split('"', 1)[0].join(["m_", ""])


async def test_a_link_signs_in_once_and_a_used_link_signs_nobody_in(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app:
        await seed(app)
        url = await link_for(app)
        async with client(app) as http:
            first = await sign_in(http, url)
            assert first.status_code == 303
            assert "HttpOnly" in first.headers["set-cookie"]
            assert "SameSite=Strict" in first.headers["set-cookie"]
            assert "Max-Age=" in first.headers["set-cookie"]
            assert (await http.get("/web/memories")).status_code == 200
        async with client(app) as other:
            again = await other.get(path_of(url))
            assert again.status_code == 400
            token = url.rsplit("t=", 1)[1]
            replay = await post(other, "/web/login", {"t": token})
            assert replay.status_code == 400
            assert "set-cookie" not in replay.headers
            assert (await other.get("/web/memories")).status_code == 401


async def test_an_expired_link_signs_nobody_in(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as app:
        await seed(app)
        # Made eleven minutes ago: it lapsed a minute ago.
        past = WebSessions(ws, clock=lambda: datetime.now(UTC) - timedelta(minutes=11))
        token = past.new_link(BOB_KEY, "agent_0", is_owner=False)
        async with client(app) as http:
            assert (await http.get(f"/web/login?t={token}")).status_code == 400
            answer = await post(http, "/web/login", {"t": token})
            assert answer.status_code == 400 and "set-cookie" not in answer.headers
            assert (await http.get("/web/memories")).status_code == 401
        fresh = WebSessions(ws).new_link(BOB_KEY, "agent_0", is_owner=False)
        async with client(app) as http:
            assert (await post(http, "/web/login", {"t": fresh})).status_code == 303


async def test_another_persons_ids_answer_404_in_urls_and_forms(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app:
        await seed(app)
        ann_ids = [
            line.split("`")[1]
            for line in (await command(app, "memory", "list", user=ANN)).splitlines()[1:]
        ]
        assert ann_ids
        async with client(app) as http:
            await sign_in(http, await link_for(app))
            bobs = (await http.get("/web/reminders")).text
            bob_reminder = bobs.split('action="/web/reminders/', 1)[1].split("/", 1)[0]
        async with client(app) as http:
            await sign_in(http, await link_for(app, ANN))
            ann_csrf = csrf_of((await http.get("/web/memories")).text)
            reminders = await http.get("/web/reminders")
            assert "water the plants" not in reminders.text  # Bob's reminder
            for action in ("cancel", "snooze", "move"):
                answer = await post(
                    http,
                    f"/web/reminders/{bob_reminder}/{action}",
                    {"csrf": ann_csrf, "when": "tomorrow 10am", "duration": "1h"},
                )
                assert answer.status_code == 404
        async with client(app) as http:
            await sign_in(http, await link_for(app))
            assert "water the plants" in (await http.get("/web/reminders")).text
            page = await http.get("/web/memories")
            csrf = csrf_of(page.text)
            own = first_record_id(page.text)
            assert (await http.get(f"/web/memories/{own}")).status_code == 200
            for rid in ann_ids:
                assert (await http.get(f"/web/memories/{rid}")).status_code == 404
                assert (await http.get(f"/web/memories/{rid}/forget")).status_code == 404
                for action in ("pin", "forget"):
                    answer = await post(http, f"/web/memories/{rid}/{action}", {"csrf": csrf})
                    assert answer.status_code == 404
                edit = await post(http, f"/web/memories/{rid}/edit", {"csrf": csrf, "text": "x"})
                assert edit.status_code == 404
            ann_dialogue = "/web/dialogues/agent_0/dialogue_1"
            assert (await http.get(ann_dialogue)).status_code == 404
            assert (await http.get("/web/dialogues/agent_0/dialogue_0")).status_code == 200
            assert (await http.get("/web/dialogues/agent_0/..%2f..%2fstate")).status_code == 404
            assert (await http.get("/web/status")).status_code == 404  # not an owner
            assert (await http.get("/web/agent")).status_code == 404
            # Ann's CSRF token is no key to Bob's session either.
            assert ann_csrf != csrf
        listing = await command(app, "memory", "list", user=ANN)
        assert all(rid in listing for rid in ann_ids)  # nothing of Ann's was touched


async def test_a_change_without_the_csrf_token_or_from_another_origin_is_refused(
    tmp_path: Path,
) -> None:
    async with running(tmp_path / "ws") as app:
        await seed(app)
        async with client(app) as http:
            await sign_in(http, await link_for(app))
            page = await http.get("/web/memories")
            rid, csrf = first_record_id(page.text), csrf_of(page.text)
            path = f"/web/memories/{rid}/pin"
            assert (await post(http, path, {"text": "no token"})).status_code == 403
            assert (await post(http, path, {"csrf": "0" * 64})).status_code == 403
            assert (
                await post(http, path, {"csrf": csrf}, origin="http://evil.example")
            ).status_code == 403
            assert (await post(http, path, {"csrf": csrf}, origin=None)).status_code == 403
            login = await post(http, "/web/login", {"t": "x" * 43}, origin="http://evil.example")
            assert login.status_code == 403
            assert (
                "pinned" not in (await http.get(f"/web/memories/{rid}")).text.split("<h1>")[1][:80]
            )
            done = await post(http, path, {"csrf": csrf})
            assert done.status_code == 303
            assert "pin" in (await http.get(f"/web/memories/{rid}")).text.split("<h1>")[1][:80]


async def test_stored_script_and_attribute_injection_show_as_text(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app:
        await say(app, f"My name is {SCRIPT}")  # in the dialogue's tree
        await say(app, f"I like {ONERROR}")
        for text in (SCRIPT, ONERROR):
            record = make_record(text, scope="user", category="profile", user_key=BOB_KEY)
            await app.memory.store.append(record)
        async with client(app) as http:
            await sign_in(http, await link_for(app))
            page = await http.get("/web/memories")
            assert "<script>document" not in page.text
            assert "<img src=x" not in page.text
            assert "&lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt;" in page.text
            assert "&lt;img src=x onerror=&#34;document.title=1&#34;&gt;" in page.text
            csp = page.headers["content-security-policy"]
            assert "default-src 'none'" in csp and "unsafe-inline" not in csp
            rid = first_record_id(page.text)
            detail = await http.get(f"/web/memories/{rid}")
            assert "<script>document" not in detail.text and "<img src=x" not in detail.text
            tree = await http.get("/web/dialogues/agent_0/dialogue_0")
            assert "<script>document" not in tree.text and "<img src=x" not in tree.text
            assert "&lt;script&gt;" in tree.text


async def test_static_routes_refuse_path_traversal(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app, client(app) as http:
        css = await http.get("/web/static/web.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
        for path in (
            "/web/static/../app.py",
            "/web/static/..%2f..%2f_api%2fapp.py",
            "/web/static/%2e%2e%2fsessions.py",
            "/web/static/sessions.py",
            "/web/static/templates%2fbase.html",
            "/web/static/..%5cbackend.py",
            "/web/static/%2fetc%2fpasswd",
        ):
            answer = await http.get(path)
            assert answer.status_code == 404, path
            assert "import" not in answer.text and "root:" not in answer.text


async def test_a_cookie_replayed_after_memory_web_off_signs_nobody_in(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app:
        await seed(app)
        async with client(app) as http:
            answer = await sign_in(http, await link_for(app))
            cookie = answer.headers["set-cookie"].split(";", 1)[0]
            page = await http.get("/web/memories")
            csrf, rid = csrf_of(page.text), first_record_id(page.text)
            unused = await link_for(app)
            said = await command(app, "memory", "web", "off")
            assert "Signed out" in said
        async with client(app) as replay:
            headers = {"Cookie": cookie}
            assert (await replay.get("/web/memories", headers=headers)).status_code == 401
            pin = await replay.post(
                f"/web/memories/{rid}/pin",
                data={"csrf": csrf},
                headers={**headers, "Origin": BASE},
            )
            assert pin.status_code == 401
            token = unused.rsplit("t=", 1)[1]
            assert (await post(replay, "/web/login", {"t": token})).status_code == 400


async def test_no_link_is_given_in_a_group_and_the_api_token_stays_required(
    tmp_path: Path,
) -> None:
    async with running(tmp_path / "ws") as app:
        said = await command(app, "memory", "web", group=True)
        assert "private chat" in said and "http" not in said
        async with client(app) as http:
            assert (await http.get("/api/memory")).status_code == 401
            assert (await http.get("/web/memories")).status_code == 401


async def test_the_owner_sees_the_agent_and_the_status_others_do_not(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app:
        await seed(app)
        await command(app, "memory", "list", user=OWNER)
        async with client(app) as http:
            await sign_in(http, await link_for(app, OWNER))
            status = await http.get("/web/status")
            assert status.status_code == 200 and "<svg" in status.text
            assert "Live records per scope/category" in status.text
            assert (await http.get("/web/agent")).status_code == 200
            # Still only their own user scope: none of Bob's or Ann's memories.
            mine = await http.get("/web/memories")
            assert "green tea" not in mine.text and "climbing" not in mine.text
        assert ANN_KEY != BOB_KEY


BOBS_PEOPLE = (
    "The user's sister is called Emma.",
    "Emma's husband is called Joaquin.",
    "The user's boss is called Priya.",
    "The user's boss is called Dana.",
    "The user has a dog called O'Malley.",
)


async def test_the_people_page_shows_only_the_signed_in_persons_people(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as app:
        await seed(app)
        for i, text in enumerate(BOBS_PEOPLE):
            at = f"2026-11-{i + 1:02d}T10:00:00Z"
            rec = make_record(text, scope="user", category="relation", user_key=BOB_KEY, ts=at)
            await app.memory.store.append(rec, dedupe=False)
        async with client(app) as http:
            await sign_in(http, await link_for(app, ANN))
            theirs = await http.get("/web/people")
            assert theirs.status_code == 200 and "not told the familiar about anyone" in theirs.text
        # Told later: the running bot's graph follows (the index tells it the records changed).
        lina = "The user's friend is called Lina."
        await app.memory.store.append(
            make_record(lina, scope="user", category="relation", user_key=ANN_KEY)
        )
        async with client(app) as http:
            assert (await http.get("/web/people")).status_code == 401  # not signed in
            await sign_in(http, await link_for(app))
            page = await http.get("/web/people")
            assert page.status_code == 200 and '<a href="/web/people">People</a>' in page.text
            svg = page.text.split("<svg", 1)[1].split("</svg>", 1)[0]
            for name in ("Emma", "Joaquin", "Priya", "Dana", "O&#39;Malley"):
                assert f">{name}</text>" in svg  # a node, its name escaped
            assert ">sister</text>" in svg and ">Emma&#39;s husband</text>" in svg
            assert 'class="rel past"' in svg and ">was boss until 2026-11-04</text>" in svg
            assert "O'Malley" not in page.text  # the quote only ever escaped
            assert "/web/memories?q=Emma" in page.text
            # Read through the bot's own people index (the graph recall walks): it saved it.
            saved = await load_people(app.memory.index, BOB_KEY)  # type: ignore[arg-type]
            assert "Joaquin" in saved.people
            found = await http.get("/web/memories?q=Joaquin")
            assert "Emma&#39;s husband is called Joaquin." in found.text
        async with client(app) as http:
            await sign_in(http, await link_for(app, ANN))
            theirs = await http.get("/web/people")
            assert theirs.status_code == 200 and ">Lina</text>" in theirs.text
            for name in ("Emma", "Joaquin", "Priya", "Dana", "Malley"):
                assert name not in theirs.text
