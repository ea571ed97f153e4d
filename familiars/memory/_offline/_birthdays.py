"""Other people's birthdays (F13/F19): "my friend Sam's birthday is 3 May", "my mum's birthday
is on the 4th of June", "Sam's birthday is 3 May", "my son Leo was born on 4 June 2018".

The person's own birthday is :func:`familiars.memory._offline._dates.match_birthday`'s. The
record says the person and the day without a possessive ("The user's friend Sam has a
birthday on May 3."), so the people graph reads the relation and the name as it reads any
other record about them; it is tagged ``birthday`` (the slot a question asks about) and
``topic:<name or relation>``.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from familiars.memory._offline._dates import parse_day, pin_weekdays
from familiars.memory._offline._objects import Fact, topic_key
from familiars.memory._offline._people import FAMILY

_OTHERS = frozenset(
    {"friend", "best friend", "boss", "colleague", "coworker", "co-worker", "neighbour",
     "neighbor", "flatmate", "roommate", "housemate", "teacher", "godson", "goddaughter",
     "godmother", "godfather", "mate", "buddy", "pal"}
)  # fmt: skip
#: The words for someone the person knows, as a regex alternation (the longest first).
RELATIONS = "|".join(sorted((re.escape(w) for w in FAMILY | _OTHERS), key=len, reverse=True))
#: A name as written: capitalised, never "I" or "My".
_NAME = r"(?-i:(?!(?:I|My|The|His|Her|Their|Our)\b)[A-Z][a-zà-ÿ'-]*[a-zà-ÿ])"
_WHO = (
    rf"(?:(?:my|our)\s+(?:(?:best|old|little|big|older|younger|baby)\s+)?(?P<rel>{RELATIONS})"
    rf"(?:,?\s+(?P<name>{_NAME}),?)?|(?P<alone>{_NAME}))"
)
_BIRTHDAY_OF = re.compile(
    rf"^{_WHO}(?:'s\s+(?:birthday|bday|b-day)(?:\s+is|'s|\s+falls)|\s+was\s+born)"
    r"\s+(?:on\s+)?(?P<date>.+?)[.!]*$",
    re.IGNORECASE,
)
_FAMILY = frozenset(FAMILY)


def relation_kind(word: str) -> str:
    """The tag of a record about someone: ``family`` for a relative, else ``people``."""
    return "family" if word.lower() in _FAMILY else "people"


#: "my mum turns 80 next Saturday", "my son Theo is turning 5 on 12 May".
_TURNS = re.compile(
    rf"^{_WHO}(?:\s+turns|\s+will\s+turn|\s+is\s+turning|'s\s+turning|\s+is\s+going\s+to\s+turn)"
    r"\s+(?P<age>\d{1,3})\s+(?P<date>.+?)[.!]*$",
    re.IGNORECASE,
)
_PINNED = re.compile(r"^on\s+\w+day\s+(?P<d>\d{1,2})\s+(?P<m>[A-Z][a-z]+)\s+\d{4}$")


def _turning(m: re.Match[str], *, now: datetime, tz: ZoneInfo) -> Fact | None:
    """Someone's coming birthday with the age they turn, the day pinned to its date ("next
    Saturday" -> "on Saturday 5 December 2026"): a day that moves on each week is no date."""
    raw = m.group("date")
    pinned = pin_weekdays(raw, now=now, tz=tz, said=f"will {raw}")
    day = _PINNED.match(pinned)
    if day is not None:
        when, birthday = pinned, f"{day.group('m')} {day.group('d')}"
    else:
        date = parse_day(raw, now=now, tz=tz)
        named = re.search(
            r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|tomorrow|today", raw, re.I
        )
        if date is None or named is None:
            return None
        when, birthday = f"on {date:%A} {date.day} {date:%B %Y}", f"{date:%B} {date.day}"
    rel, name = (m.group("rel") or "").lower(), m.group("name") or m.group("alone")
    who = " ".join(p for p in (f"The user's {rel}" if rel else "", name or "") if p)
    content = f"{who} turns {m.group('age')} {when} (birthday {birthday})."
    topic = topic_key(name or rel)
    kind = relation_kind(rel) if rel else "people"
    tags = ("birthday", kind, f"topic:{topic}")
    return Fact("user", "relation", content, tags, f"birthday:{topic}", 0.75)


def match_others_birthday(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    """The birthday of someone the person knows, said in ``clause``; None for anything else
    (the person's own birthday, a date that does not read)."""
    turns = _TURNS.match(clause.strip())
    if turns is not None:
        return _turning(turns, now=now, tz=tz)
    m = _BIRTHDAY_OF.match(clause.strip())
    if m is None:
        return None
    raw = m.group("date")
    day = parse_day(raw, now=now, tz=tz)
    if (
        day is None
        or re.search(r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", raw, re.I) is None
    ):
        return None  # "Sam's birthday is coming up", "my son was born in Spain"
    year = re.search(r"\b(19|20)\d{2}\b", raw)
    when = f"{day:%B} {day.day}" + (f" (born {year.group(0)})" if year else "")
    rel, name = (m.group("rel") or "").lower(), m.group("name") or m.group("alone")
    who = " ".join(p for p in (f"The user's {rel}" if rel else "", name or "") if p)
    content = f"{who} has a birthday on {when}."
    kind = relation_kind(rel) if rel else "people"
    topic = topic_key(name or rel)
    return Fact(
        "user",
        "relation",
        content,
        ("birthday", kind, f"topic:{topic}"),
        f"birthday:{topic}",
        0.75,
    )
