"""A message's writer work is queued the moment the message is recorded, held while its turn
runs and released with the reply in it (issue 21): a turn cut off before its end (a kill, a
failure) still has its facts written, on both homes, and a turn that ends writes them once."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application
from familiars.config import load_settings
from familiars.memory import database_url
from tests.harness import make_app, message, reply_to
from tests.homes import in_database

FACT = "The user lives in Oslo."


def _app(workspace: Path, **options: Any) -> Application:
    return make_app(load_settings(workspace=workspace), model=None, **options)


async def _facts(app: Application) -> list[str]:
    live = await app.memory.store.list(scope="user", live_only=True)
    return [r.content for r in live]


def _held_rows(workspace: Path) -> int:
    """Writer turns held while their turn runs: files ``h_*.json``, database rows with an
    owner."""
    if not in_database():
        return len(list((workspace / "state" / "writer_queue").glob("h_*.json")))
    import psycopg

    settings = load_settings(workspace=workspace)
    schema = settings.database.schema_name
    with psycopg.connect(str(database_url(settings)), autocommit=True) as c:
        row = c.execute(
            f"SELECT count(*) FROM {schema}.writer_queue WHERE owner_pid IS NOT NULL"  # type: ignore[arg-type]
        ).fetchone()
    return int(row[0]) if row else 0


def _kill_database_sessions(workspace: Path) -> None:
    """What a SIGKILL of the worker does to its sessions: every one of them ends."""
    import psycopg

    settings = load_settings(workspace=workspace)
    with psycopg.connect(str(database_url(settings)), autocommit=True) as c:
        c.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database()"
        )


async def _until(check: Any, tries: int = 400) -> bool:
    for _ in range(tries):
        if await check():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_message_cut_off_by_a_kill_before_its_reply_still_has_its_fact_written(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    """Killed mid-turn (after the message was recorded, before the reply): files, the next
    start queues the turn the dead process held; the database, another worker takes over
    the turn the dead worker's session held. Its fact is written either way."""
    from familiars.bot import _stages

    never = asyncio.Event()

    async def stuck(turn: object, s: object) -> None:
        await never.wait()  # the worker is killed while the turn is here

    after_kill = tmp_path / "after_kill"
    a = _app(workspace)
    await a.initialize()
    await a.start()
    monkeypatch.setattr(_stages, "compose", stuck)
    turn = asyncio.create_task(reply_to(a, message("I live in Oslo.", message_id="m1")))

    async def held() -> bool:
        return _held_rows(workspace) == 1

    try:
        assert await _until(held)
        await a.writer_queue.stop()  # a dead worker's queue takes nothing any more
        if in_database():
            _kill_database_sessions(workspace)
            after_kill.mkdir()  # another worker: a workspace of its own, the same database
        else:
            # What a kill -9 leaves on the disk (its control socket aside).
            shutil.copytree(workspace, after_kill, ignore=shutil.ignore_patterns("*.sock"))
        async with _app(after_kill) as b:

            async def written() -> bool:
                await b.writer_queue.drain()
                return FACT in await _facts(b)

            assert await _until(written)
            assert (await _facts(b)).count(FACT) == 1
            # Recovered held work is tainted even in a private chat: its recent lines can
            # hold an earlier reply that quoted a document or a tainted record, and which
            # turns they came from is not checked (review s33-2 item 12; s33 T11 reverted).
            live = await b.memory.store.list(scope="user", live_only=True)
            assert [r.tags for r in live if r.content == FACT][0].count("tainted-turn") == 1
    finally:
        turn.cancel()
        with contextlib.suppress(BaseException):  # the dead worker: whatever it says
            await turn
        with contextlib.suppress(Exception):
            await a.shutdown()


