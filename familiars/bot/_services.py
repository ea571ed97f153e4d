"""The runtime's builder: every service built once, in dependency order, each given only the
collaborators it uses; nothing is patched in afterwards and no service sees the whole.

    embedder (model loaded in a thread) -> workspace (store + index) -> bot state, trees
    -> chat model(s) -> writer queue -> recaller -> documents -> running adapters
    -> scheduler (its sender reaches the running adapters) -> commands (with the memory
    page's sign-in links) -> dialogue manager -> adapters, API server (with the memory
    page over the same commands), watchers

:func:`build_services` opens what must be open before anything can run (the embedder's model,
storage, the document index) and pushes each close on the caller's exit stack. It starts
nothing: :class:`~familiars.bot._runtime.Application` starts the result, a frozen
:class:`Services`. :class:`RuntimeOptions` holds what the caller chose (fakes for tests, which
parts run).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import PlatformAdapter, TurnHandler, WebhookReceiver
from familiars.bot._adapters.console import ConsoleAdapter
from familiars.bot._after_reply import AfterReplies
from familiars.bot._commands import CommandSet, default_commands
from familiars.bot._dialogue import DialogueManager
from familiars.bot._documents import Documents
from familiars.bot._forget_person import PeopleState
from familiars.bot._forgetting import ForgetByWords, runtime_forgetter
from familiars.bot._home_zone import follow_forgotten_home, zone_reader
from familiars.bot._outbound import Outbound
from familiars.bot._proactive import (
    RunningAdapters,
    RuntimeSender,
    StateDirectory,
    UndeliverableError,
    proactive_switch,
)
from familiars.bot._recall import ReaderRecaller, RecordSearch, build_recaller
from familiars.bot._reminder_words import ReminderWords
from familiars.bot._stages import RecallLog, TurnServices
from familiars.bot._state import BotState
from familiars.bot._trees import RecentEmbeddings, TreeLog
from familiars.bot._turn_stats import TurnStats
from familiars.bot._turn_tools import TurnTools
from familiars.bot._web import SignInLinks, WebSessions
from familiars.config import Settings
from familiars.llm import ChatModel, build_chat_model
from familiars.memory import (
    DialogTrees,
    DocumentFinder,
    Embedder,
    FolderWatcher,
    ForgetReport,
    Forgetter,
    MemoryWatcher,
    MemoryWorkspace,
    MemoryWriter,
    PeopleIndex,
    Redactor,
    SentenceTransformerEmbedder,
    StateHome,
    Understanding,
    WriterQueue,
    consolidation_due,
    consolidation_work,
    embedder_from_settings,
    open_workspace,
    sweep_expired,
    understanding_for,
    utcnow,
)
from familiars.scheduler import ModelRegistry, ReminderBook, Scheduler, VRAMGate

if TYPE_CHECKING:
    from familiars.bot._api.server import ApiServer
    from familiars.bot._web.backend import WebBackend

logger = logging.getLogger(__name__)

#: ``handler(exc, where)``: where a background failure goes.
ErrorHandler = Callable[[BaseException, str], None]
Settle = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class RuntimeOptions:
    """What the caller of the runtime chose. ``model=True`` builds the configured router,
    ``None`` answers offline, a :class:`ChatModel` is used as is."""

    embedder: Embedder | None = None
    model: ChatModel | None | bool = True
    console: ConsoleAdapter | None = None
    console_user: str | None = None
    adapters: tuple[PlatformAdapter, ...] = ()
    platforms: bool = True
    scheduler: bool = True
    watch: bool = True
    clock: Callable[[], datetime] | None = None


@dataclass(frozen=True)
class Services:
    """Everything the runtime built, for it to start and stop (and for tests to look at)."""

    settings: Settings
    access: AccessPolicy
    embedder: Embedder
    gate: VRAMGate
    registry: ModelRegistry
    memory: MemoryWorkspace
    state: BotState
    trees: DialogTrees
    #: The turn's tree writer (deferred reply nodes, their crash recovery).
    log: TreeLog
    model: ChatModel | None
    writer_queue: WriterQueue
    recaller: ReaderRecaller
    finder: DocumentFinder
    dialogues: DialogueManager
    running: RunningAdapters
    adapters: tuple[PlatformAdapter, ...]
    scheduler: Scheduler | None
    api: ApiServer | None
    watcher: MemoryWatcher | None
    folder_watcher: FolderWatcher | None
    #: The one way to forget (issues 12, 19): commands, words, tools, the control socket,
    #: the API and the memory page all go through it.
    forgetter: Forgetter
    #: The memory page's sign-in links (``/memory web``), with the API only.
    web_links: SignInLinks | None = None

    async def settle(self) -> None:
        """Everything the last turns started is done: reply nodes added, memories written."""
        await self.dialogues.settle()
        await self.writer_queue.drain()


@dataclass(frozen=True)
class _Storage:
    """What the first, storage-opening step yields."""

    embedder: Embedder
    gate: VRAMGate
    registry: ModelRegistry
    memory: MemoryWorkspace
    state: BotState
    trees: DialogTrees
    finder: DocumentFinder


async def build_services(
    settings: Settings, options: RuntimeOptions, stack: AsyncExitStack, on_error: ErrorHandler
) -> Services:
    """Build every service in dependency order; closes go on ``stack``."""
    store = await _open_storage(settings, options, stack)
    clock = options.clock or utcnow
    model = _chat_model(settings, options.model)
    writer_queue = _writer_queue(settings, store, model)
    recaller = build_recaller(settings, store.memory, store.trees, model)
    log = TreeLog(store.trees, store.embedder, prefetch=recaller.prefetch_texts)
    recall_log: RecallLog = {}
    afters = AfterReplies()  # what follows each reply: the forgetter waits for it too
    stack.push_async_callback(afters.drain)  # and storage closes only after it (no start)
    forgetter = _forgetter(store, recaller, log, recall_log, writer_queue, afters)
    running, stats = RunningAdapters(), TurnStats()
    # The one group check (issue 19): the turn's replies and every proactive message.
    outbound = Outbound(store.memory.store, store.state, log=log, counter=stats)
    scheduler = None
    if options.scheduler:
        sender = RuntimeSender(store.state, log, running, outbound=outbound, clock=clock)
        scheduler = _scheduler(settings, store, sender, model, recaller, clock, on_error)
        forgetter.hooks.append(scheduler.forget)  # the reminder ledger it keeps in memory
    forgetter.hooks.append(_home_zone_hook(settings, store, scheduler, clock))
    forgetter.bot_names = {agent.name for agent in settings.agents}  # "thanks Luna!" is no repeat
    access = AccessPolicy.from_settings(settings)  # one policy: the manager and every adapter
    docs = _docs(settings, store)
    turn = _Turn(
        model, writer_queue, recaller, log, stats, recall_log, forgetter, docs, outbound, afters
    )
    web = _Web.build(settings, store, scheduler)
    commands = _commands(options, store, turn, scheduler, web)
    dialogues = _dialogue_manager(settings, options, store, turn, scheduler, access, commands)
    settle = _settler(dialogues, writer_queue)
    adapters = _adapters(settings, options, dialogues, settle, access, store.memory.home)
    webhooks = [a.webhook for a in adapters if a.webhook is not None]
    api = _api_for(web, settings, store, turn, commands, stack, webhooks)
    return Services(
        settings=settings,
        access=access,
        embedder=store.embedder,
        gate=store.gate,
        registry=store.registry,
        memory=store.memory,
        state=store.state,
        trees=store.trees,
        log=log,
        model=model,
        writer_queue=writer_queue,
        recaller=recaller,
        finder=store.finder,
        dialogues=dialogues,
        running=running,
        adapters=adapters,
        scheduler=scheduler,
        api=api,
        watcher=_memory_watcher(settings, store.memory) if options.watch else None,
        folder_watcher=_folder_watcher(settings, options, store),
        forgetter=forgetter,
        web_links=web.links if web is not None else None,
    )


def _home_zone_hook(
    settings: Settings, store: _Storage, scheduler: Scheduler | None, clock: Callable[[], datetime]
) -> Callable[[ForgetReport], Awaitable[None]]:
    """A forgotten home's zone: the reminders that followed it follow the zone now in force."""
    return follow_forgotten_home(
        _book(settings, store, scheduler),
        store.state,
        store.memory.store,
        settings.scheduler.timezone,
        clock,
        store.memory.index.purge_texts,
    )


