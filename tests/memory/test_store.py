from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from familiars.memory import (
    InvalidCellError,
    InvalidIdError,
    MemoryRecord,
    MemoryStore,
    RecordNotFoundError,
    StoreChange,
    make_record,
)
from familiars.memory._entries import read_file
from familiars.memory._history import history_path, read_events
from tests.homes import open_store


def rec(
    content: str, user: str = "alice", category: str = "preference", **kw: object
) -> MemoryRecord:
    return make_record(content, scope="user", category=category, user_key=user, **kw)


async def test_append_get_list_and_exact_duplicates(workspace: Path, memory_home: str) -> None:
    async with open_store(workspace) as store:
        first = await store.append(rec("Alice likes cats"))
        again = await store.append(rec("  alice LIKES cats. "))
        assert again.id == first.id
        other = await store.append(rec("Alice likes cats", user="bob"))
        assert other.id != first.id
        assert (await store.get(first.id)).content == "Alice likes cats"
        assert [r.id for r in await store.list(user_key="alice")] == [first.id]
        assert len(await store.list(scope="user")) == 2
    if memory_home == "sqlite":
        text = (workspace / "users/alice/preference.md").read_text()
        assert text.count("<!--") == 1


async def test_update_supersedes_and_history_shows_the_chain(
    workspace: Path, memory_home: str
) -> None:
    async with open_store(workspace) as store:
        old = await store.append(rec("Alice likes coffee"))
        new = await store.update(old.id, "Alice no longer likes coffee; she drinks tea")
        assert new.supersedes == old.id
        assert (await store.get(old.id)).deprecated
        assert [r.id for r in await store.list(user_key="alice")] == [new.id]
        assert len(await store.list(user_key="alice", live_only=False)) == 2
        events = await store.history(new.id)
        assert [(e["event"], e["id"]) for e in events] == [
            ("upsert", old.id),
            ("deprecate", old.id),
            ("upsert", new.id),
        ]
        assert await store.history(old.id) == events


async def test_pin_unpin_deprecate_modify_extra(workspace: Path, memory_home: str) -> None:
    async with open_store(workspace) as store:
        r = await store.append(
            rec(
                "call mom",
                category="event",
                extra={"open_loop": {"kind": "reminder", "status": "open"}},
            )
        )
        assert (await store.pin(r.id)).pinned
        assert not (await store.unpin(r.id)).pinned
        done = await store.modify(r.id, extra={"open_loop": {"kind": "reminder", "status": "done"}})
        assert done.open_loop == {"kind": "reminder", "status": "done"}
        assert (await store.deprecate(r.id)).deprecated
        with pytest.raises(ValueError):
            await store.modify(r.id, scope="identity")


async def test_forget_removes_entry_and_purges_history(workspace: Path, memory_home: str) -> None:
    async with open_store(workspace) as store:
        keep = await store.append(rec("keeps this"))
        gone = await store.append(rec("my secret diary"))
        await store.update(gone.id, "my secret diary, revised")
        await store.forget(gone.id)
        with pytest.raises(RecordNotFoundError):
            await store.get(gone.id)
        assert (await store.get(keep.id)).content == "keeps this"
        if memory_home == "postgres":
            assert await stored_text_of(store, 'my secret diary"') == []
            return
    md = workspace / "users/alice/preference.md"
    assert "secret diary\n" not in md.read_text().replace("revised", "")
    hist = history_path(md).read_text()
    assert 'my secret diary"' not in hist
    events = read_events(md).events
    assert {"event": "delete", "id": gone.id, "forgotten": True}.items() <= events[-1].items()


async def test_bad_cell_and_bad_ids_write_nothing(workspace: Path, memory_home: str) -> None:
    async with open_store(workspace) as store:
        with pytest.raises(InvalidCellError):
            await store.append(make_record("x", scope="identity", category="profile"))
        for bad in ("../x", "a/b", "/abs", ""):
            with pytest.raises(InvalidIdError):
                await store.append(rec("x", user=bad))
        with pytest.raises(InvalidIdError):
            await store.get("../../etc/passwd")
        assert await store.list(live_only=False) == []
    if memory_home == "sqlite":
        assert list(workspace.rglob("*")) == []


