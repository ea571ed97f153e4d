"""The shared test harness: an :class:`Application` built the way tests want it, and the
small steps most bot tests take (a message, a turn).

    app = make_app(workspace)                        # offline, fake embedder, nothing else
    app = make_app(settings, model=Spy(), clock=lambda: NOW)
    async with running_app(workspace) as app:
        reply = await say(app, message("My name is Ann."))
    async with console_bot(settings, clock=[T0]) as bot:           # the runtime's console,
        await bot.say("remind me in 5 minutes to stretch")           # the scheduler on
        await bot.app.scheduler.run_due(...); assert "stretch" in bot.sent()
    msg = speaker(platform="telegram", user="sam", name="Sam", at=T0)   # a file's usual speaker
    await say(app, msg("remind me at 5", 1))                            # one minute after T0

Every Application a test starts is shut down (``shutdown()``, not only ``stop()``) by the
``async with`` that started it: an open database keeps a non-daemon aiosqlite thread alive,
and pytest would hang at exit after every test had passed (``tests/conftest.py`` fails the
run instead, naming the test that left the thread).

``make_app`` defaults to what a unit test needs: the deterministic :class:`HashEmbedder`, no
platform adapters, no scheduler, no file watcher. Every default can be overridden; ``model``
is left to the settings (the configured providers, or the offline answerer) unless given.
The conftest fixtures ``app_factory`` and ``app`` wrap these for a test's ``workspace``.
Fake platforms and models live beside this module: ``tests/fake_openai.py`` (an
OpenAI-compatible server), ``tests/bot/fake_telegram.py`` and ``tests/bot/fake_discord.py``.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from familiars.bot import Application, CommandInvocation, ConsoleAdapter, IncomingMessage
from familiars.config import Settings, load_settings
from tests.fakes import HashEmbedder

#: What a test's Application leaves out unless it asks: platforms, scheduler, watcher.
QUIET: dict[str, Any] = {"platforms": False, "scheduler": False, "watch": False}
T0 = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)


def make_app(where: Settings | Path, **options: Any) -> Application:
    """An Application on ``where`` (settings, or a workspace folder with default settings),
    with the fake embedder and nothing started that the test did not ask for."""
    settings = where if isinstance(where, Settings) else load_settings(workspace=where)
    if "embedder" not in options:
        options["embedder"] = HashEmbedder()
    return Application(settings, **{**QUIET, **options})


@asynccontextmanager
async def running_app(where: Settings | Path, **options: Any) -> AsyncIterator[Application]:
    """:func:`make_app`, started, and shut down after the block."""
    async with make_app(where, **options) as app:
        yield app


@asynccontextmanager
async def opened_app(where: Settings | Path, **options: Any) -> AsyncIterator[Application]:
    """:func:`make_app` with its services built (storage open) but nothing started: no
    adapter, scheduler job or background task runs unless the test starts it. Shut down
    after the block."""
    app = make_app(where, **options)
    try:
        await app.initialize()
        yield app
    finally:
        await app.shutdown()


def message(
    text: str,
    *,
    platform: str = "console",
    chat: str = "c0",
    user: str = "u1",
    name: str = "Ann",
    group: bool = False,
    minutes: float = 0,
    at: datetime = T0,
    **extra: Any,
) -> IncomingMessage:
    """A message of ``user`` in ``chat``, ``minutes`` after ``at``."""
    return IncomingMessage(
        platform=platform,
        chat_id=chat,
        user_id=user,
        display_name=name,
        text=text,
        ts=at + timedelta(minutes=minutes),
        is_group=group,
        **extra,
    )


def invocation(
    command: str,
    *args: str,
    platform: str = "console",
    chat: str = "c0",
    user: str = "u1",
    name: str = "Ann",
    group: bool = False,
    at: datetime | None = None,
) -> CommandInvocation:
    """``/command args`` of ``user`` in ``chat``, at ``at`` (now, unless given)."""
    when = {} if at is None else {"ts": at}
    return CommandInvocation(platform, chat, user, name, command, args, group, **when)


def speaker(
    *, dm: str = "dm-{user}", group_chat: str = "g1", **defaults: Any
) -> Callable[..., IncomingMessage]:
    """A :func:`message` builder with one test file's usual fields (platform, user, name,
    ``at``...): ``msg(text, minutes=0, **fields)``, a field given there wins. Unless ``chat`` is
    given, a direct message goes to ``dm`` (``{user}`` filled in) and a group one to
    ``group_chat``; a group message mentions the bot (so it is answered) unless told."""

    def build(text: str, minutes: float = 0, **fields: Any) -> IncomingMessage:
        said = {**defaults, **fields}
        group = bool(said.get("group", False))
        if "chat" not in said:
            said["chat"] = group_chat if group else dm.format(user=said.get("user", "u1"))
        if group:
            said.setdefault("mentions_bot", True)
        return message(text, minutes=minutes, **said)

    return build


async def reply_to(app: Application, incoming: IncomingMessage) -> str:
    """One turn: the whole reply, without waiting for the reply's node."""
    assert app.dialogues is not None
    return "".join([d async for d in app.dialogues.respond(incoming)])


