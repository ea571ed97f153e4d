"""``familiars reminders ...``."""

from __future__ import annotations

import typer

app = typer.Typer(help="Reminders and open loops the familiar will act on.")
