"""What a turn stores, changes, schedules or forgets, known before the reply is written.

Map:

- :func:`plan_actions` (pure) runs the offline writer's rules (``offline_writes``: message +
  existing records -> writes) on the message and reads them as :class:`TurnActions`: facts
  noted, facts updated (with the value they replace), reminders set (with their local time),
  reminders marked done, and a reminder still missing its time (``ask_when``) ("forget that"
  never reaches a turn: :class:`familiars.bot._forgetting.ForgetByWords` answers it first);
- a reminder asked for without a (readable) time is *pending*: the next message, when it
  starts with a time ("tomorrow at 8"), completes it; any other message is a turn of its
  own and the question lapses; :class:`PendingReminder` is what is kept;
- :meth:`TurnActions.prompt_notes` says it all to a model ("A reminder was just set: call
  mom, Wed 2 Dec 09:00. Confirm it in a few words.").

Who stores what (no double write): reminders are written on the hot path by
:func:`familiars.bot._turn_plan.TurnPlanner` (a confirmed reminder must fire whatever the
writer decides), and the writer, which still runs after the reply, finds the same content
live in the same cell and skips it (its ``says_nothing_new`` dedupe; a model writer's
rewording meets the cosine dedupe). Facts and updates are left to the writer: the writes
worked out here (:attr:`TurnActions.writes`) ride on the queued turn
(``TurnContext.offline_writes``) after an offline reply, and an offline writer applies them
as they are (the offline writer runs once a turn: issue 20), so it stores exactly what was
announced. A completed pending reminder hands the writer the completed request as the
turn's text, so the writer sees what was confirmed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.bot._reminder_event import before_the_event
from familiars.memory import (
    DEFAULT_MAX_RECORD_CHARS,
    MemoryRecord,
    Understanding,
    WriteOp,
    as_remind_me,
    day_said,
    derived_of,
    every_text,
    offline_writes,
    parse_ts,
    past_time_at,
    plain_time,
    remind_of_asked,
    said_past,
    settled_request,
)

_REMIND = re.compile(
    r"\bremind\s+me\s+(?P<how>to|that|about)\s+(?P<task>.+?)[.!]*$", re.IGNORECASE | re.DOTALL
)
_REMIND_ANY = re.compile(r"\bremind\s+me\b", re.IGNORECASE)
#: Stopping reminders is no time for the one waiting ("stop reminding me tomorrow").
_STOPS = re.compile(
    r"\b(?:stop\s+reminding|no\s+more\s+reminders?|(?:don'?t|do\s+not)\s+remind)\b",
    re.IGNORECASE,
)
# "remind me at 25:99 to fail": a time said before the task ...
_REMIND_WHEN_FIRST = re.compile(
    r"\bremind\s+me\s+(?!(?:to|that|about)\b)(?P<when>.+?)\s+(?:to|that|about)\s+"
    r"(?P<task>.+?)[.!]*$",
    re.IGNORECASE | re.DOTALL,
)
# ... up to its last "to" ("remind me at quarter to 5 to leave work") ...
_REMIND_WHEN_LAST = re.compile(
    r"\bremind\s+me\s+(?!(?:to|that|about)\b)(?P<when>.+)\s+(?:to|that|about)\s+"
    r"(?P<task>.+?)[.!]*$",
    re.IGNORECASE | re.DOTALL,
)
_CLOCK_TO = re.compile(r"\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s+(?:to|that|about)\s", re.IGNORECASE)
# ... or after it ("remind me to fail at 25:99", "... in -5 minutes").
_WHEN_TAIL = re.compile(r"\s+(?:at|in|on|by)\s+\S*\d\S*(?:\s+\w+)?$", re.IGNORECASE)
_TIMEISH = re.compile(
    # a digit anywhere ("9am": no word boundary after the 9), or a time word
    r"\d|\b(?:today|tonight|tomorrow|morning|evening|afternoon|noon|midnight|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|week|month|january|february|march|april|may|"
    r"june|july|august|september|october|november|december|minutes?|hours?|in an?)\b",
    re.IGNORECASE,
)
#: An answer to "When should I remind you?" starts with its time, after a filler or two
#: ("tomorrow at 9", "ok say 5pm", "next Thursday if you would"); "I live at 5 Elm Street"
#: and "my sister is coming on Friday" are messages of their own.
_TIME_ANSWER = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|um+|uh+|erm?|hm+|well|oh|maybe|perhaps|probably|just|say|"
    r"let'?s\s+say|make\s+it|how\s+about|what\s+about|around|about|yes|yeah|sure|"
    r"please|pls)\b[,.!\s]*)*"
    r"(?P<time>\d|(?:at|on|in|by|this|next|tomorrow|today|tonight|later|after|before|early|end|"
    r"every|the|noon|midnight|morning|evening|afternoon|night|yesterday|last|first|half|"
    r"quarter|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"mon|tues?|wed|thu(?:rs)?|fri|sat|sun|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|"
    r"june|july|august|september|october|november|december|christmas|easter|new\s+year)\b)",
    re.IGNORECASE,
)
#: More words that say a time, where a reminder's "when" is looked for: "this weekend",
#: "at quarter to 5", "on Christmas Eve" (tester T21: taken as chat, "Tell me more?").
_WHEN_WORDS = re.compile(
    r"\b(?:weekend|quarter|half|o'?clock|christmas|easter|eve|new\s+year'?s?|tonight|later|"
    r"soon|yesterday|next|days?|weeks?|months?|years?|fortnight)\b",
    re.IGNORECASE,
)


#: Further ahead than this, a date says its year even in this year's months.
_YEAR_AHEAD = timedelta(days=183)


def when_words(due: datetime, now: datetime | None) -> str:
    """ "Wed 1 Dec 09:00"; "Wed 1 Dec 2027 09:00" when that is not this year (or more than
    half a year ahead), so that a date next year does not read as one gone by (tester T21)."""
    year = now is not None and (due.year != now.year or due - now > _YEAR_AHEAD)
    return f"{due:%a} {due.day} {due:%b}{f' {due.year}' if year else ''} {due:%H:%M}"


@dataclass(frozen=True)
class Reminder:
    task: str
    due: datetime  # in the person's time zone
    record: WriteOp
    #: When it was set (the person's time zone): the year is said when it is not this one.
    now: datetime | None = None
    #: The task was said as a label, not a doing ("for the 23rd at 2pm - van MOT"): the reply
    #: reminds "about" it, not "to" it.
    about: bool = False
    #: The same reminder was set before and has fired or been cancelled: stored anew (the
    #: store's dedupe would hand back the closed one, and nothing would come).
    again: bool = False
    #: Said as something to be told ("remind me that Richard will be telephoning"): the
    #: reply reminds "that" (it said "to Richard will be telephoning": tester s38).
    that: bool = False

    @property
    def what(self) -> str:
        """ "to call mum", "about van MOT" for a labelled task, "that Jo rings" for news."""
        return f"{'that' if self.that else 'about' if self.about else 'to'} {self.task}"

    def when_text(self) -> str:
        return when_words(self.due, self.now)

    @property
    def rule(self) -> str:
        """ "every Monday at 08:00" for a reminder that comes back, else ""."""
        loop = self.record.entry.open_loop
        return every_text(loop.every if loop is not None else None)


@dataclass(frozen=True)
class PendingReminder:
    """A reminder asked for without a time: its task, in the person's words."""

    task: str
    #: Said as what it is about ("remind me about orchestra rehearsal"), not a doing.
    about: bool = False
    #: Said as news to be told ("remind me that my passport expires in March").
    that: bool = False

    @property
    def said_back(self) -> str:
        """The task as the reply says it: "send my VAT stuff" is "send your VAT stuff"."""
        return to_you(self.task)

    @property
    def what(self) -> str:
        """ "to send your VAT stuff", "about orchestra rehearsal", "that your passport
        expires in March"."""
        how = "that" if self.that else "about" if self.about else "to"
        return f"{how} {self.said_back}"


