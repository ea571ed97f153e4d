"""Cancelling, moving and snoozing a reminder in plain words, before the message is a turn.

:class:`ReminderWords` answers messages such as "actually cancel the landlord reminder",
"cancel my plumber reminder", "snooze that for 10 minutes" or "move the dentist one to Friday
at 3pm" through the same :class:`~familiars.scheduler.ReminderBook` as ``/reminders`` (so the
scheduler's jobs follow at once), and says what it changed.

Which reminder:

- "that", "it", "this" (or nothing but "the reminder"): the reminder that was just set,
  moved or snoozed, or has just fired, whichever came last (within :data:`JUST_S`); with
  none, "the reminder" is the only one the person has, else they are asked which ("cancel
  that" with no reminder just now is not about one: a turn as usual);
- a number ("reminder 3", "number 3", "cancel 3" alone): the reminder's own number, as
  ``/reminders`` lists it;
- words ("the landlord one", "my plumber reminder"): the reminders whose task holds every
  content word said (plural and tense forgiven: "bins" finds "bin", "called" finds "call").
  One match is changed; two or more are listed with their numbers and the person is asked
  which (their next message, a number, answers it); none is said plainly;
- all of them ("cancel all my reminders", "delete my reminders", or "all of them" after
  "Which one do you mean?"): asked first, with how many and which; a yes next cancels them.

A message is taken only when it names a reminder ("reminder", "one", a number, "that"/"it"
while one was just set or fired) or its words match one; "snooze" always is. Anything else is
a turn as usual. In a group, only the reminders set in that group are looked at. A model that
takes tools changes reminders with its own tools (the same book), so this answers only where
the agent has none (offline, or a model without tools).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from familiars.bot._commands._reminders import (
    CLOCK_SAID,
    DEFAULT_SNOOZE,
    listing,
    local,
    move_reminder,
    parse_duration,
    read_move_time,
    snooze_reminder,
)
from familiars.bot._forget_words import CORRECTED_TIME
from familiars.bot._yes_no import answers_unclearly, is_plain_no, is_yes
from familiars.memory import parse_ts, said_past
from familiars.scheduler import Reminder, ReminderBook

#: "that" means a reminder set or fired this recently.
JUST_S = 2 * 3600.0

_LEAD = (
    r"^(?:(?:actually|ok(?:ay)?|oh|no|hey|please|kindly|and|so|wait|hm+|um+|erm?|uh+|ah|"
    r"(?:can|could|would|will)\s+(?:you|u)|pls|plz|done|right|great|cool|thanks|"
    r"all\s+done|nvm|never\s*mind|i\s+meant|hi|hello|hiya|hey\s+there)[,!.]?\s+)*"
)
#: "stop reminding me about rent", "no more reminders to water the plants" (F6): a cancel
#: said as what should stop.
_STOP = (
    r"stop\s+reminding\s+me(?:\s+(?:about|to|of))?"
    r"|no\s+more\s+reminders?(?:\s+(?:about|to|of|for))?"
)
_STOPPING = re.compile(_LEAD + r"(?:" + _STOP + r")\b", re.IGNORECASE)
#: Manners after the request ("... please", ", thank you"): no reminder's words. Only at the
#: end: "the thanks card" and "ring Ty" are a reminder's own words (review s33 item 2).
_POLITE = r"(?:please|pls|plz|thanks|thank\s+you|thx|cheers)"
_POLITE_TAIL = re.compile(rf"(?:[\s,]*\b{_POLITE}\b)+[\s.!?]*$", re.IGNORECASE)
#: "no more reminders", "stop reminding me please": stopping, no reminder named.
_STOP_ALONE = re.compile(_LEAD + r"(?:" + _STOP + rf")(?:[\s,]+{_POLITE})*[\s.!?]*$", re.IGNORECASE)
_CANCEL = re.compile(
    _LEAD
    + r"(?:cancel|delete|remove|drop|scrap|call off|kill|forget about|get rid of|"
    + _STOP
    + r")\s+(?P<what>.+?)(?:\s+please)?[.!?]*$",
    re.IGNORECASE,
)
_SNOOZE = re.compile(
    _LEAD + r"snooze(?:\s+(?P<what>.+?))?(?:\s+(?:for|by)\s+(?P<span>[^.!?]+?))?"
    r"(?:\s+please)?[.!?]*$",
    re.IGNORECASE,
)
#: The verbs of a move: "postpone", "put off", "push back", "bring forward" too.
_MOVES = (
    r"postpone|put\s+off|push\s+back|bring\s+forward|move\s+back|move|push|change|"
    r"reschedule|shift|bring"
)
_MOVE = re.compile(
    _LEAD + r"(?:" + _MOVES + r")\s+(?P<rest>.+?)(?:\s+please)?[.!?]*$",
    re.IGNORECASE,
)
#: "... for tomorrow?", "... on friday": a day after the question (the list is shown whole).
_FOR_WHEN = r"(?:\s+(?:for|on)\s+\w+(?:\s+\w+)?)?\s*\?*"
#: Asking for the list in words (T31: "what reminders do I have?" got "I don't know that
#: yet" with 15 set; "did I ask you to remind me about anything?" began a new reminder).
_ASKS_LIST = re.compile(
    _LEAD + r"(?:(?:what|which|any|how\s+many)\s+(?:of\s+)?(?:my\s+)?reminders?"
    r"(?:\s+(?:do\s+i\s+have|have\s+i\s+(?:got|set)|are\s+(?:set|there|on|coming\s+up|left)|"
    r"did\s+i\s+(?:set|ask\s+for)|have\s+you\s+got(?:\s+for\s+me)?))?"
    + _FOR_WHEN
    + r"|(?:do|have|did)\s+i\s+(?:have|got|set)\s+(?:any\s+)?reminders?"
    r"(?:\s+(?:set|on|left|at\s+all|coming\s+up))?"
    + _FOR_WHEN
    + r"|did\s+i\s+ask\s+(?:you\s+)?(?:for\s+(?:any\s+)?reminders?|to\s+remind\s+me\s+"
    r"(?:about|of)\s+anything)\s*\?*"
    r"|(?:(?:show|tell|give)\s+me|list)\s+(?:all\s+)?(?:my|the)\s+reminders?(?:\s+please)?"
    r"\s*[.!?]*|(?:my\s+)?reminders\s*\?+)$",
    re.IGNORECASE,
)
#: The rule behind the wordings above: a question (what, which, any, have, did, do, are, is,
#: show, list) about reminders, or about what the person asked to be reminded about, that
#: changes none ("what reminders have i got on", "what have i asked you to remind me about").
_ASKS_IN_WORDS = re.compile(
    _LEAD + r"(?:what|which|any|how\s+many|have|did|do|are|is|show|list)\b"
    r"(?![\w' ]*\b(?:cancel|delete|remove|move|snooze|change|stop|to\s+remind\s+me\s+to)\b)"
    # "do set a reminder for 5" sets one; it asks for none
    r"(?![\w' ]*\b(?:set|make|add|create|need|want)\s+(?:me\s+)?an?\s+reminder)"
    r"(?:[\w' ]*\breminders?\b[\w' ]*"
    r"|[\w' ]*\bremind\s+me\s+(?:about|of)(?:\s+(?:anything|at\s+all))?"
    # "what have I asked you to remind me?", "what are you reminding me about?"
    r"|[\w' ]*\b(?:asked|told|wanted)\s+(?:you|u)\s+to\s+remind\s+me(?:\s+to\s+do)?"
    r"|[\w' ]*\b(?:are|r)\s+(?:you|u)\s+(?:going\s+to\s+)?remind(?:ing)?\s+me"
    r"(?:\s+(?:about|of|to\s+do))?)"
    r"\s*[?.!]*$",
    re.IGNORECASE,
)
_VERB = re.compile(
    _LEAD
    + r"(?:cancel|delete|remove|drop|scrap|call off|kill|forget about|get rid of|snooze|"
    + _MOVES
    + r"|"
    + _STOP
    + r")\b",
    re.IGNORECASE,
)
_PIVOT = re.compile(r"\s+(?:to|until|till|for)\s+", re.IGNORECASE)
#: "the farrier one back an hour", "it forward by 30 minutes", "that 2 days later": moved by
#: a span from where it is (back / later: later; forward / earlier: sooner).
_SHIFT = re.compile(
    r"^(?P<what>.+?)\s+(?:(?P<dir>back|forward|ahead)\s+)?(?:by\s+)?"
    r"(?P<span>(?:half\s+an?|an?|\d+)\s+[a-z]+?)(?:\s+(?P<dir2>later|earlier|sooner))?$",
    re.IGNORECASE,
)
#: "cancel all my reminders", "delete my reminders", "clear all reminders", "cancel them all":
#: every one of the person's reminders (here), cancelled after a yes (tester U21).
_ALL = re.compile(
    _LEAD + r"(?:cancel|delete|remove|clear|wipe|drop|scrap|kill|get\s+rid\s+of|turn\s+off|"
    r"stop|" + _STOP + r")\s+(?:(?:all|each|every\s+one)(?:\s+of)?\s+(?:(?:my|the|your|those|"
    r"these|them)\s+)?(?:reminders?)?|(?:my|the)\s+reminders|them\s+all|(?:my|the)\s+reminders"
    r"\s+all)(?:\s+at\s+once)?(?:\s+please)?[\s.!?]*$",
    re.IGNORECASE,
)
#: "all of them", "both", "all": the answer to "Which one do you mean?" that picks them all.
_ALL_OF_THEM = re.compile(
    _LEAD + r"(?:(?:all|each|every\s+one)(?:\s+of\s+(?:them|those|these|the\s+lot))?|both"
    r"(?:\s+of\s+them)?|them\s+all|the\s+lot|everything)(?:\s+please)?[\s.!?]*$",
    re.IGNORECASE,
)
#: A no to "Cancel all N of your reminders?" and nothing else ("no more reminders" is not).
_PLAIN_NO = re.compile(
    r"^(?:no|nope|nah|no\s+thanks|don'?t|keep\s+(?:them|it|them\s+all))(?:[\s,]+(?:thanks|"
    r"thank\s+you|keep\s+them))?[\s.!]*$",
    re.IGNORECASE,
)
_POINTER = frozenset({"that", "it", "this"})
_NAMES = frozenset({"reminder", "reminders", "one", "alarm"})
_FILLER = frozenset(
    {
        "the", "my", "a", "an", "to", "about", "for", "of", "me", "i", "with", "on", "at",
        "please", "again", "reminder", "reminders", "one", "alarm", "that", "it", "this",
        "your", "our", "number", "no", "#", "pls", "plz",
    }
)  # fmt: skip
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


@dataclass(frozen=True)
class _Asked:
    """Which of these? (asked after a description matched more than one)."""

    action: str  # cancel | snooze | move
    numbers: tuple[int, ...]
    span: timedelta | None = None
    when: datetime | None = None
    #: The words the time was read from ("" for a span): see
    #: :func:`~familiars.bot._commands._reminders.move_reminder`.
    when_text: str = ""


@dataclass(frozen=True)
class _Touched:
    at: datetime
    record_id: str
    known: frozenset[str]

    def holds(self, r: Reminder, mine: list[Reminder]) -> bool:
        """Whether ``r`` is the one touched and none was set since."""
        fresh = any(m.record_id not in self.known for m in mine if m.is_open())
        return r.record_id == self.record_id and r.is_open() and not fresh


class ReminderWords:
    """See the module docstring. ``zone_of``: a person's time zone (in a group or not)."""

    def __init__(
        self, book: ReminderBook, *, zone_of: Callable[[str, bool], Awaitable[ZoneInfo]]
    ) -> None:
        self.book = book
        self.zone_of = zone_of
        self._asked: dict[tuple[str, str, str], _Asked] = {}
        #: The reminder each person last moved or snoozed here, when (wall clock), and the
        #: reminders they had then (one set since is newer, whatever the clock's grain).
        self._touched: dict[str, _Touched] = {}

    def waits(self, agent_id: str, dialogue_id: str, user_key: str) -> bool:
        """Whether a question ("Which one?", "Cancel all N?") waits for this person here."""
        return (agent_id, dialogue_id, user_key) in self._asked

    async def answer(
        self,
        text: str,
        *,
        agent_id: str,
        dialogue_id: str,
        user_key: str,
        now: datetime,
        is_group: bool = False,
    ) -> str | None:
        """The reply when ``text`` changes a reminder (or answers "which one?"); else None."""
        key = (agent_id, dialogue_id, user_key)
        asked = self._asked.pop(key, None)
        said = reworded(" ".join(text.split()))
        if not said or said.startswith("/"):
            return None
        if (all_said := await self._all(said, asked, key, is_group, now)) is not None:
            return all_said
        picked = await self._answer_to_which(said, asked, user_key, now)
        asks_list = picked is None and any(p.match(said) for p in (_ASKS_LIST, _ASKS_IN_WORDS))
        if picked is None and not asks_list and not _VERB.match(said):
            return None  # most messages: nothing read, nothing listed
        mine = await self._mine(user_key, dialogue_id, is_group, now)
        zone = await self.zone_of(user_key, is_group)
        if asks_list:
            return listing(mine, zone, now, group=is_group)
        if asked is not None and picked is not None:
            chosen = [r for r in mine if r.number == picked]
            if chosen:
                return await self._done(asked, chosen[0], zone, now)
        read = self._read(said, zone, now)
        if read is None:
            return None
        action, what, span, when, when_text = read
        stopping = _STOPPING.match(said) is not None  # "stop reminding me" names one
        # "no more reminders please" is not about the one just set: which, when several.
        touched = None if stopping and not what else self._touched.get(user_key)
        found, named = _which(what, mine, now, touched, latest=not (stopping and not what))
        named = named or stopping
        if action == "move" and when is None and span is None:
            return None if not named else f"I couldn't read a time to move it to in {said!r}."
        if not found:
            if not named and action != "snooze":
                return None
            if not mine:
                return "You have no reminders to change."
            return (
                f"I can't find a reminder about {_shown(what)!r}. "
                "/reminders lists yours with their numbers."
            )
        numbers = tuple(r.number for r in found)
        plan = _Asked(action, numbers, span, when, when_text)
        if len(found) == 1:
            return await self._done(plan, found[0], zone, now)
        self._asked[key] = plan
        lines = [f"Which one do you mean? ({'; '.join(_line(r, zone, now) for r in found)})"]
        lines.append("Tell me its number.")
        return " ".join(lines)

    async def _mine(
        self, user_key: str, dialogue_id: str, is_group: bool, now: datetime
    ) -> list[Reminder]:
        """The person's reminders; in a group, only those set in that group."""
        mine = await self.book.of(user_key, now)
        return [r for r in mine if r.dialogue_id == dialogue_id] if is_group else mine

    async def _all(
        self,
        said: str,
        asked: _Asked | None,
        key: tuple[str, str, str],
        is_group: bool,
        now: datetime,
    ) -> str | None:
        """Cancelling all the person's reminders (here): "cancel all my reminders", or "all of
        them" after "Which one do you mean?", asks first, saying how many and which; a plain
        yes next cancels them, a no keeps them. None when ``said`` is neither."""
        _, dialogue_id, user_key = key
        if asked is not None and asked.action == "cancel all":
            if _PLAIN_NO.match(said) or is_plain_no(said):
                return "Okay, I've kept them all."
            if is_yes(said):
                return await self._cancel_all(asked, key, is_group, now)
            if answers_unclearly(said):  # "hmm", "yes but not rent": still asked, and said so
                self._asked[key] = asked
                return "I still need a yes or no: say yes to cancel them all, or no to keep them."
            return None
        picks_all = asked is not None and _ALL_OF_THEM.match(said) is not None
        if not picks_all and _ALL.match(said) is None:
            return None
        if picks_all and asked is not None and asked.action != "cancel":
            self._asked[key] = asked  # still asked: a snooze or move is one at a time
            return "One at a time, please: tell me its number."
        mine = [r for r in await self._mine(user_key, dialogue_id, is_group, now) if r.is_open()]
        if asked is not None:
            mine = [r for r in mine if r.number in asked.numbers]
        if not mine:
            return "You have no reminders to cancel."
        zone = await self.zone_of(user_key, is_group)
        self._asked[key] = _Asked("cancel all", tuple(r.number for r in mine))
        listed = "; ".join(_line(r, zone, now) for r in mine)
        if len(mine) == 1:
            return f"Cancel your one reminder ({listed})? Say yes to cancel it."
        return f"Cancel all {len(mine)} of your reminders? ({listed}) Say yes to cancel them all."

    async def _cancel_all(
        self, asked: _Asked, key: tuple[str, str, str], is_group: bool, now: datetime
    ) -> str:
        """The yes to "Cancel all N of your reminders?": each of them still open, cancelled
        (a repeating one's later ones too)."""
        _, dialogue_id, user_key = key
        mine = await self._mine(user_key, dialogue_id, is_group, now)
        gone = [r for r in mine if r.number in asked.numbers and r.is_open()]
        for r in gone:
            await self.book.cancel(r, now)
        if not gone:
            return "They had all fired or gone already; nothing is left to cancel."
        tasks = "; ".join(r.task for r in gone)
        return f"Cancelled {len(gone)} reminder{'s' if len(gone) > 1 else ''}: {tasks}."

    async def _answer_to_which(
        self, said: str, asked: _Asked | None, user_key: str, now: datetime
    ) -> int | None:
        """The number of the reminder ``said`` picks after "Which one do you mean?": by its
        number or place ("3", "the second"), or as the one asked about that it describes
        ("the school one" after "(2. call the bank; 3. call the school)": it was a turn,
        answered with filler, tester U64); None when it picks none."""
        if asked is None:
            return None
        if (picked := _picked(said, asked.numbers)) is not None:
            return picked
        if _VERB.match(said) or len(said.split()) > 6:
            return None  # a request of its own, not an answer
        words = [w for w in re.findall(r"[\w']+", said.lower()) if w not in _FILLER]
        if not words:
            return None
        stems = [_stem(w) for w in words]
        mine = await self.book.of(user_key, now)
        hits = [
            r.number
            for r in mine
            if r.number in asked.numbers and all(s in _stems(r.task) for s in stems)
        ]
        return hits[0] if len(hits) == 1 else None

    def _read(
        self, said: str, zone: ZoneInfo, now: datetime
    ) -> tuple[str, str, timedelta | None, datetime | None, str] | None:
        """What is asked: the action, the words naming the reminder, a span, a time, and
        the words the time was read from."""
        if _STOP_ALONE.match(said):
            return "cancel", "", None, None, ""
        said = _POLITE_TAIL.sub("", said) or said
        m = _CANCEL.match(said)
        if m:
            return "cancel", m.group("what"), None, None, ""
        m = _SNOOZE.match(said)
        if m:
            what, span_said = _span_at_end(m.group("what") or "", m.group("span"))
            span = parse_duration(span_said) if span_said else DEFAULT_SNOOZE
            if span is None:
                return None
            return "snooze", what, span, None, ""
        m = _MOVE.match(said)
        if m:
            rest = m.group("rest")
            for pivot in _PIVOT.finditer(rest):
                what, when_text = rest[: pivot.start()], rest[pivot.end() :]
                what = re.sub(r"\s+(?:back|forward|over)$", "", what, flags=re.I)
                when = read_move_time(when_text, now=now, zone=zone)
                if said_past(when_text):
                    when = now  # said back as passed, not moved (the move step says so)
                if when is not None and what.strip():
                    return "move", what, None, when, when_text
            return "move", *_shift(rest), ""
        return None

    async def _done(self, plan: _Asked, reminder: Reminder, zone: ZoneInfo, now: datetime) -> str:
        said, number = await self._do(plan, reminder, zone, now)
        if plan.action != "cancel":  # "that" now means the one just moved or snoozed
            mine = await self.book.of(reminder.user_key, now)
            same = [r for r in mine if r.is_open() and number in (r.number, r.record_id)]
            if same:
                known = frozenset(r.record_id for r in mine)
                self._touched[reminder.user_key] = _Touched(
                    datetime.now(UTC), same[0].record_id, known
                )
        return said

    async def _just_fired(self, reminder: Reminder, now: datetime) -> bool:
        """Whether the occurrence before a repeating ``reminder`` fired just now: a snooze
        then is of that one (reminded again from now), not of the next (tester s34 U80)."""
        if reminder.every is None or not reminder.is_open():
            return False
        for rec in await self.book.store.list(category="event", live_only=False):
            loop = rec.open_loop or {}
            if loop.get("moved_to") != reminder.record_id:
                continue
            due = parse_ts(loop.get("due"))
            if due is not None and 0 <= (now - due).total_seconds() <= JUST_S:
                return True
        return False

    async def _do(
        self, plan: _Asked, reminder: Reminder, zone: ZoneInfo, now: datetime
    ) -> tuple[str, int | str]:
        """The reply, and the number (or record id) of the reminder that now comes."""
        at = local(reminder.due, zone, now)
        if plan.action == "cancel":
            if not reminder.is_open():
                said = f"That reminder ({reminder.task}, {at}) was already {reminder.status}."
                return said, reminder.number
            await self.book.cancel(reminder, now)
            later = f"; it was {reminder.rule}, none will come now" if reminder.rule else ""
            return f"Cancelled: {reminder.task} ({at}{later}).", reminder.number
        if plan.action == "snooze":
            fired = await self._just_fired(reminder, now)
            span = plan.span or DEFAULT_SNOOZE
            moved = await snooze_reminder(self.book, reminder, span, now=now, fired=fired)
            said = f"Snoozed: {moved.task}, I'll remind you {local(moved.due, zone, now)}."
            if not fired and reminder.is_open() and reminder.due is not None and reminder.due > now:
                said += f" It had not come yet: it was {at}."
            return said, moved.record_id
        when = plan.when
        if when is None and plan.span is not None and reminder.due is not None:
            when = reminder.due + plan.span  # "push it back an hour"
        if when is None:
            return f"That reminder ({reminder.task}) has no time to move from.", reminder.number
        said = await move_reminder(self.book, reminder, when, plan.when_text, zone=zone, now=now)
        return said, reminder.number