async def test_a_turn_that_fails_before_its_reply_still_has_its_fact_written(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    from familiars.bot import _stages

    async def broken(turn: object, s: object) -> None:
        raise RuntimeError("the model fell over")

    async with _app(workspace) as app:
        monkeypatch.setattr(_stages, "compose", broken)
        with pytest.raises(RuntimeError):
            await reply_to(app, message("I live in Oslo."))
        await app.writer_queue.drain()
        assert FACT in await _facts(app)
        assert _held_rows(workspace) == 0


async def test_a_turn_that_ends_queues_its_message_once(workspace: Path, memory_home: str) -> None:
    """Held at the message, released with the reply: the writer reads the turn once, with
    the reply in it; nothing is left held."""
    async with _app(workspace) as app:
        reply = await reply_to(app, message("I live in Oslo.", message_id="m1"))
        await app.dialogues.services.afters.wait()  # after(): once the reply is handed over
        assert _held_rows(workspace) == 0
        queued = app.writer_queue.pending()
        if not in_database():  # the files' queue: the one turn, with its reply
            (path,) = queued
            assert reply[:20] in path.read_text(encoding="utf-8")
        stats = app.writer_queue.writer.stats

        async def written() -> bool:  # the database's drain does not wait for its own take
            await app.writer_queue.drain()
            return stats.turns_processed > 0

        assert await _until(written)
        await asyncio.sleep(0.2)  # a second turn of the message would be taken by now
        assert stats.turns_processed == 1
        assert (await _facts(app)).count(FACT) == 1


async def test_a_care_message_is_never_held_for_the_writer(
    workspace: Path, memory_home: str
) -> None:
    async with _app(workspace) as app:
        await reply_to(app, message("I want to kill myself."))
        assert _held_rows(workspace) == 0
        await app.writer_queue.drain()
        assert app.writer_queue.writer.stats.turns_processed == 0


async def test_a_message_run_again_after_its_held_turn_was_written_is_not_written_twice(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    """Killed mid-turn: the held turn is written by the next start (files) or another
    worker (database). The platform then posts the message again (its 200 never went out,
    or a sweep takes the update over) and its turn runs again: the writer must not read
    the message a second time (the held one was its one queued turn)."""
    from familiars.bot import _stages

    never = asyncio.Event()

    async def stuck(turn: object, s: object) -> None:
        await never.wait()

    after_kill = tmp_path / "after_kill"
    a = _app(workspace)
    await a.initialize()
    await a.start()
    real_compose = _stages.compose
    monkeypatch.setattr(_stages, "compose", stuck)
    turn = asyncio.create_task(reply_to(a, message("I live in Oslo.", message_id="m1")))

    async def held() -> bool:
        return _held_rows(workspace) == 1

    try:
        assert await _until(held)
        await a.writer_queue.stop()
        if in_database():
            _kill_database_sessions(workspace)
            after_kill.mkdir()
        else:
            shutil.copytree(workspace, after_kill, ignore=shutil.ignore_patterns("*.sock"))
        monkeypatch.setattr(_stages, "compose", real_compose)
        async with _app(after_kill) as b:
            stats = b.writer_queue.writer.stats

            async def written() -> bool:
                await b.writer_queue.drain()
                return stats.turns_processed == 1

            assert await _until(written)  # the dead one's held turn
            await reply_to(b, message("I live in Oslo.", message_id="m1"))  # posted again
            await b.writer_queue.drain()
            await asyncio.sleep(0.3)  # a second queued turn would be taken by now
            await b.writer_queue.drain()
            assert stats.turns_processed == 1
    finally:
        turn.cancel()
        with contextlib.suppress(BaseException):
            await turn
        with contextlib.suppress(Exception):
            await a.shutdown()


async def test_a_care_turn_cut_off_after_its_plan_never_reaches_the_writer(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    """A message found worrying by its meaning (not by the words the recording checks) is
    held like any other; once the plan makes it a care turn its held work must go, so a
    failure after that (a send that fails) never lets the writer read it."""
    from familiars.bot import _stages, _turn_plan

    async def worrying(self: object, text: str, understanding: object) -> bool:
        return True

    async def broken(turn: object, s: object) -> None:
        raise RuntimeError("the platform fell over")

    monkeypatch.setattr(_turn_plan.TurnPlanner, "_worrying", worrying)
    async with _app(workspace) as app:
        monkeypatch.setattr(_stages, "compose", broken)
        with pytest.raises(RuntimeError):
            await reply_to(app, message("I live in Oslo."))
        await app.writer_queue.drain()
        await asyncio.sleep(0.2)
        await app.writer_queue.drain()
        assert app.writer_queue.writer.stats.turns_processed == 0
        assert FACT not in await _facts(app)
        assert _held_rows(workspace) == 0
