"""A hand edit is an ``edit`` event in the history (issue 12): reconcile (the watcher's pass
and start-up's) compares the changed file with each record's last event; our own writes and
a rebuilt index add nothing."""

from __future__ import annotations

from pathlib import Path

from familiars.memory import MemoryIndex, MemoryStore, make_record
from familiars.memory._history import read_events


async def test_hand_edits_are_edit_events_and_own_writes_are_not(tmp_path: Path) -> None:
    index = MemoryIndex(tmp_path, None)
    await index.open()
    store = MemoryStore(tmp_path, listeners=[index])
    try:
        await store.start()
        kept = await store.append(make_record("Lives in Boston.", scope="user",
                                              category="profile", user_key="al"))  # fmt: skip
        gone = await store.append(make_record("Has a dog.", scope="user",
                                              category="profile", user_key="al"))  # fmt: skip
        path = store.path_of(kept)
        await index.rebuild(store)  # a lost database rebuilt: no edit from our own writes
        assert [e["event"] for e in read_events(path).events] == ["upsert", "upsert"]

        text = path.read_text(encoding="utf-8").replace("Lives in Boston.", "Lives in Denver.")
        cut = text.index("Has a dog.")
        start = text.rfind("\n<!--", 0, cut)
        text = text[:start] + text[cut + len("Has a dog.") :]
        header = text.splitlines()[0].replace(kept.id, "m_byhand01")
        text = text.rstrip("\n") + f"\n\n{header}\nLikes jazz.\n"
        path.write_text(text, encoding="utf-8")
        await index.reconcile(store, paths=[path])

        edits = [e for e in read_events(path).events if e["event"] == "edit"]
        changes = {e["change"]: e for e in edits}
        assert changes["changed"]["id"] == kept.id
        assert changes["changed"]["old"] == "Lives in Boston."
        assert changes["changed"]["record"]["content"] == "Lives in Denver."
        assert changes["removed"]["id"] == gone.id
        assert changes["removed"]["record"]["content"] == "Has a dog."
        assert changes["added"]["record"]["content"] == "Likes jazz."
        chain = await store.history(kept.id)
        assert chain[-1]["record"]["content"] == "Lives in Denver."  # --history tells the truth

        await index.reconcile(store, paths=[path])  # the same file again: nothing new
        path.touch()
        await index.rebuild(store)
        assert len([e for e in read_events(path).events if e["event"] == "edit"]) == len(edits)
    finally:
        await store.close()
        await index.close()