# "i don't need the invoices reminder anymore", "I no longer need the reminder about the
# solicitor; please cancel it": a cancel said as what is no longer needed.
_NO_NEED = re.compile(
    _LEAD + r"(?:i\s+)?(?:don'?t|do\s+not|no\s+longer)\s+need\s+(?P<what>(?:the|my|that|this)\s+"
    r"(?:.+?\s)?(?:reminders?|one|alarm)\b.*?)(?:\s+(?:any\s*more|now|after\s+all))*"
    r"(?:[\s,;.!-]+(?:so\s+)?(?:please\s+)?(?:cancel|delete|remove|drop|scrap)\s+it)?[\s.!?]*$",
    re.IGNORECASE,
)
# "don't remind me about the chem revision", "no need to remind me to call Al", "you don't
# have to remind me about X": stopping a reminder, never a new one (tester s36: "dont remind
# me about X" was asked "When should I remind you about X?").
_DONT_REMIND = re.compile(
    _LEAD + r"(?:(?:i|you|u)\s+)?(?:(?:don'?t|do\s+not|dont|no\s+longer)\s+"
    r"(?:(?:have|need)\s+(?:you\s+)?to\s+|bother\s+(?:to\s+)?)?|needn'?t\s+|need\s+not\s+"
    r"|(?:there'?s\s+)?no\s+need\s+(?:for\s+you\s+)?to\s+)remind(?:ing)?\s+me"
    r"(?!\s+(?:until|till|before|after|later|again)\b)(?P<rest>.*?)"
    r"(?:\s+(?:any\s*more|now|after\s+all))*[\s.!?]*$",
    re.IGNORECASE,
)
#: "..., just this once", "... this week", "... for now": when the change holds, no time.
_ONCE_TAIL = re.compile(
    r"[\s,;]+(?:just\s+|only\s+)?(?:this\s+(?:once|time)|once|for\s+now)[\s.!?]*$", re.I
)
#: "this Tuesday's orchid reminder", "tomorrow's bins one": the day names which occurrence,
#: not the reminder's words.
_DAYS_OWN = re.compile(
    r"\b(?:(?:this|next|last)\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|"
    r"tomorrow|tonight)'s\s+",
    re.IGNORECASE,
)
# "make the Susan one saturday (instead)": a move.
_MAKE = re.compile(
    _LEAD + r"make\s+(?P<what>(?:the|my)\s+.+?\b(?:one|reminder))\s+(?:for\s+|on\s+|at\s+)?"
    r"(?P<when>.+?)[\s.!?]*$",
    re.IGNORECASE,
)
_DAY = (
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?|today|tonight|tomorrow|"
    r"tmrw|tmr"
)
# "forget that, it's friday not thursday", "sorry, I meant saturday": the day of the
# reminder just set, corrected (it was forgotten instead: tester U5). Only a correction
# moves it: a correcting lead, "I meant" or "not <day>" ("its sunday" alone moved the
# reminder just set: review s33-2 item 7).
#: A clock time alone ("5pm", "at 4", "7:15", "noon", "half 9").
_TIME = CORRECTED_TIME  # one reading of a corrected time, shared with a forget
#: A corrected time as a short follow-up says it: a clock ("5pm", "at 4", "half 9") or a bare
#: hour ("make it 5"), with its half of the day when said ("3:30 in the morning").
_NEW_TIME = (
    rf"(?:{_TIME}|\d{{1,2}}\b)(?:\s*o'?clock)?"
    r"(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight))?"
)
#: What asks for a change by itself ("make it 5", "that should be 3:30"), unlike "it's 5",
#: which may only say what time it is.
_ASK = r"(?:it|that|this)\s+should\s+(?:be|say)|make\s+(?:it|that)|change\s+(?:it|that)\s+to"
_CORRECTED = re.compile(
    _LEAD + r"(?P<fix>(?:forget|scratch|delete|erase|cancel)\s+that[,.!]?\s+|"
    r"(?:sorry|oops|my\s+bad)[,.!]?\s+)?"
    rf"(?:it'?s|it\s+is|(?P<ask>{_ASK})|(?P<meant>i\s+meant))\s+(?:on\s+|at\s+)?"
    rf"(?P<when>(?:{_DAY})(?:\s+at\s+[\w:.]+)?|(?P<time>{_NEW_TIME}))"
    r"(?:[\s,]+actually)?"
    rf"(?P<not>[\s,]+not\s+(?:on\s+|at\s+)?(?:(?:{_DAY})\b|{_NEW_TIME}))?"
    r"(?:[\s,]+(?:instead|actually))?[\s.!?]*$",
    re.IGNORECASE,
)
_CANCEL_HEAD = re.compile(
    _LEAD + r"(?:cancel|delete|remove|drop|scrap|call off|kill|get rid of|" + _STOP + r")\s+",
    re.IGNORECASE,
)
# A reason after the request ("..., Claire has set up a pill box"): no reminder's words.
_REASON = re.compile(r"\s*(?:[,;]|\s[-–—]\s|\s(?:because|since|cos|cause|as|now\s+that)\s)", re.I)
#: A reason after a move ("...to the 17th, please; I shall be at the hairdresser on the
#: 18th"): a clause of its own, whose times are not the one to move to. A comma cuts only
#: before a new subject ("to friday, at 9" keeps its time).
_MOVE_REASON = re.compile(
    r"\s*(?:;|\s[-–—]\s|,?\s+(?:because|since|cos|cause|as|now\s+that)\s"
    r"|,\s*(?=(?:i|i'm|im|i'll|i've|i'd|we|we're|he|she|they|it's|its)\b))",
    re.I,
)


