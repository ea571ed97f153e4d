"""Re-index memory files edited by hand while the process runs.

watchdog reports file events from its own thread; they are handed to the event loop, gathered
for ``debounce_s`` of quiet (two saves in two seconds are one pass), and a single worker task
reconciles just those files. Our own writes show up too and cost one stat and hash each: the
index sees the same hash and does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from familiars.memory._backend import RecordIndex
from familiars.memory._index import ReconcileReport
from familiars.memory._paths import owner_from_path
from familiars.memory._store import MemoryStore

logger = logging.getLogger(__name__)


def new_observer() -> BaseObserver:
    """A watchdog observer, without the RuntimeWarning watchdog 7 prints to the terminal when
    its recursive watch meets a folder made while it runs (``Callback with id ... already
    exists ... It will be Overwritten``: it registers the new folder twice, harmlessly). Every
    observer of the package is made here."""
    warnings.filterwarnings(
        "ignore", message=r"Callback with id .* already exists", category=RuntimeWarning
    )
    return Observer()


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: MemoryWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                path = Path(raw if isinstance(raw, str) else raw.decode())
                if path.suffix == ".md":
                    self.watcher.notify_threadsafe(path)


class MemoryWatcher:
    def __init__(self, store: MemoryStore, index: RecordIndex, *, debounce_s: float = 3.0) -> None:
        self.store = store
        self.index = index
        self.debounce_s = debounce_s
        self._pending: set[Path] = set()
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._task: asyncio.Task[None] | None = None
        self.passes = 0
        self.last_report: ReconcileReport | None = None
        self.reconciled = asyncio.Event()

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._worker(), name="memory-watcher")
        observer = new_observer()
        observer.schedule(_Handler(self), str(self.store.workspace), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer

    async def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            await asyncio.to_thread(self._observer.join, 5)
            self._observer = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def notify_threadsafe(self, path: Path) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.notify, path)

    def notify(self, path: Path) -> None:
        if owner_from_path(self.store.workspace, path) is None:
            return
        self._pending.add(path)
        self._wake.set()

    async def _worker(self) -> None:
        while True:
            await self._wake.wait()
            # Debounce: wait until no new event arrived for debounce_s.
            while True:
                self._wake.clear()
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a cancel
                # that comes as the event is set, and the stop waited for ever (CI, stop 31).
                try:
                    async with asyncio.timeout(self.debounce_s):
                        await self._wake.wait()
                except TimeoutError:
                    break
            paths, self._pending = self._pending, set()
            if not paths:
                continue
            try:
                for path in paths:
                    self.store.invalidate(path)
                self.last_report = await self.index.reconcile(self.store, paths=paths)
                for err in self.last_report.errors:
                    logger.warning("%s", err)
            except Exception:  # noqa: BLE001 - the watcher must outlive one bad pass
                logger.exception("re-indexing %d edited memory files failed", len(paths))
            self.passes += 1
            self.reconciled.set()
