"""``familiars bench recall``: MemoryReader latency against the floor of a bare exact top-k.

For each size, synthetic records (generated sentences, so keyword search runs over real
words; random unit vectors, since this measures the search, not the model) are indexed by a
:class:`MemoryReader`. Each query is timed through ``build_rag_context`` with its vector
precomputed (the query embedding excluded) next to the floor, ``argpartition(M @ q)`` over the
same matrix; the ratios are p50 over p50 (``ratio_p50``) and p95 over p95 (``ratio``). The full
recall including one real query embedding is reported beside it. The index is timed as a
running bot keeps it: after the records are added, their hub values are worked out
(``hubs_s``), as the bot's background task does.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from familiars.benchmarks._tree import single_thread_blas
from familiars.memory import Embedder, MemoryReader, MemoryRecord, content_words
from familiars.terminal import fail, get_ctx, print_json, print_table, want_json

NAMES = [
    "ana",
    "bo",
    "clara",
    "dev",
    "emma",
    "farid",
    "gia",
    "hugo",
    "ines",
    "jon",
    "kai",
    "lena",
    "milo",
    "nora",
    "omar",
    "pia",
    "quinn",
    "rosa",
    "sam",
    "tara",
    "uma",
    "vik",
    "wen",
    "xavi",
    "yara",
    "zoe",
]
VERBS = [
    "visited",
    "bought",
    "cooked",
    "painted",
    "fixed",
    "lost",
    "found",
    "planned",
    "watched",
    "read",
    "played",
    "sold",
    "borrowed",
    "adopted",
    "photographed",
    "cleaned",
    "built",
    "wrote",
    "learned",
    "taught",
]
THINGS = [
    "bicycle",
    "guitar",
    "garden",
    "novel",
    "recipe",
    "puppy",
    "kitten",
    "laptop",
    "camera",
    "sofa",
    "painting",
    "kayak",
    "telescope",
    "violin",
    "tent",
    "quilt",
    "drone",
    "bakery",
    "museum",
    "concert",
    "lasagna",
    "marathon",
]
PLACES = [
    "lisbon",
    "rome",
    "kyoto",
    "oslo",
    "denver",
    "lagos",
    "lima",
    "cairo",
    "hanoi",
    "quebec",
    "dublin",
    "tunis",
    "seville",
    "austin",
    "porto",
    "krakow",
    "nairobi",
    "bergen",
    "perth",
    "malmo",
]
WHEN = [
    "monday",
    "tuesday",
    "weekend",
    "summer",
    "winter",
    "january",
    "march",
    "july",
    "october",
    "yesterday",
]


class VectorTable(Embedder):
    """Hands back vectors fixed in advance for known texts and embeds the rest with the real
    model: the query's words get real vectors, the timed query costs no model call."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.table: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.table]
        if missing:
            fresh = self.inner.embed_batch(missing)
            with self._lock:
                self.table.update(zip(missing, fresh, strict=True))
        return np.stack([self.table[t] for t in texts]).astype(np.float32)

    async def aembed_batch(self, texts: list[str]) -> np.ndarray:
        return self.embed_batch(texts)  # all in the table when timed: no executor hop


def synthetic_records(n: int, rng: np.random.Generator) -> list[MemoryRecord]:
    picks = [rng.integers(0, len(pool), n) for pool in (NAMES, VERBS, THINGS, PLACES, WHEN)]
    out = []
    for i in range(n):
        name, verb, thing, place, when = (
            pool[int(p[i])]
            for pool, p in zip((NAMES, VERBS, THINGS, PLACES, WHEN), picks, strict=True)
        )
        out.append(
            MemoryRecord(
                id=f"m_bench{i:08d}",
                scope="user",
                category="event",
                ts="2026-01-01T00:00:00+00:00",
                content=f"{name.title()} {verb} a {thing} in {place.title()} {when}.",
                user_key="owner",
            )
        )
    return out


def synthetic_queries(n: int, rng: np.random.Generator) -> list[str]:
    out = []
    for _ in range(n):
        name = NAMES[int(rng.integers(len(NAMES)))].title()
        thing = THINGS[int(rng.integers(len(THINGS)))]
        place = PLACES[int(rng.integers(len(PLACES)))].title()
        out.append(f"When did {name} get the {thing} in {place}?")
    return out


