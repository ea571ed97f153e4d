"""The application: builds every service from ``Settings`` and runs them.

Lifecycle as python-telegram-bot's Application: ``initialize`` builds the services (see
``bot/_services.py``: the builder, in dependency order, opening storage and loading the
embedder in a thread), ``start`` starts background work and then the adapters (only then
may the scheduler send what fell due while the bot was down), ``stop`` undoes
``start`` in reverse (adapters first so no new turn starts, then the API, scheduler and
watchers, then the writer's queue is drained and counters flushed), ``shutdown`` closes
storage. Each step pushes its undo on an exit stack as it goes, so a step that fails part way
unwinds what it had done and raises; ``async with Application(settings) as app`` does all
four and shuts down when its body (or the start) fails. Background tasks are tracked and
their errors go to one handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import PlatformAdapter
from familiars.bot._adapters.console import ConsoleAdapter, on_ctrl_c
from familiars.bot._control import own_workspace, serve_control
from familiars.bot._dialogue import DialogueManager
from familiars.bot._proactive import RunningAdapters
from familiars.bot._recall import start_recaller
from familiars.bot._services import ErrorHandler, RuntimeOptions, Services, build_services
from familiars.bot._state import BotState
from familiars.bot._state_files import EMBEDDER_FIELDS
from familiars.config import Settings
from familiars.llm import ChatModel
from familiars.memory import (
    DialogTrees,
    Embedder,
    MemoryWorkspace,
    WriterQueue,
    atomic_write_text,
    is_disk_full,
)
from familiars.scheduler import Scheduler

if TYPE_CHECKING:
    from familiars.bot._api.server import ApiServer

logger = logging.getLogger(__name__)

#: After a second Ctrl-C during a stop: how long the rest of the stop (the memory writer's
#: drain) still gets before it is cut short.
HURRY_S = 5.0
HURRYING = (
    "Stopping without waiting for the reply; memories being written get {s:.0f} s more "
    "(Ctrl-C again: stop at once)."
)


def _log_error(exc: BaseException, where: str) -> None:
    logger.error("background task %s failed", where, exc_info=exc)


class NotInitializedError(RuntimeError):
    """A service was asked for before :meth:`Application.initialize`."""


class Application:
    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        model: ChatModel | None | bool = True,
        console: ConsoleAdapter | None = None,
        console_user: str | None = None,
        adapters: list[PlatformAdapter] | None = None,
        platforms: bool = True,
        scheduler: bool = True,
        watch: bool | None = None,
        error_handler: ErrorHandler = _log_error,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings = settings
        self.error_handler = error_handler
        self.options = RuntimeOptions(
            embedder=embedder,
            model=model,
            console=console,
            console_user=console_user,
            adapters=tuple(adapters or ()),
            platforms=platforms,
            scheduler=scheduler,
            watch=settings.memory.watch if watch is None else watch,
            clock=clock,
        )
        #: The last services built (still readable after shutdown, for a test's assertions).
        self._services: Services | None = None
        self._open = False  # between initialize and shutdown
        self._resources = AsyncExitStack()  # what initialize opened
        self._started: AsyncExitStack | None = None  # what start started; None when stopped
        self._tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ the services

    @property
    def services(self) -> Services:
        if self._services is None:
            raise NotInitializedError("the application is not initialized")
        return self._services

    @property
    def initialized(self) -> bool:
        return self._open

    @property
    def running(self) -> bool:
        """True from the end of a successful :meth:`start` to the beginning of :meth:`stop`."""
        return self._started is not None

    @property
    def memory(self) -> MemoryWorkspace:
        return self.services.memory

    @property
    def state(self) -> BotState:
        return self.services.state

    @property
    def trees(self) -> DialogTrees:
        return self.services.trees

    @property
    def dialogues(self) -> DialogueManager:
        return self.services.dialogues

    @property
    def access(self) -> AccessPolicy:
        return self.services.access

    @property
    def writer_queue(self) -> WriterQueue:
        return self.services.writer_queue

    @property
    def model(self) -> ChatModel | None:
        return self.services.model

    @property
    def embedder(self) -> Embedder:
        return self.services.embedder

    @property
    def scheduler(self) -> Scheduler | None:
        return self.services.scheduler

    @property
    def api(self) -> ApiServer | None:
        return self.services.api

    @property
    def adapters(self) -> tuple[PlatformAdapter, ...]:
        return self.services.adapters

    @property
    def running_adapters(self) -> RunningAdapters:
        return self.services.running

    # ------------------------------------------------------------------ lifecycle

    async def initialize(self) -> None:
        """Build the services (opening storage); on failure what was opened is closed."""
        if self._open:
            return
        async with AsyncExitStack() as stack:
            lock = stack.enter_context(own_workspace(Path(self.settings.workspace)))
            services = await build_services(self.settings, self.options, stack, self._report)
            await stack.enter_async_context(
                serve_control(services.memory, services.model, lock, forgetter=services.forgetter)
            )
            self._services = services
            self._resources = stack.pop_all()
        self._open = True

    async def start(self) -> None:
        """Start everything, adapters last; on failure what was started is stopped again
        (in reverse) and the error is raised."""
        if self.running:
            return
        await self.initialize()
        async with AsyncExitStack() as stack:
            await self._start_all(stack, self.services)
            self._started = stack.pop_all()

    async def stop(self) -> None:
        """Stop taking new messages, then finish what is queued."""
        started, self._started = self._started, None
        if started is not None:
            await started.aclose()

    async def shutdown(self) -> None:
        await self.stop()
        resources, self._resources = self._resources, AsyncExitStack()
        self._open = False
        await resources.aclose()

    async def __aenter__(self) -> Application:
        try:
            await self.initialize()
            await self.start()
        except BaseException:
            await self.shutdown()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()

    async def _start_all(self, stack: AsyncExitStack, s: Services) -> None:
        """Each component's stop goes on ``stack`` as soon as it has started; the stack
        unwinds in reverse, so the first pushed runs last."""
        # Folding journals into dialogue.json and saving counters lose nothing when a full
        # disk stops them: the journals are kept, and they are said in one line.
        stack.push_async_callback(
            _unless_disk_full, "compacting the dialogues", asyncio.to_thread, s.trees.compact_all
        )
        if await s.log.recover():  # replies sent just before a crash
            logger.info("added the reply nodes a crash had left pending")
        # A forget a crash cut short is finished before anything is recalled or served.
        await s.forgetter.resume()
        stack.push_async_callback(self._cancel_tasks)
        stack.push_async_callback(_unless_disk_full, "saving recall counters", self._flush_stats)
        known = [(d.agent_id, d.dialogue_id) for d in await s.state.dialogues()]
        await start_recaller(s.recaller, s.memory, s.trees, known)
        hubs = self.create_task(s.recaller.keep_hubs_current(), name="hub-values")
        stack.callback(hubs.cancel)
        await s.writer_queue.start()
        stack.push_async_callback(s.writer_queue.stop)
        for watcher in (s.watcher, s.folder_watcher):
            if watcher is not None:
                await watcher.start()
                stack.push_async_callback(watcher.stop)
        if s.folder_watcher is not None:
            # Catching up with what changed while the bot was down can embed for minutes on
            # a big folder: it runs in the background instead of holding up the start.
            self.create_task(self._scan_watch_dirs(), name="watch-dirs-scan")
        if s.scheduler is not None:
            s.memory.store.add_listener(s.scheduler)  # new reminders get their exact job
            await s.scheduler.start()
            # Its stop saves the gate snapshot: a status file, said in one line when full.
            stack.push_async_callback(_unless_disk_full, "stopping the scheduler", s.scheduler.stop)
        if s.api is not None:
            await s.api.start()
            stack.push_async_callback(s.api.stop)
            if s.web_links is not None and not self.settings.api.public_url:
                s.web_links.base = s.api.url  # the port bound (port 0 picks one)
        stack.push_async_callback(s.dialogues.settle)  # after the adapters stop
        for adapter in s.adapters:
            await _start_adapter(stack, adapter, s.running)
        if s.scheduler is not None:  # reminders that fell due while down: now they can go
            await s.scheduler.sender_ready()
        flush = self.create_task(self._flush_loop(), name="stats-flush")
        stack.callback(flush.cancel)

    # ------------------------------------------------------------------ running

    def create_task(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """A tracked background task; its error (not a cancellation) goes to the handler."""
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                self._report(t.exception(), name)  # type: ignore[arg-type]

        task.add_done_callback(done)
        return task

    def _report(self, exc: BaseException, where: str) -> None:
        self.error_handler(exc, where)

    async def _cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def run_until_stopped(
        self,
        stopping: Callable[[], None] | None = None,
        *,
        at_once: Callable[[], None] | None = None,
    ) -> None:
        """Run until Ctrl-C / SIGTERM (or the console's input ends), then stop cleanly;
        ``stopping`` is called as the stop begins (the CLI arms its stack dump there, so a
        stop that hangs says where). ``at_once``: what a Ctrl-C does once the stop is over
        or cut short, for the rest of the process (the CLI ends it with one line); without
        it, Python's own KeyboardInterrupt."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        console = next((a for a in self.adapters if isinstance(a, ConsoleAdapter)), None)
        ctrl_c = on_ctrl_c(console, stop.set)  # at the terminal: the reply stops, not the bot
        for sig, handler in ((signal.SIGINT, ctrl_c), (signal.SIGTERM, stop.set)):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, handler)
        waiters = [asyncio.create_task(stop.wait())]
        if console is not None:
            waiters.append(asyncio.create_task(console.finished.wait()))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
            if stopping is not None:
                stopping()
            await self._stop_unless_hurried(loop, console, at_once)

    async def _stop_unless_hurried(
        self,
        loop: asyncio.AbstractEventLoop,
        console: ConsoleAdapter | None,
        at_once: Callable[[], None] | None = None,
    ) -> None:
        """:meth:`stop`, a second Ctrl-C or SIGTERM during it (the reply's grace, the
        writer's drain) hurrying it: the reply being written is no longer waited for, and
        the rest gets :data:`HURRY_S` (the writer's drain with it) before it is cut short,
        the person told what is left for the next start. Before, a second Ctrl-C skipped
        the drain without a word."""
        again = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, again.set)
        stop = asyncio.ensure_future(self.stop())
        try:
            if not await _done_unless(stop, again, timeout=None):
                self._say(HURRYING.format(s=HURRY_S), console)
                if console is not None:
                    console.hurry()
                again.clear()
                if not await _done_unless(stop, again, timeout=HURRY_S):
                    _let_signals_go(loop, at_once)  # a further Ctrl-C: the process ends
                    await self._cut_short(stop, console)
                    return
            stop.result()  # the stop's own failure, raised as before
        finally:
            _let_signals_go(loop, at_once)

    async def _cut_short(self, stop: asyncio.Future[None], console: ConsoleAdapter | None) -> None:
        """End the hurried stop now, saying what waits for the next start (nothing is lost:
        queued turns stay on disk and are written then)."""
        left = 0
        with contextlib.suppress(Exception):
            left = len(await self.services.writer_queue.apending())
        stop.cancel()
        # The stack's other stops still run after the cancel (the dialogues' compaction in
        # a thread): waited for, bounded; the writer's worker, left running by its stop
        # cancelled in the drain, is stopped before the store is closed under it.
        await asyncio.wait({stop}, timeout=HURRY_S)
        with contextlib.suppress(Exception):
            await self.services.writer_queue.abort(wait_s=HURRY_S)
        if left:
            self._say(f"Stopped. {left} conversation turn(s) not yet written to memory are "
                      "kept and will be written at the next start.", console)  # fmt: skip

    @staticmethod
    def _say(text: str, console: ConsoleAdapter | None) -> None:
        logger.warning("%s", text)
        if console is not None:
            console.notice(text)

    async def settle(self) -> None:
        """Everything the last turns started is done: reply nodes added, memories written."""
        if self._open:
            await self.services.settle()

    # ------------------------------------------------------------------ housekeeping

    async def _scan_watch_dirs(self) -> None:
        for result in await self.services.finder.scan_watch_dirs():
            if result.status == "skipped":
                logger.info("not indexed: %s (%s)", result.path, result.reason)

    async def _flush_loop(self, every_s: float = 30.0) -> None:
        await self._write_embedder_in_use()
        while True:
            await asyncio.sleep(every_s)
            await self._flush_stats()
            # Fold long dialogue journals into dialogue.json.
            await asyncio.to_thread(self.services.trees.compact_due)

    async def _write_embedder_in_use(self) -> None:
        """The embedder this bot uses, for ``familiars status`` from another process (it has
        none loaded, and showed no backend): ``state/embedder.json``."""
        try:
            emb = self.services.embedder
            said = {**emb.describe(), "model": emb.model_name, "dim": int(emb.dim)}
            data = json.dumps({k: said.get(k) for k in EMBEDDER_FIELDS})
            path = Path(self.settings.workspace) / "state" / "embedder.json"
            await asyncio.to_thread(atomic_write_text, path, data)
        except Exception as exc:  # noqa: BLE001 - a status display only; reported
            self._report(exc, "embedder-status")

    async def _flush_stats(self) -> None:
        dialogues = self.services.dialogues
        try:
            await dialogues.flush_access()
        except Exception as exc:  # noqa: BLE001 - counters only; reported, retried next time
            self._report(exc, "access-flush")
        path = Path(self.settings.workspace) / "state" / "recall_stats.json"
        saved_at = datetime.now(UTC).isoformat(timespec="seconds")
        data = json.dumps({**dialogues.stats.as_dict(), "saved_at": saved_at})
        await asyncio.to_thread(atomic_write_text, path, data)


