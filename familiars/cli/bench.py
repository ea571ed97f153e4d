"""``familiars bench ...``: speed and quality measured against a baseline in the same run.

Each benchmark lives in ``familiars.benchmarks.<name>`` and exposes ``command``, a typer
command function (its parameters are the benchmark's options).
"""

from __future__ import annotations

import typer

from familiars.benchmarks import files, gate, ingest, locomo, recall, tree, turn, writer

app = typer.Typer(help="Benchmarks: figures as ratios against a baseline measured in the same run.")

for _name, _module in (
    ("ingest", ingest),
    ("locomo", locomo),
    ("tree", tree),
    ("recall", recall),
    ("turn", turn),
    ("gate", gate),
    ("files", files),
    ("writer", writer),
):
    app.command(_name)(_module.command)
