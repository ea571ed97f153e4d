"""Issue 20, the turn is cheap: the offline writer runs on every turn's hot path over the
person's records (a thousand and more), so work done per record per pass is what a turn
costs. These tests count that work; they would fail if a pass went back to reading every
record when it has nothing to do with them. They time nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import familiars.memory._offline._shifts as shifts
import familiars.memory._records as records
from familiars.memory import MemoryRecord, is_live, offline_writes
from familiars.memory._offline._spouses import one_spouse

NOW = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)


class _Counted(list[MemoryRecord]):
    """The person's records, counting how often a pass walks them."""

    walks = 0

    def __iter__(self) -> Iterator[MemoryRecord]:
        self.walks += 1
        return super().__iter__()


def _rec(i: int, content: str, tags: list[str], cat: str = "relation") -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=cat, content=content, tags=tags,
        ts=(NOW - timedelta(minutes=10 - i)).isoformat(),
    )  # fmt: skip


WIFE = _rec(1, "The user's wife is called Latoya.", ["family", "topic:latoya"])
HIKES = _rec(2, "The user likes hiking.", ["likes", "topic:hiking"], cat="preference")


def test_one_spouse_reads_no_record_when_no_write_names_a_spouse() -> None:
    writes = offline_writes("I like hiking in the Alps", existing=[], now=NOW).writes
    assert writes  # a like, naming no spouse
    kept = _Counted([WIFE, HIKES])
    assert one_spouse(writes, kept) == writes
    assert kept.walks == 0


def test_one_spouse_still_reads_them_when_a_write_names_the_spouse() -> None:
    writes = offline_writes("my wife is called Latisha", existing=[], now=NOW).writes
    kept = _Counted([WIFE, HIKES])
    out = one_spouse(writes, kept)
    assert kept.walks == 1
    assert [(w.op, w.entry.supersedes_id) for w in out if "wife" in w.entry.content] == [
        ("update", WIFE.id)
    ]


def test_a_record_with_no_ttl_is_live_without_an_expiry_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[str] = []
    expired = records.is_expired

    def counting(rec: MemoryRecord, **ctx: Any) -> bool:
        checked.append(rec.id)
        return expired(rec, **ctx)

    monkeypatch.setattr(records, "is_expired", counting)
    assert is_live(HIKES)
    assert not is_live(_rec(3, "gone", [], "knowledge").replace(deprecated=True))
    assert checked == []
    past = {"kind": "absolute", "expires_at": (NOW - timedelta(days=1)).isoformat()}
    assert not is_live(HIKES.replace(ttl=past), now=NOW)
    assert checked == [HIKES.id]


def test_a_change_of_mind_asks_liveness_only_of_the_slots_it_can_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    live = shifts.is_live

    def counting(rec: MemoryRecord, **ctx: Any) -> bool:
        asked.append(rec.id)
        return live(rec, **ctx)

    monkeypatch.setattr(shifts, "is_live", counting)
    others = [_rec(10 + i, f"The user's friend {i} sings.", ["friend"]) for i in range(50)]
    assert [r.id for r in others + [HIKES] if shifts._changeable(r)] == [HIKES.id]
    assert asked == [HIKES.id]


class _Watched(MemoryRecord):
    """A record that counts how often anything asks whether it is deprecated: every
    liveness check does, once."""

    asked = 0

    @property  # type: ignore[override]
    def deprecated(self) -> bool:
        type(self).asked += 1
        return bool(self.__dict__["_deprecated"])

    @deprecated.setter
    def deprecated(self, value: bool) -> None:
        self.__dict__["_deprecated"] = value


@pytest.mark.parametrize(
    "text",
    [
        "what do you know about my boss and the marathon",
        "I don't like coffee anymore, I switched to tea",
        "I like hiking and my wife is called Ann",
    ],
)
def test_the_offline_writer_asks_each_record_once_whether_it_is_live(text: str) -> None:
    kept = [
        _Watched(
            id=f"m_{i}",
            scope="user",
            category=cat,
            content=content,
            tags=tags,
            ts=(NOW - timedelta(days=400 - i)).isoformat(),
        )  # fmt: skip
        for i, (cat, content, tags) in enumerate(
            [("profile", f"The user works as a baker {i}.", ["job"]) for i in range(1)]
            + [("preference", "The user likes coffee.", ["likes", "topic:coffee"])]
            + [("knowledge", f"The user read book {i}.", ["topic:books"]) for i in range(200)]
        )
    ]
    _Watched.asked = 0
    offline_writes(text, existing=kept, now=NOW)
    # Once for the passes' shared live list; a pass may ask again of the few it picks.
    assert _Watched.asked <= len(kept) + 10
