"""After the reply (issue 20): after() and the ephemeral clear run in a task once the reply
is handed over, holding the dialogue's lock. The reply is durable before it is handed over;
the dialogue's next message waits for the task, a forget for the tasks running when it
asks, settle() and shutdown for them all; a failed after() still ends its turn and goes to
the log, and a full disk it found is said first in the dialogue's next reply. These count
what ran and in which order; none of them times anything."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application, _stages
from familiars.bot._adapters.base import PlatformAdapter
from familiars.bot._after_reply import AfterReplies
from familiars.bot._dialogue import DISK_FULL_AFTER, DialogueManager
from familiars.memory import make_record
from familiars.scheduler import ProactiveMessage
from tests.harness import T0, make_app, message, reply_to

pytestmark = pytest.mark.timeout(60)

FIRST = "I live in Oslo and I work as a nurse."


class _HeldAfter:
    """after() of the stages, held at its start until ``go`` is set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.go = asyncio.Event()
        self.started = 0
        self.ended = 0
        real = _stages.after

        async def held(turn: Any, s: Any) -> None:
            self.started += 1
            await self.go.wait()
            await real(turn, s)
            self.ended += 1

        monkeypatch.setattr(_stages, "after", held)


async def _turns(n: int = 20) -> None:
    """Let the loop run ``n`` rounds (the tasks started get their turn)."""
    for _ in range(n):
        await asyncio.sleep(0)


def _manager(app: Application) -> DialogueManager:
    assert isinstance(app.dialogues, DialogueManager)
    return app.dialogues


