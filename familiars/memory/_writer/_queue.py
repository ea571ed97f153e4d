"""WriterQueue: turns waiting for the writer, off the reply's hot path, one file each, so a
crash or restart loses no turn, and no turn stops the queue: one that cannot be read or
processed, whatever it raises, goes to ``failed/`` with the reason beside it
(``t_<id>.json`` + ``t_<id>.reason.txt``), and so does a copy of every turn whose model
answer was set aside (its facts were still stored, by the offline writer). A full disk is
not the turn's fault: that turn stays queued, tried again once a later turn could be queued
(there is space again) or at the next start.

A message's writer work is queued the moment the message is recorded (:meth:`WriterQueue.
hold`), held while its turn runs (on files ``h_<id>.json``; in the database a row held by
the worker's session), and released with the reply in it when the turn ends
(:meth:`WriterQueue.release`): one queued turn per message, and a message whose turn never
ended (a kill, a crash) still has its facts written, at the next start on files, by any
worker in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import Any

from familiars.memory._atomic import atomic_write_text, is_disk_full, remove_stale_temp_files
from familiars.memory._records import iso_now, new_id
from familiars.memory._state_home import QueuedTurn, StateHome
from familiars.memory._writer._model import MemoryWriter, error_reason
from familiars.memory._writer._status import STATUS_SAVE_EVERY_S, pending_turn_files, queue_dir
from familiars.memory._writer._turn import TurnContext

logger = logging.getLogger(__name__)

#: The database home: how often an idle worker looks for turns it was not woken for.
SHARED_POLL_S = 5.0
#: Files: the folder (in the queue's) naming every turn held (empty files, no words), so a
#: message whose turn runs again after its held turn was processed is not queued twice;
#: kept this long (a platform posts a message again within about a day).
SEEN = "seen"
SEEN_KEEP_S = 3 * 86400.0


class WriterQueue:
    """Turns waiting for the writer, off the reply's hot path. Each turn is a file in
    ``<workspace>/state/writer_queue/`` (written atomically before :meth:`enqueue` returns and
    removed only after its writes are applied), so a crash or restart loses no turn: on
    :meth:`start` the files left behind are processed first, in order. A turn whose
    processing raises (anything: a poisoned file never stops a restart) is moved to
    ``failed/`` beside them with its reason, kept for a person to look at (moving it back
    queues it again), and counted; the queue goes on with the next one. Temp files an
    interrupted enqueue left are removed on :meth:`start`.

    In the database home (``home`` given, not the files) each turn is a row of
    ``writer_queue`` instead, and any number of workers drain one queue: each turn is taken
    ``FOR UPDATE SKIP LOCKED`` (:meth:`StateHome.take_turn`) and leaves the table in the
    transaction that took it, once processed (or is marked failed with its reason); a
    worker that dies mid-turn leaves it queued for the next."""

    def __init__(self, writer: MemoryWriter, home: StateHome | None = None) -> None:
        self.writer = writer
        self.home = home if home is not None and home.kind != "files" else None
        self.folder = queue_dir(writer.workspace)
        self.failed_folder = self.folder / "failed"
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        #: Stopped by :meth:`abort`: a drain after it returns at once (the turns are left
        #: for the next start, not written here in the stop the person hurried past).
        self._aborted = False
        #: Turns that could be neither processed nor moved aside (a read-only folder): left
        #: where they are, and not tried again by this process.
        self._stuck: set[Path] = set()
        #: Held turns of turns that ended without a reply, being released (``release_soon``).
        self._releasing: set[asyncio.Future[None]] = set()

    # lifecycle
    async def start(self) -> None:
        if self._task is not None:
            return
        await self.writer.open()
        if self.home is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            removed = await asyncio.to_thread(remove_stale_temp_files, self.folder)
            if removed:
                logger.info("writer queue: removed %d stale temp file(s)", removed)
        self._stopping = self._aborted = False
        if self.home is None:  # the turns this process held when it died
            await asyncio.to_thread(self._forget_old_seen)
            recovered = await asyncio.to_thread(self._recover_held)
            if recovered:
                logger.info("writer queue: %d turn(s) cut off mid-turn queued", recovered)
        if await self.apending():
            self._idle.clear()
            self._wake.set()
        self._task = asyncio.create_task(self._run(), name="memory-writer-queue")

    async def stop(self) -> None:
        """Finish every queued turn, then stop."""
        await self.drain()
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def abort(self, wait_s: float = 5.0) -> None:
        """Stop the worker now, its turn unfinished (a stop cut short: a :meth:`stop`
        cancelled in its drain left the worker running while the store closed under it).
        Queued turns stay where they are for the next start; waits at most ``wait_s``."""
        task, self._task = self._task, None
        self._stopping = self._aborted = True
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=wait_s)

    async def __aenter__(self) -> WriterQueue:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # use
    def pending(self) -> list[Path]:
        if self.home is not None:
            return [self.folder / name for name in self.home.queued_turns()]
        return [p for p in pending_turn_files(self.writer.workspace) if p not in self._stuck]

    async def apending(self) -> list[Path]:
        """:meth:`pending` without holding up the event loop (the database: on the async
        driver; the folder: listed in a thread)."""
        if self.home is not None:
            return [self.folder / name for name in await self.home.aqueued_turns()]
        return await asyncio.to_thread(self.pending)

    async def enqueue(self, turn: TurnContext) -> Path:
        """Persist ``turn`` and wake the worker; returns at once after the file is on disk."""
        if not turn.now:
            turn.now = iso_now()
        path = self.folder / f"t_{new_id()[2:]}.json"
        if self.home is not None:
            await asyncio.to_thread(self.home.put_turn, path.name, turn.to_json())
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            await asyncio.to_thread(atomic_write_text, path, turn.to_json())
        self._stuck.clear()  # this file fit: turns a full disk held back are tried again
        self._idle.clear()
        self._wake.set()
        return path

    async def hold(self, turn: TurnContext, name: str | None = None) -> str | None:
        """Queue ``turn`` (what is known when its message is recorded) held: no worker
        takes it until :meth:`release`; a crash leaves it queued (on files taken at the next
        start, in the database by any worker once this one's session is gone). ``name``
        (``t_<id>.json``) names the message (a turn run again for it holds the same one).
        Returns the name, or None when that message's work is queued already."""
        if not turn.now:
            turn.now = iso_now()
        name = name or f"t_{new_id()[2:]}.json"
        if self.home is not None:
            mine = await asyncio.to_thread(self.home.hold_turn, name, turn.to_json())
            return name if mine else None
        return await asyncio.to_thread(self._hold_file, name, turn.to_json())

    def _hold_file(self, name: str, text: str) -> str | None:
        if (self.folder / name).exists() or (self.failed_folder / name).exists():
            return None
        held, seen = self.folder / _held_name(name), self.folder / SEEN / name
        if seen.exists() and not held.exists():
            return None  # held before, and processed (or forgotten) since: never again
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(held, text)
        seen.parent.mkdir(exist_ok=True)
        seen.touch()  # after the held file: a crash between the two loses nothing
        return name

    def _forget_old_seen(self) -> None:
        """The names of turns held long ago: no platform posts their messages again."""
        horizon = time.time() - SEEN_KEEP_S
        for mark in (self.folder / SEEN).glob("t_*.json"):
            with contextlib.suppress(OSError):
                if mark.stat().st_mtime < horizon:
                    mark.unlink()

    async def release(
        self, name: str, turn: TurnContext | None = None, *, drop: bool = False
    ) -> bool:
        """The turn :meth:`hold` held, queued for the writer now: with ``turn`` as its final
        text (None: as held), or dropped (``drop``: the writer skips this message). False:
        it was no longer held here (a forget removed it, another worker took it over)."""
        text = None if turn is None else turn.to_json()
        if self.home is not None:
            done = await self.home.release_turn(name, text, drop=drop)
        else:
            done = await asyncio.to_thread(self._release_file, name, text, drop)
        if done and not drop:
            self._stuck.clear()  # this file fit: turns a full disk held back are tried again
            self._idle.clear()
            self._wake.set()
        return done

    def release_soon(self, held: asyncio.Future[str | None]) -> None:
        """:meth:`release` (as held) once ``held`` (a :meth:`hold` under way) names the
        turn: for a turn that ended without its reply (a failure, a stop); :meth:`drain`
        waits for it."""

        async def release() -> None:
            try:
                name = await held
                if name:  # None: not held; "": queued before
                    await self.release(name)
            except Exception:  # noqa: BLE001 - the held turn stays for the next start
                logger.warning("writer: a cut-off turn's work stays held", exc_info=True)

        task = asyncio.ensure_future(release())
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    def _release_file(self, name: str, text: str | None, drop: bool) -> bool:
        held = self.folder / _held_name(name)
        if not held.exists():  # scrubbed by a forget meanwhile
            return False
        if drop:
            held.unlink(missing_ok=True)
            return True
        if text is None:
            held.replace(self.folder / name)
            return True
        atomic_write_text(self.folder / name, text)  # then the held copy goes: a crash
        held.unlink(missing_ok=True)  # between the two leaves both; _recover_held keeps one
        return True

    def _recover_held(self) -> int:
        """Files: the turns a dead process held are queued (one already queued under the
        same name, its final text, wins)."""
        found = 0
        for held in sorted(self.folder.glob("h_*.json")):
            queued = self.folder / ("t_" + held.name[2:])
            if queued.exists() or (self.failed_folder / queued.name).exists():
                held.unlink(missing_ok=True)
                continue
            held.replace(queued)
            found += 1
        return found

    async def drain(self) -> None:
        """Wait until every queued turn is processed (used at shutdown and in tests). Without a
        running worker, processes them here."""
        while self._releasing:
            await asyncio.gather(*list(self._releasing), return_exceptions=True)
        if self._task is None:
            if not self._aborted:
                await self.process_pending()
            return
        task = self._task
        # A turn this process's worker has taken is no longer listed in the database (its
        # row is locked, SKIP LOCKED passes it): the worker still busy is waited for too.
        while await self.apending() or self._busy():
            if task.done():
                task.result()  # the worker died: its error goes to the caller; the turns stay
                raise RuntimeError("the writer queue's worker stopped; queued turns are kept")
            self._idle.clear()
            self._wake.set()
            idle = asyncio.ensure_future(self._idle.wait())
            await asyncio.wait({idle, task}, return_when=asyncio.FIRST_COMPLETED)
            idle.cancel()

    flush = drain

    async def settle(self) -> None:
        """Wait until the turns this process queued are processed (:meth:`drain`); at once,
        without listing the queue, when they are: on files, the running worker has been
        idle since this process last queued or released a turn (a turn's read waits for
        the last turn's writes here, every turn). The database home, where other workers
        take this process's turns, always drains."""
        if (
            self.home is None
            and not self._releasing
            and not self._busy()
            and self._task is not None
            and not self._task.done()
        ):
            return
        await self.drain()

    def _busy(self) -> bool:
        """The worker is in a pass, or woken for one it has not begun."""
        return not self._idle.is_set() or self._wake.is_set()

    async def process_pending(self) -> int:
        """Process every queued turn now, in order; returns how many were processed."""
        await self.writer.open()
        done = 0
        if self.home is not None:
            while await self._take_one():
                done += 1
        for path in self.pending() if self.home is None else ():
            await self._process_file(path)
            done += 1
        await self._asave_status(len(await self.apending()))
        return done

    def stats(self) -> dict[str, Any]:
        data = self.writer.stats.as_dict()
        data["queue_depth"] = len(self.pending())
        data["providers"] = self.writer.provider_states()
        data["running"] = self._task is not None and not self._task.done()
        return data

    # worker
    async def _run(self) -> None:
        while True:
            if self.home is None:
                await self._wake.wait()
            else:  # turns a dead worker left, or others queued: looked for every few seconds
                with contextlib.suppress(TimeoutError):  # not wait_for: it can drop a cancel
                    async with asyncio.timeout(SHARED_POLL_S):
                        await self._wake.wait()
            self._wake.clear()
            self._idle.clear()  # a pass from here to its end: drain waits for it
            while self.home is not None and await self._taken_or_lost():
                pass
            if self.home is None:
                await self._files_pass()
            self._idle.set()
            if self._stopping:
                return

    async def _files_pass(self) -> None:
        """Every queued file, in batches: one listing of the folder per batch (not per turn:
        with a long queue that made draining quadratic), the status saved about once a
        second. A batch done, the folder is listed again only when a turn was queued or
        released meanwhile (it woke the worker): else the queue is as the batch left it
        (one listing a pass, not three, on the turn's path)."""
        paths = self.pending()
        while paths:
            saved_at = time.monotonic()
            for n, path in enumerate(paths, start=1):
                await self._process_file(path)
                if time.monotonic() - saved_at >= STATUS_SAVE_EVERY_S:
                    await self._asave_status(len(paths) - n)
                    saved_at = time.monotonic()
            paths = []  # each file left the queue (one a full disk held is not listed)
            if self._wake.is_set():
                self._wake.clear()
                paths = self.pending()
            await self._asave_status(len(paths))

    async def _process_file(self, path: Path) -> None:
        """Process one queued turn; whatever goes wrong, the file leaves the queue (done, or
        in ``failed/`` with the reason) and the queue goes on."""
        try:
            turn = TurnContext.from_json(await asyncio.to_thread(path.read_text, "utf-8"))
            report = await self.writer.process_turn(turn)
        except FileNotFoundError:
            return  # another worker (or a drain) took it
        except Exception as exc:  # noqa: BLE001 - a poisoned turn never stops the queue
            if is_disk_full(exc):
                self._stuck.add(path)
                logger.warning("writer: turn %s kept in the queue: %s", path.name, exc)
                return
            await asyncio.to_thread(self._set_aside, path, error_reason(exc))
            return
        if report.set_aside is not None:
            reason = f"model answer set aside, facts kept by the offline writer: {report.set_aside}"
            await asyncio.to_thread(self._set_aside, path, reason)
            return
        path.unlink(missing_ok=True)

    async def _take_one(self) -> bool:
        """The database home: take the oldest free turn, process it; False: none was free."""
        assert self.home is not None
        async with self.home.take_turn() as item:
            if item is None:
                return False
            await self._process_taken(item)
        if item.outcome == "failed":
            self._count_set_aside(item.name, item.reason, "the queue's failed rows")
        await self._asave_status(len(await self.apending()))
        return True

    async def _taken_or_lost(self) -> bool:
        """:meth:`_take_one` for the queue's task: the database lost is said in one line
        and the turns stay queued, tried again at the next wake or poll (False: none now)."""
        try:
            return await self._take_one()
        except Exception as exc:  # noqa: BLE001 - the task goes on whatever the database does
            assert self.home is not None
            if self.home.lost(exc):
                logger.warning(
                    "writer: the database cannot be used now (%s); turns stay queued", exc
                )
            else:
                logger.error("writer: taking a queued turn failed (%s); turns stay queued", exc)
            return False

    async def _process_taken(self, item: QueuedTurn) -> None:
        assert self.home is not None
        try:
            turn = TurnContext.from_json(item.text)
            report = await self.writer.process_turn(turn)
        except Exception as exc:  # noqa: BLE001 - a poisoned turn never stops the queue
            if self.home.lost(exc):
                raise  # not the turn's fault: the claim rolls back, the turn stays queued
            item.set_aside(error_reason(exc))
            return
        if report.set_aside is not None:
            item.set_aside(
                f"model answer set aside, facts kept by the offline writer: {report.set_aside}"
            )
            return
        item.done()

    def _count_set_aside(self, name: str, reason: str, where: object) -> None:
        self.writer.stats.failed_turns += 1
        self.writer.stats.error(f"turn {name} set aside in failed/: {reason}")
        logger.error("writer: turn %s set aside (%s); kept in %s", name, reason, where)

    def _set_aside(self, path: Path, reason: str) -> None:
        """Move ``path`` to ``failed/`` with ``<name>.reason.txt`` beside it, and count it."""
        target = self.failed_folder / path.name
        try:
            self.failed_folder.mkdir(parents=True, exist_ok=True)
            atomic_write_text(target.with_suffix(".reason.txt"), f"{iso_now()} {reason}\n")
            path.replace(target)
        except FileNotFoundError:
            return
        except OSError as exc:
            self._stuck.add(path)
            logger.error("writer: turn %s could not be set aside (%s); left in place", path, exc)
            return
        self._count_set_aside(path.name, reason, target)

    async def _asave_status(self, queue_depth: int) -> None:
        """:meth:`_save_status` in a thread: its two fsyncs, after every turn the writer
        processes, do not hold up the event loop (a person's next message)."""
        await asyncio.to_thread(self._save_status, queue_depth)

    def _save_status(self, queue_depth: int) -> None:
        try:
            self.writer.save_status(queue_depth=queue_depth)
        except OSError as exc:  # the status is for other processes to read; turns go on
            logger.warning("writer: status not saved (%s)", exc)


def _held_name(name: str) -> str:
    """The file of a held turn: ``t_<id>.json`` -> ``h_<id>.json``."""
    return "h_" + name[2:]
