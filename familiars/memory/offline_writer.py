"""The rule-based writer used when no language model is configured.

It reads the person's own message, one clause at a time, and finds only what simple patterns
can say for sure: a name ("my name is", "call me"), likes and dislikes, birthdays and other
dates, where someone lives or works, and reminders ("remind me to X tomorrow at 9"), which
become an ``event`` with an absolute TTL and an open loop of kind ``reminder`` due in the
person's time zone. Questions, reported speech and clauses about other people are left alone:
a missed fact costs less than a wrong one.

Each fact gets a canonical sentence and a topic tag (``topic:coffee``, ``name``, ``home``...),
so that the same fact told in other words is the same record, and a changed fact ("I don't
like coffee anymore") supersedes the record it contradicts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.memory.records import MemoryRecord, is_live
from familiars.memory.writer import OpenLoop, WriteOp, WriterEntry, WriterOutput

logger = logging.getLogger(__name__)


def _words(*chunks: str) -> list[str]:
    return " ".join(chunks).split()


DEFAULT_REMINDER_HOUR = 9
_FILLERS = re.compile(
    r"^(?:(?:well|so|oh|hi|hey|hello|ok|okay|yes|yeah|yep|also|and|but|actually|btw|by the way|"
    r"anyway|just so you know|fyi|honestly|fun fact|oh and)[,!.]?\s+)+",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(
    r"(?<=[.!?;])\s+|\n+|,\s+(?:and|but)\s+|\s+but\s+|,\s+(?=(?:i|i'm|my)\s)", re.IGNORECASE
)
_QUESTION_START = re.compile(
    r"^(?:do|does|did|what|what's|whats|who|whom|whose|where|when|why|how|is|are|was|were|can|"
    r"could|would|will|should|shall|may|might|have|has|am|which)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(r"[\"“”]|\b(?:said|says|told me|asked|wrote)\b", re.IGNORECASE)
_NOT_NAMES = frozenset(
    _words(
        "later back when if tomorrow tonight today maybe please now sometime soon again "
        "anytime anything not a an the that this it crazy whatever what you me sir madam "
        "ok okay there here first then up out after before once any and or but so "
        "because lol haha"
    )
)
_BAD_OBJECT_START = frozenset(
    _words(
        "it that this these those how what when where why who which you your him her "
        "them us me the way if whatever everything anything nothing something"
    )
)
_OBJECT_TRIM = re.compile(
    r"\s+(?:a lot|so much|very much|too|as well|anymore|any more|these days|now|either|"
    r"more and more|lately|really|most)$",
    re.IGNORECASE,
)
_OBJECT_CUT = re.compile(
    r"\s+(?:but|because|since|although|though|and i|so|when|if|as)\s+|,|\s+-\s+"
)
_ARTICLE = re.compile(r"^(?:a|an|the|some|my)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Fact:
    """One thing a clause says, before it becomes a write."""

    scope: str
    category: str
    content: str
    tags: tuple[str, ...]
    #: Facts with the same key are the same fact (maybe with a new value).
    key: str
    salience: float = 0.6
    polarity: str = ""
    quote: str = ""
    ttl: dict | None = None
    open_loop: OpenLoop | None = None


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        logger.warning("unknown time zone %r; using UTC", name)
        return ZoneInfo("UTC")


def clauses(text: str) -> list[str]:
    out = []
    for part in _CLAUSE_SPLIT.split(text):
        part = part.strip().strip(".!;").strip()
        if part:
            out.append(_FILLERS.sub("", part).strip())
    return [c for c in out if c]


def _is_question(clause: str, raw_text: str) -> bool:
    return clause.endswith("?") or bool(_QUESTION_START.match(clause))


_NOT_PREFERENCES = re.compile(
    r"^to\s+(?:think|say|believe|know|imagine|hope|pretend|assume|mention|add|point)\b", re.I
)
_PERSON_SWAP = {"my": "their", "me": "them", "myself": "themselves", "i": "they", "mine": "theirs"}


def third_person(text: str) -> str:
    """ "call my mom" -> "call their mom": a memory speaks of the user, not as them."""
    return re.sub(r"\b(my|me|myself|mine|I)\b", lambda m: _PERSON_SWAP[m.group(1).lower()], text)


def _clean_object(obj: str) -> str | None:
    obj = _OBJECT_CUT.split(obj, maxsplit=1)[0].strip(" .!?")
    for _ in range(3):
        obj = _OBJECT_TRIM.sub("", obj).strip()
    words = obj.split()
    if not words or len(words) > 6 or words[0].lower() in _BAD_OBJECT_START:
        return None
    if _NOT_PREFERENCES.match(obj):
        return None
    return third_person(obj)


def topic_key(obj: str) -> str:
    base = _ARTICLE.sub("", obj.lower()).strip()
    base = re.sub(r"^to\s+", "", base)
    words = [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in re.findall(r"[\w'+-]+", base)
    ]
    return "-".join(words)[:58] or "thing"


def _titled(place: str) -> str:
    return place if any(c.isupper() for c in place) else place.title()


# --------------------------------------------------------------------------- patterns

_NAME = re.compile(
    r"^(?:my name is|my name's|my names|i'm called|i am called|people call me|you can call me|"
    r"please call me|call me|name's)\s+(?P<name>[^\s,.!?]+(?:\s+[^\s,.!?]+)?)(?P<rest>.*)$",
    re.IGNORECASE,
)
_LIKE = re.compile(
    r"^i\s+(?:really\s+|truly\s+|absolutely\s+|just\s+|do\s+|also\s+|still\s+)*"
    r"(?:like|love|enjoy|adore)\s+(?P<obj>.+)$"
    r"|^i'?m\s+(?:really\s+|a\s+big\s+|a\s+huge\s+|such\s+a\s+|totally\s+)?(?:into|a fan of|fan of)"
    r"\s+(?P<obj2>.+)$"
    r"|^(?P<obj3>[\w' -]{2,40}?)\s+is\s+my\s+(?:absolute\s+)?(?:favou?rite)(?:\s+\w+)?$",
    re.IGNORECASE,
)
_DISLIKE = re.compile(
    r"^i\s+(?:really\s+|just\s+)?(?:don't|dont|do not|no longer|don’t)\s+(?:really\s+)?"
    r"(?:like|love|enjoy)\s+(?P<obj>.+)$"
    r"|^i\s+(?:really\s+)?(?:hate|dislike|detest|can't stand|cannot stand|can’t stand)\s+"
    r"(?P<obj2>.+)$"
    r"|^i'?m\s+(?:not|no longer)\s+(?:really\s+)?(?:a fan of|into)\s+(?P<obj3>.+)$",
    re.IGNORECASE,
)
_DRINK = re.compile(
    r"^i\s+(?:now\s+|mostly\s+|usually\s+|only\s+)?(?P<verb>drink|prefer)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"^my\s+(?:absolute\s+)?favou?rite\s+(?P<what>[\w ]{2,30}?)\s+is\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_LIVES = re.compile(
    r"^(?:i\s+(?:now\s+)?(?:live|reside)|i'?m\s+(?:now\s+)?(?:living|based)|i\s+(?:just\s+)?moved)"
    r"\s+(?:in|to)\s+(?P<place>.+)$",
    re.IGNORECASE,
)
_WORKS_AT = re.compile(
    r"^i\s+(?:now\s+)?work\s+(?:at|for)\s+(?P<org>.+)$|^i'?m\s+working\s+(?:at|for)\s+(?P<org2>.+)$",
    re.IGNORECASE,
)
_WORKS_AS = re.compile(r"^i\s+(?:now\s+)?work\s+as\s+(?P<job>an?\s+.+)$", re.IGNORECASE)
_BIRTHDAY = re.compile(
    r"^(?:my\s+birthday\s+is|my\s+birthday's|my\s+bday\s+is|i\s+was\s+born\s+on|"
    r"i\s+was\s+born)\s+(?:on\s+)?(?P<date>.+)$",
    re.IGNORECASE,
)
_DATED = re.compile(
    r"^my\s+(?P<what>[a-z][\w ]{1,30}?)\s+is\s+(?P<date>(?:on|this|next|tomorrow|today|in)\b.+)$",
    re.IGNORECASE,
)
_REMIND = re.compile(r"\bremind\s+me\s+(?P<rest>.+)$", re.IGNORECASE)
_TASK_START = re.compile(r"^(?:to|that|about)\s+", re.IGNORECASE)
_WHEN_WORDS = re.compile(
    r"\b(?:at|on|in|by|tomorrow|tonight|today|this|next|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)\b",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"^i\s+(?:already\s+|just\s+|finally\s+)?(?P<rest>(?:\w+ed|did|done|bought|paid|sent|wrote|"
    r"made|took|went|got|gave|rang|sold|spoke|met|read)\b.*)$",
    re.IGNORECASE,
)


def match_name(clause: str) -> Fact | None:
    m = _NAME.match(clause)
    if not m:
        return None
    words = m.group("name").split()
    if words[0].lower() in _NOT_NAMES or not words[0][0].isalpha():
        return None
    rest = m.group("rest").strip().lower()
    if (
        clause.lower().startswith("call me")
        and rest
        and not rest.startswith(("please", "from now on", "instead"))
    ):
        return None
    if len(words) == 2 and (words[1].lower() in _NOT_NAMES or not words[1][0].isupper()):
        words = words[:1]
    name = " ".join(w if w[0].isupper() else w.capitalize() for w in words)
    return Fact("user", "profile", f"The user's name is {name}.", ("name",), "name", 0.9)


def match_preference(clause: str) -> Fact | None:
    m = _DISLIKE.match(clause)
    if m:
        obj = _clean_object(m.group("obj") or m.group("obj2") or m.group("obj3"))
        if obj is None:
            return None
        return _pref(f"The user doesn't like {obj}.", obj, "dislikes")
    m = _FAVOURITE.match(clause)
    if m:
        obj = _clean_object(m.group("obj"))
        what = m.group("what").strip().lower()
        if obj is None:
            return None
        fact = _pref(f"The user's favourite {what} is {obj}.", obj, "likes")
        return Fact(**{**fact.__dict__, "key": f"favourite-{topic_key(what)}"})
    m = _LIKE.match(clause)
    if m:
        obj = _clean_object(m.group("obj") or m.group("obj2") or m.group("obj3"))
        if obj is None:
            return None
        if m.group("obj3") and obj[1:] == obj[1:].lower():
            obj = obj[0].lower() + obj[1:]
        return _pref(f"The user likes {obj}.", obj, "likes")
    m = _DRINK.match(clause)
    if m:
        obj = _clean_object(m.group("obj"))
        if obj is None:
            return None
        verb = "drinks" if m.group("verb").lower() == "drink" else "prefers"
        return _pref(f"The user {verb} {obj}.", obj, "likes")
    return None


def _pref(content: str, obj: str, polarity: str) -> Fact:
    key = topic_key(obj)
    return Fact(
        "user",
        "preference",
        content,
        (polarity, f"topic:{key}"),
        f"topic:{key}",
        0.6,
        polarity=polarity,
    )


def match_place_or_work(clause: str) -> Fact | None:
    m = _LIVES.match(clause)
    if m:
        place = _clean_place(m.group("place"))
        if place:
            return Fact("user", "profile", f"The user lives in {place}.", ("home",), "home", 0.7)
    m = _WORKS_AS.match(clause)
    if m:
        job = _clean_job(m.group("job"))
        if job:
            return Fact(
                "user", "profile", f"The user works as {job.lower()}.", ("job",), "job", 0.7
            )
    m = _WORKS_AT.match(clause)
    if m:
        org = _clean_place(m.group("org") or m.group("org2"))
        if org:
            return Fact("user", "profile", f"The user works at {org}.", ("work",), "work", 0.7)
    return None


def _clean_job(text: str) -> str | None:
    text = _OBJECT_CUT.split(text, maxsplit=1)[0].strip(" .!?")
    words = text.split()
    return text if 2 <= len(words) <= 5 else None


_NOT_PLACES = frozenset(
    _words(
        "a an fear hope denial peace harmony sin poverty luxury comfort night nights home "
        "weekends weekend times myself ourselves it this that here there moment present "
        "past future dreams reality"
    )
)


def _clean_place(text: str) -> str | None:
    text = _OBJECT_CUT.split(text, maxsplit=1)[0].strip(" .!?")
    text = re.sub(r"\s+(?:now|these days|at the moment|currently)$", "", text, flags=re.I)
    words = text.split()
    first = words[0].lower() if words else ""
    if not words or len(words) > 5 or (first in _BAD_OBJECT_START and first != "the"):
        return None
    key = words[1].lower() if first == "the" and len(words) > 1 else first
    if key in _NOT_PLACES:
        return None
    return _titled(text)


# --------------------------------------------------------------------------- dates and times

_HAS_CLOCK = re.compile(
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|"
    r"\b(?:at|by)\s+\d{1,2}\b|\bmorning\b|\bevening\b|\bafternoon\b|\btonight\b|\bnight\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"^in\s+(?:\d+|an?|one|two|three|few|half)\b", re.IGNORECASE)


def _normalise_when(text: str) -> str:
    text = text.strip().strip(".!?").strip()
    text = re.sub(r"\bnoon\b", "12:00", text, flags=re.I)
    text = re.sub(r"\bmidnight\b", "00:00", text, flags=re.I)
    text = re.sub(r"\bnext\s+(?=(?:mon|tue|wed|thu|fri|sat|sun))", "", text, flags=re.I)
    text = re.sub(r"\b(at|by)\s+(\d{1,2})(?!\d|:|\s*[ap]\.?m)", r"\1 \2:00", text, flags=re.I)
    text = re.sub(r"^(?:at|on|by)\s+", "", text.strip(), flags=re.I)
    return text.strip()


_CLOCK_ONLY = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE)


def _clock_only(phrase: str) -> time | None:
    """A bare clock time ("9pm", "21:30", "12:00"): dateparser puts these on odd days."""
    m = _CLOCK_ONLY.match(phrase.strip())
    if not m:
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    half = (m.group(3) or "").lower().replace(".", "")
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def parse_when(text: str, *, now: datetime, tz: ZoneInfo) -> datetime | None:
    """An aware datetime in ``tz`` for a phrase like "tomorrow at 9am", "in 2 hours", "on
    Friday" (no clock time: 09:00), or None when the phrase is not a time."""
    import dateparser

    phrase = _normalise_when(text)
    if not phrase or not re.search(r"\d|[a-z]{3,}", phrase, re.I):
        return None
    local_now = now.astimezone(tz)
    if re.search(r"\b(?:every|each|daily|weekly)\b", phrase, re.I):
        return None  # a repeating reminder is not one due time
    clock = _clock_only(phrase)
    if clock is not None:
        when = datetime.combine(local_now.date(), clock, tzinfo=tz)
        bare_hour = re.fullmatch(r"\d{1,2}(?::\d{2})?", phrase.strip()) is not None
        if when <= local_now and bare_hour and clock.hour < 12:
            # "at 5" said at 14:00 means 17:00: the next time a clock shows it.
            later = when + timedelta(hours=12)
            if later > local_now:
                return later
        return when if when > local_now else when + timedelta(days=1)
    settings = {
        "TIMEZONE": str(tz),
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
    }
    parsed = dateparser.parse(phrase, languages=["en"], settings=settings)  # type: ignore[arg-type]
    if parsed is None:
        return None
    when = parsed.astimezone(tz)
    if not _HAS_CLOCK.search(text) and not _RELATIVE.match(phrase):
        when = datetime.combine(when.date(), time(DEFAULT_REMINDER_HOUR), tzinfo=tz)
    if when <= local_now and not _RELATIVE.match(phrase):
        when += timedelta(days=1)
    return when if when > local_now else None


