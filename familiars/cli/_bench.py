"""``familiars bench ...``: speed and quality measured against a baseline in the same run.

Each benchmark lives behind ``familiars.benchmarks`` and is listed in its ``COMMANDS`` (a
name, its module and its one-line help); :func:`group` lists them all from that table and
imports a benchmark's module only when it is run.
"""

from __future__ import annotations

from typing import Any

import typer

from familiars.benchmarks import COMMANDS, load_command
from familiars.cli._lazy import LazyEntry, LazyGroup, click_command

HELP = "Benchmarks: figures as ratios against a baseline measured in the same run."


def _loader(name: str) -> Any:
    def load() -> Any:
        one = typer.Typer()
        one.command(name)(load_command(name))
        return click_command(one)

    return load


def group() -> LazyGroup:
    """The ``bench`` group: every benchmark listed, none imported yet."""
    return LazyGroup(
        name="bench",
        help=HELP,
        no_args_is_help=True,
        lazy=[LazyEntry(c.name, c.help, _loader(c.name)) for c in COMMANDS],
    )
