"""What other workers changed, for this worker's caches (the reader's rows).

Every batch a store writes adds ``record_changes`` rows (record id, removed or not, the
writing worker's ``origin``) and sends a NOTIFY on the schema's channel in the same
transaction. :class:`ChangeFeed` LISTENs on its own connection and, on each notification
(and every ``poll_s`` in case one was missed while reconnecting), reads the rows after the
last one it saw (on the index's connection, through ``fetch``), leaves out its own worker's,
and hands the rest to ``deliver``.

Sequence numbers are taken when a row is written, not when its transaction commits, so a
number below the last one seen may still appear: the numbers skipped are kept as gaps and
asked for again until ``gap_s`` has passed (a rolled-back batch leaves a gap for ever).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import psycopg
from psycopg import sql

from familiars.memory._pg._connect import aconnect, notify_channel

logger = logging.getLogger(__name__)

Deliver = Callable[[list[str], list[str]], Awaitable[None]]


Fetch = Callable[[str, Sequence[Any]], Awaitable[list[tuple[Any, ...]]]]


class ChangeFeed:
    """``fetch`` runs a query on a connection of the caller's (the index's): the LISTEN
    connection only waits, so reading never queues behind a wait."""

    def __init__(
        self,
        url: str,
        schema: str,
        origin: str,
        deliver: Deliver,
        fetch: Fetch,
        *,
        poll_s: float = 5.0,
        wait_s: float = 1.0,
    ) -> None:
        self.url = url
        self.schema = schema
        self.origin = origin
        self.deliver = deliver
        self.fetch = fetch
        self.poll_s = poll_s
        self.wait_s = wait_s
        self.last_seq = 0
        self.gap_s = 30.0
        self._gaps: dict[int, float] = {}  # seq not seen yet -> when it was first missed
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None
        self._reading = asyncio.Lock()  # one catch-up at a time: none delivered twice

    async def start(self) -> None:
        self._conn = await aconnect(self.url, self.schema)
        await self._conn.execute(sql.SQL("LISTEN {}").format(notify_channel(self.schema)))
        rows = await self.fetch("SELECT coalesce(max(seq), 0) FROM record_changes", ())
        self.last_seq = int(rows[0][0]) if rows else 0
        self._task = asyncio.create_task(self._run(), name="memory-change-feed")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def _run(self) -> None:
        assert self._conn is not None
        last_poll = 0.0
        while True:
            try:
                told = False
                async for _ in self._conn.notifies(timeout=self.wait_s, stop_after=1):
                    told = True
                if told or time.monotonic() - last_poll >= self.poll_s:
                    last_poll = time.monotonic()
                    await self.catch_up()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the feed must outlive one bad read
                logger.exception("memory change feed: reading changes failed; retrying")
                await asyncio.sleep(self.poll_s)

    async def catch_up(self) -> int:
        """Deliver the changes after the last one seen (and any gap filled since); returns
        how many records."""
        async with self._reading:
            return await self._catch_up()

    async def _catch_up(self) -> int:
        now = time.monotonic()
        self._gaps = {seq: t for seq, t in self._gaps.items() if now - t < self.gap_s}
        rows = await self.fetch(
            "SELECT seq, origin, record_id, removed FROM record_changes "
            "WHERE seq > %s OR seq = ANY(%s) ORDER BY seq",
            (self.last_seq, list(self._gaps)),
        )
        if not rows:
            return 0
        for seq, *_ in rows:
            self._gaps.pop(int(seq), None)
        top = int(rows[-1][0])
        seen = {int(r[0]) for r in rows}
        if top - self.last_seq < 10_000:  # past that, a burst: the poll catches stragglers
            for seq in range(self.last_seq + 1, top):
                if seq not in seen:
                    self._gaps[seq] = now
        self.last_seq = max(self.last_seq, top)
        latest: dict[str, tuple[str, bool]] = {}
        for _, origin, record_id, removed in rows:
            latest[record_id] = (origin, bool(removed))
        theirs = {rid: gone for rid, (origin, gone) in latest.items() if origin != self.origin}
        if theirs:
            upserted = [rid for rid, gone in theirs.items() if not gone]
            removed_ids = [rid for rid, gone in theirs.items() if gone]
            await self.deliver(upserted, removed_ids)
        return len(theirs)
