"""Benchmarks behind ``familiars bench``: each private module exposes a typer ``command``, and
``COMMANDS`` lists them under the names the command line gives them."""

from collections.abc import Callable
from typing import Any

from familiars.benchmarks import _api_status as api_status
from familiars.benchmarks import _dedupe as dedupe
from familiars.benchmarks import _files as files
from familiars.benchmarks import _gate as gate
from familiars.benchmarks import _ingest as ingest
from familiars.benchmarks import _locomo as locomo
from familiars.benchmarks import _recall as recall
from familiars.benchmarks import _tree as tree
from familiars.benchmarks import _turn as turn
from familiars.benchmarks import _writer_bench as writer

COMMANDS: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("ingest", ingest.command),
    ("locomo", locomo.command),
    ("tree", tree.command),
    ("recall", recall.command),
    ("turn", turn.command),
    ("gate", gate.command),
    ("files", files.command),
    ("dedupe", dedupe.command),
    ("writer", writer.command),
    ("api-status", api_status.command),
)

__all__ = [
    "COMMANDS",
]
