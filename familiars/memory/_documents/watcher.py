"""Watched folders: a debounced watchdog observer feeding a single indexing worker.

Saving a file twice in two seconds gives one index pass, not two: every event only pushes the
path's due time back (3 s by default), and one worker task indexes paths whose time has come,
one at a time, so the index has a single writer. The debounce logic is :class:`Debouncer`, a
pure object that takes ``now``; the observer thread only hands paths to the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from familiars.memory._documents.results import IndexResult
from familiars.memory._documents.walking import is_ignored_name

logger = logging.getLogger(__name__)

DEFAULT_DEBOUNCE_S = 3.0


class Indexer(Protocol):
    """What the watcher needs from the finder."""

    async def add_file(self, path: Path | str, *, user_key: str | None = None) -> IndexResult: ...

    async def add_folder(
        self, folder: Path | str, *, user_key: str | None = None
    ) -> list[IndexResult]: ...

    async def remove_file(
        self, path: Path | str, *, user_key: str | None = None
    ) -> IndexResult: ...

    async def remove_missing_under(self, root: Path) -> list[IndexResult]: ...


class Debouncer:
    """Paths and the time each becomes due; a new event for a path restarts its wait."""

    def __init__(self, delay_s: float = DEFAULT_DEBOUNCE_S) -> None:
        self.delay_s = delay_s
        self._due: dict[str, float] = {}

    def note(self, path: str, now: float) -> None:
        self._due[path] = now + self.delay_s

    def pop_due(self, now: float) -> list[str]:
        ready = sorted(p for p, t in self._due.items() if t <= now)
        for path in ready:
            del self._due[path]
        return ready

    def next_due(self) -> float | None:
        return min(self._due.values()) if self._due else None

    def __len__(self) -> int:
        return len(self._due)


class FolderWatcher:
    """Keep the owner's watched folders indexed. ``start`` begins watching (call the finder's
    ``scan_watch_dirs`` first to catch up with changes made while not running)."""

    def __init__(
        self,
        indexer: Indexer,
        folders: Sequence[Path],
        *,
        debounce_s: float = DEFAULT_DEBOUNCE_S,
        clock: Callable[[], float] = time.monotonic,
        on_pass: Callable[[list[IndexResult]], None] | None = None,
    ) -> None:
        self.indexer = indexer
        self.folders = [Path(f).expanduser().absolute() for f in folders]
        self.debouncer = Debouncer(debounce_s)
        self.clock = clock
        #: Told the results of each indexing pass (the runtime logs skips; tests wait on it).
        self.on_pass = on_pass
        self.results: list[IndexResult] = []
        self.errors: list[tuple[str, BaseException]] = []
        self.passes = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._observer: object | None = None

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        from familiars.memory._watcher import new_observer

        self._loop = asyncio.get_running_loop()
        observer = new_observer()
        handler = _Handler(self.notify_threadsafe)
        for folder in self.folders:
            if folder.is_dir():
                observer.schedule(handler, str(folder), recursive=True)
            else:
                logger.warning("watched folder %s does not exist; not watched", folder)
        observer.start()
        self._observer = observer
        self._worker = asyncio.create_task(self._run(), name="familiars-files-watcher")

    async def stop(self) -> None:
        observer = self._observer
        if observer is not None:
            observer.stop()  # type: ignore[attr-defined]
            await asyncio.to_thread(observer.join, 5.0)  # type: ignore[attr-defined]
            self._observer = None
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    async def __aenter__(self) -> FolderWatcher:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ----------------------------------------------------------------- events

    def notify_threadsafe(self, path: str) -> None:
        """Called from the observer thread."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.notify, path)

    def notify(self, path: str, now: float | None = None) -> None:
        """A path changed (created, modified, deleted or moved)."""
        if is_ignored_name(Path(path).name) or not self._watched(Path(path)):
            return
        self.debouncer.note(path, self.clock() if now is None else now)
        self._wakeup.set()

    def _watched(self, path: Path) -> bool:
        return any(path == f or f in path.parents for f in self.folders)

    async def process_due(self, now: float | None = None) -> list[IndexResult]:
        """Index every path whose debounce time has passed, one after another."""
        due = self.debouncer.pop_due(self.clock() if now is None else now)
        if not due:
            return []
        self.passes += 1
        results: list[IndexResult] = []
        for path in due:
            results.extend(await self._index_one(Path(path)))
        self.results.extend(results)
        if self.on_pass is not None:
            self.on_pass(results)
        return results

    async def _index_one(self, path: Path) -> list[IndexResult]:
        try:
            if path.is_dir():
                return await self.indexer.add_folder(path)
            if path.exists() or path.is_symlink():
                if path.is_symlink() and not self._link_stays_inside(path):
                    return await self.indexer.add_folder(path.parent)
                return [await self.indexer.add_file(path)]
            removed = await self.indexer.remove_file(path)
            return [removed, *await self.indexer.remove_missing_under(path)]
        except Exception as exc:  # noqa: BLE001 - the watcher must outlive one bad file;
            # nothing is lost: the file stays on disk and the next scan retries it.
            logger.exception("indexing %s failed", path)
            self.errors.append((str(path), exc))
            return []

    def _link_stays_inside(self, path: Path) -> bool:
        target = path.resolve()
        return any(target == f.resolve() or f.resolve() in target.parents for f in self.folders)

    async def _run(self) -> None:
        while True:
            due_at = self.debouncer.next_due()
            timeout = None if due_at is None else max(0.0, due_at - self.clock())
            self._wakeup.clear()
            if timeout is None or timeout > 0:
                with contextlib.suppress(TimeoutError):  # not wait_for: it can drop a cancel
                    async with asyncio.timeout(timeout):
                        await self._wakeup.wait()
            await self.process_due()


class _Handler(FileSystemEventHandler):
    """A watchdog event handler that only forwards paths."""

    def __init__(self, forward: Callable[[str], None]) -> None:
        super().__init__()
        self.forward = forward

    def dispatch(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return
        for attr in ("src_path", "dest_path"):
            value = getattr(event, attr, "")
            if value:
                self.forward(value if isinstance(value, str) else value.decode())