#: "would you mind cancelling reminder 1", "do you mind moving the fern one to 8": a request
#: said as a gerund.
_GERUNDS = {
    "cancelling": "cancel", "canceling": "cancel", "deleting": "delete", "removing": "remove",
    "dropping": "drop", "scrapping": "scrap", "moving": "move", "pushing": "push",
    "changing": "change", "rescheduling": "reschedule", "shifting": "shift",
    "snoozing": "snooze",
}  # fmt: skip
_MIND_DOING = re.compile(
    r"^(?:(?:please|pls|hey|ok(?:ay)?|so)[,!.]?\s+)*(?:would|do|could)\s+(?:you|u)\s+mind\s+"
    rf"(?:just\s+)?(?P<doing>{'|'.join(_GERUNDS)})\s+(?P<rest>.+)$",
    re.IGNORECASE,
)


def reworded(said: str) -> str:
    """Everyday ways to cancel or move a reminder said the way :meth:`ReminderWords._read`
    reads them: "I don't need the X reminder anymore" -> "cancel the X reminder", "make the
    X one saturday instead" -> "move the X one to saturday", "forget that, it's friday not
    thursday" -> "move that to friday", "would you mind cancelling reminder 1?" -> "cancel
    reminder 1"; a reason after a cancel is left out."""
    said = re.sub(r"\s+instead(?=[\s.!?]*$)", "", _POLITE_TAIL.sub("", said) or said, flags=re.I)
    said = _DAYS_OWN.sub("", _ONCE_TAIL.sub("", said) or said)
    said = _POLITE_TAIL.sub("", said) or said
    if m := _DONT_REMIND.match(said):
        said = f"stop reminding me{m['rest']}"
    if m := _MIND_DOING.match(said):
        said = f"{_GERUNDS[m['doing'].lower()]} {m['rest']}"
    if m := _NO_NEED.match(said):
        return f"cancel {m['what']}"
    m = _CORRECTED.match(said)
    # A bare number moves only when asked to ("make it 5"): "sorry, I meant 2" may be a count.
    bare = m is not None and re.fullmatch(r"\d{1,2}", m["time"] or "") is not None
    if (
        m is not None
        and (m["ask"] or not bare)
        and (m["fix"] or m["meant"] or m["ask"] or (m["not"] and not m["time"]))
    ):
        return f"move that to {m['when']}"  # "scratch that, make it 5pm": its own day
    m = _MAKE.match(said)
    if m is not None and (CLOCK_SAID.search(m["when"]) or re.match(_DAY, m["when"], re.I)):
        return f"move {m['what']} to {m['when']}"
    if head := _CANCEL_HEAD.match(said):
        rest = said[head.end() :]
        cut = _REASON.search(rest)
        if cut is not None and rest[: cut.start()].strip():
            return said[: head.end()] + rest[: cut.start()]
    if head := _MOVE.match(said):
        rest = said[head.start("rest") :]
        cut = _MOVE_REASON.search(rest)
        if cut is not None and _PIVOT.search(rest[: cut.start()]):
            moved = said[: head.start("rest")] + rest[: cut.start()]
            return _POLITE_TAIL.sub("", moved) or moved
    return said


