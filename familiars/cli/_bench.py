"""``familiars bench ...``: speed and quality measured against a baseline in the same run.

Each benchmark lives behind ``familiars.benchmarks`` and is listed in its ``COMMANDS``: a
name and a typer command function (its parameters are the benchmark's options).
"""

from __future__ import annotations

import typer

from familiars.benchmarks import COMMANDS

app = typer.Typer(help="Benchmarks: figures as ratios against a baseline measured in the same run.")

for _name, _command in COMMANDS:
    app.command(_name)(_command)