def parse_day(text: str, *, now: datetime, tz: ZoneInfo, need_day: bool = True) -> datetime | None:
    import dateparser

    phrase = re.sub(r"^(?:on|the)\s+", "", text.strip().strip(".!?"), flags=re.I)
    if not re.search(
        r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|tomorrow|today|mon|"
        r"tue|wed|thu|fri|sat|sun",
        phrase,
        re.I,
    ):
        return None
    settings = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": now.astimezone(tz).replace(tzinfo=None),
    }
    if need_day:
        settings["REQUIRE_PARTS"] = ["day"]
    return dateparser.parse(phrase, languages=["en"], settings=settings)  # type: ignore[arg-type]


def match_birthday(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    m = _BIRTHDAY.match(clause)
    if not m:
        return None
    raw = m.group("date")
    if re.match(r"^(?:in|at)\s+[A-Za-z]", raw) and not re.search(r"\d", raw):
        return None  # "I was born in Spain" is a place, not a date
    day = parse_day(raw, now=now, tz=tz)
    if day is None:
        return None
    year = re.search(r"\b(19|20)\d{2}\b", raw)
    when = f"{day:%B} {day.day}" + (f", {year.group(0)}" if year else "")
    return Fact(
        "user", "profile", f"The user's birthday is on {when}.", ("birthday",), "birthday", 0.8
    )


def match_dated_event(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    m = _DATED.match(clause)
    if not m or m.group("what").lower().strip() in ("birthday", "bday", "name"):
        return None
    day = parse_day(m.group("date"), now=now, tz=tz, need_day=False)
    if day is None:
        return None
    what = m.group("what").strip().lower()
    content = f"The user's {what} is on {day:%A} {day.day} {day:%B %Y}."
    return Fact(
        "user",
        "event",
        content,
        ("date", f"topic:{topic_key(what)}"),
        f"event:{topic_key(what)}",
        0.7,
    )


def match_reminder(
    clause: str, *, now: datetime, tz: ZoneInfo, grace_s: float, dialogue_id: str | None
) -> Fact | None:
    m = _REMIND.search(clause)
    if not m:
        return None
    before = clause[: m.start()].strip(" ,")
    split = _split_task_and_time(m.group("rest"), before, now=now, tz=tz)
    if split is None:
        return None
    task, due = split
    scope = "dialogue" if dialogue_id else "user"
    expires = (due + timedelta(seconds=grace_s)).astimezone(ZoneInfo("UTC"))
    content = f"Remind the user to {task} on {due:%A} {due.day} {due:%B %Y} at {due:%H:%M} ({tz})."
    return Fact(
        scope,
        "event",
        content,
        ("reminder", f"topic:{topic_key(task)}"),
        f"reminder:{topic_key(task)}:{due.isoformat()}",
        0.8,
        ttl={"kind": "absolute", "expires_at": expires.isoformat(timespec="seconds")},
        open_loop=OpenLoop(kind="reminder", due=due.isoformat(timespec="seconds")),
    )


def _split_task_and_time(
    rest: str, before: str, *, now: datetime, tz: ZoneInfo
) -> tuple[str, datetime] | None:
    rest = rest.strip().strip(".!")
    # "remind me tomorrow at 9 to call mom"
    lead = re.match(r"^(?P<when>.+?)\s+(?:to|that|about)\s+(?P<task>.+)$", rest, re.IGNORECASE)
    if lead and not _TASK_START.match(rest):
        due = parse_when(lead.group("when"), now=now, tz=tz)
        if due is not None:
            return _task(lead.group("task")), due
    if not _TASK_START.match(rest):
        return None
    body = _TASK_START.sub("", rest, count=1)
    # "remind me to turn on the lights at 9pm": the leftmost split whose tail is a time.
    for m in _WHEN_WORDS.finditer(body):
        if m.start() == 0:
            continue
        task, when = body[: m.start()].strip(" ,"), body[m.start() :]
        due = parse_when(when, now=now, tz=tz)
        if due is not None and task:
            return _task(task), due
    # "tomorrow at 9, remind me to call mom"
    if before:
        due = parse_when(before, now=now, tz=tz)
        if due is not None:
            return _task(body), due
    return None


def _task(text: str) -> str:
    return third_person(text.strip(" ,.!"))


# --------------------------------------------------------------------------- the writer


def facts_in(
    text: str,
    *,
    now: datetime,
    timezone: str = "UTC",
    dialogue_id: str | None = None,
    reminder_grace_s: float = 6 * 3600.0,
) -> list[Fact]:
    """Every fact the patterns find in ``text``, at most one per clause."""
    tz = zone(timezone)
    found: list[Fact] = []
    for clause in clauses(text):
        if _is_question(clause, text) or _REPORTED.search(clause):
            continue
        fact = (
            match_reminder(
                clause, now=now, tz=tz, grace_s=reminder_grace_s, dialogue_id=dialogue_id
            )
            or match_name(clause)
            or match_birthday(clause, now=now, tz=tz)
            or match_preference(clause)
            or match_place_or_work(clause)
            or match_dated_event(clause, now=now, tz=tz)
        )
        if fact is not None:
            found.append(Fact(**{**fact.__dict__, "quote": clause}))
    return found


def _fact_key(rec: MemoryRecord) -> str | None:
    tags = set(rec.tags)
    for key in ("name", "home", "work", "job", "birthday"):
        if key in tags and rec.category == "profile":
            return key
    topics = [t for t in rec.tags if t.startswith("topic:")]
    if rec.category == "preference" and topics:
        fav = re.match(r"The user's favourite (.+?) is ", rec.content)
        return f"favourite-{topic_key(fav.group(1))}" if fav else topics[0]
    if rec.category == "event" and "date" in tags and topics:
        return "event:" + topics[0][6:]
    return None


def to_writes(facts: Sequence[Fact], existing: Sequence[MemoryRecord]) -> WriterOutput:
    """Writes for ``facts``: ``skip`` when a live record already says it, ``update`` (with
    ``supersedes_id``) when a live record holds another value of the same fact, else ``add``."""
    by_key: dict[tuple[str, str, str], MemoryRecord] = {}
    for rec in existing:
        key = _fact_key(rec)
        if key is not None and is_live(rec):
            by_key[(rec.scope, rec.category, key)] = rec
    writes: list[WriteOp] = []
    for fact in facts:
        entry = WriterEntry(
            content=fact.content,
            tags=list(fact.tags),
            salience=fact.salience,
            ttl=fact.ttl,
            epistemic_status="asserted",
            source_quote=[f"User message: '{fact.quote}'"] if fact.quote else [],
            open_loop=fact.open_loop,
        )
        old = by_key.get((fact.scope, fact.category, fact.key))
        if old is not None and old.content.strip() == fact.content:
            writes.append(WriteOp(op="skip", scope=fact.scope, category=fact.category, entry=entry))
            continue
        if old is not None:
            entry.supersedes_id = old.id
            writes.append(
                WriteOp(op="update", scope=fact.scope, category=fact.category, entry=entry)
            )
        else:
            writes.append(WriteOp(op="add", scope=fact.scope, category=fact.category, entry=entry))
    return WriterOutput(writes=writes)


def closed_loops(text: str, open_records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Open reminders/promises a message says are done ("I called my mom")."""
    closed = []
    for clause in clauses(text):
        m = _DONE.match(clause)
        if not m or _is_question(clause, text):
            continue
        said = {w[:4] for w in re.findall(r"\w+", m.group("rest").lower()) if len(w) > 2}
        for rec in open_records:
            loop = rec.open_loop
            if not loop or loop.get("status") != "open" or rec in closed:
                continue
            task = re.search(r"Remind the user to (.+?) on \w+day ", rec.content)
            words = re.findall(r"\w+", (task.group(1) if task else rec.content).lower())
            wanted = {w[:4] for w in words if len(w) > 2 and w not in ("their", "the", "and")}
            if wanted and len(wanted & said) >= max(1, len(wanted) - 1):
                closed.append(rec)
    return closed


def offline_writes(
    text: str,
    *,
    existing: Sequence[MemoryRecord],
    now: datetime,
    timezone: str = "UTC",
    dialogue_id: str | None = None,
    reminder_grace_s: float = 6 * 3600.0,
) -> WriterOutput:
    """The whole offline writer: facts, then closed loops, as one WriterOutput."""
    facts = facts_in(
        text,
        now=now,
        timezone=timezone,
        dialogue_id=dialogue_id,
        reminder_grace_s=reminder_grace_s,
    )
    output = to_writes(facts, existing)
    for rec in closed_loops(text, [r for r in existing if r.open_loop]):
        loop = OpenLoop(**{**(rec.open_loop or {}), "status": "done"})
        entry = WriterEntry(
            content=rec.content,
            tags=rec.tags,
            salience=rec.salience,
            ttl=rec.ttl,
            supersedes_id=rec.id,
            open_loop=loop,
            source_quote=[f"User message: '{text.strip()[:200]}'"],
        )
        output.writes.append(
            WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry)
        )
    return output
