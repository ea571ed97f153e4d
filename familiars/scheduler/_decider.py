"""DeciderService: whether the familiar should speak first, and what it says.

:func:`decide` is pure: given ``now`` and one dialogue's :class:`DialogueState` it returns a
:class:`Decision` (send or not, the template text and the prompt for a model, the reason).
Every proactive message must be worth sending, so the rules are conservative:

- reminders a person asked for go out when due (even in quiet hours: they chose the time);
  one due longer ago than ``reminder_grace_s`` (the bot was down) is reported as missed;
- follow-ups on open promises / requests / questions, and a check-in after
  ``checkin_after_s`` of silence (once per silence), respect ``/proactive off``, quiet hours
  in the person's time zone, the daily cap per dialogue, the minimum gap, and never go to a
  group chat unless ``proactive_in_groups`` is set.

:class:`DeciderService` turns a decision into text: with a chat model it writes the message
and may answer ``SILENT`` to stay silent (never for a reminder a person asked for); offline,
or when the model fails, it uses the templates.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Any, Literal, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.llm import ChatMessage, LLMError
from familiars.memory import MemoryRecord, parse_ts

logger = logging.getLogger(__name__)

LoopKind = Literal["promise", "request", "question", "reminder"]
LOOP_KINDS: tuple[str, ...] = ("promise", "request", "question", "reminder")
DecisionKind = Literal["reminder", "missed_reminder", "follow_up", "check_in"]
SILENT = "SILENT"


# ---------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class OpenLoop:
    """An open loop read from a memory record's ``extra["open_loop"]``."""

    record_id: str
    kind: str
    content: str
    due: datetime | None
    created: datetime | None
    user_key: str | None = None
    agent_id: str = "agent_0"
    dialogue_id: str | None = None
    #: A reminder that comes back: its rule (``open_loop["every"]``), else None.
    every: dict[str, Any] | None = None

    @classmethod
    def from_record(cls, rec: MemoryRecord) -> OpenLoop | None:
        """The loop of ``rec`` if it is open and readable; None otherwise (a loop whose kind
        or due time cannot be read is logged, not guessed at)."""
        loop = rec.open_loop
        if loop is None or rec.deprecated or loop.get("status", "open") != "open":
            return None
        kind = loop.get("kind")
        due = parse_ts(loop["due"]) if loop.get("due") else None
        if kind not in LOOP_KINDS or (loop.get("due") and due is None):
            logger.warning("record %s has an unreadable open_loop %r; ignored", rec.id, loop)
            return None
        return cls(
            record_id=rec.id,
            kind=str(kind),
            content=rec.content,
            due=due,
            created=parse_ts(rec.ts),
            # A dialogue-scope reminder names the person who asked in its loop.
            user_key=rec.user_key or loop.get("user_key"),
            agent_id=rec.agent_id,
            dialogue_id=rec.dialogue_id or loop.get("dialogue_id"),
            every=loop["every"] if isinstance(loop.get("every"), dict) else None,
        )

    def task(self) -> str:
        """The thing to do, without the writer's framing ("Remind the user to X on ...")."""
        m = _REMINDER_TASK.search(self.content)
        return (m.group(1) if m else self.content).strip().rstrip(".")


_REMINDER_TASK = re.compile(r"Remind the user to (.+?) on \w+day ", re.IGNORECASE)


@dataclass(frozen=True)
class DialogueState:
    """What the decider knows about one dialogue (or one person with no dialogue yet)."""

    agent_id: str
    dialogue_id: str | None
    user_key: str | None = None
    display_name: str = ""
    timezone: str = "UTC"
    is_group: bool = False
    proactive_enabled: bool = True
    last_user_at: datetime | None = None
    #: When proactive messages went out in this dialogue (recent ones are enough).
    proactive_sent: tuple[datetime, ...] = ()
    #: A model chose silence: nothing unsolicited before this time.
    silenced_until: datetime | None = None
    loops: tuple[OpenLoop, ...] = ()
    #: The person spoke of self-harm: no unsolicited nudges before this time (duty of care).
    care_paused_until: datetime | None = None