@dataclass
class TurnActions:
    noted: list[str] = field(default_factory=list)
    updated: list[tuple[str, str]] = field(default_factory=list)  # (new, old)
    reminders: list[Reminder] = field(default_factory=list)
    #: Reminders asked for again that the person has already (same task, time and rule):
    #: not set twice, and the reply says so.
    already: list[Reminder] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    #: Facts said again that are kept already ("I know, you told me": tester T32).
    known: list[str] = field(default_factory=list)
    #: A reminder's task still missing its time: the reply asks when.
    ask_when: PendingReminder | None = None
    #: The pending reminder's time could not be read from this message.
    unreadable_time: PendingReminder | None = None
    #: A reminder asked for at a time gone by ("remind me yesterday at 9 to ..."): none set.
    passed_time: PendingReminder | None = None
    #: A reminder was asked for and nothing in it could be read (no task, no time): the
    #: reply says plainly that none is set, never nothing.
    unread_request: bool = False
    #: What the writer should read for this turn (None: the message itself; "": nothing).
    writer_text: str | None = None
    #: The offline writer's writes for what the writer reads, as worked out here: an
    #: offline writer applies these (``TurnContext.offline_writes``), not its own again.
    writes: list[WriteOp] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (
            self.noted
            or self.updated
            or self.reminders
            or self.already
            or self.done
            or self.known
            or self.ask_when
            or self.unreadable_time
            or self.passed_time
            or self.unread_request
        )

    def said_of_a_reminder(self) -> bool:
        """Whether the reply says something of a reminder: set, had already, or not set
        and why."""
        return bool(
            self.reminders
            or self.already
            or self.ask_when
            or self.unreadable_time
            or self.passed_time
        )

    def prompt_notes(self) -> list[str]:
        """What this turn did, as a model's prompt says it."""
        notes = [
            f"A reminder was just set: {r.task}, {r.rule + ', first ' if r.rule else ''}"
            f"{r.when_text()}. Confirm it in a few words."
            for r in self.reminders
        ]
        notes += [
            f"No reminder was set for {r.task}: the person has that one already "
            f"({r.rule or r.when_text()}). Say so."
            for r in self.already
        ]
        if self.ask_when is not None:
            notes.append(
                f"The person asked to be reminded to {self.ask_when.task} but gave no time: "
                "ask when they want the reminder."
            )
        if self.unreadable_time is not None:
            notes.append(
                f"No reminder was set for {self.unreadable_time.task}: the time could not be "
                "read. Ask for a time such as 'tomorrow at 9'."
            )
        if self.passed_time is not None:
            notes.append(
                f"No reminder was set for {self.passed_time.task}: the time said has passed. "
                "Say so and ask for a time still to come."
            )
        if self.unread_request:
            notes.append(
                "The person asked for a reminder, but what or when could not be read: none "
                "was set. Say so and ask what to remind them of, and when."
            )
        notes += [f"Memory updated: {new} (was: {old})" for new, old in self.updated]
        notes += [f"Marked done: {d}" for d in self.done]
        notes += [f"Already known (said before): {k}" for k in self.known]
        return notes


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def plan_actions(
    text: str,
    *,
    existing: Sequence[MemoryRecord],
    now: datetime,
    timezone: str,
    dialogue_id: str | None,
    grace_s: float,
    pending: PendingReminder | None = None,
    max_chars: int = DEFAULT_MAX_RECORD_CHARS,
    understanding: Understanding | None = None,
    settled_once: bool = False,
    user_key: str | None = None,
    previous: str = "",
) -> TurnActions:
    """The actions of one message (pure: nothing is written here). "forget that" is not one
    of them: :class:`familiars.bot._forgetting.ForgetByWords` answers it before the turn.
    ``understanding``: the writer's learned part (issue 23), when the embedder suits it.
    ``user_key``: who said it (a reminder they have already is not set again); ``previous``:
    the person's message before this one in the dialogue (the event "remind me the day
    before" counts from, when this one names none)."""
    # "..., can you remind me", "... actually just tuesdays", "tmrw at seven pls": once
    settled = text
    if not settled_once:
        event = before_the_event(text, now=now, tz=zone(timezone), previous=previous)
        settled = in_the_morning(settled_request(event))
    if settled != text:
        actions = plan_actions(
            settled,
            existing=existing,
            now=now,
            timezone=timezone,
            dialogue_id=dialogue_id,
            grace_s=grace_s,
            pending=pending,
            max_chars=max_chars,
            understanding=understanding,
            settled_once=True,
            user_key=user_key,
        )
        return replace(actions, writer_text=text) if actions.writer_text is None else actions
    asked = as_remind_me(text)  # "don't let me forget to ..." asks as "remind me" does
    if pending is not None and not _REMIND_ANY.search(asked) and not _STOPS.search(asked):
        completed = _complete(
            text, pending, existing, now, timezone, dialogue_id, grace_s, max_chars
        )
        if completed is not None:
            return _set_before(completed, existing, user_key)
    said = text
    actions = _read_writes(
        said, existing, now, timezone, dialogue_id, grace_s, max_chars, understanding
    )
    if not actions.reminders and _REMIND_ANY.search(asked):
        _no_time_read(asked, actions)
        actions.unread_request = not actions.said_of_a_reminder() and wants_a_reminder(asked)
    return _set_before(actions, existing, user_key)


