"""``familiars bench recall --database``: pgvector's HNSW next to the exact top-k, in the same
run and on the same vectors.

For each size, records of 100 people with vectors of one of four kinds, each named in the
report: ``clustered`` (synthetic: 300 random centres plus full-rank noise of 0.6 per
dimension, so a topic's points spread over all 384 dimensions, far more than real sentence
embeddings do; a query is a record's vector plus a little noise), ``decaying`` (synthetic
too: ``clustered`` with each direction's variance falling as real sentence embeddings' does,
``SPECTRUM``; queries as ``clustered``), ``uniform`` (random unit
vectors and queries, the worst case for a graph index, nothing to lean on) or ``text`` (real
sentences, one a line of ``--texts``, embedded by the configured model: the first
``--queries`` lines are the queries, the next ``size`` the records; the vectors are cached
beside the file, as embedding 100k sentences takes most of an hour on 2 shared cores). They
are copied into the database home's own tables (``COPY``, then one HNSW
build: ``_recall_pg_load``; one person's records are read back through the store to check
the rows), then each query is answered: numpy's exact top-k over the whole matrix (the files
home's path: the reader's matrix) and over one person's rows, ``PgMemoryIndex.nearest`` over
all (HNSW, at each ``ef_search`` asked) and over one person (what the app does), and every
per-person way pgvector offers (``_recall_pg_person``). Recall@k is the share of the exact
top-k returned. Each kind's local intrinsic dimension (``local_dimension``, the maximum-
likelihood estimate over a row's 20 nearest) is reported beside, so how hard a kind is for a
graph index can be compared with real sentences rather than taken on trust.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from familiars.benchmarks._database import drop_schema, home_settings
from familiars.benchmarks._recall_pg_load import connect, load, space_of
from familiars.benchmarks._recall_pg_person import measure_ways
from familiars.config import Settings
from familiars.memory import Embedder, MemoryRecord, MemoryStore, open_workspace

PEOPLE = 100
#: The ``decaying`` kind's variance along its i-th direction: (i + 40) ** -1.7. Fitted to
#: 6,000 real sentences embedded by all-MiniLM-L6-v2 (``scripts/bench_sentences.py``): their
#: first 24 principal directions hold .355 of the variance and the first 100 .716; this
#: spectrum's unit rows .389 and .790 (``clustered``'s .196 and .590).
SPECTRUM = (1.7, 40.0)


class _Nearest(Protocol):
    async def nearest(
        self, query: np.ndarray, k: int, *, user_key: str | None = None, ef_search: int = 100
    ) -> list[tuple[str, float]]: ...


class _Vectors(Embedder):
    """Hands back the vectors fixed for the records' texts (no model call while writing)."""

    def __init__(self, model_name: str, dim: int, table: dict[str, np.ndarray]) -> None:
        self.model_name = model_name
        self.dim = dim
        self.table = table

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


def people_records(n: int, contents: Sequence[str] | None = None) -> list[MemoryRecord]:
    return [
        MemoryRecord(
            id=f"m_pgbench{i:08d}",
            scope="user",
            category="event",
            ts="2026-01-01T00:00:00+00:00",
            content=contents[i] if contents else f"Bench fact number {i} of person {i % PEOPLE}.",
            user_key=f"person{i % PEOPLE:03d}",
        )
        for i in range(n)
    ]


class TextVectors:
    """The ``text`` kind: the lines of a file and their vectors by ``embedder``, cached as
    ``<file>.<model>.npy`` (the first rows of the file, in its order)."""

    def __init__(self, path: Path, embedder: Embedder) -> None:
        self.lines = list(dict.fromkeys(s for s in path.read_text().splitlines() if s.strip()))
        self.embedder = embedder
        self.cache = path.with_name(f"{path.name}.{embedder.model_name.replace('/', '_')}.npy")

    def first(self, n: int) -> tuple[list[str], np.ndarray]:
        """The first ``n`` lines and their unit vectors."""
        if n > len(self.lines):
            raise ValueError(f"--texts has {len(self.lines)} distinct lines, {n} are needed")
        have = np.load(self.cache) if self.cache.exists() else np.zeros((0, self.embedder.dim))
        if len(have) < n or have.shape[1] != self.embedder.dim:
            have = self.embedder.embed_batch(self.lines[:n])
            np.save(self.cache, have.astype(np.float32))
        return self.lines[:n], _unit(have[:n])


