"""Handler calls in progress, so ``stop`` can let them finish before disconnecting."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class InFlight:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()
        self.accepting = True

    @contextmanager
    def track(self) -> Iterator[None]:
        """Count the current task as in flight while the body runs."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            yield
        finally:
            if task is not None:
                self._tasks.discard(task)

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout_s: float) -> None:
        """Stop taking new work and wait (up to ``timeout_s``) for the work in progress."""
        self.accepting = False
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout_s)
