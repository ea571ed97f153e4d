"""``familiars db ...``: the memory's PostgreSQL home (``FAMILIARS_DATABASE_URL``).

``migrate`` copies a workspace in (records and the state beside them), ``export`` writes it
back out as a workspace,
``status`` says what the database holds. Every failure is one line and exit 1
(``DatabaseError`` is a ``UserFacingError``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.memory import database_status, export_from_database, migrate_to_database
from familiars.terminal import get_ctx, print_json, print_table, want_json

app = typer.Typer(
    help="The memory's PostgreSQL home: migrate a workspace in, export it, status.",
    no_args_is_help=True,
)


def _show(ctx: typer.Context, json_output: bool, title: str, data: dict[str, Any]) -> None:
    if want_json(ctx, json_output):
        print_json(data)
        return
    print_table(title, ["what", "value"], [[k, _cell(v)] for k, v in data.items()])


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "-"
    return str(value)


@app.command("migrate")
def migrate(
    ctx: typer.Context,
    source: Annotated[
        Path | None,
        typer.Option("--from", help="The workspace to copy in (default: the configured one)."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Copy a workspace into the database: records (ids, timestamps, history), dialogue
    trees, people, links and chats, the writer queue, the reminder ledger and documents."""
    settings = get_ctx(ctx).settings
    data = migrate_to_database(settings, source or Path(settings.workspace))
    _show(ctx, json_output, "moved into the database", data)


@app.command("export")
def export(
    ctx: typer.Context,
    target: Annotated[Path, typer.Option("--to", help="A new folder for the markdown.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Write the database's records, history and state back as a workspace."""
    data = export_from_database(get_ctx(ctx).settings, target)
    _show(ctx, json_output, "exported from the database", data)


@app.command("status")
def status(
    ctx: typer.Context,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The database's schema version and what it holds."""
    data = database_status(get_ctx(ctx).settings)
    _show(ctx, json_output, "memory database", data)
