"""Loading ``bench recall --database``'s rows fast: ``COPY ... FROM STDIN`` into the memory's
own tables (``records``, ``cells``, ``vectors``) of a schema the database home migrated, then
the space's HNSW index built once over all of them, as pgvector advises for a bulk load (a
large ``maintenance_work_mem`` so the graph is built in memory, parallel workers).

Writing 100k records through the store, the index kept as they arrived, took 608 s on the
shared 2-core machine; 1M was never run. The rows are the ones the store writes (``PgMemoryStore``'s
own row maker: the same columns, header JSON and keyword ``terms``): the bench reads one
person's back through the store to check it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from familiars.memory import MemoryRecord, content_hash, database_row_maker, resolve_path

#: The most an index build may use (see :func:`build_memory`).
BUILD_MEMORY_MAX_MB = 8192
#: Parallel workers of the build besides the leader (the index build of pgvector >= 0.6).
BUILD_WORKERS = 1


def connect(url: str, schema: str) -> psycopg.Connection[Any]:
    from pgvector.psycopg import register_vector

    conn = psycopg.connect(url, autocommit=True, options=f"-c search_path={schema},public")
    register_vector(conn)
    return conn


def space_of(conn: psycopg.Connection[Any], model: str, dim: int) -> int:
    row = conn.execute(
        "SELECT space_id FROM embedding_spaces WHERE model = %s AND dim = %s", (model, dim)
    ).fetchone()
    if row is None:
        raise RuntimeError(f"no embedding space {model}/{dim}: open the home first")
    return int(row[0])


def _cell(workspace: Path, rec: MemoryRecord) -> str:
    path = resolve_path(
        workspace=workspace,
        scope=rec.scope,
        category=rec.category,
        agent_id=rec.agent_id,
        dialogue_id=rec.dialogue_id,
        user_key=rec.user_key,
    )
    return path.relative_to(workspace).as_posix()


def copy_rows(
    conn: psycopg.Connection[Any],
    workspace: Path,
    space: int,
    records: Sequence[MemoryRecord],
    matrix: np.ndarray,
) -> None:
    """The records (text COPY), their cells and their vectors (binary COPY), in one
    transaction; the space's HNSW index is dropped first (:func:`build_index` makes it)."""
    columns, record_row = database_row_maker()  # the store's own row, terms included
    hashes: list[str] = []
    cells: set[str] = set()
    with conn.transaction():
        conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(_index_name(space)))
        with conn.cursor() as cur:
            with cur.copy(sql.SQL("COPY records ({}) FROM STDIN").format(sql.SQL(columns))) as cp:
                for rec in records:
                    cell = _cell(workspace, rec)
                    cp.write_row(record_row(cell, rec))
                    hashes.append(content_hash(rec.content))
                    cells.add(cell)
            with cur.copy(
                "COPY vectors (space_id, content_hash, embedding) FROM STDIN WITH (FORMAT BINARY)"
            ) as cp:
                cp.set_types(["int4", "text", "vector"])
                for digest, vec in zip(hashes, matrix, strict=True):
                    cp.write_row((space, digest, vec))
            cur.executemany(
                "INSERT INTO cells (cell, version) VALUES (%s, 1) "
                "ON CONFLICT (cell) DO UPDATE SET version = cells.version + 1",
                [(c,) for c in sorted(cells)],
            )
    conn.execute("ANALYZE records, vectors")


def build_memory(rows: int, dim: int) -> str:
    """``maintenance_work_mem`` for an HNSW build over ``rows`` vectors: the whole graph must
    fit, or pgvector goes on building it on disk, far slower. An element holds its vector and,
    at m 32, 64 neighbours of 16 bytes on the bottom layer (1M of 384 dimensions: about
    2.8 GB); twice that leaves room, 64 MB at least, :data:`BUILD_MEMORY_MAX_MB` at most. Not
    more: a parallel build reserves all of it as shared memory, whatever the graph needs."""
    need = rows * (4 * dim + 64 * 16 + 256) * 2 / 2**20
    return f"{int(min(BUILD_MEMORY_MAX_MB, max(64, need)))}MB"


def build_index(conn: psycopg.Connection[Any], space: int, dim: int) -> None:
    """The space's HNSW index as the home makes it (``PgMemoryIndex._ensure_space``: same
    name, expression, graph options and predicate), built once over the loaded rows."""
    row = conn.execute("SELECT count(*) FROM vectors WHERE space_id = %s", (space,)).fetchone()
    memory = build_memory(int(row[0]) if row else 0, dim)
    conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(memory)))
    conn.execute(
        sql.SQL("SET max_parallel_maintenance_workers = {}").format(sql.Literal(BUILD_WORKERS))
    )
    conn.execute(
        sql.SQL(
            "CREATE INDEX {} ON vectors USING hnsw "
            "((embedding::vector({})) vector_cosine_ops) WITH (m = 32, ef_construction = 128) "
            "WHERE space_id = {}"
        ).format(_index_name(space), sql.Literal(dim), sql.Literal(space))
    )
    conn.execute("ANALYZE vectors")


def _index_name(space: int) -> sql.Identifier:
    return sql.Identifier(f"vectors_hnsw_{space}")


def load(
    url: str,
    schema: str,
    workspace: Path,
    records: Sequence[MemoryRecord],
    matrix: np.ndarray,
    *,
    model: str,
) -> dict[str, float]:
    """Copy the rows in and build the index; seconds of each (``load_s``, ``build_s``)."""
    with connect(url, schema) as conn:
        space = space_of(conn, model, matrix.shape[1])
        t0 = time.perf_counter()
        copy_rows(conn, workspace, space, records, matrix)
        t1 = time.perf_counter()
        build_index(conn, space, matrix.shape[1])
        t2 = time.perf_counter()
    return {"load_s": round(t1 - t0, 1), "build_s": round(t2 - t1, 1)}
