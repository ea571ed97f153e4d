"""``familiars gate ...``."""

from __future__ import annotations

import typer

app = typer.Typer(help="The VRAM gate: residents, budget, history.")