def _writer_queue(settings: Settings, store: _Storage, model: ChatModel | None) -> WriterQueue:
    return WriterQueue(
        MemoryWriter.from_settings(
            settings, store.memory.store, model=model, vectors=store.memory.index
        ),
        store.memory.home,  # the folder, or rows every worker takes from
    )


@dataclass(frozen=True)
class _Turn:
    """What a turn uses beyond storage."""

    model: ChatModel | None
    writer_queue: WriterQueue
    recaller: ReaderRecaller
    log: TreeLog
    stats: TurnStats
    recall_log: RecallLog
    forgetter: Forgetter
    documents: Documents
    outbound: Outbound
    afters: AfterReplies


def _docs(settings: Settings, store: _Storage) -> Documents:
    return Documents(store.finder, max_bytes=int(settings.files.max_file_mb * 1024 * 1024))


@dataclass(frozen=True)
class _Web:
    """The memory page's parts (only with the API on): its sign-in links (``/memory web``)
    and the one reminder book its pages and the commands share."""

    settings: Settings
    store: _Storage
    links: SignInLinks
    book: ReminderBook

    @classmethod
    def build(cls, settings: Settings, store: _Storage, scheduler: Scheduler | None) -> _Web | None:
        if not settings.api.enabled:
            return None
        links = SignInLinks.from_settings(settings, home=store.memory.home)
        return cls(settings, store, links, _book(settings, store, scheduler))

    def backend(
        self, commands: CommandSet, recall_log: RecallLog, people: PeopleIndex | None = None
    ) -> WebBackend:
        from familiars.bot._web.backend import WebBackend

        return WebBackend(
            settings=self.settings,
            store=self.store.memory.store,
            state=self.store.state,
            trees=self.store.trees,
            book=self.book,
            commands=commands,
            sessions=self.links.sessions,
            recall_log=recall_log,
            people=people,
        )


