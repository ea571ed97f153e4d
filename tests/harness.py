"""The shared test harness: an :class:`Application` built the way tests want it, and the
small steps most bot tests take (a message, a turn).

    app = make_app(workspace)                        # offline, fake embedder, nothing else
    app = make_app(settings, model=Spy(), clock=lambda: NOW)
    async with running_app(workspace) as app:
        reply = await say(app, message("My name is Ann."))
    msg = speaker(platform="telegram", user="sam", name="Sam", at=T0)   # a file's usual speaker
    await say(app, msg("remind me at 5", 1))                            # one minute after T0

``make_app`` defaults to what a unit test needs: the deterministic :class:`HashEmbedder`, no
platform adapters, no scheduler, no file watcher. Every default can be overridden; ``model``
is left to the settings (the configured providers, or the offline answerer) unless given.
The conftest fixtures ``app_factory`` and ``app`` wrap these for a test's ``workspace``.
Fake platforms and models live beside this module: ``tests/fake_openai.py`` (an
OpenAI-compatible server), ``tests/bot/fake_telegram.py`` and ``tests/bot/fake_discord.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from familiars.bot import Application, IncomingMessage
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
