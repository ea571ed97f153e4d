"""Offline recogniser for plans and trips: "Next month I'm going to Lisbon with my husband
Tom", "I have a job interview on Thursday", "I'm flying to Tokyo on Friday".

A plan needs a time said with it ("I'm going to Lisbon" alone, "I'm going to bed", "I'm
going to be late" are not kept). The content keeps the time as said and adds the day or month
it means, read against ``now`` (:func:`when_said`), so "next month" does not move.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from familiars.memory._offline._dates import parse_day
from familiars.memory._offline._objects import Fact, third_person, topic_key

logger = logging.getLogger(__name__)

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
#: A time phrase a plan may carry: "next month", "on Friday", "in April", "on the 12th".
TIME_PHRASE = re.compile(
    rf"\b(?:(?:next|this|coming)\s+(?:week(?:end)?|month|year|summer|winter|spring|autumn|fall|"
    rf"{_DAY})|(?:on\s+)?(?:{_DAY})(?:\s+(?:morning|afternoon|evening|night))?|"
    rf"tomorrow(?:\s+(?:morning|afternoon|evening|night))?|tonight|later\s+today|"
    rf"in\s+(?:{_MONTH}|\w+\s+(?:days|weeks|months))|(?:on\s+)?(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)"
    rf"(?:\s+of\s+{_MONTH})?|(?:on\s+)?\d{{1,2}}\s+{_MONTH}|(?:on\s+)?{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|"
    rf"for\s+(?:christmas|easter|new\s+year(?:'s)?|the\s+holidays|thanksgiving)|"
    rf"from\s+the\s+\d{{1,2}}(?:st|nd|rd|th)\s+to\s+the\s+\d{{1,2}}(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)
_LEAD_TIME = re.compile(rf"^(?P<when>{TIME_PHRASE.pattern}),?\s+(?P<rest>.+)$", re.IGNORECASE)
_PLAN_VERB = re.compile(
    r"^(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?P<body>(?:going|flying|travel+ing|heading|driving|"
    r"off|moving|visiting|getting\s+married|having|starting|running|doing|planning|attending|"
    r"taking|seeing|meeting|leaving|coming|spending|hosting|celebrating|camping)\b.+)$"
    r"|^(?:i|we)(?:\s+have|'ve(?:\s+got)?|\s+have\s+got|\s+got)\s+(?P<thing>(?:an?|my|our)\s+.+)$"
    r"|^(?:i|we)\s+(?P<start>start|begin|fly|leave|move)\s+(?P<srest>.+)$"
    r"|^(?:i|we)'?ll\s+be\s+(?P<be>(?:in|at|away|visiting|travel+ing)\b.+)$",
    re.IGNORECASE,
)
_NOT_PLANS = re.compile(
    r"^going\s+to\s+(?:be|bed|sleep|cry|die|think|need|have\s+to|try|lose|scream|miss)\b"
    r"|^(?:going|heading)\s+(?:to\s+)?(?:home|out|back|crazy|nuts)\b|^off\s+(?:work|sick)\b",
    re.IGNORECASE,
)


#: "we got a puppy in March", "I got a new job last month": what was got is no plan.
_GOT_PAST = re.compile(r"^(?:i|we)\s+(?:just\s+|finally\s+)?got\s+(?!to\b)", re.I)
_PAST_TIME = re.compile(r"^(?:in\s+[a-z]+|last\b.*|yesterday|.*\bago|earlier\b.*)$", re.I)


def when_said(phrase: str, *, now: datetime, tz: ZoneInfo) -> str:
    """ "next month" -> "December 2026"; "on Friday" -> "Friday 4 December 2026"; "" when the
    phrase names no day or month that parses."""
    low = phrase.lower().strip()
    local = now.astimezone(tz)
    if re.fullmatch(r"next\s+month", low):
        month = local.month % 12 + 1
        year = local.year + (local.month == 12)
        return datetime(year, month, 1).strftime("%B %Y")
    if re.fullmatch(r"next\s+year", low):
        return str(local.year + 1)
    if re.search(r"\d|tomorrow|tonight|day\b", low) or re.fullmatch(rf"in\s+{_MONTH}", low):
        day = parse_day(phrase, now=now, tz=tz, need_day=False)
        if day is None:
            return ""
        if re.fullmatch(rf"in\s+{_MONTH}", low):
            return f"{day:%B %Y}"
        return f"{day:%A} {day.day} {day:%B %Y}"
    return ""


def _subject(clause: str) -> str:
    """The clause said of the user: "I'm flying to Tokyo" -> "The user is flying to Tokyo"."""
    clause = re.sub(r"^(?:we'?re|we\s+are)\b", "I'm", clause, flags=re.I)
    clause = re.sub(r"^we\b", "I", clause, flags=re.I)
    for pattern, subject in (
        (r"^(?:i'?m|i\s+am)\s+", "The user is "),
        (r"^i'?ve\s+(?:got\s+)?", "The user has "),
        (r"^i\s+have\s+got\s+", "The user has "),
        (r"^i\s+have\s+", "The user has "),
        (r"^i\s+got\s+", "The user has "),
        (r"^i'?ll\s+be\s+", "The user will be "),
    ):
        m = re.match(pattern, clause, re.I)
        if m:
            return subject + third_person(clause[m.end() :])
    m = re.match(r"^i\s+(\w+)\s+", clause, re.I)
    if m:
        return f"The user {m.group(1)}s " + third_person(clause[m.end() :])
    return third_person(clause)


def match_plan(clause: str, *, now: datetime, tz: ZoneInfo) -> list[Fact]:
    """A plan with its time, as an ``event`` fact."""
    clause = clause.strip(" .!")
    lead = _LEAD_TIME.match(clause)
    if lead:
        when = lead.group("when")
        clause = f"{lead.group('rest')} {when[0].lower()}{when[1:]}"
    m = _PLAN_VERB.match(clause)
    if not m or (m.group("body") and _NOT_PLANS.match(m.group("body"))):
        return []
    when = TIME_PHRASE.search(clause)
    if when is None or (_GOT_PAST.match(clause) and _PAST_TIME.match(when.group(0).strip())):
        return []
    absolute = when_said(when.group(0), now=now, tz=tz)
    content = _subject(clause) + (f" ({absolute})" if absolute else "") + "."
    head = clause[: when.start()].strip() or clause
    key = topic_key(_topic_words(head))
    return [Fact("user", "event", content, ("plan", "date", f"topic:{key}"), f"event:{key}", 0.7)]


_FILLER = re.compile(
    r"^(?:i'?m|i\s+am|we'?re|we\s+are|i|we|i'?ve|we'?ve|have|got|going|to|planning|"
    r"a|an|my|our|the|off|be|will|i'll|we'll)\s+",
    re.IGNORECASE,
)


def _topic_words(head: str) -> str:
    for _ in range(6):
        head = _FILLER.sub("", head)
    return " ".join(head.split()[:3])
