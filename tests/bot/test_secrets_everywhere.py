"""Secrets are masked on every path that writes a record's text (a person testing the bot:
``familiars memory add "Zoe's wifi password is hunter2"`` kept the password in clear, while
``/memory edit`` masked it and the README says what the redactor finds is stored masked).

The masking lives in the store's write path, beside the length limit, so each door is driven
to the same end: the store's own calls, ``familiars memory add`` with nothing running, the
running bot's control socket and the model's ``remember`` tool. No file of the workspace holds
the secret afterwards; the record says ``[PASSWORD]`` / ``[CARD]`` instead.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from familiars.bot._control import socket_path
from familiars.cli import app as cli
from familiars.memory import MemoryStore, make_record, send_request
from tests.bot.test_turn_tools import ALICE, running
from tests.bot.tool_script import one, relay

SECRET = "the wifi password is hunter2xyz"
CARD = "card 4111 1111 1111 1111"


def _holding(ws: Path, needle: str) -> list[Path]:
    return [p for p in ws.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


async def test_every_store_write_keeps_a_secret_masked(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with MemoryStore(ws) as store:
        first = await store.append(
            make_record(f"Zoe says {SECRET}", scope="user", category="profile", user_key="z")
        )
        [second] = await store.append_many(
            [make_record(f"Zoe's {CARD}", scope="user", category="profile", user_key="z")]
        )
        updated = await store.update(first.id, f"Zoe changed it: {SECRET}")
        modified = await store.modify(second.id, content=f"again {CARD}")
    assert "[PASSWORD]" in first.content and "[PASSWORD]" in updated.content
    assert "[CARD]" in second.content and "[CARD]" in modified.content
    assert _holding(ws, "hunter2xyz") == [] and _holding(ws, "4111 1111") == []


def test_memory_add_from_the_shell_keeps_a_secret_masked(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    args = ["--workspace", str(ws), "memory", "add", "-s", "user", "-C", "profile", "-u", "zoe"]
    result = CliRunner().invoke(cli, [*args, f"Zoe's {SECRET}"])
    assert result.exit_code == 0, result.output
    assert "hunter2xyz" not in result.output
    assert _holding(ws, "hunter2xyz") == []
    assert any("[PASSWORD]" in p.read_text() for p in ws.glob("users/zoe/*.md"))


async def test_the_running_bot_keeps_a_secret_masked_from_its_socket_and_the_model(
    workspace: Path,
) -> None:
    async with running(workspace) as bot:
        add = {"op": "add", "scope": "user", "category": "profile", "user_key": "al"}
        await asyncio.to_thread(
            send_request, str(socket_path(workspace)), {**add, "content": f"Al's {SECRET}"}
        )
        bot.script.turn(one("remember", {"text": f"My {CARD}"}), relay())
        await bot.say("remember my card")
        kept = await bot.records(scope="user", user_key="al")
        kept += await bot.records(scope="user", user_key=ALICE)
        assert any("[PASSWORD]" in r.content for r in kept)
        assert all("hunter2xyz" not in r.content and "4111 1111" not in r.content for r in kept)
    assert _holding(workspace, "hunter2xyz") == []


PIN = "my bank PIN is 4921, don't tell anyone"


async def test_a_pin_told_in_a_chat_is_kept_masked_everywhere(tmp_path: Path) -> None:
    """Tester F16: the message sat in ``dialogue.json`` in clear (passwords were masked, PINs
    were not); the journal, the memory and every other file keep ``[PASSWORD]``."""
    from tests.bot.test_forget_everywhere import offline

    ws = tmp_path / "ws"
    async with offline(ws) as bot:
        await bot.say(PIN)
        await bot.say("the code for the gate is 2580")
    # the words around the digits: a bare "4921" may be in a timestamp by chance
    assert _holding(ws, "PIN is 4921") == [] and _holding(ws, "gate is 2580") == []
    journal = (ws / "agents" / "agent_0" / "dialogue_0" / "dialogue.json").read_text()
    assert "my bank PIN is [PASSWORD]" in journal


def test_memory_add_from_the_shell_keeps_a_pin_masked(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    args = ["--workspace", str(ws), "memory", "add", "-s", "user", "-C", "profile", "-u", "zoe"]
    result = CliRunner().invoke(cli, [*args, "Zoe's door code is 7731"])
    assert result.exit_code == 0, result.output
    assert _holding(ws, "code is 7731") == []