#: "that 5 mins", "2 20m": a span said after the reminder without "for" (tester U48, U20).
_SPAN_AT_END = re.compile(
    r"^(?P<what>.*?)\s*\b(?P<span>(?:\d+|an?|half\s+an?)\s*(?:s|secs?|seconds?|m|mins?|"
    r"minutes?|h|hrs?|hours?|d|days?))$",
    re.IGNORECASE,
)


def _span_at_end(what: str, span: str | None) -> tuple[str, str | None]:
    """What is snoozed and for how long, when the span is said without "for" or "by"."""
    m = _SPAN_AT_END.match(what)
    if span or m is None or parse_duration(m["span"]) is None:
        return what, span
    return m["what"], m["span"]


def _shift(rest: str) -> tuple[str, timedelta | None, None]:
    """What is moved and by how much ("the farrier one back an hour"), when a span is said
    with a direction; else the whole text and no span."""
    m = _SHIFT.match(rest)
    span = parse_duration(m.group("span")) if m else None
    if m is None or span is None or not (m.group("dir") or m.group("dir2")):
        return rest, None, None
    sooner = (m.group("dir") or "").lower() == "forward" or (m.group("dir2") or "").lower() in {
        "earlier",
        "sooner",
    }
    return m.group("what"), -span if sooner else span, None


