"""``familiars run`` and ``familiars chat``: the bot itself."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(ctx: typer.Context) -> None:
        """Start the bot (the terminal chat when no platform token is configured)."""
        typer.echo("familiars: the bot runtime is not built yet; nothing to start.")
