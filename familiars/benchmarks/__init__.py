"""Benchmarks behind ``familiars bench``: each private module exposes a typer ``command``.

``COMMANDS`` lists them under the names the command line gives them, each with the module
that holds it and its one-line help. The help is kept here, in a static table, so that
``familiars bench --help`` lists every benchmark without importing one (their modules load
numpy, models, the API server...); :func:`load_command` imports one when it is run.
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from familiars.benchmarks._util import synthetic_facts


@dataclass(frozen=True)
class BenchCommand:
    """One ``familiars bench NAME``: ``module`` is the private module under this package."""

    name: str
    module: str
    help: str


COMMANDS: tuple[BenchCommand, ...] = (
    BenchCommand(
        "ingest",
        "_ingest",
        "Records per second for append + index, next to plain batched embedding.",
    ),
    BenchCommand(
        "locomo",
        "_locomo",
        "Evidence recall@k on LoCoMo through DialogTree + MemoryReader, with baselines.",
    ),
    BenchCommand(
        "consolidation",
        "_consolidation",
        "Facts lost and rewordings merged on a labelled set; LoCoMo R@10 before/after a pass.",
    ),
    BenchCommand(
        "relations",
        "_relations",
        "R@5 and offline answers for one- and two-hop questions, with and without the graph.",
    ),
    BenchCommand(
        "companion",
        "_companion",
        "A person's records recalled from chat moments (dev, held) and per language, vs cosine.",
    ),
    BenchCommand(
        "tree",
        "_tree",
        "Attach and query time, vectorised vs the seed's per-node loop; same choices asserted.",
    ),
    BenchCommand(
        "recall",
        "_recall",
        "Recall latency p50/p95 per size next to a bare numpy exact top-k, and the ratio; "
        "with --database, pgvector's HNSW beside it (latency and recall@k against exact).",
    ),
    BenchCommand(
        "turn",
        "_turn",
        "Per-turn memory pipeline cost (p50/p95) next to one query embedding.",
    ),
    BenchCommand(
        "gate",
        "_gate",
        "Gate acquire latency under contention vs a bare asyncio.Lock; over-commit and "
        "CRITICAL eviction counts (both must be 0).",
    ),
    BenchCommand(
        "files",
        "_files",
        "Hit@1, hit@5, MRR and a knob ablation over real files; latency next to dense top-k.",
    ),
    BenchCommand(
        "dedupe",
        "_dedupe",
        "Rewordings merged, updates and near-miss facts wrongly merged: rules vs cosine alone.",
    ),
    BenchCommand(
        "writer",
        "_writer_sets",
        "Offline writer precision/recall per kind of fact on a labelled set of messages; on "
        "the shipped sets also every set side by side, the answers bench and the ablation.",
    ),
    BenchCommand(
        "guard",
        "_guard",
        "Leaks passed (goal 0) and false alarms of the group guard, on dev and held cases.",
    ),
    BenchCommand(
        "api-status",
        "_api_status",
        "GET /api/memory_status on a large workspace next to `familiars memory list | head -1`.",
    ),
)


def load_command(name: str) -> Callable[..., Any]:
    """The typer command function of benchmark ``name`` (its module imported now)."""
    entry = next((c for c in COMMANDS if c.name == name), None)
    if entry is None:
        raise KeyError(name)
    module = importlib.import_module(f"familiars.benchmarks.{entry.module}")
    command: Callable[..., Any] = module.command
    return command


__all__ = [
    "COMMANDS",
    "BenchCommand",
    "load_command",
    "synthetic_facts",
]
