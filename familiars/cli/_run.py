"""Running one memory action from the command line: open the workspace, act, close."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer

from familiars.memory import MemoryError_, MemoryWorkspace, open_workspace
from familiars.terminal import fail, get_ctx

T = TypeVar("T")


def run_memory(
    ctx: typer.Context,
    action: Callable[[MemoryWorkspace], Awaitable[T]],
    *,
    embedder: bool = False,
) -> T:
    """Open the workspace, run ``action``, close; memory errors become a clean exit 1."""
    settings = get_ctx(ctx).settings

    async def main() -> T:
        async with open_workspace(settings, embedder=embedder) as mw:
            return await action(mw)

    try:
        return asyncio.run(main())
    except (MemoryError_, ValueError) as exc:
        fail(str(exc))
