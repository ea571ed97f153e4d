"""``MemoryStore.read_live``: a turn's one read of a person's records (issue 20) gives what one
``list`` per scope gives, without copying them, and what it handed out never changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.memory import (
    InvalidIdError,
    Kept,
    ListQuery,
    MemoryStore,
    derived_of,
    make_record,
)

_DIALOGUE = "dialogue_1"


async def _filled(workspace: Path) -> MemoryStore:
    store = MemoryStore(workspace)
    await store.start()
    soon = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    await store.append_many(
        [
            make_record("The user likes tea.", scope="user", category="preference", user_key="ana"),
            make_record(
                "The user's name is Ana.", scope="user", category="profile", user_key="ana"
            ),
            make_record("The user likes rain.", scope="user", category="preference", user_key="bo"),
            make_record("Be brief.", scope="identity", category="directive"),
            make_record(
                "We plan a trip.", scope="dialogue", category="knowledge", dialogue_id=_DIALOGUE
            ),
            make_record(
                "A passing note.", scope="ephemeral", category="state", dialogue_id=_DIALOGUE
            ),
            make_record(
                "Gone in an hour.",
                scope="user",
                category="knowledge",
                user_key="ana",
                ttl={"kind": "absolute", "expires_at": soon},
            ),
        ]  # fmt: skip
    )
    return store


_QUERIES = (
    ListQuery(scope="user", user_key="ana"),
    ListQuery(scope="identity", agent_id="agent_0"),
    ListQuery(scope="dialogue", agent_id="agent_0", dialogue_id=_DIALOGUE),
    ListQuery(scope="ephemeral", agent_id="agent_0", dialogue_id=_DIALOGUE),
)


@pytest.mark.parametrize("later", [False, True])
async def test_read_live_is_one_list_per_query(workspace: Path, later: bool) -> None:
    store = await _filled(workspace)
    now = datetime.now(UTC) + timedelta(hours=2 if later else 0)
    try:
        listed = [r for q in _QUERIES for r in await store.list(**q._asdict(), now=now)]
        read = await store.read_live(*_QUERIES, now=now)
    finally:
        await store.close()
    assert [(r.id, r.content, r.user_key, r.dialogue_id) for r in read] == [
        (r.id, r.content, r.user_key, r.dialogue_id) for r in listed
    ]
    assert ("Gone in an hour." in [r.content for r in read]) is not later
    assert "The user likes rain." not in [r.content for r in read]


async def test_a_record_read_live_never_changes_under_its_reader(workspace: Path) -> None:
    store = await _filled(workspace)
    try:
        (tea,) = [r for r in await store.read_live(_QUERIES[0]) if "tea" in r.content]
        await store.pin(tea.id)
        await store.touch_access({tea.id: 3})
        newer = await store.update(tea.id, "The user likes green tea.")
        again = await store.read_live(_QUERIES[0])
    finally:
        await store.close()
    assert (tea.pinned, tea.access_count, tea.deprecated) == (False, 0, False)
    assert tea.content == "The user likes tea."
    assert newer.id in [r.id for r in again] and tea.id not in [r.id for r in again]


async def test_read_live_checks_its_ids(workspace: Path) -> None:
    store = MemoryStore(workspace)
    await store.start()
    try:
        with pytest.raises(InvalidIdError):
            await store.read_live(ListQuery(scope="user", user_key="../ana"))
    finally:
        await store.close()


async def test_read_live_gives_the_same_list_while_nothing_changed(workspace: Path) -> None:
    """What a turn derives from its records (``Kept.derived``) is kept from turn to turn
    while the files are the same: the read gives the very same list."""
    store = await _filled(workspace)
    made: list[int] = []

    def count(kept: Kept) -> int:
        made.append(1)
        return len(kept)

    try:
        first = await store.read_live(*_QUERIES)
        second = await store.read_live(*_QUERIES)
        assert second is first
        assert derived_of(first, "n", count) == derived_of(second, "n", count) == len(first)
        assert len(made) == 1
        await store.append(
            make_record("The user likes maps.", scope="user", category="preference", user_key="ana")
        )
        third = await store.read_live(*_QUERIES)
    finally:
        await store.close()
    assert third is not first and "The user likes maps." in [r.content for r in third]
    assert derived_of(third, "n", count) == len(first) + 1 and len(made) == 2


async def test_a_forget_is_read_at_once_and_nothing_kept_holds_it(workspace: Path) -> None:
    store = await _filled(workspace)
    try:
        before = await store.read_live(*_QUERIES)
        contents = derived_of(before, "contents", lambda kept: [r.content for r in kept])
        (tea,) = [r for r in before if "tea" in r.content]
        assert "The user likes tea." in contents
        await store.forget(tea.id)
        after = await store.read_live(*_QUERIES)
        said = derived_of(after, "contents", lambda kept: [r.content for r in kept])
    finally:
        await store.close()
    assert "The user likes tea." not in [r.content for r in after]
    assert "The user likes tea." not in said


async def test_a_hand_edit_and_a_new_file_are_read_without_a_watcher(workspace: Path) -> None:
    store = await _filled(workspace)
    try:
        before = await store.read_live(_QUERIES[0])
        path = workspace / "users" / "ana" / "preference.md"
        path.write_text(path.read_text().replace("likes tea", "likes strong coffee"))
        other = MemoryStore(workspace)  # a new file, by another hand
        async with other:
            await other.append(
                make_record("The user's sister is Kim.", scope="user", category="relation",
                            user_key="ana")
            )  # fmt: skip
        after = await store.read_live(_QUERIES[0])
    finally:
        await store.close()
    texts = [r.content for r in after]
    assert after is not before
    assert "The user likes strong coffee." in texts and "The user likes tea." not in texts
    assert "The user's sister is Kim." in texts


async def test_a_kept_read_follows_the_clock_both_ways(workspace: Path) -> None:
    store = await _filled(workspace)
    now = datetime.now(UTC)
    try:
        reads = [
            await store.read_live(_QUERIES[0], now=now + timedelta(hours=h)) for h in (0, 2, 0)
        ]
    finally:
        await store.close()
    held = ["Gone in an hour." in [r.content for r in read] for read in reads]
    assert held == [True, False, True]
