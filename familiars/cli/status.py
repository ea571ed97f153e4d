"""``familiars status`` and ``familiars api``: the memory's state."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    return None