async def say(app: Application, incoming: IncomingMessage) -> str:
    """One turn, then the deferred reply node added (as between two piped lines)."""
    out = await reply_to(app, incoming)
    await app.settle()
    return out


class ConsoleBot:
    """A running Application with the terminal adapter, whose output the test reads, and
    what a test says to it (as the terminal's person unless told). ``clock[0]`` is the
    time: the test moves it, and every message and command is said at it."""

    def __init__(
        self, app: Application, adapter: ConsoleAdapter, out: io.StringIO, clock: list[datetime]
    ) -> None:
        self.app = app
        self.adapter = adapter
        self.out = out
        self.clock = clock

    @property
    def chat_id(self) -> str:
        return self.adapter.chat_id

    def sent(self) -> str:
        """Everything the bot wrote to the terminal (proactive messages included)."""
        return self.out.getvalue()

    async def say(self, text: str, user: str | None = None) -> str:
        """One turn at ``clock[0]``: the whole reply, after the reply's node is added."""
        user = user or self.adapter.user
        return await say(
            self.app,
            message(text, chat=self.chat_id, user=user, name=user, at=self.clock[0]),
        )

    async def command(self, text: str, user: str | None = None) -> str:
        """``/name args`` at ``clock[0]``: the command's answer."""
        user = user or self.adapter.user
        name, *args = text.lstrip("/").split()
        assert self.app.dialogues is not None
        invocation = CommandInvocation(
            "console", self.chat_id, user, user, name, tuple(args), ts=self.clock[0]
        )
        return (await self.app.dialogues.command(invocation)).text

    def exact_jobs(self) -> dict[str, datetime]:
        """The scheduler's exact reminder jobs: ``reminder:<id>`` -> when it runs."""
        assert self.app.scheduler is not None
        return {
            str(job.id): job.next_run_time
            for job in self.app.scheduler.jobs.scheduler.get_jobs()
            if str(job.id).startswith("reminder:")
        }


@asynccontextmanager
async def console_bot(
    settings: Settings, clock: list[datetime], *, user: str = "alice", **options: Any
) -> AsyncIterator[ConsoleBot]:
    """The runtime with the scheduler on, offline, and a terminal adapter of ``user`` with no
    input lines; shut down after the block, whatever happens in it."""
    out = io.StringIO()
    adapter = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # the runtime's DialogueManager, bound below
        user=user,
        stdin=io.StringIO(""),
        stdout=out,
        interactive=False,
    )
    options = {"model": None, "scheduler": True, "clock": lambda: clock[0], **options}
    app = make_app(settings, console=adapter, **options)
    try:
        await app.initialize()  # the dialogue manager exists from here on
        adapter.handler = app.dialogues  # type: ignore[assignment]
        await app.start()
        yield ConsoleBot(app, adapter, out, clock)
    finally:
        await app.shutdown()