#: "remind me what my dog is called", "remind me who ...": a question, no reminder asked.
_ASKS_TO_BE_TOLD = re.compile(
    r"\bremind\s+me\s+(?:again\s+)?(?:what|who|whom|whose|where|how|which|why|if|whether)\b"
    r"|\bremind\s+me\s+when\s+(?:i|we|you|it)\s+(?:was|were|did|said|last)\b",
    re.IGNORECASE,
)


def wants_a_reminder(text: str) -> bool:
    """Whether ``text`` (other wordings said as "remind me": ``as_remind_me``) asks for a
    reminder: "remind me" as a request, not "you remind me of my nan", "stop reminding me"
    or "remind me what my dog is called"."""
    m = _REMIND_ANY.search(text)
    if m is None or _STOPS.search(text) or _ASKS_TO_BE_TOLD.search(text):
        return False
    rest = text[m.end() :].strip()
    # "remind me my mum's number": a thing to be told now, with no time and nothing to do
    said = _TASK_LEAD.match(rest) or _said_a_time(rest) or _WHENEVER.search(rest)
    return bool(said) and remind_of_asked(text)


_TASK_LEAD = re.compile(r"(?:to|that|about|of)\b", re.IGNORECASE)
#: Words that say a time without naming one: "when it's time to leave", "the day before".
_WHENEVER = re.compile(r"\b(?:when|whenever|before|after|later|once|day|time)\b", re.I)