def _which(
    what: str,
    mine: list[Reminder],
    now: datetime,
    touched: _Touched | None = None,
    *,
    latest: bool = True,
) -> tuple[list[Reminder], bool]:
    """The reminders ``what`` describes, and whether it names a reminder at all (nothing
    described: the one just set or fired, unless not ``latest``; else all of them)."""
    words = re.findall(r"[#\w']+", what.lower())
    named = any(w in _NAMES for w in words)
    numbers = [int(w.lstrip("#")) for w in words if w.lstrip("#").isdigit()]
    content = [w for w in words if w not in _FILLER]
    # "reminder 3", or the number alone ("cancel 1", as the /reminders footer shows it).
    if numbers and (named or all(w.lstrip("#").isdigit() for w in content)):
        return [r for r in mine if r.number == numbers[0]], True
    if not content:
        pointer = any(w in _POINTER for w in words)
        just = _just(mine, now, touched) if latest else None
        if just is not None:
            return [just], True
        if pointer and not named:
            return [], False  # "cancel that" with no reminder just now: not about one
        return (mine if len(mine) > 1 else mine[:1]), named or bool(mine)
    stems = [_stem(w) for w in content]
    hits = [r for r in mine if all(s in _stems(r.task) for s in stems)]
    if not hits:
        hits = _by_age(content, mine)
    return hits, named or bool(hits)