async def _unless_disk_full(
    what: str, step: Callable[..., Coroutine[Any, Any, Any]], *args: Any
) -> None:
    """``await step(*args)``; a full disk is one warning line instead of a traceback."""
    try:
        await step(*args)
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        logger.warning("%s skipped: %s", what, exc)


async def _start_adapter(
    stack: AsyncExitStack, adapter: PlatformAdapter, running: RunningAdapters
) -> None:
    """Start one adapter and list it as running; its stop (unlisting it first) goes on
    ``stack``. One whose start fails is stopped too, for what it had begun."""
    try:
        await adapter.start()
    except BaseException:
        await _stop_adapter(adapter, running)
        raise
    running.add(adapter)
    stack.push_async_callback(_stop_adapter, adapter, running)


async def _stop_adapter(adapter: PlatformAdapter, running: RunningAdapters) -> None:
    running.discard(adapter)
    try:
        await adapter.stop()
    except Exception:  # noqa: BLE001 - one adapter failing to stop must not keep the rest up
        logger.exception("the %s adapter did not stop cleanly", adapter.name or "unnamed")


async def _done_unless(
    task: asyncio.Future[None], signal_: asyncio.Event, *, timeout: float | None
) -> bool:
    """``task`` ended before ``signal_`` was set (and before ``timeout``)."""
    waiter: asyncio.Future[Any] = asyncio.ensure_future(signal_.wait())
    either: set[asyncio.Future[Any]] = {task, waiter}
    try:
        await asyncio.wait(either, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    return task.done()


def _let_signals_go(
    loop: asyncio.AbstractEventLoop, at_once: Callable[[], None] | None = None
) -> None:
    """Ctrl-C and SIGTERM back to Python's own handling (a Ctrl-C raises KeyboardInterrupt);
    with ``at_once``, a Ctrl-C calls it instead, for the rest of the process: not only the
    loop's (closed, it hands Ctrl-C back to Python), so a Ctrl-C while the process ends never
    raises KeyboardInterrupt wherever the shutdown was (a traceback, then "terminate called"
    from a model's threads at exit, rc 134)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(sig)
    if at_once is not None:
        with contextlib.suppress(ValueError):  # not the main thread: left as it is
            signal.signal(signal.SIGINT, lambda _sig, _frame: at_once())