def _understanding(embedder: Embedder | None) -> Understanding | None:
    """The offline writer's learned part, over the loaded embedder when its space suits."""
    if embedder is None:
        return None
    name, dimension = embedder.space
    return understanding_for(embedder.embed_batch, name, dimension)


def _book(settings: Settings, store: _Storage, scheduler: Scheduler | None) -> ReminderBook:
    """The running scheduler's book (its jobs follow at once), else one over the records."""
    if scheduler is not None:
        return scheduler.book
    return ReminderBook(
        store.memory.store,
        grace_s=settings.scheduler.reminder_grace_s,
        default_timezone=settings.scheduler.timezone,
    )


def _commands(
    options: RuntimeOptions,
    store: _Storage,
    turn: _Turn,
    scheduler: Scheduler | None,
    web: _Web | None,
) -> CommandSet:
    """The commands with their services (the memory page runs its changes through them)."""
    if web is not None:
        book: ReminderBook | None = web.book
    else:
        book = scheduler.book if scheduler is not None else None
    return CommandSet(
        default_commands(
            store.memory.store,
            store.state,
            search=RecordSearch(
                turn.recaller,
                clock=options.clock or utcnow,
                model=lambda: store.embedder.model_name,
            ),
            find=turn.documents.find,
            recall_log=turn.recall_log,
            fanout_log=turn.recaller.fanout_log,
            on_used=_count_use(turn.stats),
            on_proactive=proactive_switch(scheduler) if scheduler is not None else None,
            reminders=book,
            now=options.clock or utcnow,
            forgetter=turn.forgetter,
            web=web.links if web is not None else None,
            max_record_chars=store.memory.settings.memory.max_record_chars,
        )
    )


