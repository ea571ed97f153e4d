from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from familiars.memory import MemoryIndex, MemoryStore, make_record
from familiars.memory._index_view import _CELL_SQL
from tests.fakes import HashEmbedder
from tests.homes import open_memory


def rec(content: str, user: str = "alice", category: str = "preference"):
    return make_record(content, scope="user", category=category, user_key=user)


async def test_writes_reach_fts_and_vectors(workspace: Path, memory_home: str) -> None:
    emb = HashEmbedder()
    async with open_memory(workspace, emb) as (index, store):
        a = await store.append(rec("Alice goes running every morning"))
        await store.append(rec("Bob plays chess", user="bob"))
        hits = await index.keyword_search("runs")  # porter stemming: runs ~ running
        assert [h[0] for h in hits] == [a.id]
        ids, matrix = await index.load_matrix()
        assert set(ids) == {a.id} | {i for i in ids if i != a.id} and matrix.shape == (2, emb.dim)
        assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
        await store.forget(a.id)
        assert await index.keyword_search("running") == []


async def test_unchanged_text_is_never_embedded_twice(workspace: Path, memory_home: str) -> None:
    emb = HashEmbedder()
    async with open_memory(workspace, emb) as (index, store):
        r = await store.append(rec("likes jazz"))
        before = emb.texts_embedded
        await store.pin(r.id)
        await store.append(rec("likes jazz", user="bob"))
        assert emb.texts_embedded == before
        await index.rebuild(store)
        assert emb.texts_embedded == before


async def test_reconcile_catches_new_changed_and_deleted_files(workspace: Path) -> None:
    emb = HashEmbedder()
    async with (
        MemoryIndex(workspace, emb) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        await store.append(rec("likes tea"))
        await store.append(rec("works at the bakery", category="knowledge"))
    pref = workspace / "users/alice/preference.md"
    pref.write_text(pref.read_text().replace("likes tea", "likes oolong tea"))
    (workspace / "users/alice/knowledge.md").unlink()
    async with (
        MemoryIndex(workspace, emb) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        report = await index.reconcile(store)
        assert (report.changed_files, report.deleted_files) == (1, 1)
        assert len(await index.keyword_search("oolong")) == 1
        assert await index.keyword_search("bakery") == []
        again = await index.reconcile(store)
        assert (again.new_files, again.changed_files, again.deleted_files) == (0, 0, 0)


async def test_vectors_of_two_models_never_mix(workspace: Path, memory_home: str) -> None:
    async with open_memory(workspace, HashEmbedder(32, "model-a")) as (index, store):
        await store.append(rec("hello"))
    emb_b = HashEmbedder(48, "model-b")
    async with open_memory(workspace, emb_b) as (index, store):
        ids, matrix = await index.load_matrix()
        assert ids == [] and matrix.shape == (0, 48)
        assert await index.embed_missing() == 1
        ids, matrix = await index.load_matrix()
        assert len(ids) == 1 and matrix.shape == (1, 48)


async def test_counts_per_cell(workspace: Path, memory_home: str) -> None:
    async with open_memory(workspace, None) as (index, store):
        r = await store.append(rec("a"))
        await store.append(rec("b"))
        await store.pin(r.id)
        await store.update(r.id, "a2")
        counts = await index.counts()
    assert counts == [
        {"scope": "user", "category": "preference", "live": 2, "deprecated": 1, "pinned": 2}
    ]


async def test_status_counts_use_memorys_own_covering_index(workspace: Path) -> None:
    """The indexes the status reads are memory's migration (the API's copy is retired)."""
    async with (
        MemoryIndex(workspace, HashEmbedder()) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        await store.append(rec("Alice goes running every morning"))
    with sqlite3.connect(workspace / "familiars.db") as conn:
        plan = " ".join(str(row) for row in conn.execute(f"EXPLAIN QUERY PLAN {_CELL_SQL}"))
        applied = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")}
    assert "COVERING INDEX records_cell_flags" in plan
    assert "memory.m002_listing_indexes" in applied
    assert "memory.m003_api_status_indexes_retired" in applied
    assert "api.m001_status_indexes" not in applied


async def test_keyword_search_finds_words_of_scripts_without_spaces(workspace: Path) -> None:
    """FTS5's unicode61 keeps '我喜欢北京烤鸭' as one token: the bigram table finds '烤鸭'."""
    async with (
        MemoryIndex(workspace, HashEmbedder()) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        duck = await store.append(rec("李明最喜欢北京烤鸭"))
        await store.append(rec("李明的女儿在上海读大学"))
        tokyo = await store.append(rec("由美は来月東京へ出張する"))
        await store.append(rec("Alice likes roast duck"))
        assert [h[0] for h in await index.keyword_search("烤鸭")] == [duck.id]
        assert [h[0] for h in await index.keyword_search("東京に行く")] == [tokyo.id]
        hits = await index.keyword_search("北京烤鸭 duck")
        assert {h[0] for h in hits} == {duck.id, (await _id_of(index, "Alice likes roast duck"))}
        assert hits[0][0] == duck.id  # two shared bigrams and the run's words outscore one word
        await store.update(duck.id, content="李明最喜欢寿司")
        assert await index.keyword_search("烤鸭") == []
        await store.forget(tokyo.id)
        assert await index.keyword_search("東京") == []


async def _id_of(index: MemoryIndex, content: str) -> str:
    rows = await index.db.execute_fetchall("SELECT id FROM records WHERE content = ?", (content,))
    return str(rows[0][0])


async def test_bigram_migration_fills_existing_records(workspace: Path) -> None:
    """A database from before the bigram table gets its records' terms when it migrates."""
    async with (
        MemoryIndex(workspace, HashEmbedder()) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        duck = await store.append(rec("李明最喜欢北京烤鸭"))
    conn = sqlite3.connect(workspace / "familiars.db")
    with conn:
        for trigger in ("records_terms_ai", "records_terms_ad", "records_terms_au"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DROP TABLE records_terms")
        conn.execute("ALTER TABLE records DROP COLUMN terms")
        conn.execute("DELETE FROM schema_migrations WHERE name = 'memory.m005_no_space_terms'")
    conn.close()
    async with MemoryIndex(workspace, HashEmbedder()) as index:
        assert [h[0] for h in await index.keyword_search("烤鸭")] == [duck.id]
