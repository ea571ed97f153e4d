"""Something the person saw, met or went to, with when: "I saw Radiohead in Manchester last
June", "we went to see Coldplay in 2019". Kept as a past event with the time said as a
date ("in June 2026"), so that "When did I see them?" finds it (:func:`when_did`).

Only a named thing (capitalised: a band, a person, a place) and a time said with it are
kept: "I watched the match last night" names nothing and stays unkept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from familiars.memory._offline._objects import Fact, topic_key
from familiars.memory._text import MONTHS as _MONTHS

#: The past of the verbs kept, and the present a question asks with.
PAST = {"saw": "see", "met": "meet", "visited": "visit", "went": "go", "heard": "hear",
        "watched": "watch"}  # fmt: skip
_SEEN = re.compile(
    r"^(?:i|we)\s+(?:finally\s+|once\s+|actually\s+)?(?P<verb>saw|met|visited|heard|watched|"
    r"went\s+to\s+see|went\s+to)\s+(?P<what>(?-i:[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*))"
    r"(?:\s+(?:live|play|in\s+concert))?(?:\s+(?:at|in)\s+(?P<where>(?-i:[A-Z][\w'&.-]*"
    r"(?:\s+[A-Z][\w'&.-]*)*)))?\s+(?P<when>.+?)$",
    re.I,
)
_WHEN = re.compile(
    r"^(?:(?P<last>last)\s+|in\s+|back\s+in\s+)?(?P<month>" + "|".join(_MONTHS) + r")$"
    r"|^(?:in\s+|back\s+in\s+)(?P<year>(?:19|20)\d\d)$"
    r"|^(?P<day>yesterday|last\s+night)$"
    r"|^last\s+(?P<unit>year|month)$",
    re.I,
)


def past_when(said: str, now: datetime, tz: ZoneInfo) -> str | None:
    """ "last June" -> "in June 2026" (the latest June before now), "in 2019", "yesterday"
    -> "on 29 November 2026"; None for a time this does not read."""
    m = _WHEN.match(said.strip(" .!"))
    if m is None:
        return None
    local = now.astimezone(tz)
    if m["month"]:
        month = _MONTHS.index(m["month"].lower()) + 1
        year = local.year if month < local.month else local.year - 1
        return f"in {m['month'].capitalize()} {year}"
    if m["year"]:
        return f"in {m['year']}" if int(m["year"]) <= local.year else None
    if m["day"]:
        day = local - timedelta(days=1)
        return f"on {day.day} {day:%B %Y}"
    if m["unit"] == "year":
        return f"in {local.year - 1}"
    last = local.replace(day=1) - timedelta(days=1)
    return f"in {last:%B %Y}"


def match_seen(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    """The past event ``clause`` tells, with its time, or None."""
    m = _SEEN.match(clause.strip(" .!"))
    if m is None:
        return None
    when = past_when(m["when"], now, tz)
    if when is None:
        return None
    verb = m["verb"].lower()
    said = "saw" if verb == "went to see" else "went to" if verb == "went to" else verb
    where = f" in {m['where']}" if m["where"] else ""
    content = f"The user {said} {m['what']}{where} {when}."
    key = topic_key(m["what"])
    return Fact("user", "knowledge", content, ("past", f"topic:{key}"), f"past:{key}", 0.6)


_WHEN_DID = re.compile(
    r"^when\s+did\s+(?:i|we)\s+(?:last\s+|first\s+)?(?P<verb>\w+)\b(?P<rest>.*)$", re.I
)


def when_did(question: str, contents: Sequence[str]) -> list[str]:
    """ "When did I see them?": the kept past events of the verb asked ("saw"), the one that
    names what is asked first, else the newest; [] for another question."""
    m = _WHEN_DID.match(question.strip(" ?!."))
    if m is None:
        return []
    verb = m["verb"].lower()
    pasts = {p for p, present in PAST.items() if present == verb} | {f"{verb}ed", f"{verb}d"}
    done = [c for c in contents if re.match(rf"The user (?:{'|'.join(pasts)})\b", c)]
    if not done:
        return []
    named = set(re.findall(r"[a-z]{3,}", m["rest"].lower())) - {"them", "him", "her", "that"}
    exact = [c for c in done if named & set(re.findall(r"[a-z]{3,}", c.lower()))]
    return exact[:1] or done[-1:]