#: A task plainly done in the morning: getting up, an alarm, breakfast, a morning run.
_MORNING_TASK = re.compile(
    r"\b(?:wake\s+(?:\w+\s+)?up|waking\s+up|get(?:ting)?\s+(?:\w+\s+)?up|alarm|breakfast|"
    r"out\s+of\s+bed|morning\s+(?:run|jog|walk|swim|prayers?|meds|pills?|tablets?))\b",
    re.IGNORECASE,
)
#: "at 6" with nothing after that says its half of the day.
_BARE_AT = re.compile(
    r"\bat\s+(?P<clock>[1-6](?::[0-5]\d)?)(?!\s*(?:am|pm|a\.m|p\.m|:|\d|o'?clock\s+in))\b",
    re.IGNORECASE,
)
#: The afternoon or night said anywhere: the hour is read as said.
_LATE_SAID = re.compile(r"\b(?:pm|p\.m|afternoon|evening|tonight|night)\b|\dpm\b", re.IGNORECASE)


def in_the_morning(text: str) -> str:
    """A reminder for a task plainly done in the morning ("every weekday at 6 to wake up for
    the bakery run") with a bare hour from 1 to 6: the hour is the morning's ("at 6am"),
    where a bare hour is otherwise after noon (``afternoon_hour``: "at 4" to feed the cat
    is 16:00). Any half of the day said, or another task, leaves ``text`` as it is."""
    if not _REMIND_ANY.search(as_remind_me(text)) or _LATE_SAID.search(text):
        return text
    if _MORNING_TASK.search(text) is None or len(_BARE_AT.findall(text)) != 1:
        return text
    return _BARE_AT.sub(lambda m: f"at {m['clock']}am", text)


def _said_a_time(words: str) -> bool:
    return bool(re.search(r"\d", words) or _TIMEISH.search(words) or _WHEN_WORDS.search(words))


def _no_time_read(text: str, actions: TurnActions) -> None:
    """A reminder request that set nothing: a time was said but could not be read (an
    impossible clock, a count below zero, centuries away) gets ``unreadable_time``; no time
    said at all gets ``ask_when``."""
    first = _REMIND_WHEN_FIRST.search(text)
    if first and _CLOCK_TO.match(first.group("task")):  # "at quarter to 5 to leave work"
        first = _REMIND_WHEN_LAST.search(text)
    if first and _said_a_time(first.group("when")):
        pending = PendingReminder(first.group("task").strip(" ,"))
        if said_past(first.group("when")):
            actions.passed_time = pending
        else:
            actions.unreadable_time = pending
        return
    task = _REMIND.search(text)
    if task is None:
        return
    said = task.group("task").strip(" ,")
    tail = _WHEN_TAIL.search(said)
    # A time gone by after the task ("to call Bob yesterday at 9"), not one of the task's
    # own ("to finish the last chapter", "to thank Jo for last night": review s34 F2).
    gone = past_time_at(said)
    done = said[:gone].strip(" ,") if gone is not None else ""
    for word in ("on", "at"):
        done = done.removesuffix(f" {word}")  # "call Bob on yesterday"
    if done:
        actions.passed_time = PendingReminder(done)
    elif tail and _said_a_time(tail.group(0)) and said[: tail.start()].strip(" ,"):
        actions.unreadable_time = PendingReminder(said[: tail.start()].strip(" ,"))
    elif not (task["how"].lower() == "about" and _recalled(said)):
        how = task["how"].lower()
        actions.ask_when = PendingReminder(said, about=how == "about", that=how == "that")