#: Words that pick one of several alike by when it was set: "the earlier vitamin one", "the
#: newer one", "the other one" is not (it names none).
_OLDER = frozenset({"earlier", "older", "old", "original", "first"})
_NEWER = frozenset({"later", "newer", "new", "latest", "last", "second"})


def _by_age(content: list[str], mine: list[Reminder]) -> list[Reminder]:
    """The reminder "the earlier vitamin one" means: of those whose task holds the other
    words, the one set first (or last, for "newer"); none when no such word is said."""
    age = [w for w in content if w in _OLDER | _NEWER]
    rest = [_stem(w) for w in content if w not in _OLDER | _NEWER]
    if not age or not rest:
        return []
    alike = [r for r in mine if r.is_open() and all(s in _stems(r.task) for s in rest)]
    if len(alike) < 2:
        return alike
    alike.sort(key=lambda r: (r.set_at or datetime.min.replace(tzinfo=UTC), r.record_id))
    return [alike[0] if age[0] in _OLDER else alike[-1]]


def _just(mine: list[Reminder], now: datetime, touched: _Touched | None = None) -> Reminder | None:
    """The reminder just set, moved, snoozed or fired, whichever came last (a record's time
    is the wall clock's, a due time the bot's)."""
    wall = datetime.now(UTC)
    latest: tuple[datetime, Reminder] | None = None
    for r in mine:
        event, clock = (r.set_at, wall) if r.is_open() else (r.due, now)
        if touched is not None and touched.holds(r, mine):
            event = max(event, touched.at) if event else touched.at
        if event is None or not 0 <= (clock - event).total_seconds() <= JUST_S:
            continue
        # the same second: the record made later (its id grows with time) is the newer
        if latest is None or (event, r.record_id) > (latest[0], latest[1].record_id):
            latest = (event, r)
    return latest[1] if latest else None


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[\w']+", text.lower())}


def _stem(word: str) -> str:
    """A rough stem: "bins" -> "bin", "called" -> "call", "pills" -> "pill"."""
    word = word.removesuffix("'s")
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if suffix == "ies":
                word += "y"
            break
    return word.rstrip("e") if len(word) > 3 else word


def _picked(said: str, numbers: tuple[int, ...]) -> int | None:
    words = re.findall(r"\w+", said.lower())
    if len(words) > 4:
        return None
    for w in words:
        if w.isdigit():
            return int(w)
        if w in _ORDINAL and _ORDINAL[w] <= len(numbers):
            return numbers[_ORDINAL[w] - 1]
    return None


def _line(r: Reminder, zone: ZoneInfo, now: datetime) -> str:
    fate = "" if r.is_open() else f", {r.status}"
    return f"{r.number}. {r.task}, {local(r.due, zone, now)}{fate}"


def _shown(what: str) -> str:
    words = [w for w in re.findall(r"[\w']+", what) if w.lower() not in _FILLER]
    return " ".join(words) or what.strip()
