from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.memory import (
    CATEGORIES,
    SCOPES,
    VALID_CELLS,
    InvalidCellError,
    InvalidIdError,
    MemoryRecord,
    is_expired,
    is_live,
    new_id,
)
from familiars.memory._paths import owner_from_path, resolve_path


def test_matrix_is_exactly_the_seed() -> None:
    assert SCOPES == ("user", "identity", "dialogue", "ephemeral")
    assert len(CATEGORIES) == 8
    assert len(VALID_CELLS) == 16
    assert ("user", "directive") not in VALID_CELLS
    assert ("ephemeral", "directive") in VALID_CELLS


def test_record_defaults_follow_the_seed() -> None:
    rec = MemoryRecord(id="m_x", scope="user")
    assert (rec.category, rec.salience, rec.ttl, rec.schema_version) == ("knowledge", 0.5, None, 2)
    assert (rec.epistemic_status, rec.access_count, rec.pinned) == ("asserted", 0, False)
    assert rec.tags == [] and rec.derived_from == [] and rec.source_quote == []


def test_ids_are_unique_and_time_ordered() -> None:
    ids = [new_id() for _ in range(50_000)]
    assert len(set(ids)) == len(ids)
    assert [i[:18] for i in ids] == sorted(i[:18] for i in ids)


NOW = datetime(2026, 9, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("ttl", "ctx", "expired"),
    [
        (None, {}, False),
        ({"kind": "absolute", "expires_at": "2026-09-01T00:00:00Z"}, {"now": NOW}, True),
        ({"kind": "absolute", "expires_at": "2026-09-02T00:00:00+00:00"}, {"now": NOW}, False),
        ({"kind": "turns", "turns": 5, "created_turn": 10}, {"turn_counter": 15}, True),
        ({"kind": "turns", "turns": 5, "created_turn": 10}, {"turn_counter": 14}, False),
        ({"kind": "scope", "scope": "session"}, {"session_active": False}, True),
        ({"kind": "scope", "scope": "session"}, {"session_active": True}, False),
        ({"kind": "scope", "scope": "dialogue"}, {"dialogue_active": False}, True),
        ({"kind": "absolute", "expires_at": "garbage"}, {"now": NOW}, False),
    ],
)
def test_ttl_kinds(ttl: dict | None, ctx: dict, expired: bool) -> None:
    rec = MemoryRecord(id="m_x", scope="user", ttl=ttl)
    assert is_expired(rec, **ctx) is expired
    assert is_live(rec, **ctx) is (not expired)
    assert not is_live(MemoryRecord(id="m_y", scope="user", deprecated=True))


def test_absolute_ttl_with_naive_now_still_compares() -> None:
    rec = MemoryRecord(
        id="m_x", scope="user", ttl={"kind": "absolute", "expires_at": "2026-09-01T00:00:00"}
    )
    assert is_expired(rec, now=NOW + timedelta(seconds=1))


def test_resolve_path_per_scope(tmp_path: Path) -> None:
    assert (
        resolve_path(workspace=tmp_path, scope="user", category="profile", user_key="alice")
        == tmp_path / "users/alice/profile.md"
    )
    assert (
        resolve_path(workspace=tmp_path, scope="identity", category="directive")
        == tmp_path / "agents/agent_0/identity/directive.md"
    )
    p = resolve_path(
        workspace=tmp_path, scope="dialogue", category="state", dialogue_id="dialogue_3"
    )
    assert p == tmp_path / "agents/agent_0/dialogue_3/dialogue/state.md"
    p = resolve_path(
        workspace=tmp_path,
        scope="ephemeral",
        category="state",
        agent_id="bob",
        dialogue_id="dialogue_1",
    )
    assert p == tmp_path / "agents/bob/dialogue_1/ephemeral/state.md"
    for path in (p, tmp_path / "users/alice/profile.md"):
        assert owner_from_path(tmp_path, path) is not None


@pytest.mark.parametrize(
    "bad", ["../x", "a/b", "/etc", "", ".", "..", "x\x00", "é", "a" * 65, "a b"]
)
def test_ids_that_would_escape_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(InvalidIdError):
        resolve_path(workspace=tmp_path, scope="user", category="profile", user_key=bad)
    with pytest.raises(InvalidIdError):
        resolve_path(workspace=tmp_path, scope="identity", category="directive", agent_id=bad)
    with pytest.raises(InvalidIdError):
        resolve_path(workspace=tmp_path, scope="dialogue", category="state", dialogue_id=bad)
    assert list(tmp_path.iterdir()) == []


def test_invalid_cell_lists_valid_categories(tmp_path: Path) -> None:
    with pytest.raises(InvalidCellError) as info:
        resolve_path(workspace=tmp_path, scope="identity", category="profile")
    assert "preference, procedure, directive" in str(info.value)
