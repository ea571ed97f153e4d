"""Running one memory action from the command line: open the workspace, act, close."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import typer

from familiars.memory import (
    MemoryError_,
    MemoryWorkspace,
    open_workspace,
    owned_elsewhere,
    read_only,
)
from familiars.terminal import fail, get_ctx

T = TypeVar("T")


def run_memory(
    ctx: typer.Context,
    action: Callable[[MemoryWorkspace], Awaitable[T]],
    *,
    embedder: bool = False,
) -> T:
    """Open the workspace, run ``action``, close; memory errors become a clean exit 1. For
    reading: while another process owns the workspace, its index is read as it is (the owner
    keeps it caught up) and nothing is cleaned or reconciled from here."""
    settings = get_ctx(ctx).settings
    workspace = Path(settings.workspace)
    reconcile = owned_elsewhere(workspace) is None and not read_only(workspace)

    async def main() -> T:
        async with open_workspace(settings, embedder=embedder, reconcile=reconcile) as mw:
            return await action(mw)

    try:
        return asyncio.run(main())
    except (MemoryError_, ValueError) as exc:
        fail(str(exc))
