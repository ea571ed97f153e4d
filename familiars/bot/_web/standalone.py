"""The memory page under ``familiars api`` (the API without the bot).

:func:`standalone_backend` takes the workspace when nobody owns it: then this process is
its owner for as long as it serves (the lock, the control socket the command line writes
through, the same commands and the one Forgetter as the bot), so the page's changes never
race anything. While another process owns it (``familiars run``), the page only reads, and
every change answers with who owns the workspace and where to go instead.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from familiars.bot._commands import CommandSet, default_commands
from familiars.bot._control import command_line, serve_control
from familiars.bot._state import BotState
from familiars.bot._web.backend import WebBackend
from familiars.bot._web.sessions import SignInLinks, base_url
from familiars.config import Settings
from familiars.memory import (
    DialogTrees,
    Forgetter,
    OwnerInfo,
    WorkspaceBusyError,
    WorkspaceLock,
    open_workspace,
)
from familiars.scheduler import ReminderBook

logger = logging.getLogger(__name__)


def read_only_reason(owner: OwnerInfo | None) -> str:
    who = f"pid {owner.pid} ({owner.command})" if owner is not None else "another process"
    return (
        f"This page only reads: {who} owns this workspace and makes every change to it. "
        "Ask the bot for its own page (/memory web), or stop it and start familiars api again."
    )


@asynccontextmanager
async def standalone_backend(settings: Settings) -> AsyncIterator[WebBackend]:
    workspace = Path(settings.workspace)
    lock = WorkspaceLock(workspace, command_line())
    try:
        lock.acquire(wait_s=0.0)
    except WorkspaceBusyError as exc:
        logger.warning("the memory page is read-only: %s", exc)
        async with _backend(settings, None, read_only_reason(exc.owner)) as backend:
            yield backend
        return
    lock.set_api(base_url(settings))  # what `familiars memory link` links to (--port too)
    try:
        async with _backend(settings, lock, None) as backend:
            yield backend
    finally:
        lock.release()


@asynccontextmanager
async def _backend(
    settings: Settings, lock: WorkspaceLock | None, read_only: str | None
) -> AsyncIterator[WebBackend]:
    workspace = Path(settings.workspace)
    async with AsyncExitStack() as stack:
        mw = await stack.enter_async_context(
            open_workspace(settings, embedder=False, reconcile=lock is not None)
        )
        state = BotState(workspace, mw.home)
        await state.open()
        stack.push_async_callback(state.close)
        trees = DialogTrees(workspace, home=mw.home)
        forgetter = Forgetter(mw.store, mw.index, trees)
        if lock is not None:
            await forgetter.resume()  # a forget a crash cut short, finished first
            await stack.enter_async_context(serve_control(mw, None, lock, forgetter=forgetter))
        book = ReminderBook(
            mw.store,
            grace_s=settings.scheduler.reminder_grace_s,
            default_timezone=settings.scheduler.timezone,
        )
        links = SignInLinks.from_settings(settings, home=mw.home)
        commands = default_commands(
            mw.store,
            state,
            reminders=book,
            forgetter=forgetter,
            web=links,
            max_record_chars=settings.memory.max_record_chars,
        )
        yield WebBackend(
            settings=settings,
            store=mw.store,
            state=state,
            trees=trees,
            book=book,
            commands=CommandSet(commands),
            sessions=links.sessions,
            read_only=read_only,
        )
