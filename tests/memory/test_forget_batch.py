"""Forgets queued together are written together (a whole person's hundreds of records: one
rewrite of each memory file and of its history a batch, not one a record), and each still
ends as a lone forget does: its events gone, a tombstone of its own, the rest untouched."""

from __future__ import annotations

import asyncio
from pathlib import Path

from familiars.memory import RecordNotFoundError, make_record
from familiars.memory._history import history_path
from tests.bot.test_forget import files_holding
from tests.homes import open_store


async def test_forgets_queued_together_each_leave_a_tombstone_and_keep_the_rest(
    workspace: Path, memory_home: str
) -> None:
    async with open_store(workspace) as store:
        ids = []
        for i in range(5):
            rec = make_record(f"Alice's locker KQ77{i}9 is blue.", scope="user",
                              category="knowledge", user_key="alice")  # fmt: skip
            ids.append((await store.append(rec)).id)
        kept = await store.append(
            make_record(
                "Alice keeps ZX4420 spare.", scope="user", category="knowledge", user_key="alice"
            )  # fmt: skip
        )
        gone = ids[:4]
        done = await asyncio.gather(
            *(store.forget(i) for i in [*gone, "m_nosuchrecord"]), return_exceptions=True
        )
        assert [r.id for r in done[:4]] == gone  # type: ignore[union-attr]
        assert isinstance(done[4], RecordNotFoundError)  # one missing fails alone
        live = {r.id for r in await store.list(user_key="alice")}
        assert live == {ids[4], kept.id}
        for rid in gone:
            assert [e["event"] for e in await store.history(rid)] in ([], ["delete"])
    for i in range(4):
        assert files_holding(workspace, f"KQ77{i}9") == []
    assert files_holding(workspace, "KQ7749") and files_holding(workspace, "ZX4420")
    if memory_home == "sqlite":
        lines = history_path(workspace / "users/alice/knowledge.md").read_text().splitlines()
        assert sum('"forgotten":true' in line for line in lines) == 4


async def test_a_left_history_is_purged_only_for_entries_that_are_gone(
    workspace: Path, memory_home: str
) -> None:
    """``purge_left_history`` (what a resumed forget calls) leaves a live record's history
    alone and purges one whose entry went without it (on files: the entry removed by a
    forget killed before its history's purge)."""
    async with open_store(workspace) as store:
        live = await store.append(make_record("Alice's locker KQ7719 is blue.", scope="user",
                                              category="knowledge", user_key="alice"))  # fmt: skip
        before = await store.history(live.id)
        assert await store.purge_left_history([live.id, "m_nosuchrecord", "../x"]) == []
        assert await store.history(live.id) == before
        if memory_home == "sqlite":  # the files home: a file to cut
            bike = make_record(
                "Alice's bike code ZQ5512.", scope="user", category="knowledge", user_key="alice"
            )
            gone = await store.append(bike)
            path = workspace / "users" / "alice" / "knowledge.md"
            text = path.read_text(encoding="utf-8")
            cut = text.index("ZQ5512")
            start = text.rfind("<!--", 0, cut)
            path.write_text(text[:start], encoding="utf-8")  # the entry gone by hand-like cut
            assert files_holding(workspace, "ZQ5512")  # its history still holds the words
            assert await store.purge_left_history([gone.id, live.id]) == [gone.id]
            assert files_holding(workspace, "ZQ5512") == []
            assert await store.history(live.id) == before


async def test_forgetting_an_id_takes_its_hand_copy_too(workspace: Path) -> None:
    """Review s34 F1: a hand copy of an entry (same id) was left out while the first stood,
    and came back live under the forgotten id once the first was forgotten."""
    async with open_store(workspace) as store:
        rec = await store.append(
            make_record("Dan lives in Leeds.", scope="user", category="relation", user_key="al")
        )
        path = workspace / "users" / "al" / "relation.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text + "\n" + text.replace("Leeds", "York, QZ8812"), encoding="utf-8")
        store.invalidate(path)
        assert [r.content for r in await store.list(user_key="al")] == ["Dan lives in Leeds."]
        await store.forget(rec.id)
        assert await store.list(user_key="al") == []
    assert files_holding(workspace, "QZ8812") == []


async def test_a_person_forgotten_whole_leaves_no_event_in_their_histories(
    workspace: Path, memory_home: str
) -> None:
    """``forget_unparsed`` (the last step of a whole-person forget) purges every event left
    in the person's files' histories, here of an entry cut out by hand, and never a live
    record's (tester s37: a hand-broken entry's record stayed in profile.history.jsonl)."""
    async with open_store(workspace) as store:
        live = await store.append(make_record("Alice's locker KQ7719 is blue.", scope="user",
                                              category="knowledge", user_key="alice"))  # fmt: skip
        gone = await store.append(make_record("Alice's bike code ZQ5512.", scope="user",
                                              category="knowledge", user_key="alice"))  # fmt: skip
        before = await store.history(live.id)
        assert await store.forget_unparsed("alice") == []  # nothing left behind: no change
        assert await store.history(gone.id) != []
        if memory_home == "sqlite":  # the files home: a file to cut
            path = workspace / "users" / "alice" / "knowledge.md"
            text = path.read_text(encoding="utf-8")
            path.write_text(text[: text.rfind("<!--", 0, text.index("ZQ5512"))], "utf-8")
            store.invalidate(path)
            assert files_holding(workspace, "ZQ5512")  # its history still holds the words
            assert await store.forget_unparsed("alice") == []
            assert files_holding(workspace, "ZQ5512") == []
        assert await store.history(live.id) == before
