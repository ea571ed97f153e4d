"""decide(now, state): due reminders, missed ones, follow-ups, check-ins, and every rule."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest

from familiars.config import SchedulerSettings
from familiars.llm import ChatMessage, ChatResult, ProviderTimeoutError
from familiars.memory import MemoryRecord
from familiars.scheduler._decider import (
    DeciderPolicy,
    DeciderService,
    DialogueState,
    OpenLoop,
    decide,
    in_quiet_hours,
    parse_hhmm,
)

NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
POLICY = DeciderPolicy.from_settings(SchedulerSettings())


def loop(
    kind: str,
    due: datetime | None = None,
    *,
    rid: str = "m_1",
    created: datetime | None = None,
    content: str = "Remind the user to call mom on Tuesday 1 December 2026 at 09:00 (UTC).",
) -> OpenLoop:
    return OpenLoop(
        rid, kind, content, due, created or NOON - timedelta(days=2), dialogue_id="dialogue_1"
    )


def state(**kw: Any) -> DialogueState:
    base: dict[str, Any] = {"agent_id": "agent_0", "dialogue_id": "dialogue_1", "user_key": "u1"}
    base.update(kw)
    return DialogueState(**base)


def test_a_due_reminder_is_sent_with_its_task() -> None:
    d = decide(NOON, state(loops=(loop("reminder", NOON - timedelta(minutes=1)),)), POLICY)
    assert d.send and d.kind == "reminder" and d.loop_ids == ("m_1",)
    assert d.text == "⏰ Reminder: call mom"
    assert "call mom" in (d.prompt or "")


def test_a_reminder_not_yet_due_waits() -> None:
    d = decide(NOON, state(loops=(loop("reminder", NOON + timedelta(seconds=1)),)), POLICY)
    assert not d.send and d.reason == "nothing due"


def test_a_reminder_beyond_the_grace_period_is_reported_missed() -> None:
    late = NOON - timedelta(seconds=POLICY.reminder_grace_s + 1)
    d = decide(NOON, state(loops=(loop("reminder", late),)), POLICY)
    assert d.send and d.kind == "missed_reminder"
    assert d.missed_ids == ("m_1",) and d.loop_ids == ()
    assert "offline" in (d.text or "") and "call mom" in (d.text or "")
    at_edge = NOON - timedelta(seconds=POLICY.reminder_grace_s)
    assert decide(NOON, state(loops=(loop("reminder", at_edge),)), POLICY).kind == "reminder"


def test_reminders_ignore_quiet_hours_caps_and_groups_but_can_respect_proactive_off() -> None:
    night = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)
    busy = state(
        loops=(loop("reminder", night),),
        is_group=True,
        proactive_enabled=False,
        proactive_sent=(night - timedelta(minutes=5),) * 5,
    )
    assert decide(night, busy, POLICY).send
    strict = DeciderPolicy(reminders_ignore_proactive_off=False)
    d = decide(night, busy, strict)
    assert not d.send and "proactive messages are off" in d.reason


def test_several_due_reminders_go_out_as_one_message() -> None:
    loops = (
        loop("reminder", NOON, rid="m_a"),
        loop("reminder", NOON, rid="m_b", content="Remind the user to water the plants."),
    )
    d = decide(NOON, state(loops=loops), POLICY)
    assert d.loop_ids == ("m_a", "m_b")
    assert d.text == "⏰ Reminders:\n- call mom\n- Remind the user to water the plants"


def test_promise_follow_up_after_its_due_time_or_the_default_delay() -> None:
    promise = loop("promise", NOON - timedelta(hours=1), content="Send the pasta recipe.")
    d = decide(NOON, state(loops=(promise,)), POLICY)
    assert d.send and d.kind == "follow_up" and d.loop_ids == ("m_1",)
    assert d.text == "Following up on something I said I'd do: Send the pasta recipe"
    fresh = loop("promise", None, created=NOON - timedelta(hours=2))
    assert not decide(NOON, state(loops=(fresh,)), POLICY).send
    old = loop("promise", None, created=NOON - timedelta(seconds=POLICY.follow_up_after_s))
    assert decide(NOON, state(loops=(old,)), POLICY).kind == "follow_up"


def test_check_in_after_silence_only_once_per_silence() -> None:
    quiet = NOON - timedelta(seconds=POLICY.checkin_after_s)
    d = decide(NOON, state(last_user_at=quiet, display_name="Ana"), POLICY)
    assert d.send and d.kind == "check_in" and d.text.startswith("Hi Ana! It's been 3 days")
    again = state(last_user_at=quiet, proactive_sent=(quiet + timedelta(hours=1),))
    assert not decide(NOON, again, POLICY).send
    recent = state(last_user_at=NOON - timedelta(hours=5))
    assert not decide(NOON, recent, POLICY).send


def checkin_state(**kw: Any) -> DialogueState:
    return state(last_user_at=NOON - timedelta(days=10), **kw)


def test_proactive_off_blocks_unsolicited_messages() -> None:
    d = decide(NOON, checkin_state(proactive_enabled=False), POLICY)
    assert not d.send and "/proactive off" in d.reason


def test_group_chats_only_when_configured() -> None:
    assert "group chat" in decide(NOON, checkin_state(is_group=True), POLICY).reason
    allowed = DeciderPolicy(proactive_in_groups=True)
    assert decide(NOON, checkin_state(is_group=True), allowed).send


def test_quiet_hours_are_in_the_persons_time_zone() -> None:
    # 12:00 UTC is 23:00 in Sydney (AEDT, +11) -> quiet; 04:00 in Los Angeles -> quiet;
    # 13:00 in Berlin -> fine.
    assert "quiet hours" in decide(NOON, checkin_state(timezone="Australia/Sydney"), POLICY).reason
    assert (
        "quiet hours" in decide(NOON, checkin_state(timezone="America/Los_Angeles"), POLICY).reason
    )
    assert decide(NOON, checkin_state(timezone="Europe/Berlin"), POLICY).send
    # An unknown zone falls back to UTC rather than failing.
    assert decide(NOON, checkin_state(timezone="Mars/Olympus"), POLICY).send


def test_quiet_hours_windows() -> None:
    over_midnight = DeciderPolicy(quiet_hours_start=time(22), quiet_hours_end=time(8))
    assert in_quiet_hours(time(23), over_midnight) and in_quiet_hours(time(7, 59), over_midnight)
    assert not in_quiet_hours(time(8), over_midnight)
    daytime = DeciderPolicy(quiet_hours_start=time(13), quiet_hours_end=time(14))
    assert in_quiet_hours(time(13, 30), daytime) and not in_quiet_hours(time(14), daytime)
    assert not in_quiet_hours(
        time(3), DeciderPolicy(quiet_hours_start=time(5), quiet_hours_end=time(5))
    )
    assert parse_hhmm("07:30") == time(7, 30)
    with pytest.raises(ValueError, match="22:00"):
        parse_hhmm("25:00")


def test_daily_cap_counts_the_persons_local_day() -> None:
    policy = DeciderPolicy(daily_cap=2, min_gap_s=0)
    sent = (NOON - timedelta(hours=3), NOON - timedelta(hours=2))
    capped = state(proactive_sent=sent, loops=(loop("promise", NOON),))
    assert "daily cap" in decide(NOON, capped, policy).reason
    yesterday = (NOON - timedelta(days=1), NOON - timedelta(days=1, hours=1))
    d = decide(NOON, state(proactive_sent=yesterday, loops=(loop("promise", NOON),)), policy)
    assert d.send


def test_minimum_gap_between_proactive_messages() -> None:
    policy = DeciderPolicy(min_gap_s=3600, daily_cap=10)
    promise = (loop("promise", NOON),)
    near = state(proactive_sent=(NOON - timedelta(minutes=30),), loops=promise)
    assert "minimum gap" in decide(NOON, near, policy).reason
    far = state(proactive_sent=(NOON - timedelta(minutes=61),), loops=promise)
    assert decide(NOON, far, policy).send


def test_model_silence_holds_unsolicited_messages_back() -> None:
    d = decide(NOON, checkin_state(silenced_until=NOON + timedelta(minutes=1)), POLICY)
    assert not d.send and "silence" in d.reason


def test_open_loop_from_record() -> None:
    rec = MemoryRecord(
        id="m_x",
        scope="dialogue",
        category="event",
        ts="2026-12-01T08:00:00+00:00",
        content="Remind the user to call mom on Tuesday 1 December 2026 at 09:00 (UTC).",
        extra={
            "open_loop": {"kind": "reminder", "due": "2026-12-01T09:00:00+00:00", "status": "open"}
        },
        dialogue_id="dialogue_3",
    )
    lp = OpenLoop.from_record(rec)
    assert lp is not None and lp.due == datetime(2026, 12, 1, 9, tzinfo=UTC)
    assert lp.dialogue_id == "dialogue_3" and lp.task() == "call mom"
    done = rec.replace(extra={"open_loop": {"kind": "reminder", "status": "done"}})
    assert OpenLoop.from_record(done) is None
    bad = rec.replace(extra={"open_loop": {"kind": "reminder", "due": "someday"}})
    assert OpenLoop.from_record(bad) is None
    assert OpenLoop.from_record(rec.replace(deprecated=True)) is None


class ScriptedModel:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.seen: list[Sequence[ChatMessage]] = []

    async def chat(self, messages: Sequence[ChatMessage], **kw: Any) -> ChatResult:
        self.seen.append(messages)
        if isinstance(self.reply, Exception):
            raise self.reply
        return ChatResult(text=self.reply)


async def test_service_uses_templates_offline_and_the_model_when_there_is_one() -> None:
    d = decide(NOON, checkin_state(display_name="Ana"), POLICY)
    offline = await DeciderService(POLICY).compose(d)
    assert offline.source == "template" and offline.text == d.text
    model = ScriptedModel("Hey Ana, thinking of you. How was the trip?")
    written = await DeciderService(POLICY, model=model, persona="You are Pip.").compose(d)
    assert written.text == "Hey Ana, thinking of you. How was the trip?"
    assert model.seen[0][0].content == "You are Pip." and "Ana" in model.seen[0][1].content


async def test_the_model_may_stay_silent_except_for_reminders() -> None:
    silent = ScriptedModel("SILENT")
    checkin = decide(NOON, checkin_state(), POLICY)
    assert (await DeciderService(POLICY, model=silent).compose(checkin)).text is None
    reminder = decide(NOON, state(loops=(loop("reminder", NOON),)), POLICY)
    kept = await DeciderService(POLICY, model=silent).compose(reminder)
    assert kept.text == "⏰ Reminder: call mom" and kept.note == "model chose silence"


async def test_a_reminder_the_model_words_without_its_task_is_sent_as_the_template() -> None:
    """A tester's model answered a due reminder with text that did not name it; the person
    was sent that text alone and never learned what the reminder was. A reminder the model
    words keeps the model's words only when they say the task."""
    reminder = decide(NOON, state(loops=(loop("reminder", NOON),)), POLICY)
    nudge = ScriptedModel("Hey! Just a little nudge 😊")
    vague = await DeciderService(POLICY, model=nudge).compose(reminder)
    assert vague.text == "⏰ Reminder: call mom" and vague.source == "template"
    assert "did not say" in vague.note
    worded = await DeciderService(POLICY, model=ScriptedModel("Time to call your mom! 📞")).compose(
        reminder
    )
    assert worded.text == "Time to call your mom! 📞" and worded.source == "model"
    two = decide(
        NOON,
        state(
            loops=(
                loop("reminder", NOON),
                loop("reminder", NOON, rid="m_2", content="Remind the user to water the ferns."),
            )
        ),
        POLICY,
    )
    half = await DeciderService(POLICY, model=ScriptedModel("Call mom now!")).compose(two)
    assert half.source == "template" and "water the ferns" in str(half.text)


async def test_an_answer_the_client_cut_is_never_sent() -> None:
    """A model past max_tokens (a tester's sent 2 MB) is cut in the client, which says so
    (``ChatResult.cut``; tests/llm/test_output_limit.py): a proactive message is then the
    template, never half a message."""
    checkin = decide(NOON, checkin_state(display_name="Ana"), POLICY)

    class Cut(ScriptedModel):
        async def chat(self, messages: Sequence[ChatMessage], **kw: Any) -> ChatResult:
            return ChatResult(text="Hey Ana! Hey Ana! ...(cut off)", cut=True)

    composed = await DeciderService(POLICY, model=Cut("")).compose(checkin)
    assert composed.text == checkin.text and composed.source == "template"
    assert "cut off" in composed.note


async def test_a_failing_model_falls_back_to_the_template() -> None:
    failing = ScriptedModel(ProviderTimeoutError("x", "timed out"))
    d = decide(NOON, checkin_state(), POLICY)
    out = await DeciderService(POLICY, model=failing).compose(d)
    assert out.text == d.text and out.source == "template" and "timed out" in out.note
