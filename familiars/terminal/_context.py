"""What every command receives: the settings and how to print."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:  # loaded when the settings are first read: ``--help`` needs none
    from familiars.config import Settings

console = Console()
err_console = Console(stderr=True)


@dataclass
class CliContext:
    config_path: Path | None
    workspace: Path | None
    json: bool
    _settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from familiars.config import ConfigError, load_settings

            overrides: dict[str, Any] = {}
            if self.workspace is not None:
                overrides["workspace"] = self.workspace
            try:
                self._settings = load_settings(self.config_path, **overrides)
            except ConfigError as exc:
                fail(str(exc))
        return self._settings


def get_ctx(ctx: typer.Context) -> CliContext:
    root = ctx.find_root()
    obj = root.obj
    if not isinstance(obj, CliContext):
        obj = CliContext(config_path=None, workspace=None, json=False)
        root.obj = obj
    return obj


def want_json(ctx: typer.Context, flag: bool) -> bool:
    return flag or get_ctx(ctx).json


def fail(message: str, code: int = 1) -> NoReturn:
    err_console.print(f"[red]error:[/red] {message}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str, indent=None) + "\n")
    sys.stdout.flush()


def print_table(title: str | None, columns: list[str], rows: list[list[Any]]) -> None:
    table = Table(title=title, show_lines=False)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*["" if v is None else str(v) for v in row])
    console.print(table)
