"""``familiars reminders ...``."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from familiars.config import Settings
from familiars.memory import (
    MemoryError_,
    MemoryStore,
    check_user_key,
    database_url,
    open_workspace,
)
from familiars.scheduler import (
    SchedulerError,
    SchedulerLedger,
    StoreLoops,
    ledger_path,
    reminder_rows,
)
from familiars.terminal import fail, get_ctx, print_json, print_table, want_json

app = typer.Typer(help="Reminders and open loops the familiar will act on.", no_args_is_help=True)


async def _rows(settings: Settings, user_key: str | None) -> list[dict[str, Any]]:
    workspace = settings.workspace
    if database_url(settings) is None:
        ledger = SchedulerLedger(ledger_path(workspace))
        loops = await StoreLoops(MemoryStore(workspace)).open_loops()
        return reminder_rows(loops, ledger, user_key=user_key)
    async with open_workspace(settings, embedder=False, reconcile=False) as mw:  # the database
        ledger = SchedulerLedger(ledger_path(workspace), mw.home)
        loops = await StoreLoops(mw.store).open_loops()
        return reminder_rows(loops, ledger, user_key=user_key)


@app.command("list")
def list_reminders(
    ctx: typer.Context,
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="Only this person's (user key).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Open reminders, promises, requests and questions, and what became of those the
    familiar acted on (sent, missed while offline, followed up, uncertain after a crash,
    cancelled). ``--user`` keeps one person's: those they asked for, wherever they asked."""
    settings = get_ctx(ctx).settings
    try:
        if user is not None:
            check_user_key(user)
        rows = asyncio.run(_rows(settings, user))
    except (MemoryError_, SchedulerError, ValueError) as exc:
        fail(str(exc))
    if want_json(ctx, json_output):
        print_json(rows)
        return
    print_table(
        "reminders and open loops",
        ["id", "status", "kind", "due", "task", "person", "where"],
        [
            [
                r["id"],
                r.get("status"),
                r.get("kind"),
                r.get("due"),
                r.get("task"),
                r.get("user_key") or "-",
                _where(r),
            ]
            for r in rows
        ],
    )


def _where(row: dict[str, Any]) -> str:
    if row.get("dialogue_id"):
        return f"{row.get('agent_id')}/{row['dialogue_id']}"
    return f"user:{row.get('user_key')}"
