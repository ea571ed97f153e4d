"""Person-tester finds (s33 U3, U4, U6): missing someone told of is met by name (a late
husband with a condolence); a question about a son with only a grandson kept says so; a
breakup gets a kind word beside its update; the reminders are listed for more wordings."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot._answers import offline_reply
from familiars.bot._reminder_words import _ASKS_IN_WORDS, _ASKS_LIST
from familiars.bot._turn_actions import TurnActions
from familiars.bot._window import on_in_span
from familiars.memory import MemoryRecord

KEPT = [
    "The user's late husband Geoffrey died in 2019.",
    "The user's grandson is called Oliver.",
    "The user's girlfriend is called Priya.",
]


def _reply(text: str, kept: list[str] = KEPT, **more: object) -> str:
    return offline_reply(text, actions=TurnActions(), items=[], is_group=False, kept=kept, **more)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "said",
    ["i miss Geoffrey terribly today", "missing my husband so much", "I still miss Geoffrey"],
)
def test_missing_a_late_husband_is_met_with_his_name_and_a_condolence(said: str) -> None:
    reply = _reply(said)
    assert "Geoffrey, your late husband" in reply and "sorry" in reply
    assert "Tell me more" not in reply


def test_missing_someone_living_names_them_and_one_not_kept_is_as_before() -> None:
    assert "Priya, your girlfriend" in _reply("i miss Priya")
    assert "Geoffrey" not in _reply("i miss the sunshine")


def test_a_son_asked_with_only_a_grandson_kept_is_not_the_grandson() -> None:
    reply = _reply("do i have a son?", meant=["The user's grandson is called Oliver."])
    assert reply == "I don't know of a son; you told me about your grandson Oliver."


def test_a_breakup_gets_a_kind_word() -> None:
    actions = TurnActions()
    actions.updated.append(
        (
            "The user and Priya have broken up; Priya is no longer their girlfriend.",
            "The user's girlfriend is called Priya.",
        )
    )
    reply = offline_reply(
        "me and priya broke up last night", actions=actions, items=[], is_group=False
    )
    assert reply.startswith("I'm sorry")
    assert "Priya is no longer your girlfriend" in reply


@pytest.mark.parametrize(
    "said",
    [
        "what reminders have i got on",
        "what have i asked you to remind me about",
        "which reminders are coming up this week?",
        "any reminders for the weekend?",
    ],
)
def test_more_wordings_ask_for_the_reminders(said: str) -> None:
    assert _ASKS_LIST.match(said) or _ASKS_IN_WORDS.match(said)


@pytest.mark.parametrize(
    "said",
    ["remind me to call mum", "what did you remind me to do", "cancel the dentist reminder"],
)
def test_a_reminder_set_or_changed_is_no_listing(said: str) -> None:
    assert not _ASKS_IN_WORDS.match(said)


def _rec(content: str, rid: str, due: str | None = None) -> MemoryRecord:
    loop = {"kind": "reminder", "due": due, "status": "open"} if due else None
    extra = {"open_loop": loop} if loop else {}
    return MemoryRecord(
        id=rid, scope="user", category="event", content=content, tags=["plan"], user_key="u",
        extra=extra,
    )  # fmt: skip


NOW = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)  # a Monday
TRIP = _rec(
    "The user is off to Lanzarote on the 20th of February for a week (Saturday 20 February 2027).",
    "m1",
)


def test_anything_on_this_week_is_not_a_trip_in_february() -> None:
    assert on_in_span("anything on this week?", NOW, [TRIP]) == "Nothing that I know of this week."
    bank = _rec("Remind the user to call the bank.", "m2", due="2026-12-08T09:00:00+00:00")
    assert on_in_span("anything on this week?", NOW, [TRIP, bank]) == (
        "I'll remind you to call the bank."
    )
    assert (
        on_in_span("what's on tomorrow?", NOW, [TRIP, bank]) == "I'll remind you to call the bank."
    )
    assert on_in_span("where am I going in February?", NOW, [TRIP]) is None


def test_a_cancelled_plan_is_not_listed_as_on() -> None:
    saturday = _rec("The user is going to Lanzarote on Saturday (Saturday 12 December 2026).", "m3")
    assert on_in_span("anything on this weekend?", NOW, [saturday]) == (
        "You are going to Lanzarote on Saturday (Saturday 12 December 2026)."
    )
    saturday.tags.append("ended")
    assert on_in_span("anything on this weekend?", NOW, [saturday]) == (
        "Nothing that I know of this weekend."
    )