#: "remind me about what you said yesterday", "... about the plot of the book?": a thing
#: to recall, which the answer (the model's, or the memory's offline) tells; no time is asked.
_RECALL = re.compile(
    r"^(?:what|who|whom|whose|how|where|when|why|which|if|whether)\b"
    r"|\b(?:you|we|i|they|he|she)\s+(?:said|told|talked|discussed|spoke|mentioned|decided|agreed)"
    r"|\b(?:yesterday|ago|earlier|last\s+(?:night|time|week|month|year))\b"
    r"|^(?:the|that)\s+(?:plot|story|ending|name|names|details|rules|words|lyrics|meaning|"
    r"history|conversation|chat|thing\s+you)\b",
    re.IGNORECASE,
)


def _recalled(about: str) -> bool:
    return bool(_RECALL.search(about.strip(" ,?")))


def _complete(
    text: str,
    pending: PendingReminder,
    existing: Sequence[MemoryRecord],
    now: datetime,
    timezone: str,
    dialogue_id: str | None,
    grace_s: float,
    max_chars: int,
) -> TurnActions | None:
    """The next message as the pending reminder's time; None when it does not start with
    one (:data:`_TIME_ANSWER`: "I'm 34" is a message of its own)."""
    when = plain_time(text).strip().rstrip(".!?")
    answer = _TIME_ANSWER.match(when)
    if answer is None:
        return None  # "I'm 34", "my sister is coming on Friday": a message of its own
    when = when[answer.start("time") :]
    if said_past(when):
        # "tomorrow, I forgot yesterday": the time is the clause before (review s34 F2)
        head = re.split(r"[,;]|\s+(?:but|because|as|since)\s+", when, maxsplit=1)[0].strip()
        if head == when or said_past(head) or not _TIMEISH.search(head):
            return TurnActions(passed_time=pending, writer_text="")
        when = head
    if not _TIMEISH.search(when):
        return None
    if re.match(r"^\d", when):  # "9am" is "at 9am"; "1 February" (a day) "on 1 February"
        when = f"{'on' if day_said(when) else 'at'} {when}"
    request = f"remind me {'about' if pending.about else 'to'} {pending.task} {when}"
    if pending.that:  # the news keeps its own time words: "... expires in March"
        request = f"remind me {when} that {pending.task}"
    actions = _read_writes(request, existing, now, timezone, dialogue_id, grace_s, max_chars)
    if actions.reminders:
        actions.writer_text = request
        return actions
    return TurnActions(unreadable_time=pending, writer_text="")


def _read_writes(
    text: str,
    existing: Sequence[MemoryRecord],
    now: datetime,
    timezone: str,
    dialogue_id: str | None,
    grace_s: float,
    max_chars: int,
    understanding: Understanding | None = None,
) -> TurnActions:
    output = offline_writes(
        text,
        existing=existing,
        now=now,
        timezone=timezone,
        dialogue_id=dialogue_id,
        reminder_grace_s=grace_s,
        max_chars=max_chars,
        understanding=understanding,
    )
    by_id = derived_of(existing, "by id", lambda kept: {r.id: r for r in kept})
    tz = zone(timezone)
    actions = TurnActions(writes=list(output.writes))
    for write in output.writes:
        entry = write.entry
        loop = entry.open_loop
        if write.op == "skip":
            if loop is None and entry.content.strip():  # the same fact is kept already
                actions.known.append(entry.content)
            continue
        if loop is not None and loop.status == "done":
            actions.done.append(entry.content)
        elif loop is not None and loop.kind == "reminder" and loop.due:
            due = parse_ts(loop.due)
            if due is not None:
                task = _task_of(entry.content, text)
                asked = as_remind_me(text)  # "nudge me about the dentist": "about" it
                about = _labelled(task, asked)
                made = Reminder(task, due.astimezone(tz), write, now.astimezone(tz), about)
                actions.reminders.append(replace(made, that=_said_that(task, asked)))
        elif write.op == "update" and entry.supersedes_id in by_id:
            actions.updated.append((entry.content, by_id[entry.supersedes_id].content))
        else:
            actions.noted.append(entry.content)
    return actions


