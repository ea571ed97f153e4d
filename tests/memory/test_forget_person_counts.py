"""What the question before a whole-person forget counts (tester F10)."""

from __future__ import annotations

ALICE = "telegram_u1"


def test_the_question_counts_only_reminders_still_to_come() -> None:
    """Tester F10: ``/memory forget everything`` said "4 reminders" while ``/reminders``
    listed 3 (a cancelled one was counted). It still goes (its words are kept), as a memory;
    the reminders counted are the ones still to come, as ``/reminders`` lists them."""
    from familiars.memory import MemoryRecord, make_record
    from familiars.memory._forget_person import PersonScope

    def reminder(task: str, status: str) -> MemoryRecord:
        loop = {"kind": "reminder", "status": status, "user_key": ALICE}
        return make_record(
            f"Remind the user to {task}.", scope="user", category="event", user_key=ALICE,
            extra={"open_loop": loop},
        )  # fmt: skip

    recs = [reminder("water the ferns", "cancelled"), reminder("call mum", "open"),
            reminder("stretch", "sent"), reminder("pay rent", "open")]  # fmt: skip
    scope = PersonScope(keys=frozenset({ALICE}), records=recs)
    held = scope.holdings({r.id for r in recs}, files=0)
    assert (held.memories, held.reminders, held.open_loops) == (4, 2, 0)
