"""The application: builds every service from ``Settings`` and runs them.

Lifecycle as python-telegram-bot's Application: ``initialize`` (open storage, build
services), ``start`` (start background work and adapters), ``stop`` (adapters first so no new
turn starts, then the writer's queue is drained and counters flushed), ``shutdown`` (close
storage). ``async with Application(settings) as app`` does all four. Background tasks are
tracked and their errors go to one handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from collections.abc import Callable, Coroutine
from contextlib import AsyncExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

from familiars.bot._adapters.base import PlatformAdapter
from familiars.bot._adapters.console import ConsoleAdapter
from familiars.bot._commands import CommandContext, Commands
from familiars.bot._control import own_workspace, serve_control
from familiars.bot._dialogue import DialogueManager
from familiars.bot._redaction import Redactor
from familiars.bot._state import BotState
from familiars.bot._trees import RecentEmbeddings, TreeLog
from familiars.config import Settings
from familiars.llm import ChatModel, build_chat_model
from familiars.memory import (
    DialogTrees,
    Embedder,
    MemoryWatcher,
    MemoryWorkspace,
    MemoryWriter,
    WriterQueue,
    atomic_write_text,
    embedder_from_settings,
    open_workspace,
)

logger = logging.getLogger(__name__)

ErrorHandler = Callable[[BaseException, str], None]


def _log_error(exc: BaseException, where: str) -> None:
    logger.error("background task %s failed", where, exc_info=exc)


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
        self._embedder_override = embedder
        self._model_override = model
        self._console = console
        self._console_user = console_user
        self._extra_adapters = adapters or []
        self._use_platforms = platforms
        self._use_scheduler = scheduler
        self._watch = settings.memory.watch if watch is None else watch
        self.error_handler = error_handler
        #: What time it is, for the scheduler (tests pass a fixed clock instead of sleeping).
        self.clock = clock
        self._stack = AsyncExitStack()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopped = asyncio.Event()
        self.adapters: list[PlatformAdapter] = []
        self.memory: MemoryWorkspace | None = None
        self.dialogues: DialogueManager | None = None
        self.writer_queue: WriterQueue | None = None
        self.state: BotState | None = None
        self.scheduler: Any = None
        self.api: Any = None
        self.watcher: MemoryWatcher | None = None
        self.trees: DialogTrees | None = None
        self.model: ChatModel | None = None
        self.embedder: Embedder | None = None
        self.gate: Any = None
        self.registry: Any = None
        self.initialized = False
        self.running = False

    # ------------------------------------------------------------------ lifecycle

    async def initialize(self) -> None:
        if self.initialized:
            return
        settings = self.settings
        lock = self._stack.enter_context(own_workspace(Path(settings.workspace)))
        base = self._embedder_override or embedder_from_settings(settings)
        self.gate, self.registry = self._build_gate()
        if settings.embedding.device.startswith("cuda") and hasattr(base, "unload"):
            # On a GPU the embedder is a resident of the VRAM gate: evicted when idle or
            # when something more urgent needs the memory, loaded again on next use.
            base = self.registry.add_embedder(base)  # type: ignore[arg-type]
        self.embedder = RecentEmbeddings(base)
        self.memory = await self._stack.enter_async_context(
            open_workspace(settings, embedder=self.embedder)
        )
        self.state = BotState(Path(settings.workspace))
        await self.state.open()
        self._stack.push_async_callback(self.state.close)
        self.trees = DialogTrees(Path(settings.workspace))
        self.model = self._build_model()
        await self._stack.enter_async_context(serve_control(self, lock))
        writer = MemoryWriter.from_settings(
            settings, self.memory.store, model=self.model, vectors=self.memory.index
        )
        self.writer_queue = WriterQueue(writer)
        recaller = self._build_recaller()
        commands = Commands(
            CommandContext(settings=settings, store=self.memory.store, state=self.state)
        )
        self.dialogues = DialogueManager(
            settings,
            store=self.memory.store,
            state=self.state,
            log=TreeLog(
                self.trees,
                self.embedder,
                prefetch=getattr(recaller, "prefetch_texts", None),
            ),
            recaller=recaller,
            writer_queue=self.writer_queue,
            model=self.model,
            redactor=Redactor(settings.privacy),
            commands=commands,
        )
        self.finder: Any = None
        self.folder_watcher: Any = None
        await self._open_documents()
        self.dialogues.agent_models = self._agent_models()
        self.adapters = self._build_adapters()
        self.initialized = True

    async def start(self) -> None:
        if not self.initialized:
            await self.initialize()
        assert self.writer_queue is not None and self.memory is not None
        await self._start_recall()
        await self.writer_queue.start()
        if self._watch:
            self.watcher = MemoryWatcher(
                self.memory.store,
                self.memory.index,
                debounce_s=self.settings.memory.watch_debounce_s,
            )
            await self.watcher.start()
        if self._watch:
            await self._start_folder_watcher()
        if self._use_scheduler:
            await self._start_scheduler()
        if self.settings.api.enabled:
            await self._start_api()
        for adapter in self.adapters:
            await adapter.start()
        self.create_task(self._flush_loop(), name="stats-flush")
        self.running = True

    async def stop(self) -> None:
        """Stop taking new messages, then finish what is queued."""
        if not self.running:
            return
        self.running = False
        for adapter in reversed(self.adapters):
            with contextlib.suppress(Exception):
                await adapter.stop()
        if self.dialogues is not None:
            await self.dialogues.settle()
        if self.writer_queue is not None:
            await self.writer_queue.stop()
        await self._flush_stats()
        if self.scheduler is not None:
            await self.scheduler.stop()
        if self.api is not None:
            await self.api.stop()
        if self.watcher is not None:
            await self.watcher.stop()
        if self.folder_watcher is not None:
            await self.folder_watcher.stop()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.trees is not None:
            await asyncio.to_thread(self.trees.compact_all)
        self._stopped.set()

    async def shutdown(self) -> None:
        if self.running:
            await self.stop()
        await self._stack.aclose()
        self.initialized = False

    async def __aenter__(self) -> Application:
        await self.initialize()
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()

    # ------------------------------------------------------------------ running

    def create_task(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """A tracked background task; its error (not a cancellation) goes to the handler."""
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                self.error_handler(t.exception(), name)  # type: ignore[arg-type]

        task.add_done_callback(done)
        return task

    async def run_until_stopped(self) -> None:
        """Run until Ctrl-C / SIGTERM (or the console's input ends), then stop cleanly."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        waiters = [asyncio.create_task(stop.wait())]
        console = next((a for a in self.adapters if isinstance(a, ConsoleAdapter)), None)
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
            await self.stop()

    # ------------------------------------------------------------------ building

    def _build_gate(self) -> tuple[Any, Any]:
        from familiars.scheduler import ModelRegistry, VRAMGate

        gate = VRAMGate.from_settings(self.settings.gate)
        return gate, ModelRegistry(gate)

    def _build_model(self) -> ChatModel | None:
        if self._model_override is not True:
            return self._model_override or None  # type: ignore[return-value]
        return build_chat_model(self.settings.llm)

    def _agent_models(self) -> dict[str, ChatModel | None]:
        """A router over just the provider an agent names (the shared one otherwise)."""
        if self._model_override is not True:
            return {}
        out: dict[str, ChatModel | None] = {}
        providers = {p.name: p for p in self.settings.llm.providers}
        for agent in self.settings.agents:
            if not agent.provider:
                continue
            if agent.provider not in providers:
                logger.warning(
                    "agent %s names provider %r, which is not configured; it uses the default",
                    agent.id,
                    agent.provider,
                )
                continue
            own = self.settings.llm.model_copy(update={"providers": [providers[agent.provider]]})
            out[agent.id] = build_chat_model(own)
        return out

    def _build_recaller(self) -> Any:
        try:
            from familiars.bot._recall import build_recaller
        except ImportError:
            logger.warning("recall is not available in this build; replies use no memories")
            return None
        assert self.memory is not None and self.trees is not None
        return build_recaller(self.settings, self.memory, self.trees)

    async def _start_recall(self) -> None:
        recaller = self.dialogues.recaller if self.dialogues is not None else None
        if recaller is None:
            return
        from familiars.bot._recall import ReaderRecaller, start_recaller

        assert isinstance(recaller, ReaderRecaller)
        assert self.memory is not None and self.trees is not None and self.state is not None
        known = [(d.agent_id, d.dialogue_id) for d in await self.state.dialogues()]
        await start_recaller(recaller, self.memory, self.trees, known)

    def _build_adapters(self) -> list[PlatformAdapter]:
        assert self.dialogues is not None
        adapters: list[PlatformAdapter] = list(self._extra_adapters)
        if self._use_platforms:
            adapters += self._platform_adapters()
        if self._console is not None:
            adapters.append(self._console)
        elif not adapters and self._console_user is not None:
            adapters.append(
                ConsoleAdapter(self.dialogues, user=self._console_user, settle=self.settle)
            )
        return adapters

    def _platform_adapters(self) -> list[PlatformAdapter]:
        assert self.dialogues is not None
        found: list[PlatformAdapter] = []
        discord_token = self.settings.secret(self.settings.discord.token_env)
        if discord_token:
            from familiars.bot._adapters.discord import DiscordAdapter

            found.append(DiscordAdapter(self.dialogues, self.settings, discord_token))
        telegram_token = self.settings.secret(self.settings.telegram.token_env)
        if telegram_token:
            from familiars.bot._adapters.telegram import TelegramAdapter

            found.append(
                TelegramAdapter(
                    self.dialogues,
                    self.settings,
                    telegram_token,
                    base_url=self.settings.telegram.base_url,
                )
            )
        return found

    async def _open_documents(self) -> None:
        from familiars.bot._documents import Documents
        from familiars.memory import DocumentFinder

        assert self.dialogues is not None and self.embedder is not None
        finder = DocumentFinder(Path(self.settings.workspace), self.embedder, self.settings)
        await finder.open()
        self._stack.push_async_callback(finder.close)
        self.finder = finder
        docs = Documents(finder, max_bytes=int(self.settings.files.max_file_mb * 1024 * 1024))
        self.dialogues.documents = docs
        self.dialogues.commands.ctx.find = docs.find

    async def _start_folder_watcher(self) -> None:
        if not self.settings.files.watch_dirs or self.finder is None:
            return
        from familiars.memory import FolderWatcher

        self.folder_watcher = FolderWatcher(self.finder, self.settings.files.watch_dirs)
        await self.folder_watcher.start()
        # Catching up with what changed while the bot was down can embed for minutes on a
        # big folder: it runs in the background instead of holding up the start.
        self.create_task(self._scan_watch_dirs(), name="watch-dirs-scan")

    async def _scan_watch_dirs(self) -> None:
        assert self.finder is not None
        for result in await self.finder.scan_watch_dirs():
            if result.status == "skipped":
                logger.info("not indexed: %s (%s)", result.path, result.reason)

    async def settle(self) -> None:
        """Everything the last turns started is done: reply nodes added, memories written."""
        if self.dialogues is not None:
            await self.dialogues.settle()
        if self.writer_queue is not None:
            await self.writer_queue.drain()

    async def _start_scheduler(self) -> None:
        try:
            from familiars.bot._proactive import build_scheduler
        except ImportError:
            return
        self.scheduler = build_scheduler(self)
        await self.scheduler.start()

    async def _start_api(self) -> None:
        from familiars.bot._api.server import ApiServer
        from familiars.bot._api.status import StatusSources

        assert self.memory is not None
        queue, dialogues, model = self.writer_queue, self.dialogues, self.model
        sources = StatusSources(
            settings=self.settings,
            embedder=self.embedder,
            writer_stats=queue.stats if queue is not None else None,
            recall_stats=dialogues.stats.as_dict if dialogues is not None else None,
            gate=self.gate,
            providers=(lambda: [s.as_dict() for s in model.states()]) if model else None,
        )
        self.api = ApiServer.from_sources(sources)
        await self.api.start()

    # ------------------------------------------------------------------ housekeeping

    async def _flush_loop(self, every_s: float = 30.0) -> None:
        while True:
            await asyncio.sleep(every_s)
            await self._flush_stats()
            if self.trees is not None:  # fold long dialogue journals into dialogue.json
                await asyncio.to_thread(self.trees.compact_due)

    async def _flush_stats(self) -> None:
        if self.dialogues is None:
            return
        try:
            await self.dialogues.flush_access()
        except Exception as exc:  # noqa: BLE001 - counters only; reported, retried next time
            self.error_handler(exc, "access-flush")
        path = Path(self.settings.workspace) / "state" / "recall_stats.json"
        data = json.dumps(self.dialogues.stats.as_dict())
        await asyncio.to_thread(atomic_write_text, path, data)
