"""One person's nearest records in the database, every way pgvector offers, measured against
the exact top-k of that person's rows: recall@k and latency of each.

- ``exact``: the person's rows through the btree on the owner (``records_owner``), their
  vectors by key, every distance computed (what ``PgMemoryIndex.nearest`` does).
- ``strict`` / ``relaxed``: the space's HNSW index with the person as a filter and pgvector's
  iterative scans (``hnsw.iterative_scan``): the scan goes on past ``ef_search`` until k rows
  pass the filter or ``hnsw.max_scan_tuples`` were visited. ``relaxed_order`` may hand rows
  slightly out of order, so (as pgvector's documentation advises) it is wrapped in a
  materialized CTE and ordered again; ``xN`` takes N times k from the scan before that.

A partial HNSW index per person (pgvector's advice for a few filter values) cannot be made
here: a vector row is shared by every record with the same text (keyed by content hash), so
the person is not a column of ``vectors`` a partial index could name.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql


@dataclass(frozen=True)
class Way:
    name: str
    scan: str = "exact"  # exact | strict_order | relaxed_order
    ef_search: int = 40
    max_scan_tuples: int = 20_000
    mem_multiplier: float = 1.0
    overfetch: int = 1


WAYS = (
    Way("exact"),
    Way("strict ef=100", "strict_order", 100),
    Way("strict ef=400 tuples=100k mem=8", "strict_order", 400, 100_000, 8.0),
    Way("relaxed ef=100", "relaxed_order", 100),
    Way("relaxed ef=400 tuples=100k mem=8", "relaxed_order", 400, 100_000, 8.0),
    Way("relaxed ef=400 tuples=100k mem=8 x4", "relaxed_order", 400, 100_000, 8.0, 4),
    Way("relaxed ef=1000 tuples=400k mem=16 x4", "relaxed_order", 1000, 400_000, 16.0, 4),
    Way("strict ef=1000 tuples=1M mem=32", "strict_order", 1000, 1_000_000, 32.0),
    Way("relaxed ef=1000 tuples=1M mem=32 x10", "relaxed_order", 1000, 1_000_000, 32.0, 10),
)

_EXACT = (
    "WITH mine AS MATERIALIZED ("
    " SELECT r.id, v.embedding::vector({dim}) AS e FROM records r JOIN vectors v"
    " ON v.content_hash = r.content_hash AND v.space_id = {space}"
    " WHERE r.scope = 'user' AND r.user_key = %(person)s AND NOT r.deprecated)"
    " SELECT id FROM mine ORDER BY e <=> %(q)s::vector({dim}) LIMIT %(k)s"
)
_FILTERED = (
    "SELECT r.id, v.embedding::vector({dim}) <=> %(q)s::vector({dim}) AS d"
    " FROM vectors v JOIN records r ON r.content_hash = v.content_hash"
    " WHERE v.space_id = {space} AND r.scope = 'user' AND r.user_key = %(person)s"
    " AND NOT r.deprecated ORDER BY v.embedding::vector({dim}) <=> %(q)s::vector({dim})"
    " LIMIT %(n)s"
)


def way_sql(way: Way, dim: int, space: int) -> sql.Composed:
    fill = {"dim": sql.Literal(dim), "space": sql.Literal(space)}
    if way.scan == "exact":
        return sql.SQL(_EXACT).format(**fill)
    inner = sql.SQL(_FILTERED).format(**fill)
    if way.scan == "strict_order":
        return sql.SQL("SELECT id FROM ({}) s").format(inner)
    return sql.SQL(
        "WITH found AS MATERIALIZED ({}) SELECT id FROM found ORDER BY d LIMIT %(k)s"
    ).format(inner)


def _settings(conn: psycopg.Connection[Any], way: Way) -> None:
    if way.scan == "exact":
        return
    for name, value in (
        ("hnsw.iterative_scan", way.scan),
        ("hnsw.ef_search", way.ef_search),
        ("hnsw.max_scan_tuples", way.max_scan_tuples),
        ("hnsw.scan_mem_multiplier", way.mem_multiplier),
        ("enable_sort", "off"),  # else a larger LIMIT is planned as the exact way
    ):
        conn.execute(sql.SQL("SET LOCAL {} = {}").format(sql.SQL(name), sql.Literal(str(value))))


def uses_hnsw(
    conn: psycopg.Connection[Any], way: Way, query: sql.Composed, params: dict[str, Any]
) -> bool:
    """Whether the planner answers ``way`` with the HNSW index (else it is exact anyway)."""
    with conn.transaction():
        _settings(conn, way)
        plan = conn.execute(sql.SQL("EXPLAIN {}").format(query), params).fetchall()
    return any("vectors_hnsw" in line[0] for line in plan)


def measure_ways(
    conn: psycopg.Connection[Any],
    *,
    dim: int,
    space: int,
    qs: np.ndarray,
    people: list[str],
    truth: list[set[str]],
    k: int,
) -> list[dict[str, Any]]:
    """Each way over the same queries: p50/p95 (ms), recall@k, and whether HNSW was used."""
    out = []
    for way in WAYS:
        query = way_sql(way, dim, space)
        lat, rec = [], []
        for q, person, want in zip(qs, people, truth, strict=True):
            params = {"q": q, "person": person, "k": k, "n": k * way.overfetch}
            t0 = time.perf_counter()
            with conn.transaction():
                _settings(conn, way)
                got = {row[0] for row in conn.execute(query, params).fetchall()}
            lat.append((time.perf_counter() - t0) * 1000)
            rec.append(len(got & want) / len(want))
        params = {"q": qs[0], "person": people[0], "k": k, "n": k * way.overfetch}
        out.append({
            "way": way.name,
            "hnsw_plan": uses_hnsw(conn, way, query, params),
            "p50_ms": round(float(np.percentile(lat, 50)), 3),
            "p95_ms": round(float(np.percentile(lat, 95)), 3),
            "recall_at_k": round(float(np.mean(rec)), 4),
        })  # fmt: skip
    return out
