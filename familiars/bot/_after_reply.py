"""What follows each reply, off the reply's path: ``after`` (the writer's turn, the chat's
times) and the ephemeral clear beside it run as a task once the reply is handed to the
adapter, so the person, and the adapter's last send or edit, do not wait for them.

The task keeps the dialogue's turn lock until it ends (``DialogueManager.respond`` hands
the lock over to it), so the dialogue's next message, however it is answered, and a
proactive message there start only after it. :meth:`AfterReplies.wait` is what the
forgetter's settle awaits (the tasks running when it asks), :meth:`AfterReplies.drain` what
``settle()`` and shutdown await, so nothing a turn started is left behind them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any


class AfterReplies:
    """The running after-reply tasks, one per dialogue at most (its lock is theirs)."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}
        #: Locks let go for tasks cancelled before their first step (kept till done).
        self._letting_go: set[asyncio.Task[None]] = set()

    def start(
        self,
        key: tuple[str, str],
        work: Coroutine[Any, Any, None],
        *,
        held: contextlib.AsyncExitStack | None = None,
        unstarted: Callable[[], None] | None = None,
    ) -> None:
        """Run ``work`` (which logs its own failures) as dialogue ``key``'s after-reply
        task, holding ``held`` (the dialogue's lock, handed over) until it ends. A task
        cancelled before its first step never runs its body: its lock is let go then all
        the same (a shutdown cut short must not leave the dialogue locked), after
        ``unstarted`` (what the body would have done on a failure)."""
        lock = held or contextlib.AsyncExitStack()
        entered = False

        async def run() -> None:
            nonlocal entered
            entered = True
            async with lock:
                await work

        task = asyncio.get_running_loop().create_task(run(), name=f"after-reply {key[1]}")
        self._running[key] = task

        def ended(done: asyncio.Task[None]) -> None:
            self._ended(key, done)
            if not entered:  # cancelled before its first step
                work.close()  # never awaited: no warning
                if unstarted is not None:
                    unstarted()
                self._let_go(lock)

        task.add_done_callback(ended)

    def _let_go(self, lock: contextlib.AsyncExitStack) -> None:
        releasing = asyncio.get_running_loop().create_task(lock.aclose())
        self._letting_go.add(releasing)
        releasing.add_done_callback(self._letting_go.discard)

    def _ended(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        if self._running.get(key) is task:
            del self._running[key]

    def running(self, key: tuple[str, str]) -> bool:
        return key in self._running

    async def wait(self) -> None:
        """Every after-reply task started so far has ended; one started later is not
        waited for, so a forget waits for what was said before it, never for the traffic
        of other dialogues after it. A waiter cancelled leaves them running: they hold the
        dialogues' locks and must end on their own."""
        if pending := list(self._running.values()):
            await asyncio.wait(pending)

    async def drain(self) -> None:
        """None is running, those started meanwhile too (``settle()``, shutdown)."""
        while self._running:
            await self.wait()


__all__ = ["AfterReplies"]