@dataclass(frozen=True)
class DeciderPolicy:
    quiet_hours_start: time = time(22, 0)
    quiet_hours_end: time = time(8, 0)
    daily_cap: int = 3
    min_gap_s: float = 4 * 3600.0
    checkin_after_s: float = 3 * 86400.0
    follow_up_after_s: float = 86400.0
    proactive_in_groups: bool = False
    reminder_grace_s: float = 6 * 3600.0
    reminders_ignore_proactive_off: bool = True
    #: A reminder sent later than this after it was due says so (each has its exact job:
    #: later means the bot was down or stalled; tester T32 could not tell).
    reminder_late_s: float = 60.0
    #: When this process (its scheduler) started: a late reminder due before it says "I was
    #: offline"; one due after it (late while the bot was up: the writer's next tick) gives
    #: no cause. None: not known, no cause is given.
    started_at: datetime | None = None

    @classmethod
    def from_settings(cls, s: Any, *, started_at: datetime | None = None) -> DeciderPolicy:
        """From :class:`~familiars.config.SchedulerSettings`."""
        return cls(
            started_at=started_at,
            quiet_hours_start=parse_hhmm(s.quiet_hours_start),
            quiet_hours_end=parse_hhmm(s.quiet_hours_end),
            daily_cap=s.daily_cap,
            min_gap_s=s.min_gap_s,
            checkin_after_s=s.checkin_after_s,
            follow_up_after_s=s.follow_up_after_s,
            proactive_in_groups=s.proactive_in_groups,
            reminder_grace_s=s.reminder_grace_s,
            reminders_ignore_proactive_off=s.reminders_ignore_proactive_off,
        )


def parse_hhmm(value: str) -> time:
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", value or "")
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        raise ValueError(f"quiet hours must look like 22:00, got {value!r}")
    return time(int(m.group(1)), int(m.group(2)))


