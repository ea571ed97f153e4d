"""``memory.max_record_chars`` on every path that writes a record (issue 19: ``memory add``
through the control socket stored 3,000,000 characters, then ``memory check`` failed).

The limit lives in the store's write path, so each door is driven to the same refusal
(``too long: N characters; the limit is L (memory.max_record_chars)``) and nothing is stored:
the store's own calls, a write request (``familiars memory add`` with nothing running), the
running bot's control socket, the CLI, the writer (even one called without the setting)
and the model's ``remember`` tool. The commands (``/memory ...``) and the HTTP API have no
way to add or edit a record's text; the scan below would show a new one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.bot._control import socket_path
from familiars.cli import app as cli
from familiars.config import load_settings
from familiars.memory import (
    Forgetter,
    MemoryError_,
    MemoryStore,
    RecordTooLongError,
    apply_write,
    apply_writes_report,
    make_record,
    open_workspace,
    send_request,
)
from tests.bot.test_turn_tools import ALICE, running
from tests.bot.tool_script import one, relay

LIMIT = 2000
OVER = "y" * (LIMIT + 1)
REFUSAL = "too long: 2,001 characters; the limit is 2,000 (memory.max_record_chars)"
ATTACK = "z" * 3_000_000  # the size the attack stored


def _add(content: str) -> dict[str, object]:
    return {"op": "add", "scope": "user", "category": "profile", "user_key": "al", **{
        "content": content
    }}  # fmt: skip


async def _texts(store: MemoryStore) -> list[str]:
    return [r.content for r in await store.list(live_only=False)]


async def test_the_store_refuses_every_kind_of_write_over_the_limit(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path / "ws", max_record_chars=LIMIT) as store:
        kept = await store.append(make_record("ok", scope="user", category="profile", user_key="a"))
        calls = {
            "append": lambda: store.append(
                make_record(OVER, scope="user", category="profile", user_key="a")
            ),
            "append_many": lambda: store.append_many(
                [make_record(OVER, scope="dialogue", category="event", dialogue_id="dialogue_1")]
            ),
            "update": lambda: store.update(kept.id, OVER),
            "modify": lambda: store.modify(kept.id, content=OVER),
        }
        for name, call in calls.items():
            with pytest.raises(RecordTooLongError) as caught:
                await call()
            assert str(caught.value) == REFUSAL, name
        assert await _texts(store) == ["ok"]
        # At the limit is fine, and a record's other fields still change.
        assert (await store.update(kept.id, "x" * LIMIT)).content == "x" * LIMIT


async def test_a_write_request_and_the_writer_are_refused_by_the_store(tmp_path: Path) -> None:
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=False) as mw:
        for content in (OVER, ATTACK):
            with pytest.raises(MemoryError_) as caught:
                await apply_write(mw, _add(content), forgetter=Forgetter.for_workspace(mw))
            assert str(caught.value).startswith("too long: ")
        # A writer called without the setting (its own check off) still stores nothing.
        out = {"writes": [{"op": "add", "scope": "user", "category": "preference",
                           "entry": {"content": OVER}}]}  # fmt: skip
        report = await apply_writes_report(
            out, store=mw.store, user_key="al", max_record_chars=10**7
        )
        assert report.added == 0 and report.rejected == 1
        assert REFUSAL in report.problems[0]
        assert await _texts(mw.store) == []


def test_the_cli_refuses_in_one_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    args = ["--workspace", str(ws), "memory", "add", "-s", "user", "-C", "profile", "-u", "al"]
    result = CliRunner().invoke(cli, [*args, OVER])
    assert result.exit_code == 1 and result.output.strip().splitlines() == [f"error: {REFUSAL}"]
    assert not list(ws.glob("users/*/*.md"))


async def test_the_running_bot_refuses_over_its_socket_and_from_the_model(
    workspace: Path,
) -> None:
    async with running(workspace) as bot:
        control = str(socket_path(workspace))
        for content, error in ((OVER, REFUSAL), (ATTACK, "request too large")):
            with pytest.raises(MemoryError_) as caught:
                await asyncio.to_thread(send_request, control, _add(content))
            assert error in str(caught.value)

        bot.script.turn(one("remember", {"text": OVER}), relay())
        await bot.say("remember this")
        assert bot.script.tool_messages()[-1] == f"error: {REFUSAL}"
        assert await bot.records(scope="user", user_key=ALICE) == []
        assert await bot.records(scope="user", user_key="al") == []
