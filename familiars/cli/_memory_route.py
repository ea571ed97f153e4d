"""Where a ``familiars memory`` write goes: through the running bot, or straight to the files.

Map:

- :func:`run_write` - a command's one call. When a bot (``run``/``chat``) owns the workspace
  the request goes over its control socket and the bot's own store writes it, so the two
  never race; when nothing runs, this process takes the workspace lock, writes, lets go.

Read-only commands need no lock (``_run.run_memory``).
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import typer

from familiars.config import Settings
from familiars.memory import (
    DocumentFinder,
    ForgetIntents,
    ForgetReport,
    Forgetter,
    LazyEmbedder,
    MemoryError_,
    MemoryWorkspace,
    OwnerUnreachableError,
    WorkspaceBusyError,
    WorkspaceLock,
    apply_write,
    embedder_from_settings,
    is_file_ref,
    is_person_ref,
    open_workspace,
    owned_elsewhere,
    send_request,
)
from familiars.terminal import fail, get_ctx

Direct = Callable[[MemoryWorkspace], Awaitable[Any]]

#: How long a write waits for another short command holding the workspace.
LOCK_WAIT_S = 30.0
_TRIES = 3


def _command_line() -> str:
    return shlex.join(["familiars", *sys.argv[1:]])


def run_write(
    ctx: typer.Context,
    request: dict[str, Any],
    *,
    embedder: bool = False,
    direct: Direct | None = None,
) -> Any:
    """Carry out ``request`` (see ``familiars.memory.apply_write``) wherever it belongs;
    ``direct`` replaces ``apply_write`` when this process does it itself (a progress bar)."""
    settings = get_ctx(ctx).settings
    try:
        return route_write(settings, request, embedder=embedder, direct=direct)
    except (MemoryError_, ValueError) as exc:
        fail(str(exc))


def route_write(
    settings: Settings,
    request: dict[str, Any],
    *,
    embedder: bool = False,
    direct: Direct | None = None,
) -> Any:
    workspace = Path(settings.workspace)
    last: Exception | None = None
    for _ in range(_TRIES):
        owner = owned_elsewhere(workspace)
        if owner is not None and owner.control:
            try:
                limit = settings.control.max_message_bytes
                return send_request(owner.control, request, max_bytes=limit)
            except OwnerUnreachableError as exc:  # it just stopped: look again
                last = exc
                continue
        lock = WorkspaceLock(workspace, _command_line())
        try:
            lock.acquire(wait_s=LOCK_WAIT_S)
        except WorkspaceBusyError as exc:
            if exc.owner is not None and exc.owner.control:
                continue  # a bot started meanwhile: send it there
            raise
        try:
            return asyncio.run(_direct(settings, request, embedder, direct))
        finally:
            lock.release()
    raise last or MemoryError_("could not reach the workspace's owner")


async def _direct(
    settings: Settings, request: dict[str, Any], embedder: bool, direct: Direct | None
) -> Any:
    model = _model_for(settings, request)
    try:
        async with AsyncExitStack() as stack:
            mw = await stack.enter_async_context(open_workspace(settings, embedder=embedder))
            if direct is not None:
                return await direct(mw)
            documents = people = None
            item = str(request.get("id", ""))
            # A forget a crash cut short is finished first, with all it may need.
            left = bool(await ForgetIntents(mw.home).left())
            whole = request.get("op") == "person" or is_person_ref(item) or left
            if request.get("op") == "forget" and is_file_ref(item) or whole:
                lazy = LazyEmbedder(lambda: embedder_from_settings(settings))  # never loaded
                finder = DocumentFinder(Path(settings.workspace), lazy, settings)
                documents = await stack.enter_async_context(finder)
            if whole:  # the bot's state of the person: names, links, sign-ins
                from familiars.bot import people_of_workspace

                people = await stack.enter_async_context(people_of_workspace(settings, mw.home))
            hooks = [_their_reminder_loops(settings, mw.home)] if whole else []
            if request.get("op") == "forget":  # a forgotten home: the reminders that followed it
                from familiars.bot import forgotten_home_hook

                hooks.append(await stack.enter_async_context(forgotten_home_hook(settings, mw)))
            forgetter = Forgetter.for_workspace(mw, documents=documents, people=people, hooks=hooks)
            if left:
                await forgetter.resume()
            return await apply_write(mw, request, model=model, forgetter=forgetter)
    finally:
        if model is not None:
            await model.aclose()


def _their_reminder_loops(
    settings: Settings, home: Any
) -> Callable[[ForgetReport], Awaitable[None]]:
    """With no bot running, a whole person's forget takes their loops from the scheduler's
    ledger as the running scheduler's hook does (``SchedulerLedger.forget_people``)."""
    from familiars.scheduler import SchedulerLedger, ledger_path  # not at the CLI's start

    async def forget(report: ForgetReport) -> None:
        if report.people:
            ledger = SchedulerLedger(ledger_path(Path(settings.workspace)), home)
            await asyncio.to_thread(ledger.forget_people, report.people)

    return forget


def _model_for(settings: Settings, request: dict[str, Any]) -> Any:
    if request.get("op") != "consolidate" or any(
        request.get(k) for k in ("offline", "dry_run", "undo")
    ):
        return None
    from familiars.llm import build_chat_model

    return build_chat_model(settings.llm)