def zone(name: str) -> ZoneInfo:
    """The person's time zone; an unknown name falls back to UTC with a warning."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        logger.warning("unknown time zone %r; using UTC", name)
        return ZoneInfo("UTC")


# ---------------------------------------------------------------------------------------------
# The decision


@dataclass(frozen=True)
class Decision:
    send: bool
    reason: str
    kind: DecisionKind | None = None
    #: The offline text (templates); used when no model writes the message.
    text: str | None = None
    #: What a model is asked to write from.
    prompt: str | None = None
    #: Loops this message closes: reminders delivered, promises followed up.
    loop_ids: tuple[str, ...] = ()
    #: Reminders reported as missed (due longer ago than the grace period).
    missed_ids: tuple[str, ...] = ()
    #: The reminders' tasks: a model's wording of them must say each one.
    tasks: tuple[str, ...] = ()

    @property
    def solicited(self) -> bool:
        """A reminder the person asked for: a model may reword it, never drop it."""
        return self.kind in ("reminder", "missed_reminder")


def _no(reason: str) -> Decision:
    return Decision(send=False, reason=reason)


def decide(now: datetime, state: DialogueState, policy: DeciderPolicy | None = None) -> Decision:
    """Whether to speak first in this dialogue at ``now`` (aware datetime), and why."""
    policy = policy or DeciderPolicy()
    reminder = _reminder_decision(now, state, policy)
    if reminder is not None:
        return reminder
    blocked = _unsolicited_blocked(now, state, policy)
    follow = _due_follow_ups(now, state, policy)
    if follow:
        if blocked:
            return _no(f"follow-up due but {blocked}")
        return _follow_up_decision(follow, state)
    if _checkin_due(now, state, policy):
        if blocked:
            return _no(f"check-in due but {blocked}")
        return _checkin_decision(now, state)
    return _no("nothing due")


def _reminder_decision(
    now: datetime, state: DialogueState, policy: DeciderPolicy
) -> Decision | None:
    due = [lp for lp in state.loops if lp.kind == "reminder" and lp.due and lp.due <= now]
    if not due:
        return None
    if not state.proactive_enabled and not policy.reminders_ignore_proactive_off:
        return _no("reminder due but proactive messages are off")
    grace = timedelta(seconds=policy.reminder_grace_s)
    on_time = [lp for lp in due if now - lp.due <= grace]  # type: ignore[operator]
    missed = [lp for lp in due if now - lp.due > grace]  # type: ignore[operator]
    tz = zone(state.timezone)
    late = timedelta(seconds=policy.reminder_late_s)
    text = _reminder_text(on_time, missed, tz, now=now, late=late, up_since=policy.started_at)
    kind: DecisionKind = "reminder" if on_time else "missed_reminder"
    return Decision(
        send=True,
        reason=f"{len(on_time)} reminder(s) due, {len(missed)} missed while offline",
        kind=kind,
        text=text,
        prompt=_prompt(state, kind, text),
        loop_ids=tuple(lp.record_id for lp in on_time),
        missed_ids=tuple(lp.record_id for lp in missed),
        tasks=tuple(lp.task() for lp in (*on_time, *missed)),
    )


def _unsolicited_blocked(now: datetime, state: DialogueState, policy: DeciderPolicy) -> str:
    """Why an unsolicited message may not go out now ("" when it may)."""
    if not state.proactive_enabled:
        return "proactive messages are off (/proactive off)"
    if state.is_group and not policy.proactive_in_groups:
        return "it is a group chat and proactive_in_groups is off"
    if state.silenced_until is not None and now < state.silenced_until:
        return "the model chose silence recently"
    if state.care_paused_until is not None and now < state.care_paused_until:
        return "a care pause is on for this person"
    tz = zone(state.timezone)
    if in_quiet_hours(now.astimezone(tz).time(), policy):
        return "quiet hours in the person's time zone"
    today = now.astimezone(tz).date()
    sent_today = sum(1 for t in state.proactive_sent if t.astimezone(tz).date() == today)
    if sent_today >= policy.daily_cap:
        return f"daily cap of {policy.daily_cap} reached"
    last = max(state.proactive_sent, default=None)
    if last is not None and (now - last).total_seconds() < policy.min_gap_s:
        return "minimum gap since the last proactive message not reached"
    return ""


def in_quiet_hours(local: time, policy: DeciderPolicy) -> bool:
    start, end = policy.quiet_hours_start, policy.quiet_hours_end
    if start == end:
        return False
    if start < end:
        return start <= local < end
    return local >= start or local < end


def _due_follow_ups(now: datetime, state: DialogueState, policy: DeciderPolicy) -> list[OpenLoop]:
    out = []
    for lp in state.loops:
        if lp.kind == "reminder":
            continue
        if lp.due is not None:
            ready = lp.due <= now
        else:  # a promise with no due time is followed up a while after it was made
            ready = (
                lp.kind == "promise"
                and lp.created is not None
                and (now - lp.created).total_seconds() >= policy.follow_up_after_s
            )
        if ready:
            out.append(lp)
    return out


def _checkin_due(now: datetime, state: DialogueState, policy: DeciderPolicy) -> bool:
    if state.last_user_at is None or policy.checkin_after_s <= 0:
        return False
    if (now - state.last_user_at).total_seconds() < policy.checkin_after_s:
        return False
    # Once per silence: nothing proactive since the person last spoke.
    return not any(t > state.last_user_at for t in state.proactive_sent)


# ---------------------------------------------------------------------------------------------
# Templates and prompts

_FOLLOW_UP = {
    "promise": "Following up on something I said I'd do: {task}",
    "request": "You asked me about this earlier: {task} Shall we pick it back up?",
    "question": "You asked earlier: {task} Still want to talk it through?",
}


def _fmt_due(due: datetime | None, tz: ZoneInfo) -> str:
    if due is None:
        return ""
    local = due.astimezone(tz)
    return f"{local:%A} {local.day} {local:%B} at {local:%H:%M}"


def _reminder_text(
    on_time: Sequence[OpenLoop],
    missed: Sequence[OpenLoop],
    tz: ZoneInfo,
    *,
    now: datetime | None = None,
    late: timedelta | None = None,
    up_since: datetime | None = None,
) -> str:
    def said(lp: OpenLoop) -> str:
        if now is None or late is None or lp.due is None or now - lp.due <= late:
            return lp.task()
        due, here = lp.due.astimezone(tz), now.astimezone(tz)
        at = f"{due:%H:%M}" if due.date() == here.date() else f"{due:%a} {due.day} {due:%b %H:%M}"
        down = up_since is not None and up_since > lp.due
        return f"{lp.task()} (due {at}, I was offline)" if down else f"{lp.task()} (due {at})"

    parts = []
    if len(on_time) == 1:
        parts.append(f"⏰ Reminder: {said(on_time[0])}")
    elif on_time:
        parts.append("⏰ Reminders:\n" + "\n".join(f"- {said(lp)}" for lp in on_time))
    for lp in missed:
        parts.append(
            f"I was offline when this reminder was due ({_fmt_due(lp.due, tz)}), sorry: {lp.task()}"
        )
    return "\n\n".join(parts)


def _follow_up_decision(loops: list[OpenLoop], state: DialogueState) -> Decision:
    first = loops[0]
    text = _FOLLOW_UP.get(first.kind, "{task}").format(task=first.task())
    return Decision(
        send=True,
        reason=f"open {first.kind} due for a follow-up",
        kind="follow_up",
        text=text,
        prompt=_prompt(state, "follow_up", text),
        loop_ids=(first.record_id,),
    )


def _checkin_decision(now: datetime, state: DialogueState) -> Decision:
    assert state.last_user_at is not None
    days = max(1, int((now - state.last_user_at).total_seconds() // 86400))
    name = f" {state.display_name}" if state.display_name else ""
    text = f"Hi{name}! It's been {days} day{'s' if days != 1 else ''}. How are you doing?"
    return Decision(
        send=True,
        reason=f"no message from the person for {days} day(s)",
        kind="check_in",
        text=text,
        prompt=_prompt(state, "check_in", text),
    )


_INSTRUCTIONS = {
    "reminder": "Deliver this reminder the person asked for, briefly and warmly.",
    "missed_reminder": "Tell the person, briefly, that you missed this reminder while offline.",
    "follow_up": (
        "You may follow up on this open item. Only do so if it would be welcome and useful; "
        f"otherwise answer exactly {SILENT}."
    ),
    "check_in": (
        "The person has been quiet for a while. You may send one short, natural check-in that "
        "does not demand an answer. If it would feel intrusive, answer exactly "
        f"{SILENT}."
    ),
}


def _prompt(state: DialogueState, kind: DecisionKind, draft: str) -> str:
    who = state.display_name or "the person"
    return (
        f"You are writing a message to {who} without being asked (a proactive message). "
        f"{_INSTRUCTIONS[kind]} Keep it to one or two sentences; no preamble.\n\n"
        f"What it is about:\n{draft}"
    )


# ---------------------------------------------------------------------------------------------
# The service


class ChatModelLike(Protocol):
    """The part of :class:`familiars.llm.ChatModel` the decider uses."""

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = ...,
        temperature: float | None = ...,
    ) -> Any: ...


@dataclass
class Composed:
    text: str | None  # None: the model chose silence
    source: Literal["model", "template"]
    note: str = ""


@dataclass
class DeciderService:
    """Decides per dialogue and writes the message (model, else templates)."""

    policy: DeciderPolicy = field(default_factory=DeciderPolicy)
    model: ChatModelLike | None = None
    persona: str = ""
    max_tokens: int = 200

    def decide(self, now: datetime, state: DialogueState) -> Decision:
        return decide(now, state, self.policy)

    async def compose(self, decision: Decision, persona: str | None = None) -> Composed:
        """The text to send for a decision that says send; ``text=None`` means stay silent."""
        assert decision.send and decision.text is not None
        if self.model is None or decision.prompt is None:
            return Composed(decision.text, "template")
        messages = [
            ChatMessage("system", persona or self.persona or "You are a warm companion."),
            ChatMessage("user", decision.prompt),
        ]
        try:
            result = await self.model.chat(messages, max_tokens=self.max_tokens, temperature=0.7)
        except LLMError as exc:
            logger.warning("proactive message: model failed (%s); using the template", exc)
            return Composed(decision.text, "template", note=f"model failed: {exc}")
        text = str(getattr(result, "text", "") or "").strip()
        if getattr(result, "cut", False):
            # Past max_tokens (a tester's model sent 2 MB), the client cut it: half a
            # message is never sent.
            return Composed(decision.text, "template", note="the model's text was cut off")
        if not text or text.strip(" .\"'").upper() == SILENT:
            if decision.solicited:  # a reminder the person asked for is never dropped
                return Composed(decision.text, "template", note="model chose silence")
            return Composed(None, "model", note="model chose silence")
        if decision.solicited and not all(_says(text, task) for task in decision.tasks):
            # A reminder the person asked for always says what it is about.
            return Composed(decision.text, "template", note="the model's text did not say it")
        return Composed(text, "model")


_TASK_WORD = re.compile(r"[^\W\d_]{3,}")


def _says(text: str, task: str) -> bool:
    """Whether ``text`` names ``task``: half its words or more (by their first four letters:
    "call" and "calling" are one word)."""
    said = {w[:4] for w in _TASK_WORD.findall(text.lower())}
    wanted = {w[:4] for w in _TASK_WORD.findall(task.lower())} - {"the", "and", "you", "your"}
    return not wanted or 2 * len(wanted & said) >= len(wanted)
