"""The ``familiars`` command line. One module per command group."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from familiars.cli import _bench as bench
from familiars.cli import _files as files
from familiars.cli import _gate as gate
from familiars.cli import _memory as memory
from familiars.cli import _reminders as reminders
from familiars.cli import _runtime as runtime
from familiars.cli import _status as status
from familiars.memory import use_offline_models
from familiars.terminal import CliContext

app = typer.Typer(
    help="familiars: a companion bot for Discord and Telegram with a memory you can read.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(memory.app, name="memory")
app.add_typer(bench.app, name="bench")
app.add_typer(files.app, name="files")
app.add_typer(reminders.app, name="reminders")
app.add_typer(gate.app, name="gate")
runtime.register(app)
status.register(app)


@app.callback()
def _root(
    ctx: typer.Context,
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", "-w", help="Data folder (default: FAMILIARS_WORKSPACE)."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="TOML config file (default: FAMILIARS_CONFIG)."),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print machine-readable JSON.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    use_offline_models()  # the one place the process environment is set
    ctx.obj = CliContext(config_path=config, workspace=workspace, json=json_output)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
