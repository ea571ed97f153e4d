"""Session 33 (fixb): a repeating rule that leaves out its day (a model's monthly rule with
no day of the month) fell on any day: fired daily. The writer now gives it the first due
time's day or refuses it saying what is missing; one kept before comes back on its day."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from familiars.memory import MemoryStore, WriteOp, make_record, parse_ts
from familiars.scheduler import ReminderBook

DUE = "2026-12-08T09:00:00+00:00"


def write(every: dict[str, object], due: str | None = DUE) -> WriteOp:
    return WriteOp.model_validate(
        {
            "op": "add",
            "scope": "dialogue",
            "category": "event",
            "entry": {
                "content": "Remind the user to pay rent.",
                "open_loop": {"kind": "reminder", "due": due, "every": every},
            },
        }
    )


def test_a_monthly_rule_without_its_day_takes_the_first_due_day() -> None:
    loop = write({"unit": "month", "at": "09:00", "tz": "UTC"}).entry.open_loop
    assert loop is not None and loop.every is not None
    assert loop.every["day"] == 8
    weekly = write({"unit": "week", "at": "09:00", "tz": "UTC"}).entry.open_loop
    assert weekly is not None and weekly.every is not None
    assert weekly.every["weekday"] == 1  # Tuesday 8 December


def test_a_rule_without_its_day_or_a_due_time_is_refused_saying_why() -> None:
    with pytest.raises(ValidationError, match="every.day"):
        write({"unit": "month", "at": "09:00"}, due=None)


async def test_a_kept_monthly_rule_without_its_day_comes_back_a_month_on(tmp_path: Path) -> None:
    loop = {
        "kind": "reminder",
        "due": DUE,
        "status": "open",
        "user_key": "u1",
        "every": {"unit": "month", "at": "09:00", "tz": "UTC"},
    }
    async with MemoryStore(tmp_path) as store:
        rec = await store.append(
            make_record(
                "Remind the user to pay rent on Tuesday 8 December 2026 at 09:00 (UTC).",
                scope="dialogue",
                category="event",
                agent_id="familiar",
                dialogue_id="dialogue_d1",
                extra={"open_loop": loop},
            )
        )
        book = ReminderBook(store)
        nxt = await book.recur(rec.id, datetime(2026, 12, 8, 9, 1, tzinfo=UTC))
        assert nxt is not None
        after = await store.get(nxt)
        assert after.open_loop is not None
        assert parse_ts(after.open_loop["due"]) == datetime(2027, 1, 8, 9, 0, tzinfo=UTC)
