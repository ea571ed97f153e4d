"""The benchmarks on the database home (the session's real PostgreSQL with pgvector): recall
HNSW against exact on the same vectors, and LoCoMo with the written records in each home."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from familiars.benchmarks import _locomo as locomo
from familiars.benchmarks import _recall_pg as recall_pg
from familiars.benchmarks._locomo_home import RecordHome
from familiars.config import load_settings
from tests.benchmarks.test_bench_recall import _sample
from tests.fakes import HashEmbedder


async def test_hnsw_is_measured_against_the_exact_top_k(pg_server: str, tmp_path: Path) -> None:
    from familiars.benchmarks._database import bench_database

    settings = load_settings(workspace=tmp_path)
    with bench_database(pg_server) as url:
        out = await recall_pg.measure_database(
            settings, url, 600, dim=32, queries=12, k=10, ef_searches=[10, 200], seed=3
        )
    assert out["records"] == 600
    assert out["exact_numpy"]["all"]["recall_at_k"] == 1.0
    assert out["load_s"] >= 0 and out["build_s"] >= 0
    low, high = out["hnsw"]
    assert (low["ef_search"], high["ef_search"]) == (10, 200)
    assert 0.0 <= low["all"]["recall_at_k"] <= high["all"]["recall_at_k"] <= 1.0
    # 600 rows with ef_search 200: the graph search visits them all, so it is exact.
    assert high["all"]["recall_at_k"] == 1.0
    # The app's per-person search is exact, and so is the exact way measured beside it.
    assert out["nearest_person"]["recall_at_k"] == 1.0
    ways = {w["way"]: w for w in out["person_ways"]}
    assert ways["exact"]["recall_at_k"] == 1.0
    assert all(w["hnsw_plan"] for name, w in ways.items() if name != "exact")
    assert out["vectors"] == "clustered" and out["local_dimension"] > 0


def test_the_decaying_kind_spreads_its_variance_as_real_embeddings_do() -> None:
    """``decaying``: ``clustered`` with the variance falling along the directions as it does
    in real sentence embeddings (their first 24 principal directions hold about .36 of it),
    where ``clustered`` spreads each topic evenly over all 384 (about .2). Its local
    dimension is lower than ``clustered``'s and both are far below ``uniform``'s. 12k rows:
    40 a topic, more than the 20 nearest the estimate reads (with fewer it measures the jump
    between topics)."""
    rng = np.random.default_rng(7)
    kinds = ("decaying", "clustered", "uniform")
    rows = [recall_pg._unit(recall_pg._draw(rng, 12_000, 384, kind)) for kind in kinds]

    def share(m: np.ndarray) -> float:
        m = m[:3000]  # enough rows for the spectrum
        energy = np.linalg.svd(m - m.mean(axis=0), compute_uv=False) ** 2
        return float(energy[:24].sum() / energy.sum())

    assert 0.3 < share(rows[0]) < 0.45 and share(rows[1]) < 0.25
    dims = [recall_pg.local_dimension(m) for m in rows]
    assert dims[0] < dims[1] < dims[2] / 2, dims


def test_local_dimension_finds_a_plane_in_many_dimensions() -> None:
    """Points on a 2-d plane laid into 50 dimensions measure about 2, a 10-d cube about 10."""
    rng = np.random.default_rng(1)
    basis = np.linalg.qr(rng.standard_normal((50, 10)))[0].T
    for d in (2, 10):
        m = rng.uniform(-1, 1, (5000, d)) @ basis[:d] + 5.0 * basis[-1] * (d == 2)
        m = m / np.linalg.norm(m, axis=1, keepdims=True)
        assert 0.7 * d < recall_pg.local_dimension(m) < 1.3 * d


class _Seeded(HashEmbedder):
    """A random vector per text, seeded by the text: no two rows tie in distance."""

    def __init__(self) -> None:
        super().__init__(dim=32, model_name="test-seeded")

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.texts_embedded += len(texts)
        seeds = [int.from_bytes(hashlib.blake2b(t.encode(), digest_size=4).digest()) for t in texts]
        rows = [np.random.default_rng(s).standard_normal(self.dim) for s in seeds]
        return np.array(rows, dtype=np.float32)


async def test_real_sentences_are_embedded_once_and_measured(
    pg_server: str, tmp_path: Path
) -> None:
    """``--vectors text``: the file's first lines are the queries, the next the records (their
    text the records' content), the vectors cached beside the file and read back next time."""
    from familiars.benchmarks._database import bench_database

    texts = tmp_path / "sentences.txt"
    texts.write_text("".join(f"sentence {i} of the file\n" for i in range(384)))
    embedder = _Seeded()
    settings = load_settings(workspace=tmp_path / "ws")
    with bench_database(pg_server) as url:
        out = await recall_pg.measure_database(
            settings, url, 150, dim=32, queries=10, k=10, ef_searches=[400], seed=1,
            texts=recall_pg.TextVectors(texts, embedder),
        )  # fmt: skip
        assert embedder.texts_embedded == 160
        assert texts.with_name("sentences.txt.test-seeded.npy").exists()
        again = await recall_pg.measure_database(
            settings, url, 100, dim=32, queries=10, k=10, ef_searches=[400], seed=1,
            texts=recall_pg.TextVectors(texts, embedder),
        )  # fmt: skip
    assert embedder.texts_embedded == 160  # the cache answered
    assert out["vectors"] == again["vectors"] == "text (test-seeded)"
    assert out["hnsw"][0]["all"]["recall_at_k"] == 1.0  # 150 rows at ef_search 400: all seen
    assert out["nearest_person"]["recall_at_k"] == 1.0
    with pytest.raises(ValueError, match="384 distinct lines, 1010 are needed"):
        recall_pg.TextVectors(texts, embedder).first(1010)


