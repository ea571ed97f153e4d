"""``familiars bench ingest``: append + index throughput against plain batched embedding.

The floor is the embedding model alone over the same texts in the same batches; the ratio
says what the files, the history, the SQLite mirror, FTS and the vector cache add on top.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.benchmarks._util import synthetic_facts
from familiars.memory import embedder_from_settings, make_record, open_workspace, valid_categories
from familiars.terminal import get_ctx, print_json, print_table, want_json


def _timed_embed(embedder: Any, texts: list[str]) -> float:
    t0 = time.perf_counter()
    embedder.embed_batch(texts)
    return time.perf_counter() - t0


async def _timed_append(mw: Any, records: list[Any]) -> float:
    t0 = time.perf_counter()
    await mw.store.append_many(records)
    return time.perf_counter() - t0


async def run_ingest(settings: Any, records: int, batch: int, users: int) -> dict[str, Any]:
    embedder = embedder_from_settings(settings)
    texts = synthetic_facts(records)
    embedder.embed_batch(texts[:64])  # warm-up, shared by both measurements

    categories = valid_categories("user")
    embed_only = 0.0
    total = 0.0
    with tempfile.TemporaryDirectory(prefix="familiars-bench-") as tmp:
        bench_settings = settings.model_copy(update={"workspace": Path(tmp)})
        async with open_workspace(bench_settings, embedder=embedder) as mw:
            # Interleaved batch by batch, alternating which goes first, so a busy machine
            # and warm caches weigh on both sides alike.
            for n, start in enumerate(range(0, records, batch)):
                texts_batch = texts[start : start + batch]
                chunk = [
                    make_record(
                        text,
                        scope="user",
                        category=categories[i % len(categories)],
                        user_key=f"user{i % users}",
                    )
                    for i, text in enumerate(texts_batch, start=start)
                ]
                if n % 2:
                    total += await _timed_append(mw, chunk)
                embed_only += _timed_embed(embedder, texts_batch)
                if not n % 2:
                    total += await _timed_append(mw, chunk)
            stored = sum(c["live"] for c in await mw.index.counts())
    return {
        "records": records,
        "stored": stored,
        "batch": batch,
        "model": embedder.model_name,
        "total_s": round(total, 3),
        "embed_only_s": round(embed_only, 3),
        "records_per_s": round(records / total, 1),
        "embed_only_records_per_s": round(records / embed_only, 1),
        "ratio": round(total / embed_only, 3),
    }


def command(
    ctx: typer.Context,
    records: Annotated[int, typer.Option(min=1, help="How many records to ingest.")] = 10_000,
    batch: Annotated[int, typer.Option(min=1, help="Records per append_many call.")] = 500,
    users: Annotated[int, typer.Option(min=1, help="People the records belong to.")] = 20,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Records per second for append + index, next to plain batched embedding."""
    result = asyncio.run(run_ingest(get_ctx(ctx).settings, records, batch, users))
    if want_json(ctx, json_out):
        print_json(result)
        return
    print_table(
        "bench ingest",
        ["records", "total s", "embed-only s", "records/s", "ratio"],
        [
            [
                result["records"],
                result["total_s"],
                result["embed_only_s"],
                result["records_per_s"],
                result["ratio"],
            ]
        ],
    )