def _dialogue_manager(
    settings: Settings,
    options: RuntimeOptions,
    store: _Storage,
    turn: _Turn,
    scheduler: Scheduler | None,
    access: AccessPolicy,
    commands: CommandSet,
) -> DialogueManager:
    """The manager that answers turns with the commands and the turn's services."""
    documents = turn.documents
    recall_log = turn.recall_log
    # The tools' forget questions wait where those asked in words do: one place answers them.
    forget_words = ForgetByWords(
        turn.forgetter,
        zone_of=zone_reader(store.state, store.memory.store, settings.scheduler.timezone),
    )
    services = TurnServices(
        settings=settings,
        access=access,
        store=store.memory.store,
        state=store.state,
        log=turn.log,
        recaller=turn.recaller,
        writer_queue=turn.writer_queue,
        model=turn.model,
        outbound=turn.outbound,
        redactor=Redactor(settings.privacy),
        stats=turn.stats,
        agent_models=_agent_models(settings, options.model),
        documents=documents,
        turn_tools=_turn_tools(settings, store, turn, scheduler, forget_words),
        recall_log=recall_log,
        understanding=_understanding(store.embedder),
        afters=turn.afters,
    )
    manager = DialogueManager(
        services,
        forget_words=forget_words,
        reminder_words=ReminderWords(
            services.turn_tools.book if services.turn_tools else _book(settings, store, scheduler),
            zone_of=zone_reader(store.state, store.memory.store, settings.scheduler.timezone),
        ),
        commands=commands,
        on_care_pause=scheduler.care_pause if scheduler is not None else None,
    )
    turn.forgetter.hooks.append(manager.planner.forgot)  # a forgotten home's zone note
    return manager


def _turn_tools(
    settings: Settings,
    store: _Storage,
    turn: _Turn,
    scheduler: Scheduler | None,
    forget_words: ForgetByWords,
) -> TurnTools:
    """The tools a model that takes them may use: the same store, reminder book (the
    running scheduler's, so its jobs follow at once) and recall as the commands."""
    book = scheduler.book if scheduler is not None else None
    book = book or ReminderBook(
        store.memory.store,
        grace_s=settings.scheduler.reminder_grace_s,
        default_timezone=settings.scheduler.timezone,
    )
    return TurnTools(
        store.memory.store,
        store.state,
        book,
        forgetter=turn.forgetter,
        search=turn.recaller,
        max_rounds=settings.llm.max_tool_rounds,
        max_calls=settings.llm.max_tool_calls,
        max_request_chars=settings.llm.prompt_token_budget * 4,
        write_budget_chars=settings.memory.writer_budget_chars,
        max_record_chars=settings.memory.max_record_chars,
        ask_forget=forget_words.ask,
    )


async def _open_storage(
    settings: Settings, options: RuntimeOptions, stack: AsyncExitStack
) -> _Storage:
    gate = VRAMGate.from_settings(settings.gate)
    registry = ModelRegistry(gate)
    # The model loads in a thread while the database opens and the files reconcile.
    loading = asyncio.ensure_future(_open_embedder(settings, options.embedder, registry))
    workspace = Path(settings.workspace)
    try:
        memory = await stack.enter_async_context(open_workspace(settings, embedder=loading))
    finally:
        if not loading.done():
            loading.cancel()
        elif not loading.cancelled():
            loading.exception()  # retrieved: raised above when it was what failed
    embedder = memory.embedder
    assert embedder is not None
    state = BotState(workspace, memory.home)
    await state.open()
    stack.push_async_callback(state.close)
    finder = DocumentFinder(workspace, embedder, settings)
    await finder.open()
    stack.push_async_callback(finder.close)
    trees = DialogTrees(workspace, home=memory.home)  # files, or the database's rows
    return _Storage(embedder, gate, registry, memory, state, trees, finder)


