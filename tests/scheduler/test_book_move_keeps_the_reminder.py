"""``ReminderBook.move`` / ``once_more`` return the reminder as it now is, built from the one
given (``dataclasses.replace``), not field by field: a reminder moved in place keeps when it
was asked for (its record is the same), a copy is a new one-off without number or rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.memory import MemoryStore, make_record
from familiars.scheduler import ReminderBook

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
DUE = NOW + timedelta(days=1)
EVERY = {"unit": "week", "at": "09:00", "tz": "UTC", "weekday": 1}


async def _one(store: MemoryStore) -> None:
    loop = {"kind": "reminder", "due": DUE.isoformat(), "status": "open", "user_key": "u1",
            "every": EVERY}  # fmt: skip
    await store.append(
        make_record(
            "Remind the user to water the ferns on Tuesday 8 December 2026 at 09:00 (UTC).",
            scope="dialogue",
            category="event",
            agent_id="agent_0",
            dialogue_id="dialogue_0",
            extra={"open_loop": loop},
        )
    )


async def test_move_and_once_more_return_the_reminder_as_it_now_is(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path) as store:
        await _one(store)
        book = ReminderBook(store)
        [reminder] = await book.of("u1", NOW)
        assert reminder.set_at is not None and reminder.number == 1
        later = DUE + timedelta(hours=2)
        moved = await book.move(reminder, later, NOW)
        assert (moved.record_id, moved.due, moved.status) == (reminder.record_id, later, "open")
        assert moved.set_at == reminder.set_at  # the same record, asked for when it was
        assert (moved.number, moved.every, moved.task) == (1, EVERY, reminder.task)
        again = await book.once_more(reminder, later + timedelta(days=1), NOW)
        assert again.record_id != reminder.record_id and again.task == reminder.task
        assert (again.number, again.every, again.set_at) == (0, None, None)
        assert (again.user_key, again.dialogue_id) == (reminder.user_key, reminder.dialogue_id)