async def test_concurrent_appends_from_many_tasks_are_all_kept(
    workspace: Path, memory_home: str
) -> None:
    async with open_store(workspace) as store:
        results = await asyncio.gather(*(store.append(rec(f"fact {i}")) for i in range(300)))
        assert len(await store.list(user_key="alice")) == 300
    assert len({r.id for r in results}) == 300
    if memory_home == "postgres":
        return
    parsed = read_file(workspace / "users/alice/preference.md")
    assert len(parsed.records) == 300 and parsed.errors == []


async def test_hand_edited_broken_entry_is_kept_when_the_store_rewrites(workspace: Path) -> None:
    async with MemoryStore(workspace) as store:
        await store.append(rec("good one"))
    md = workspace / "users/alice/preference.md"
    broken = '<!-- {"id":"m_broken","scope":"user","salience":"very"} -->\nmy hand-typed note\n'
    md.write_text(md.read_text() + "\n" + broken)
    async with MemoryStore(workspace) as store:
        errors = await store.parse_errors()
        assert len(errors) == 1 and errors[0].line == 4 and "salience" in errors[0].reason
        await store.append(rec("another fact"))
        assert len(await store.list(user_key="alice")) == 2
    assert broken in md.read_text()


async def test_files_edited_by_hand_are_reread(workspace: Path) -> None:
    async with MemoryStore(workspace) as store:
        r = await store.append(rec("likes tea"))
        md = workspace / "users/alice/preference.md"
        md.write_text(md.read_text().replace("likes tea", "likes green tea"))
        assert (await store.get(r.id)).content == "likes green tea"


async def stored_text_of(store: MemoryStore, text: str) -> list[str]:
    """Every table of the database home that still holds ``text`` (tests of forget)."""
    conn = store.conn  # type: ignore[attr-defined]

    def scan() -> list[str]:
        found = []
        for table in ("records", "history", "raw_segments", "record_changes"):
            sql = f"SELECT count(*) FROM {table} t WHERE t::text LIKE %s"
            if conn.execute(sql, (f"%{text}%",)).fetchone()[0]:
                found.append(table)
        return found

    return await asyncio.to_thread(scan)


class Recorder:
    def __init__(self) -> None:
        self.changes: list[StoreChange] = []

    async def records_changed(self, change: StoreChange) -> None:
        self.changes.append(change)


async def test_listener_sees_every_change_before_ack(workspace: Path, memory_home: str) -> None:
    recorder = Recorder()
    async with open_store(workspace, listeners=[recorder]) as store:
        r = await store.append(rec("x"))
        assert recorder.changes[-1].upserted[0].id == r.id
        await store.forget(r.id)
        assert recorder.changes[-1].removed == [r.id]


async def test_touch_access_batches_counts(workspace: Path, memory_home: str) -> None:
    async with open_store(workspace) as store:
        a = await store.append(rec("a"))
        b = await store.append(rec("b"))
        n = await store.touch_access(
            {a.id: 2, b.id: 1, "m_missing": 4}, ts="2026-01-01T00:00:00+00:00"
        )
        assert n == 2
        assert (await store.get(a.id)).access_count == 2
        assert (await store.get(b.id)).last_accessed_ts == "2026-01-01T00:00:00+00:00"
        assert len(await store.history(a.id)) == 1  # the append; a recall count is no event
    if memory_home == "sqlite":
        assert len(read_events(workspace / "users/alice/preference.md").events) == 2


async def test_store_not_started_is_a_clear_error(workspace: Path) -> None:
    store = MemoryStore(workspace)
    with pytest.raises(RuntimeError, match="not started"):
        await store.append(rec("x"))