async def _open_embedder(
    settings: Settings, override: Embedder | None, registry: ModelRegistry
) -> Embedder:
    """The configured (or given) embedder with its model loaded, off the event loop; on a
    GPU a resident of the VRAM gate (evicted when idle or when something more urgent needs
    the memory, loaded again on next use); behind a cache of the turn's texts."""
    if override is None:
        base: Embedder = await asyncio.to_thread(embedder_from_settings, settings)
    else:
        base = override
        await asyncio.to_thread(base.open)
    if settings.embedding.device.startswith("cuda") and isinstance(
        base, SentenceTransformerEmbedder
    ):
        base = registry.add_embedder(base)
    return RecentEmbeddings(base)


def _chat_model(settings: Settings, override: ChatModel | None | bool) -> ChatModel | None:
    if override is True:
        return build_chat_model(settings.llm)
    return override or None


def _agent_models(
    settings: Settings, override: ChatModel | None | bool
) -> dict[str, ChatModel | None]:
    """A router over just the provider an agent names (the shared one otherwise)."""
    if override is not True:
        return {}
    out: dict[str, ChatModel | None] = {}
    providers = {p.name: p for p in settings.llm.providers}
    for agent in settings.agents:
        if not agent.provider:
            continue
        if agent.provider not in providers:
            logger.warning(
                "agent %s names provider %r, which is not configured; it uses the default",
                agent.id,
                agent.provider,
            )
            continue
        own = settings.llm.model_copy(update={"providers": [providers[agent.provider]]})
        out[agent.id] = build_chat_model(own)
    return out


def _scheduler(
    settings: Settings,
    store: _Storage,
    sender: RuntimeSender,
    model: ChatModel | None,
    recaller: ReaderRecaller,
    clock: Callable[[], datetime],
    on_error: ErrorHandler,
) -> Scheduler:
    def handle(name: str, exc: BaseException) -> None:
        if isinstance(exc, UndeliverableError):  # the person's chat is not open: it waits
            logger.info("scheduler job %s: %s; tried again at the next tick", name, exc)
            return
        on_error(exc, f"scheduler job {name}")

    records = store.memory.store
    return Scheduler(
        settings,
        records,
        sender,
        clock=clock,
        dialogues=StateDirectory(store.state, store.memory.store, settings.scheduler.timezone),
        model=model,
        gate=store.gate,
        # Issue 25: the pass and the TTL sweep run in the bot, not only by hand.
        consolidate=consolidation_work(
            records, store.memory.index, model=model, clock=clock, trees=store.trees
        ),
        sweep=lambda now: sweep_expired(records, now),
        consolidation_due=lambda now: consolidation_due(records, now),
        flush_stats=recaller.flush_access,
        error_handler=handle,
        wait_for_sender=True,  # the runtime calls sender_ready() once its adapters run
        home=store.memory.home,  # the ledger: a file, or rows every worker shares
    )


def _forgetter(
    store: _Storage,
    recaller: ReaderRecaller,
    log: TreeLog,
    recall_log: RecallLog,
    writer_queue: WriterQueue,
    afters: AfterReplies,
) -> Forgetter:
    """The one Forgetter (issue 12): the open trees, and every cache that held the text.
    Before it forgets, the after() of the replies handed over by then ends, held-back reply
    nodes are added and queued writes done (a queued turn would otherwise write the
    forgotten fact again)."""

    async def settle() -> None:
        await afters.wait()
        await log.flush_all()
        await writer_queue.drain()

    return runtime_forgetter(
        store.memory,
        store.trees,
        reader=recaller.reader,
        embedder=store.embedder,
        flush=settle,
        recall_log=recall_log,
        fanout_log=recaller.fanout_log,
        documents=store.finder,
        people=PeopleState(
            store.state,
            WebSessions(Path(store.memory.settings.workspace), home=store.memory.home),
        ),
    )