def _unit_rows(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((n, dim), dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def floor_topk(matrix: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    scores = matrix @ q
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


async def measure(
    size: int, embedder: Embedder, *, queries: int, k: int, seed: int
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    records = synthetic_records(size, rng)
    vectors = _unit_rows(rng, size, embedder.dim)
    table = VectorTable(embedder)
    reader = MemoryReader(table, ablated=[])
    t0 = time.perf_counter()
    await reader.add_records(records, vectors)
    build_s = time.perf_counter() - t0
    await reader.index.awarm_hubs()
    hubs_s = time.perf_counter() - t0 - build_s
    texts = synthetic_queries(queries, rng)
    qvecs = _unit_rows(rng, queries, embedder.dim)
    for text, vec in zip(texts, qvecs, strict=True):
        table.table[text] = vec
    table.embed_batch([w for t in texts for w in content_words(t)])  # query word vectors
    matrix = reader.index.matrix
    recall_ms, floor_ms = [], []
    for text, vec in zip(texts, qvecs, strict=True):
        t0 = time.perf_counter()
        floor_topk(matrix, vec, k)
        floor_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        await reader.build_rag_context(text, user_key="owner", now=1.8e9, k=k, profile="standard")
        recall_ms.append((time.perf_counter() - t0) * 1000)
    full_ms = []
    inner = MemoryReader(embedder, ablated=[])
    inner.index = reader.index
    for text in texts[: min(20, queries)]:
        t0 = time.perf_counter()
        await inner.build_rag_context(text, user_key="owner", now=1.8e9, k=k)
        full_ms.append((time.perf_counter() - t0) * 1000)
    p95, f95 = float(np.percentile(recall_ms, 95)), float(np.percentile(floor_ms, 95))
    p50, f50 = float(np.percentile(recall_ms, 50)), float(np.percentile(floor_ms, 50))
    return {
        "records": size,
        "build_s": round(build_s, 2),
        "hubs_s": round(hubs_s, 2),
        "p50_ms": round(p50, 3),
        "p95_ms": round(p95, 3),
        "floor_p50_ms": round(f50, 3),
        "floor_p95_ms": round(f95, 3),
        "ratio": round(p95 / f95, 2),
        "ratio_p50": round(p50 / f50, 2),
        "with_query_embedding_p50_ms": round(float(np.percentile(full_ms, 50)), 3),
        "with_query_embedding_p95_ms": round(float(np.percentile(full_ms, 95)), 3),
    }


async def run_benchmark(
    sizes: list[int], embedder: Embedder, *, queries: int, k: int
) -> dict[str, Any]:
    out = []
    for size in sizes:
        out.append(await measure(size, embedder, queries=queries, k=k, seed=size))
    return {
        "sizes": out,
        "queries": queries,
        "k": k,
        "blas_threads": 1,
        "model": embedder.model_name,
    }


def _sizes(value: str, name: str) -> list[int]:
    try:
        return [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        fail(f"{name} takes numbers such as 1000,10000")


def command(
    ctx: typer.Context,
    records: Annotated[str, typer.Option("--records", help="Sizes, comma separated.")] = (
        "1000,10000,100000"
    ),
    queries: Annotated[int, typer.Option("--queries", help="Timed queries per size.")] = 100,
    k: Annotated[int, typer.Option("--k", help="Items per recall.")] = 10,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            help="Also pgvector HNSW on this postgresql:// URL, or 'start' a throwaway server.",
        ),
    ] = None,
    ef_search: Annotated[
        str, typer.Option("--ef-search", help="With --database: hnsw.ef_search values.")
    ] = "40,100,200,400",
    vectors: Annotated[
        str,
        typer.Option("--vectors", help="With --database: clustered | decaying | uniform | text."),
    ] = "clustered",
    texts: Annotated[
        Path | None,
        typer.Option("--texts", help="With --vectors text: sentences, one a line (embedded)."),
    ] = None,
    reader: Annotated[
        bool, typer.Option("--reader/--no-reader", help="Also time the reader (not at 1M).")
    ] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Recall latency p50/p95 per size next to a bare numpy exact top-k, and the ratio; with
    --database, pgvector's HNSW beside it (latency and recall@k against exact)."""
    sizes = _sizes(records, "--records")
    efs = _sizes(ef_search, "--ef-search")
    if not sizes or min(sizes) < k or queries < 1 or k < 1:
        fail("sizes must be at least --k, and --queries and --k at least 1")
    if not efs or min(efs) < 1 or max(efs) > 1000:
        fail("--ef-search values are 1..1000 (pgvector's range)")
    _check_kind(vectors, texts)
    if not reader and database is None:
        fail("--no-reader leaves nothing to time without --database")
    from familiars.memory import embedder_from_settings

    settings = get_ctx(ctx).settings
    embedder = embedder_from_settings(settings)
    with single_thread_blas():
        report = asyncio.run(run_benchmark(sizes if reader else [], embedder, queries=queries, k=k))
        if database is not None:
            report["database"] = _on_database(settings, database, sizes, embedder.dim, efs,
                                              queries=queries, k=k, vectors=vectors,
                                              texts=_texts(texts, embedder))  # fmt: skip
    if want_json(ctx, json_out):
        print_json(report)
        return
    if database is not None:
        _print_database(report["database"])
    _print_reader(report["sizes"])


def _print_reader(sizes: list[dict[str, Any]]) -> None:
    print_table(
        "recall latency (ms), query embedding excluded, vs numpy exact top-k",
        ["records", "p50", "p95", "floor p50", "floor p95", "ratio p50", "ratio p95",
         "with embedding p95"],
        [
            [s["records"], s["p50_ms"], s["p95_ms"], s["floor_p50_ms"], s["floor_p95_ms"],
             s["ratio_p50"], s["ratio"], s["with_query_embedding_p95_ms"]]
            for s in sizes
        ],
    )  # fmt: skip


def _check_kind(vectors: str, texts: Path | None) -> None:
    if vectors not in ("clustered", "decaying", "uniform", "text"):
        fail("--vectors is clustered, decaying, uniform or text")
    if (vectors == "text") != (texts is not None):
        fail("--vectors text and --texts FILE go together")
    if texts is not None and not texts.is_file():
        fail(f"no texts file {texts}")


def _texts(path: Path | None, embedder: Embedder) -> Any:
    """``--texts`` as the ``text`` kind's lines and vectors (None without it)."""
    if path is None:
        return None
    from familiars.benchmarks._recall_pg import TextVectors

    return TextVectors(path, embedder)


def _on_database(
    settings: Any,
    spec: str,
    sizes: list[int],
    dim: int,
    efs: list[int],
    *,
    queries: int,
    k: int,
    vectors: str,
    texts: Any = None,
) -> list[dict[str, Any]]:
    from familiars.benchmarks._database import bench_database
    from familiars.benchmarks._recall_pg import measure_database

    if texts is not None and len(texts.lines) < queries + max(sizes):
        fail(f"--texts has {len(texts.lines)} distinct lines, {queries + max(sizes)} are needed")
    out = []
    with bench_database(spec) as url:
        for size in sizes:
            row = asyncio.run(
                measure_database(
                    settings,
                    url,
                    size,
                    dim=dim,
                    queries=queries,
                    k=k,
                    ef_searches=efs,
                    seed=size,
                    vectors=vectors,
                    texts=texts,
                )
            )
            # each size as it is done (1M takes an hour): a cut-short run keeps what it measured
            typer.echo(json.dumps(row), err=True)
            out.append(row)
    return out


def _print_database(rows: list[dict[str, Any]]) -> None:
    table = []
    for r in rows:
        ex = r["exact_numpy"]
        table.append([r["records"], "all", "exact (numpy)", ex["all"]["p50_ms"],
                      ex["all"]["p95_ms"], 1.0])  # fmt: skip
        for h in r["hnsw"]:
            one = h["all"]
            table.append([r["records"], "all", f"hnsw ef={h['ef_search']}", one["p50_ms"],
                          one["p95_ms"], one["recall_at_k"]])  # fmt: skip
        table.append([r["records"], "person", "exact (numpy)", ex["person"]["p50_ms"],
                      ex["person"]["p95_ms"], 1.0])  # fmt: skip
        one = r["nearest_person"]
        table.append([r["records"], "person", "nearest (the app's)", one["p50_ms"],
                      one["p95_ms"], one["recall_at_k"]])  # fmt: skip
        for w in r["person_ways"]:
            how = w["way"] + ("" if w["hnsw_plan"] or w["way"] == "exact" else " (no hnsw plan)")
            table.append([r["records"], "person", how, w["p50_ms"], w["p95_ms"],
                          w["recall_at_k"]])  # fmt: skip
    print_table(
        "pgvector vs numpy exact, same vectors (load: COPY, then one HNSW build)",
        ["records", "filter", "search", "p50", "p95", "recall@k"],
        table,
    )
    print_table(
        "loading the database",
        ["records", "vectors", "COPY s", "HNSW build s"],
        [[r["records"], r["vectors"], r["load_s"], r["build_s"]] for r in rows],
    )