def exact_topk(matrix: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    scores = matrix @ q
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


def _summary(latencies: list[float], recalls: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(float(np.percentile(latencies, 50)), 3),
        "p95_ms": round(float(np.percentile(latencies, 95)), 3),
        "recall_at_k": round(float(np.mean(recalls)), 4),
    }


async def measure_database(
    settings: Settings,
    url: str,
    size: int,
    *,
    dim: int,
    queries: int,
    k: int,
    ef_searches: Sequence[int],
    seed: int,
    vectors: str = "clustered",
    texts: TextVectors | None = None,
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    if texts is not None:
        lines, both = texts.first(queries + size)
        records, matrix, qs = people_records(size, lines[queries:]), both[queries:], both[:queries]
        embedder = _Vectors(texts.embedder.model_name, texts.embedder.dim, {})
    else:
        records = people_records(size)
        matrix = _unit(_draw(rng, size, dim, vectors))
        qs = _queries_for(rng, matrix, queries, vectors)
        embedder = _Vectors("bench-random", dim, {})
    schema = f"bench_recall_{size}_{seed}"
    drop_schema(url, schema)
    try:
        with tempfile.TemporaryDirectory(prefix="familiars-bench-") as tmp:
            home = home_settings(settings, Path(tmp), schema)
            async with open_workspace(home, embedder=embedder, reconcile=False) as mw:
                times = await asyncio.to_thread(
                    load, url, schema, Path(tmp), records, matrix, model=embedder.model_name
                )
                await _check_loaded(mw.store, records)
                out = await _queries(
                    cast(_Nearest, mw.index), records, matrix, qs, k, ef_searches, rng
                )
                out["person_ways"] = await asyncio.to_thread(
                    _person_ways, url, schema, embedder, qs, out.pop("_people"), out, k
                )
                out.pop("_truth")
    finally:
        drop_schema(url, schema)
    kind = vectors if texts is None else f"text ({embedder.model_name})"
    lid = local_dimension(matrix)
    return {"records": size, "vectors": kind, "local_dimension": lid, **times, **out}


async def _check_loaded(store: MemoryStore, records: list[MemoryRecord]) -> None:
    """The copied rows read back through the store as the records they were made from."""
    mine = [r for r in records[: PEOPLE * 3] if r.user_key == records[0].user_key]
    got = [
        r for r in await store.list(user_key=records[0].user_key) if r.id in {m.id for m in mine}
    ]
    if [(r.id, r.content) for r in got] != [(r.id, r.content) for r in mine]:
        raise RuntimeError("the copied rows do not read back as the records")


def _person_ways(
    url: str,
    schema: str,
    embedder: _Vectors,
    qs: np.ndarray,
    people: list[str],
    out: dict[str, Any],
    k: int,
) -> list[dict[str, Any]]:
    with connect(url, schema) as conn:
        space = space_of(conn, embedder.model_name, embedder.dim)
        return measure_ways(
            conn, dim=embedder.dim, space=space, qs=qs, people=people,
            truth=out["_truth"], k=k,
        )  # fmt: skip


def _unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def local_dimension(matrix: np.ndarray, *, sample: int = 200, k: int = 20) -> float:
    """The local intrinsic dimension of unit rows (Levina and Bickel's maximum-likelihood
    estimate, averaged as MacKay and Ghahramani do) over ``sample`` rows' ``k`` nearest other
    rows. Real sentence embeddings measure far lower than full-rank noise: the lower, the
    easier for a graph index. Its own seed: the kind's draws are left as they were."""
    rows = np.random.default_rng(0).choice(len(matrix), min(sample, len(matrix)), replace=False)
    k = min(k, len(matrix) - 1)
    inverse = []
    for chunk in np.array_split(rows, max(1, len(rows) // 25)):
        sims = matrix @ matrix[chunk].T
        sims[chunk, np.arange(len(chunk))] = -np.inf  # not its own nearest
        near = -np.sort(np.partition(-sims, k - 1, axis=0)[:k], axis=0)  # k x chunk, nearest first
        dist = np.sqrt(np.clip(2.0 - 2.0 * near, 1e-12, None))
        inverse.extend(np.mean(np.log(dist[-1] / dist[:-1]), axis=0))
    return round(float(1.0 / np.mean(inverse)), 1)


def _draw(rng: np.random.Generator, n: int, dim: int, vectors: str) -> np.ndarray:
    if vectors == "decaying":
        return _decaying(rng, n, dim)
    noise = rng.standard_normal((n, dim), dtype=np.float32)
    if vectors == "uniform":
        return noise
    centres = rng.standard_normal((300, dim), dtype=np.float32)
    return centres[rng.integers(0, 300, n)] + 0.6 * noise


def _decaying(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``clustered``'s 300 topics and spread, each direction scaled so that the variance
    falls as real sentence embeddings' does (``SPECTRUM``). Not rotated: the cosine between
    two rows, all a graph index sees, is the same in any basis."""
    scale = (np.arange(1, dim + 1, dtype=np.float32) + SPECTRUM[1]) ** (-SPECTRUM[0] / 2)
    centres = rng.standard_normal((300, dim), dtype=np.float32)
    out = centres[rng.integers(0, 300, n)]
    for start in range(0, n, 100_000):  # the noise a block at a time (1M x 384 twice is 3 GB)
        block = out[start : start + 100_000]
        block += 0.6 * rng.standard_normal(block.shape, dtype=np.float32)
        block *= scale
    return out


def _queries_for(rng: np.random.Generator, matrix: np.ndarray, n: int, vectors: str) -> np.ndarray:
    if vectors == "uniform":
        return _unit(rng.standard_normal((n, matrix.shape[1]), dtype=np.float32))
    picks = matrix[rng.integers(0, len(matrix), n)]
    return _unit(picks + 0.05 * rng.standard_normal(picks.shape, dtype=np.float32))


async def _queries(
    index: _Nearest,
    records: list[MemoryRecord],
    matrix: np.ndarray,
    qs: np.ndarray,
    k: int,
    ef_searches: Sequence[int],
    rng: np.random.Generator,
) -> dict[str, Any]:
    """Exact (numpy) answers over all and per person, and HNSW (pgvector, the home's
    ``nearest``) over all at each ``ef_search``; the app's per-person ``nearest`` beside."""
    ids = np.array([r.id for r in records])
    rows_of: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        rows_of.setdefault(str(r.user_key), []).append(i)
    owned = {p: np.array(rows) for p, rows in rows_of.items()}  # as the reader keeps them
    people = [f"person{int(p):03d}" for p in rng.integers(0, PEOPLE, len(qs))]
    exact: dict[str, list[float]] = {"all": [], "person": []}
    truth: dict[str, list[set[str]]] = {"all": [], "person": []}
    for q, person in zip(qs, people, strict=True):
        t0 = time.perf_counter()
        top = exact_topk(matrix, q, k)
        exact["all"].append((time.perf_counter() - t0) * 1000)
        truth["all"].append(set(ids[top]))
        t0 = time.perf_counter()
        rows = owned[person]
        top = rows[exact_topk(matrix[rows], q, k)]
        exact["person"].append((time.perf_counter() - t0) * 1000)
        truth["person"].append(set(ids[top]))
    out: dict[str, Any] = {
        "exact_numpy": {w: _summary(exact[w], [1.0]) for w in ("all", "person")},
        "hnsw": [],
        "_people": people,
        "_truth": truth["person"],
    }
    for ef in ef_searches:
        out["hnsw"].append(
            {"ef_search": ef, "all": await _timed(index, qs, None, truth["all"], k, ef)}
        )
    out["nearest_person"] = await _timed(index, qs, people, truth["person"], k, 400)
    return out


async def _timed(
    index: _Nearest,
    qs: np.ndarray,
    people: list[str] | None,
    truth: list[set[str]],
    k: int,
    ef: int,
) -> dict[str, float]:
    lat, rec = [], []
    for i, q in enumerate(qs):
        t0 = time.perf_counter()
        got = await index.nearest(q, k, user_key=people[i] if people else None, ef_search=ef)
        lat.append((time.perf_counter() - t0) * 1000)
        want = truth[i]  # fewer than k when the person has fewer rows
        rec.append(len({rid for rid, _ in got} & want) / len(want))
    return _summary(lat, rec)