def _count_use(stats: TurnStats) -> Callable[[str], None]:
    """``/memory show`` of a record counts as a use of it (the recall hit rate)."""

    def note(record_id: str) -> None:
        stats.used += 1

    return note


def _settler(dialogues: DialogueManager, writer_queue: WriterQueue) -> Settle:
    async def settle() -> None:
        await dialogues.settle()
        await writer_queue.drain()

    return settle


def _adapters(
    settings: Settings,
    options: RuntimeOptions,
    handler: TurnHandler,
    settle: Settle,
    access: AccessPolicy,
    home: StateHome,
) -> tuple[PlatformAdapter, ...]:
    adapters: list[PlatformAdapter] = list(options.adapters)
    if options.platforms:
        adapters += _platform_adapters(settings, handler, access, home)
    if options.console is not None:
        adapters.append(options.console)
    elif not adapters and options.console_user is not None:
        adapters.append(ConsoleAdapter(handler, user=options.console_user, settle=settle))
    return tuple(adapters)


def _platform_adapters(
    settings: Settings, handler: TurnHandler, access: AccessPolicy, home: StateHome
) -> Sequence[PlatformAdapter]:
    """Discord and Telegram where their token is set (imported only then: they are big)."""
    found: list[PlatformAdapter] = []
    discord_token = settings.secret(settings.discord.token_env)
    if discord_token:
        from familiars.bot._adapters.discord import DiscordAdapter

        found.append(DiscordAdapter(handler, settings, discord_token, access=access))
    telegram_token = settings.secret(settings.telegram.token_env)
    if telegram_token:
        from familiars.bot._adapters.telegram import TelegramAdapter

        found.append(
            TelegramAdapter(
                handler,
                settings,
                telegram_token,
                access=access,
                base_url=settings.telegram.base_url,
                home=home,  # webhook updates: claimed in the files, or rows every worker shares
            )
        )
    return found


def _api_for(
    web: _Web | None,
    settings: Settings,
    store: _Storage,
    turn: _Turn,
    commands: CommandSet,
    stack: AsyncExitStack,
    webhooks: Sequence[WebhookReceiver],
) -> ApiServer | None:
    """The API with the memory page and the platforms' webhooks, when the API is on; its
    index reader is closed on the way out whether it served or not."""
    if web is None:
        return None
    backend = web.backend(commands, turn.recall_log, turn.recaller.people)
    api = _api(settings, store, turn, backend, webhooks)
    stack.push_async_callback(api.close)
    return api


def _api(
    settings: Settings,
    store: _Storage,
    turn: _Turn,
    web: WebBackend,
    webhooks: Sequence[WebhookReceiver],
) -> ApiServer:
    from familiars.bot._api.server import ApiServer
    from familiars.bot._api.status import StatusSources

    model = turn.model
    sources = StatusSources(
        settings=settings,
        embedder=store.embedder,
        writer_stats=turn.writer_queue.stats,
        recall_stats=turn.stats.as_dict,
        gate=store.gate,
        providers=(lambda: [s.as_dict() for s in model.states()]) if model else None,
        forget=turn.forgetter.forget,
    )
    return ApiServer.from_sources(sources, web=web, webhooks=webhooks)


def _folder_watcher(
    settings: Settings, options: RuntimeOptions, store: _Storage
) -> FolderWatcher | None:
    if not options.watch or not settings.files.watch_dirs:
        return None
    return FolderWatcher(store.finder, settings.files.watch_dirs)


def _memory_watcher(settings: Settings, memory: MemoryWorkspace) -> MemoryWatcher:
    return MemoryWatcher(memory.store, memory.index, debounce_s=settings.memory.watch_debounce_s)