def _set_before(
    actions: TurnActions, existing: Sequence[MemoryRecord], user_key: str | None
) -> TurnActions:
    """``actions`` with each reminder the person has already (the same words, time and rule,
    still to come) moved to ``already`` (asked twice, it was set twice: tester s38), and one
    they had that fired or was cancelled marked ``again`` (stored anew). Another person's
    reminder in a group is not theirs."""
    kept: list[Reminder] = []
    for reminder in actions.reminders:
        status = _had(reminder.record, existing, user_key)
        if status == "open":
            actions.already.append(reminder)
        else:
            kept.append(replace(reminder, again=status == "closed"))
    actions.reminders = kept
    return actions


def _had(write: WriteOp, existing: Sequence[MemoryRecord], user_key: str | None) -> str:
    """ "open", "closed" or "": whether the person has the reminder ``write`` makes."""
    loop = write.entry.open_loop
    found = ""
    for rec in existing if loop is not None else ():
        had = rec.open_loop or {}
        if rec.content != write.entry.content or had.get("kind") != "reminder":
            continue
        if user_key is not None and had.get("user_key", rec.user_key) not in (None, user_key):
            continue
        if had.get("every") == getattr(loop, "every", None):
            if had.get("status", "open") == "open":
                return "open"
            found = "closed"
    return found


#: The record's third person ("their") and what the person said ("my").
_SAID_AS = {"their": "my", "them": "me", "themselves": "myself", "they": "i", "theirs": "mine"}
_TO_YOU = {"my": "your", "me": "you", "myself": "yourself", "i": "you", "mine": "yours"}


def _labelled(task: str, said: str) -> bool:
    """Whether ``task`` was said as a label after a colon or dash, with no "to" ("set a
    reminder for the 23rd at 2pm - van MOT"), or after "about" or "of" ("remind me about
    orchestra rehearsal": tester U27, not "I'll remind you to orchestra rehearsal")."""
    label = re.search(rf"(?:^|\s)[-–:]\s*(?P<to>to\s+)?{re.escape(task)}\W*$", said, re.I)
    if label is not None and not label.group("to") and not task.lower().startswith("to "):
        return True
    about = rf"\bremind\s+(?:me|you)\b.*?\b(?:about|of)\s+{re.escape(task)}(?!\w)"
    return any(re.search(about, text, re.I) for text in (said, to_you(said)))


def _said_that(task: str, said: str) -> bool:
    """Whether ``task`` was said after "remind me that" (news to be told, not a doing)."""
    that = rf"\bremind\s+(?:me|you)\b.*?\bthat\s+{re.escape(task)}(?!\w)"
    return any(re.search(that, text, re.I) for text in (said, to_you(said)))


def to_you(text: str) -> str:
    """The person's words said back to them: "my", "me", "I" as "your", "you"."""
    return re.sub(
        r"\b(my|me|myself|mine|I)\b",
        lambda w: _TO_YOU[w.group(1).lower()],
        text,
        flags=re.IGNORECASE,
    )


def _task_of(content: str, said: str) -> str:
    """The reminder's task as said back to the person: their own words, "me" as "you"
    (tester F17: "email Alice's PIN to me" was confirmed as "... to them"); "them" that
    was someone else stays ("thank them"). From the record alone when the words are not
    found in what was said."""
    m = re.match(r"Remind the user to (.+?) on \w+day ", content)
    task = m.group(1) if m else content
    pattern = "".join(
        rf"(?:{w}|{_SAID_AS[w.lower()]})"
        if w.lower() in _SAID_AS
        else (r"\W+" if re.fullmatch(r"\W+", w) else re.escape(w))
        for w in re.split(r"(\W+)", task)
        if w
    )
    found = re.search(rf"\b{pattern}\b", said, re.IGNORECASE)
    if found is None:
        return re.sub(r"\btheir\b", "your", task)
    return to_you(found.group(0))
