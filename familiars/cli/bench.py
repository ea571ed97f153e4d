"""``familiars bench ...``: speed and quality measured against a baseline in the same run.

Each benchmark lives in ``familiars.benchmarks.<name>`` and exposes ``command``, a typer
command function (its parameters are the benchmark's options).
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="Benchmarks: figures as ratios against a baseline measured in the same run.")

_BENCHMARKS = ("ingest", "locomo", "tree", "recall", "turn", "gate", "files")

for _name in _BENCHMARKS:
    try:
        _module = importlib.import_module(f"familiars.benchmarks.{_name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"familiars.benchmarks.{_name}":
            raise
        continue
    app.command(_name)(_module.command)
