"""``familiars memory forget ID`` forgets everywhere (issue 12), with nothing running and
through a running chat's control socket: afterwards no workspace file holds the text (its
bytes, ``familiars.db`` included) and the chat no longer recalls it; a turn id works too;
``memory show --history`` shows a hand edit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app
from tests.bot.test_forget import files_holding, running, say
from tests.cli import test_one_owner
from tests.cli.test_one_owner import _cli

runner = CliRunner()
running_chat = test_one_owner.running_chat  # the fixture: a chat that owns the workspace


def _run(ws: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--workspace", str(ws), *args])
    return result.exit_code, result.output


def _records(ws: Path) -> list[dict[str, object]]:
    code, out = _run(ws, "memory", "list", "--json")
    assert code == 0, out
    return [json.loads(line) for line in out.splitlines()]


async def _conversation(ws: Path) -> None:
    async with running(ws) as bot:
        await say(bot, "I live in Denver.")
        await say(bot, "My locker code is KQ7719 at the gym.")
        await say(bot, "Where do I live?")


def test_cli_forget_with_nothing_running_takes_memory_and_turn_ids(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    asyncio.run(_conversation(ws))
    [denver] = [r for r in _records(ws) if "Denver" in str(r["content"])]
    code, out = _run(ws, "memory", "forget", str(denver["id"]))
    # With it goes the bot's reply that said it again (its zone note: "Denver time"; s39).
    assert code == 0 and out.startswith(f"forgot {denver['id']}\n"), out
    assert files_holding(ws, "Denver") == []
    tree = ws / "agents" / "agent_0" / "dialogue_0" / "dialogue.json"
    nodes = json.loads(tree.read_text(encoding="utf-8"))["nodes"]
    locker = next(n["id"] for n in nodes if "KQ7719" in n["content"])
    turn = f"node:agent_0/dialogue_0/{locker}"
    assert _run(ws, "memory", "forget", turn) == (0, f"forgot {turn}\n")
    assert files_holding(ws, "KQ7719") == []
    code, out = _run(ws, "memory", "forget", "node:agent_0/dialogue_0/x")
    assert code == 1 and "Traceback" not in out

    async def ask() -> str:
        async with running(ws) as bot:
            return await say(bot, "Where do I live? What is my locker code?")

    reply = asyncio.run(ask())
    assert "Denver" not in reply and "KQ7719" not in reply


@pytest.mark.slow
def test_cli_forget_through_the_running_chat(running_chat) -> None:  # type: ignore[no-untyped-def]
    ws, proc = running_chat
    said = _cli(["memory", "list", "-u", "ann", "--json"], ws)
    [initech] = [json.loads(x) for x in said.stdout.splitlines() if "Initech" in x]
    done = _cli(["memory", "forget", initech["id"]], ws)
    assert done.returncode == 0, done.stderr
    assert files_holding(ws, "Initech") == []  # while the chat still runs
    out, err = proc.communicate("Where do I work?\n", timeout=120)
    assert proc.returncode == 0, err
    assert "Initech" not in out
    assert files_holding(ws, "Initech") == []


def test_show_history_tells_of_a_hand_edit(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    code, rid = _run(ws, "memory", "add", "-s", "user", "-C", "profile", "-u", "al", "Al is 40")
    rid = rid.strip()
    [md] = list(ws.glob("users/al/profile.md"))
    md.write_text(md.read_text(encoding="utf-8").replace("Al is 40", "Al is 41"), "utf-8")
    code, out = _run(ws, "memory", "show", rid, "--history", "--json")
    assert code == 0, out
    events = json.loads(out)["history"]
    assert [e["event"] for e in events] == ["upsert", "edit"]
    assert events[-1]["old"] == "Al is 40" and events[-1]["record"]["content"] == "Al is 41"
    assert json.loads(out)["content"] == "Al is 41"


def test_an_id_that_is_neither_a_memory_nor_a_turn_is_one_plain_line(tmp_path: Path) -> None:
    """A path or a malformed turn id is refused in one line that says what an id looks like."""
    ws = tmp_path / "ws"
    for bad in ("node:../../../tmp/1", "../../etc/passwd"):
        code, out = _run(ws, "memory", "forget", bad)
        assert code != 0
        assert "must match expected" not in out and "node:AGENT/DIALOGUE/N" in out, out


def test_cli_forget_of_the_home_moves_the_reminders_off_its_zone(tmp_path: Path) -> None:
    """A repeating reminder that followed the home's zone follows the zone left when the home
    is forgotten with nothing running, as in the chat: no file keeps the forgotten zone."""
    ws = tmp_path / "ws"

    async def conversation() -> None:
        async with running(ws) as bot:
            await say(bot, "remind me to water the plants every Monday at 8")
            await say(bot, "I live in Denver.")

    asyncio.run(conversation())
    assert files_holding(ws, "America/Denver") != []  # the rule followed the home
    [denver] = [r for r in _records(ws) if "Denver" in str(r["content"])]
    assert _run(ws, "memory", "forget", str(denver["id"]))[0] == 0
    assert files_holding(ws, "Denver") == []
