"""``familiars files ...``."""

from __future__ import annotations

import typer

app = typer.Typer(help="Documents and watched folders: add, find, list.")
