"""The ``familiars`` command line. One module per command group.

The groups (``memory``, ``bench``, ``files``, ``reminders``, ``gate``) are imported only when
one is run: :data:`GROUPS` holds their one-line help, so ``familiars --help`` lists them
without loading the memory system, the models or the API server (see ``_lazy.py``).
``run``, ``chat``, ``status`` and ``api`` are registered eagerly; their modules import
what they need inside the command.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.cli import _runtime as runtime
from familiars.cli import _status as status
from familiars.cli._lazy import LazyEntry, LazyGroup, click_group
from familiars.terminal import CliContext, fail


def _memory() -> Any:
    from familiars.cli import _memory as memory

    return click_group(memory.app)


def _bench() -> Any:
    from familiars.cli import _bench as bench

    return bench.group()


def _files() -> Any:
    from familiars.cli import _files as files

    return click_group(files.app)


def _reminders() -> Any:
    from familiars.cli import _reminders as reminders

    return click_group(reminders.app)


def _db() -> Any:
    from familiars.cli import _db as db

    return click_group(db.app)


def _gate() -> Any:
    from familiars.cli import _gate as gate

    return click_group(gate.app)


#: The lazily imported groups, in the order ``--help`` lists them, with their help.
GROUPS: tuple[LazyEntry, ...] = (
    LazyEntry("memory", "Inspect, add, pin, forget and search memories.", _memory),
    LazyEntry(
        "bench",
        "Benchmarks: figures as ratios against a baseline measured in the same run.",
        _bench,
    ),
    LazyEntry("files", "Documents and watched folders: add, find, list.", _files),
    LazyEntry("reminders", "Reminders and open loops the familiar will act on.", _reminders),
    LazyEntry("gate", "The VRAM gate: residents, budget, history.", _gate),
    LazyEntry(
        "db", "The memory's PostgreSQL home: migrate a workspace in, export it, status.", _db
    ),
)


class RootGroup(LazyGroup):
    """The ``familiars`` group: eager commands, then :data:`GROUPS`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, lazy=GROUPS, **kwargs)


def _flags_show_no_value() -> None:
    """A flag in ``--help`` is shown bare (``--json``): typer 0.29 showed its type, as if it
    took a value (``--json <bool>``; T32: ``familiars --json true status`` was then tried)."""
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "bare_flags", False):  # an older typer: nothing to mend
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    display_type_rich.bare_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_show_no_value()
app = typer.Typer(
    cls=RootGroup,
    help="familiars: a companion bot for Discord and Telegram with a memory you can read.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
runtime.register(app)
status.register(app)


def use_offline_models(environ: Any = os.environ) -> None:
    """Models come from local files only, without progress bars (unless the environment
    says otherwise); set before any model library is imported. The same three variables as
    ``familiars.memory.use_offline_models``, set here so the entry point need not import
    the memory system to set them."""
    environ.setdefault("HF_HUB_OFFLINE", "1")
    environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


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
    """The ``familiars`` command: an error written for the person (``UserFacingError``) is
    one line and exit 1 from any command, never a traceback."""
    from familiars.config import UserFacingError

    try:
        app()
    except UserFacingError as exc:
        try:
            fail(str(exc))
        except typer.Exit as done:  # outside the app, typer does not turn it into an exit
            raise SystemExit(done.exit_code) from None


if __name__ == "__main__":
    main()
