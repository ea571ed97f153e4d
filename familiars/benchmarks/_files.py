"""``familiars bench files``: the document finder over a corpus of real files on this machine.

It builds the corpus in a temp folder (``_files_corpus``: /usr/share/doc, man pages, the
Python standard library, PDFs, DOCX, CSV), indexes it with :class:`DocumentFinder`, runs the
hand-written queries of ``_files_queries`` (each with its known target file) and reports:

- hit@1, hit@5 and MRR of the full search, of each knob switched off (the ablation table),
  of the fusion with every knob off, and of a plain dense top-k over the same chunks (best
  chunk per file);
- query latency p50/p95 of the full search next to the plain dense top-k, in the same run.

Embedding the corpus is the slow part on CPU, so vectors are kept in a cache file keyed by
(model, dim, content hash) (``--cache``); a second run embeds nothing it has seen.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.benchmarks._files_corpus import DEFAULT_QUOTAS, build_corpus
from familiars.benchmarks._files_queries import QUERIES
from familiars.benchmarks._util import percentile
from familiars.memory import FILE_KNOBS, DocumentFinder, Embedder, FoundFile, embedder_from_settings
from familiars.terminal import console, get_ctx, print_json, print_table, want_json

DEFAULT_CACHE = Path.home() / ".cache" / "familiars" / "bench-files-vectors.sqlite"
LATENCY_ROUNDS = 3
DENSE_POOL = 200


def _rel(found_path: str, corpus_root: Path) -> str:
    try:
        return Path(found_path).relative_to(corpus_root).as_posix()
    except ValueError:
        return found_path


def score_ranking(ranked: list[str], targets: tuple[str, ...]) -> tuple[int, int, float]:
    """(hit@1, hit@5, reciprocal rank) of one query."""
    for rank, rel in enumerate(ranked, start=1):
        if rel in targets:
            return int(rank == 1), int(rank <= 5), 1.0 / rank
    return 0, 0, 0.0


def summarise(rows: list[tuple[int, int, float]]) -> dict[str, float]:
    n = max(len(rows), 1)
    return {
        "hit@1": round(sum(r[0] for r in rows) / n, 3),
        "hit@5": round(sum(r[1] for r in rows) / n, 3),
        "mrr": round(sum(r[2] for r in rows) / n, 3),
    }


async def _evaluate(
    search: Callable[[str], Awaitable[list[str]]], root: Path
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    rows = []
    detail = []
    for query, targets in QUERIES:
        ranked = [_rel(p, root) for p in await search(query)]
        row = score_ranking(ranked, targets)
        rows.append(row)
        detail.append({"query": query, "target": targets[0], "rr": round(row[2], 3),
                       "top": ranked[0] if ranked else None})  # fmt: skip
    return summarise(rows), detail


async def _dense_files(finder: DocumentFinder, query: str, k: int = 10) -> list[str]:
    """Plain dense top-k over the same chunks, collapsed to files in order."""
    hits = await finder.dense_top_k(query, k=DENSE_POOL)
    paths = await _paths_of(finder, [fid for fid, _ in hits])
    seen: list[str] = []
    for fid, _ in hits:
        path = paths.get(fid)
        if path is not None and path not in seen:
            seen.append(path)
        if len(seen) == k:
            break
    return seen


async def _paths_of(finder: DocumentFinder, file_ids: list[str]) -> dict[str, str]:
    ids = list(dict.fromkeys(file_ids))
    if not ids:
        return {}
    return await finder.rows.file_paths(ids)


def _load_cache(cache: Path | None, db_path: Path) -> int:
    if cache is None or not cache.exists():
        return 0
    with sqlite3.connect(db_path) as conn:
        conn.execute("ATTACH DATABASE ? AS cache", (str(cache),))
        conn.execute("INSERT OR IGNORE INTO doc_vectors SELECT * FROM cache.doc_vectors")
        count = conn.execute("SELECT changes()").fetchone()[0]
        conn.commit()
        conn.execute("DETACH DATABASE cache")
    return int(count)


def _save_cache(cache: Path | None, db_path: Path) -> None:
    if cache is None:
        return
    cache.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(cache) as out:
        out.execute(
            "CREATE TABLE IF NOT EXISTS doc_vectors (model TEXT NOT NULL, dim INTEGER NOT NULL,"
            " content_hash TEXT NOT NULL, vector BLOB NOT NULL,"
            " PRIMARY KEY (model, dim, content_hash))"
        )
        out.execute("ATTACH DATABASE ? AS ws", (str(db_path),))
        out.execute("INSERT OR IGNORE INTO doc_vectors SELECT * FROM ws.doc_vectors")
        out.commit()
        out.execute("DETACH DATABASE ws")


async def _latency(fn: Callable[[str], Awaitable[Any]]) -> list[float]:
    times = []
    for _ in range(LATENCY_ROUNDS):
        for query, _targets in QUERIES:
            t0 = time.perf_counter()
            await fn(query)
            times.append((time.perf_counter() - t0) * 1000)
    return times


@contextmanager
def _fixed_temp_dir() -> Iterator[Path]:
    """Always the same folder: summary chunks hold the folder path, so a fixed path keeps
    their text (and cached vectors) the same from run to run. One run at a time."""
    folder = Path(tempfile.gettempdir()) / "familiars-bench-files"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def run_files(
    settings: Any, cache: Path | None, scale: float = 1.0, embedder: Embedder | None = None
) -> dict[str, Any]:
    embedder = embedder or embedder_from_settings(settings)
    keep = frozenset(t for _, targets in QUERIES for t in targets)
    with _fixed_temp_dir() as tmp:
        root = tmp / "corpus"
        root.mkdir()
        t0 = time.perf_counter()
        quotas = {k: max(1, int(v * scale)) for k, v in DEFAULT_QUOTAS.items()}
        corpus = build_corpus(root, keep=keep, quotas=quotas)
        build_s = time.perf_counter() - t0
        ws = Path(tmp) / "workspace"
        bench_settings = settings.model_copy(update={"workspace": ws})
        async with DocumentFinder(ws, embedder, bench_settings, ablate=()) as finder:
            indexed = await _index_corpus(finder, root, cache)
            await finder.find("warm up", k=10)  # loads the matrix once, outside the timings
            quality, detail = await _ablations(finder, root)
            latency = await _latencies(finder, embedder)
    return {
        "model": embedder.model_name,
        "corpus_files": len(corpus.files),
        "corpus_by_source": corpus.by_source,
        **indexed,
        "queries": len(QUERIES),
        "corpus_build_s": round(build_s, 1),
        "quality": quality,
        "knob_effect": {
            knob: {
                m: round(quality["full"][m] - quality[f"without {knob}"][m], 3)
                for m in ("hit@1", "hit@5", "mrr")
            }
            for knob in FILE_KNOBS
        },
        "latency_ms": latency,
        "misses": [d for d in detail if d["rr"] < 1.0],
    }


async def _index_corpus(finder: DocumentFinder, root: Path, cache: Path | None) -> dict[str, Any]:
    cached = await asyncio.to_thread(_load_cache, cache, finder.path)
    t0 = time.perf_counter()
    results = await finder.add_folder(root)
    index_s = time.perf_counter() - t0
    await asyncio.to_thread(_save_cache, cache, finder.path)
    chunks = await finder.rows.count_chunks()
    statuses = Counter(r.status for r in results)
    return {
        "indexed_files": statuses.get("indexed", 0),
        "skipped_files": dict(Counter(r.code for r in results if r.status == "skipped")),
        "chunks": chunks,
        "index_s": round(index_s, 1),
        "vectors_from_cache": cached,
    }


async def _ablations(
    finder: DocumentFinder, root: Path
) -> tuple[dict[str, dict[str, float]], list[dict[str, Any]]]:
    """Quality with every knob, without each one, with none, and plain dense top-k."""

    async def full_paths(query: str) -> list[str]:
        return [f.path for f in await finder.find(query, k=10)]

    quality: dict[str, dict[str, float]] = {}
    quality["full"], detail = await _evaluate(full_paths, root)
    for knob in FILE_KNOBS:
        finder.ablate = frozenset({knob})
        quality[f"without {knob}"], _ = await _evaluate(full_paths, root)
    finder.ablate = frozenset(FILE_KNOBS)
    quality["fusion, no knobs"], _ = await _evaluate(full_paths, root)
    finder.ablate = frozenset()
    quality["plain dense top-k"], _ = await _evaluate(lambda q: _dense_files(finder, q), root)
    return quality, detail


async def _latencies(finder: DocumentFinder, embedder: Embedder) -> dict[str, float]:
    async def full(query: str) -> list[FoundFile]:
        return await finder.find(query, k=10)

    full_ms = await _latency(full)
    dense_ms = await _latency(lambda q: finder.dense_top_k(q, k=5))
    embed_ms = await _latency(embedder.aembed)
    return {
        "full_p50": round(percentile(full_ms, 50), 2),
        "full_p95": round(percentile(full_ms, 95), 2),
        "dense_top_k_p50": round(percentile(dense_ms, 50), 2),
        "dense_top_k_p95": round(percentile(dense_ms, 95), 2),
        "query_embedding_p50": round(percentile(embed_ms, 50), 2),
        "ratio_p95": round(percentile(full_ms, 95) / max(percentile(dense_ms, 95), 1e-9), 2),
    }


def command(
    ctx: typer.Context,
    cache: Annotated[
        Path, typer.Option(help="Vector cache file, reused across runs (model-keyed).")
    ] = DEFAULT_CACHE,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Embed everything.")] = False,
    scale: Annotated[
        float, typer.Option(min=0.05, help="Corpus size factor (1.0: about 2,200 files).")
    ] = 1.0,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Hit@1, hit@5, MRR and a knob ablation over real files; latency next to dense top-k."""
    result = asyncio.run(run_files(get_ctx(ctx).settings, None if no_cache else cache, scale))
    if want_json(ctx, json_out):
        print_json(result)
        return
    console.print(
        f"corpus: {result['corpus_files']} files {result['corpus_by_source']}, "
        f"{result['indexed_files']} indexed, skipped {result['skipped_files']}, "
        f"{result['chunks']} chunks; {result['queries']} queries; model {result['model']}; "
        f"index {result['index_s']} s ({result['vectors_from_cache']} vectors from cache)"
    )
    rows = [[name, q["hit@1"], q["hit@5"], q["mrr"]] for name, q in result["quality"].items()]
    print_table("bench files: quality", ["ranking", "hit@1", "hit@5", "MRR"], rows)
    lat = result["latency_ms"]
    print_table(
        "bench files: query latency (ms)",
        ["search", "p50", "p95"],
        [
            ["full (fusion + knobs)", lat["full_p50"], lat["full_p95"]],
            ["plain dense top-k", lat["dense_top_k_p50"], lat["dense_top_k_p95"]],
            ["query embedding alone", lat["query_embedding_p50"], ""],
        ],
    )