async def test_after_runs_once_the_reply_is_handed_over_and_the_next_message_waits(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _HeldAfter(monkeypatch)
    async with make_app(workspace) as app:
        # The reply is whole, and kept, while after() has not run: respond ended before it.
        reply = await asyncio.wait_for(reply_to(app, message(FIRST)), 10)
        assert reply and held.ended == 0
        (tree,) = app.trees.open_trees()
        kept = list(workspace.glob("agents/*/*/pending_reply.json"))
        assert kept or [n.content for n in tree.node_list if n.node_type == "A"] == [reply]
        await _turns()
        assert held.started == 1 and held.ended == 0
        # The next message of the dialogue waits for it: not even its node is placed.
        placed: list[str] = []
        real_record = _stages.record_message

        async def record(turn: Any, s: Any) -> None:
            placed.append(turn.text)
            await real_record(turn, s)

        monkeypatch.setattr(_stages, "record_message", record)
        second = asyncio.create_task(reply_to(app, message("I have a cat.", minutes=1)))
        await _turns()
        assert not second.done() and placed == []
        held.go.set()
        assert await asyncio.wait_for(second, 10)
        assert placed == ["I have a cat."] and held.ended >= 1
        await app.settle()
        assert held.ended == 2
        kinds = [n.node_type for n in tree.node_list]
        assert kinds == ["Q", "A", "Q", "A"]  # the order of the tree holds


async def test_another_dialogue_does_not_wait_for_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _HeldAfter(monkeypatch)
    async with make_app(workspace) as app:
        await reply_to(app, message(FIRST))
        other = await asyncio.wait_for(
            reply_to(app, message("Hello there.", chat="c1", user="u2", name="Bo")), 10
        )
        assert other and held.started == 2 and held.ended == 0
        held.go.set()
        await app.settle()
        assert held.ended == 2


async def test_settle_and_shutdown_wait_for_after(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _HeldAfter(monkeypatch)
    async with make_app(workspace) as app:
        await reply_to(app, message(FIRST))
        settling = asyncio.create_task(_manager(app).settle())
        await _turns()
        assert not settling.done() and held.ended == 0
        held.go.set()
        await asyncio.wait_for(settling, 10)
        assert held.ended == 1
        held.go.clear()
        await reply_to(app, message("I have a cat.", minutes=1))
        asyncio.get_running_loop().call_soon(held.go.set)  # shutdown finds it still held
    assert held.ended == 2
    # What after() wrote is on disk after the stop: the writer's turn, the chat's times.
    async with make_app(workspace) as again:
        await again.writer_queue.drain()
        texts = [r.content for r in await again.memory.store.list(scope="user")]
        assert any("cat" in t for t in texts), texts


class _Sink(PlatformAdapter):
    """A running "telegram" adapter that only records what the familiar sends itself."""

    name = "telegram"

    def __init__(self) -> None:
        super().__init__(handler=None)  # type: ignore[arg-type]
        self.sent: list[tuple[str, str]] = []

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        self.sent.append((chat_id, text))
        return str(len(self.sent))


async def test_a_proactive_message_waits_for_it_and_an_unstarted_app_drains_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message the familiar sends first into the dialogue goes out only once the turn's
    after() ended (it takes the dialogue's lock too); an app opened but never started
    waits for after() at shutdown, before its storage closes."""
    held = _HeldAfter(monkeypatch)
    app = make_app(workspace, scheduler=True)
    await app.initialize()
    try:
        sink = _Sink()
        app.running_adapters.add(sink)
        await reply_to(app, message(FIRST, platform="telegram"))
        (info,) = await app.state.dialogues()
        assert app.scheduler is not None
        nudge = ProactiveMessage(
            agent_id=info.agent_id, dialogue_id=info.dialogue_id, user_key=None,
            text="How was the shift?", kind="check_in", reason="quiet",
        )  # fmt: skip
        sending = asyncio.create_task(app.scheduler.sender.send_proactive(nudge))
        await _turns()
        assert not sending.done() and sink.sent == []
        held.go.set()
        await asyncio.wait_for(sending, 10)
        assert sink.sent == [("c0", "How was the shift?")] and held.ended == 1
        held.go.clear()
        await reply_to(app, message("I have a cat.", platform="telegram", minutes=1))
        closing = asyncio.create_task(app.shutdown())
        # Bounded, and only ever a false pass: a shutdown that left it would be done by then.
        await asyncio.wait({closing}, timeout=1)
        assert not closing.done() and held.ended == 1
        held.go.set()
        await asyncio.wait_for(closing, 10)
    finally:
        held.go.set()
        await app.shutdown()
    assert held.ended == 2


async def test_a_forget_waits_for_the_after_running_when_it_asks(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forget (the one Forgetter's settle, which every forget runs first) waits for an
    after() running when it asks: what that turn queues for the writer is there to forget."""
    held = _HeldAfter(monkeypatch)
    async with make_app(workspace) as app:
        await reply_to(app, message(FIRST))
        forgetting = asyncio.create_task(app.services.forgetter.settle())
        await _turns()
        assert not forgetting.done() and held.ended == 0
        held.go.set()
        await asyncio.wait_for(forgetting, 10)
        assert held.ended == 1


async def test_a_waiter_waits_for_the_tasks_running_when_it_asked_not_for_later_ones() -> None:
    """Dialogue A's after() runs when the forget asks; dialogue B's starts after: the forget
    goes on once A's ended, though B's is still running (B talking on held it before)."""
    afters = AfterReplies()
    first, later = asyncio.Event(), asyncio.Event()

    async def until(event: asyncio.Event) -> None:
        await event.wait()

    afters.start(("agent_0", "a"), until(first))
    waiting = asyncio.create_task(afters.wait())
    await _turns(2)
    afters.start(("agent_0", "b"), until(later))
    first.set()
    await asyncio.wait_for(waiting, 5)
    assert afters.running(("agent_0", "b"))
    draining = asyncio.create_task(afters.drain())  # settle and shutdown wait for it all
    await _turns(2)
    assert not draining.done()
    later.set()
    await asyncio.wait_for(draining, 5)
    assert not afters.running(("agent_0", "b"))


def _after_fails_on(monkeypatch: pytest.MonkeyPatch, texts: set[str], exc: Exception) -> None:
    """after() of the stages raises ``exc`` for a turn whose message is one of ``texts``."""
    real = _stages.after

    async def after(turn: Any, s: Any) -> None:
        if turn.text in texts:
            raise exc
        await real(turn, s)

    monkeypatch.setattr(_stages, "after", after)


async def test_a_turn_whose_after_failed_still_ends_and_is_logged(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An ephemeral record written after the first turn is the second turn's to use; the
    second turn's after() fails (logged: its reply was sent), yet the third turn runs and
    clears the record (a turn that never ended would leave it one more turn)."""
    _after_fails_on(monkeypatch, {"Second."}, RuntimeError("after fell over"))
    async with make_app(workspace, model=None) as app:
        await reply_to(app, message("First."))
        await app.settle()
        (tree,) = app.trees.open_trees()
        said = make_record(
            "The user is in a hurry.",
            scope="ephemeral",
            category="state",
            dialogue_id=tree.dialogue_id,
            ts=(T0 + timedelta(minutes=1)).isoformat(timespec="seconds"),
        )
        await app.memory.store.append(said)
        with caplog.at_level(logging.ERROR):
            second = await reply_to(app, message("Second.", minutes=2))
            await app.settle()
        assert second and "after fell over" in caplog.text
        third = await asyncio.wait_for(reply_to(app, message("Third.", minutes=3)), 10)
        await app.settle()
        kept = await app.memory.store.list(scope="ephemeral", dialogue_id=tree.dialogue_id)
    assert third
    assert said.id not in [r.id for r in kept]


async def test_a_full_disk_after_the_reply_is_said_first_in_the_next_reply(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reply was handed over before after() found the disk full: the person hears it at
    the start of their next reply, once, and only in that dialogue."""
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    _after_fails_on(monkeypatch, {"My name is Ann."}, full)
    async with make_app(workspace, model=None) as app:
        first = await reply_to(app, message("My name is Ann."))
        await app.settle()
        elsewhere = await reply_to(app, message("Hello.", chat="c1", user="u2", minutes=1))
        second = await reply_to(app, message("How are you?", minutes=2))
        third = await reply_to(app, message("Good night.", minutes=3))
        await app.settle()
    assert DISK_FULL_AFTER not in first
    assert DISK_FULL_AFTER not in elsewhere
    assert second.startswith(DISK_FULL_AFTER)
    assert DISK_FULL_AFTER not in third


async def test_a_task_cancelled_before_its_first_step_lets_go_of_the_lock() -> None:
    """A shutdown cut short may cancel an after-reply task before it ran a step: its body
    never runs, but the dialogue's lock handed to it is let go all the same, and what the
    body would have done on a failure is done (review s38 F8)."""
    afters = AfterReplies()
    lock = asyncio.Lock()
    held = contextlib.AsyncExitStack()
    await held.enter_async_context(lock)
    ran: list[str] = []

    async def work() -> None:
        ran.append("body")

    afters.start(("agent_0", "a"), work(), held=held, unstarted=lambda: ran.append("unstarted"))
    (task,) = afters._running.values()
    task.cancel()  # before its first step
    await _turns(3)
    assert task.cancelled() and not afters.running(("agent_0", "a"))
    assert not lock.locked()
    assert ran == ["unstarted"]


async def test_in_a_group_the_full_disk_note_goes_through_the_group_check(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note is said to whoever speaks next in a group: it passes the one group check
    as every group text does (review s38 F8)."""
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    _after_fails_on(monkeypatch, {"My name is Ann."}, full)
    async with make_app(workspace, model=None) as app:
        checked: list[str] = []
        guard = app.dialogues.outbound.guard

        async def spy(dialogue: Any, text: str, **options: Any) -> Any:
            checked.append(text)
            return await guard(dialogue, text, **options)

        monkeypatch.setattr(app.dialogues.outbound, "guard", spy)
        await reply_to(app, message("My name is Ann.", group=True))
        await app.settle()
        second = await reply_to(app, message("How are you?", group=True, user="u2", minutes=2))
        await app.settle()
    assert second.startswith(DISK_FULL_AFTER)
    assert DISK_FULL_AFTER in checked
