"""A forget killed half way (SIGKILL of a real process) is finished at the next start, on
both homes: its intent (``state/forgetting/``) was written before the first step, so the
start (the bot's, or the CLI's next write) finds it and forgets what is left, the derived
copies of what went before the kill too (the index's vectors and keyword segments, the
writer queue's copies, the state JSON). Afterwards no file of the workspace and no table of
the database holds a needle, no vector of a forgotten text is left, and no intent stays.

The kill points: after every first place is done but before any derived copy (``scrub``),
and in the middle of folding tombstones into the dialogues (``rewrite:N``). The doors: a
whole person (``--person``) and a single memory (``m_...``), killed in the CLI; the start
that finishes it: the bot's, or the CLI's next write."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app as cli_app
from familiars.config import load_settings
from familiars.memory import content_hash, database_url
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, TOKEN, running
from tests.bot.test_forget_person import BOBS, FILE_NEEDLE, HERS, _alice_everywhere
from tests.homes import state_home_at

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
#: A single memory's needle (not digits alone: they collide with timestamps).
NEEDLE = "QX4471"


def _crash(ws: Path, point: str, *args: str) -> None:
    """``familiars --workspace WS ARGS`` in a process of its own, SIGKILLed at ``point``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "tests.memory.forget_crash", point, "--workspace", str(ws), *args]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == -9, (done.returncode, done.stdout[-2000:], done.stderr[-4000:])


def _cli(ws: Path, *args: str) -> str:
    result = CliRunner().invoke(cli_app, ["--workspace", str(ws), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _vectors_of(ws: Path, texts: list[str]) -> int:
    """How many cached vectors the index keeps of ``texts`` (either home)."""
    hashes = [content_hash(t) for t in texts]
    settings = load_settings(workspace=ws)
    url = database_url(settings)
    if url is None:
        with sqlite3.connect(ws / "familiars.db") as db:
            marks = ",".join("?" * len(hashes))
            query = f"SELECT count(*) FROM vectors WHERE content_hash IN ({marks})"  # noqa: S608
            return int(db.execute(query, hashes).fetchone()[0])
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        query = sql.SQL("SELECT count(*) FROM {}.vectors WHERE content_hash = ANY(%s)").format(
            sql.Identifier(settings.database.schema_name)
        )
        row = conn.execute(query, (hashes,)).fetchone()
        return int(row[0]) if row else 0


async def _intents(ws: Path) -> list[str]:
    async with state_home_at(ws) as home:
        return await asyncio.to_thread(home.names, "state/forgetting/", ".json")


def _left(ws: Path, needles: list[str]) -> list[str]:
    return [f"{n}: {f}" for n in needles for f in files_holding(ws, n)]


async def _restart(ws: Path, how: str) -> None:
    if how == "bot":
        async with running(ws):
            pass
    else:  # the CLI's next write, with no bot running
        await asyncio.to_thread(
            _cli, ws, "memory", "add", "Bob likes tea.", "--scope", "user",
            "--category", "preference", "--user", "telegram_u2",
        )  # fmt: skip


@pytest.mark.parametrize(("point", "start"), [("scrub", "bot"), ("rewrite:2", "cli")])
async def test_a_whole_person_forget_killed_half_way_is_finished_at_the_next_start(
    point: str, start: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", TOKEN)
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await _alice_everywhere(bot)
        texts = [r.content for r in await bot.app.memory.store.list(user_key=ALICE)]
    needles = [*HERS, FILE_NEEDLE]
    assert texts and _vectors_of(ws, texts)
    await asyncio.to_thread(_crash, ws, point, "memory", "forget", "--person", ALICE, "--yes")
    assert _left(ws, needles), "the kill came after the forget was done: nothing to resume"
    assert len(await _intents(ws)) == 1

    await _restart(ws, start)
    assert _left(ws, needles) == []
    assert _vectors_of(ws, texts) == 0
    assert await _intents(ws) == []
    assert files_holding(ws, BOBS)  # Bob's words stay


async def test_a_single_forget_killed_before_its_derived_copies_is_finished_by_the_bot(
    tmp_path: Path, memory_home: str
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say(f"My dog is called {NEEDLE}.")
        await bot.say(f"My favourite fruit is the {BOBS} plum.", user="u2", chat="u2", name="Bob")
        [rec] = [r for r in await bot.app.memory.store.list() if NEEDLE in r.content]
    assert _vectors_of(ws, [rec.content])
    await asyncio.to_thread(_crash, ws, "scrub", "memory", "forget", rec.id)
    assert _left(ws, [NEEDLE])  # the queue's copy of the turn, the keyword segments
    async with running(ws) as bot:
        assert NEEDLE not in await bot.say("What is my dog called?")
    assert _left(ws, [NEEDLE]) == []
    assert _vectors_of(ws, [rec.content]) == 0
    assert await _intents(ws) == []
    assert files_holding(ws, BOBS)


async def test_a_forget_killed_between_an_entry_and_its_history_leaves_no_history(
    tmp_path: Path,
) -> None:
    """Killed after the entry left its file but before its history was purged (tester
    s34 U60): the start notes the entry's removal as a hand edit, the whole record with
    it, and the resumed forget, which cannot find the entry, still purges that history."""
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say(f"My dog is called {NEEDLE}.")
        [rec] = [r for r in await bot.app.memory.store.list() if NEEDLE in r.content]
    await asyncio.to_thread(_crash, ws, "purge", "memory", "forget", rec.id)
    assert any(".history.jsonl" in f for f in _left(ws, [NEEDLE])), _left(ws, [NEEDLE])
    async with running(ws) as bot:
        assert NEEDLE not in await bot.say("What is my dog called?")
    assert _left(ws, [NEEDLE]) == []
    assert await _intents(ws) == []


async def test_a_damaged_intent_does_not_stop_the_start_and_is_kept(tmp_path: Path) -> None:
    """An intent that cannot be read is said in the log and kept for a look by hand; the
    bot starts and serves."""
    ws = tmp_path / "ws"
    damaged = ws / "state" / "forgetting" / "f_0000000000000000.json"
    damaged.parent.mkdir(parents=True)
    damaged.write_text('{"ids": [', encoding="utf-8")
    async with running(ws) as bot:
        assert await bot.say(f"My dog is called {NEEDLE}.")
    assert damaged.read_text(encoding="utf-8") == '{"ids": ['
