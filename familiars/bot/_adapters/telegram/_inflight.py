"""Handler calls in flight, as chat lanes: the jobs of one chat (forum topic) run strictly in
order, different chats concurrently (bounded), so ``stop`` can let them finish."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

Job = Callable[[], Awaitable[None]]
LaneKey = tuple[str, str | None]
_Queued = tuple[Job, "asyncio.Future[None]"]


class ChatLanes:
    """One queue per chat: jobs of a chat run in order, chats run concurrently (bounded)."""

    def __init__(self, limit: int, on_error: Callable[[BaseException], None]) -> None:
        self._on_error = on_error
        self._queues: dict[LaneKey, deque[_Queued]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(limit)

    def submit(self, key: LaneKey, job: Job) -> asyncio.Future[None]:
        """Queue ``job``; the future is done when it has run (failed or not) or was
        cancelled by ``close``."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        queue = self._queues.get(key)
        if queue is not None:
            queue.append((job, done))
            return done
        self._queues[key] = deque([(job, done)])
        task = loop.create_task(self._drain(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return done

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    async def close(self, timeout: float) -> None:
        """Let queued jobs finish for up to ``timeout`` seconds, then cancel the rest."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _run(self, job: Job) -> None:
        # The one place a failed job is caught: it is reported, and the chat's next
        # message is still handled.
        try:
            await job()
        except Exception as exc:
            self._on_error(exc)

    async def _drain(self, key: LaneKey) -> None:
        queue = self._queues[key]
        try:
            while queue:
                job, done = queue.popleft()
                try:
                    async with self._slots:
                        await self._run(job)
                finally:
                    if not done.done():
                        done.set_result(None)
        finally:
            for _, done in queue:  # cancelled by close: nobody waits for these any more
                done.cancel()
            del self._queues[key]