async def test_locomo_records_in_both_homes_score_alike(pg_server: str, tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    from familiars.benchmarks._database import bench_database

    settings = load_settings(workspace=tmp_path / "ws")
    with bench_database(pg_server) as url:
        homes = [RecordHome(settings, None), RecordHome(settings, url)]
        report = await locomo.run_benchmark(
            path, conversations=None, ks=[1, 5], profile="standard",
            embedder=HashEmbedder(dim=64), ablate=False, facts=True, homes=homes,
        )  # fmt: skip
    files, database = report["homes"]["files"], report["homes"]["database"]
    assert files["records_loaded"] == database["records_loaded"] > 0
    assert files["overall"] == database["overall"]


def test_database_options_refused_in_one_line(tmp_path: Path) -> None:
    from familiars.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["bench", "locomo", "--database", "start"])
    assert out.exit_code == 1 and "use it with --facts" in out.output
    out = runner.invoke(app, ["bench", "recall", "--database", "mysql://x", "--records", "20"])
    assert out.exit_code == 1 and "postgresql:// URL or 'start'" in out.output
    out = runner.invoke(app, ["bench", "recall", "--ef-search", "0", "--records", "20"])
    assert out.exit_code == 1 and "--ef-search values are 1..1000" in out.output
    out = runner.invoke(app, ["bench", "recall", "--vectors", "text", "--records", "20"])
    assert out.exit_code == 1 and "--vectors text and --texts FILE go together" in out.output
    out = runner.invoke(app, ["bench", "recall", "--vectors", "text", "--records", "20",
                              "--texts", str(tmp_path / "none.txt")])  # fmt: skip
    assert out.exit_code == 1 and "no texts file" in out.output
    out = runner.invoke(app, ["bench", "recall", "--vectors", "spiky", "--records", "20"])
    assert out.exit_code == 1 and "clustered, decaying, uniform or text" in out.output


async def test_the_bench_builds_the_index_the_home_makes(pg_url: str, tmp_path: Path) -> None:
    """The HNSW index of a space: m 32 / ef_construction 128 (recall@10 .98 at ef_search 100
    on 100k clustered vectors, where pgvector's defaults gave .84), the same in the bench."""
    import psycopg

    from familiars.benchmarks._recall_pg_load import build_index, connect, space_of
    from familiars.memory import open_workspace

    settings = load_settings(workspace=tmp_path)
    async with open_workspace(settings, embedder=HashEmbedder(dim=16)) as mw:
        schema = settings.database.schema_name
        assert mw.index is not None
    with psycopg.connect(pg_url, autocommit=True) as conn:
        (made,) = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname LIKE "
            "'vectors_hnsw_%%'",
            (schema,),
        ).fetchone() or ("",)
    with connect(pg_url, schema) as conn:
        space = space_of(conn, HashEmbedder(dim=16).model_name, 16)
        conn.execute(f"DROP INDEX vectors_hnsw_{space}")
        build_index(conn, space, 16)
        (built,) = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname LIKE "
            "'vectors_hnsw_%%'",
            (schema,),
        ).fetchone() or ("",)
    assert "m='32'" in made and "ef_construction='128'" in made
    assert built == made


async def test_the_bench_copies_the_stores_rows_keyword_terms_included(
    pg_url: str, tmp_path: Path
) -> None:
    """The bench's COPY writes the row ``PgMemoryStore`` writes (its own row maker): a record
    in a script without spaces is found by one of its words, as one the store wrote."""
    import asyncio

    from familiars.benchmarks._recall_pg_load import load
    from familiars.memory import open_workspace

    settings = load_settings(workspace=tmp_path)
    embedder = HashEmbedder(dim=16)
    records = recall_pg.people_records(3, ["李明最喜欢北京烤鸭", "Ana plays the guitar", "Tea"])
    async with open_workspace(settings, embedder=embedder, reconcile=False) as mw:
        assert mw.index is not None
        await asyncio.to_thread(
            load, pg_url, settings.database.schema_name, tmp_path, records,
            embedder.embed_batch([r.content for r in records]), model=embedder.model_name,
        )  # fmt: skip
        assert [rid for rid, _ in await mw.index.keyword_search("烤鸭")] == [records[0].id]
        assert [rid for rid, _ in await mw.index.keyword_search("guitar")] == [records[1].id]
        assert [r.content for r in await mw.store.list(user_key="person000")] == [
            "李明最喜欢北京烤鸭"
        ]


def test_the_build_memory_holds_the_graph_and_no_more() -> None:
    from familiars.benchmarks._recall_pg_load import build_memory

    assert build_memory(600, 32) == "64MB"  # the least
    assert build_memory(20_000, 384) == "107MB"  # not 8 GB of shared memory for 20k rows
    assert build_memory(1_000_000, 384) == "5371MB"  # 1M: about 2.7 GB of graph, doubled
    assert build_memory(5_000_000, 384) == "8192MB"  # the most
