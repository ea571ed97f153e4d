"""``familiars memory ...``: inspect, add, pin and forget what is remembered."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="Inspect, add, pin, forget and search memories.", no_args_is_help=True)

# Commands that other modules contribute to this group: search (recall), consolidate and
# writer-status (writer). Each module exposes ``register(app)``.
for _name in ("memory_recall", "memory_writer"):
    try:
        _module = importlib.import_module(f"familiars.cli.{_name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"familiars.cli.{_name}":
            raise
        continue
    _module.register(app)
