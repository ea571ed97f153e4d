"""A partner said by what the two do: "I'm dating Kai", "I've started seeing someone called
Mo", "Jo and I split up, I'm with Sol now", "Ana and I are together".

The rules read a partner only by the noun ("my girlfriend is Sofia"). Here the verbs of
going out with someone (date, see, go out with, be in a relationship with, be together) are
said the plain way the rules read: "my partner is called Kai". Then the one-partner rule
(:mod:`._spouses`) supersedes the partner kept before, with history.

Only the speaker's own: the verb's subject is "I" (or "X and I"), so "my friend Nadia just
started seeing someone called Ben" names no partner. "Seeing" is also a visit ("I'm seeing
Dr Patel on Monday"), and "with" also an employer or a supplier ("I'm with Vodafone now"):
"seeing" needs a word that says it lasts ("started", "been", someone "called" X) and no time
after the name; "with X now" needs a break-up said in the same message.
"""

from __future__ import annotations

import re

from familiars.memory._offline._objects import _NOT_NAMES

_NAME = r"(?P<n>[A-ZÀ-Þ][\w'À-ÿ-]*)"
_CALLED_NAME = r"(?P<c>[A-Za-zÀ-ÿ][\w'À-ÿ-]*)"
_SOMEONE = (
    r"(?:someone|somebody|a\s+(?:guy|girl|man|woman|lad|lass|bloke|boy|fella|chap|lady|"
    r"gentleman)|this\s+(?:guy|girl|man|woman|lad|lass|bloke|boy|fella|chap|lady))"
)
#: The speaker as the subject, at the start of a clause.
_I = (
    r"(?:(?<=^)|(?<=[,;.!]\s)|(?<=\band\s)|(?<=\bbut\s)|(?<=\bso\s))"
    r"(?:i'?m|im|i\s+am|i'?ve|ive|i\s+have|i)\s+(?:(?:now|just|recently|finally|also|officially|"
    r"been|started|begun|currently|properly)\s+){0,3}"
)
_DATING = re.compile(
    rf"{_I}(?P<verb>dating|seeing|going\s+out\s+with|in\s+a\s+relationship\s+with|"
    rf"got\s+together\s+with|engaged\s+to)\s+"
    rf"(?:(?P<who>{_SOMEONE})(?:\s+(?:called|named)\s+{_CALLED_NAME}|\s*[,.]\s*"
    rf"(?:(?:his|her|their)\s+name(?:'s|\s+is)|(?:he|she|they)(?:'s|\s+is|\s+are)\s+called)\s+"
    rf"{_CALLED_NAME.replace('<c>', '<c2>')})?|{_NAME})(?P<rest>[^,.;!?]*)",
    re.IGNORECASE,
)
#: "Ana and I are together", "me and Ana are dating", "Ana and I got together".
_TOGETHER = re.compile(
    rf"(?:^|(?<=[,;.!]\s))(?:{_NAME}\s+and\s+(?:i|me)|me\s+and\s+{_NAME.replace('<n>', '<m>')})"
    r"\s+(?:are|'re|have\s+been|got|just\s+got|are\s+now)\s+(?:dating|together|seeing\s+each\s+"
    r"other|an\s+item|a\s+couple|going\s+out)\b(?P<rest>[^,.;!?]*)",
    re.IGNORECASE,
)
#: "I'm with Sol now": a partner only when a break-up is said too.
_WITH_NOW = re.compile(rf"{_I}with\s+{_NAME}\s+(?:now|these\s+days)\s*(?=$|[,.;!])", re.IGNORECASE)
_BROKE_UP = re.compile(
    r"\b(?:split\s+up|broke\s+up|broken\s+up|separated|divorced|dumped|left\s+(?:me|him|her)|"
    r"we\s+ended\s+it|ex\b)",
    re.IGNORECASE,
)
#: After the name, a time says a visit or an outing, not a partner.
_A_TIME = re.compile(
    r"\b(?:tonight|tomorrow|today|later|this\s+\w+|next\s+\w+|on\s+\w+day|at\s+\d|"
    r"\w+day\b|for\s+(?:lunch|dinner|drinks|coffee|a\s+drink)|again)",
    re.IGNORECASE,
)
#: Not a partner's given name: kin, titles, and the things one is "in a relationship with"
#: in jest ("I'm going out with Mum", "seeing Dr Patel", "in a relationship with Netflix").
_NO_PARTNER_WORDS = (
    "mum mom mam mummy mommy mama dad daddy papa nan nana nanna gran granny grandma "
    "grandad granddad grandpa auntie aunty aunt uncle sis bro cousin dr doctor mr mrs ms "
    "miss prof professor sir madam rev father mother sister brother boss netflix spotify "
    "youtube tiktok instagram twitter facebook reddit discord work food pizza chocolate "
    "god jesus coffee wine beer gym football music christmas"
)
_NO_PARTNER_NAMES = frozenset(_NO_PARTNER_WORDS.split())
#: What may follow the partner's name in its clause: nothing, or only when ("Kai now",
#: "Jen for 3 months", "Mo since March"); "Tom and Jess to plan the trip", "Dr Patel about
#: my knee" are no partner.
_NAME_ENDS = re.compile(
    r"\s*(?:(?:now|these\s+days|for\s+(?:\d+|a|an|a\s+few|a\s+couple\s+of|two|three|"
    r"four|five|six|several|many)\s+(?:weeks?|months?|years?)(?:\s+now)?|"
    r"for\s+(?:a\s+while|ages|a\s+long\s+time)(?:\s+now)?|since\b.*)\s*)?",
    re.IGNORECASE,
)
#: After the clause, a comma that opens what the name is ("Jen, my physio"), not a clause.
_APPOSITION = re.compile(
    r"\s*,\s*(?:my|our|his|her|their|the|a|an|who|whos|who's|from|at)\b", re.IGNORECASE
)
#: A word that says the seeing lasts ("started seeing", "been seeing", "seeing someone
#: called X").
_LASTING = re.compile(r"\b(?:started|begun|been|now|properly|officially)\b", re.IGNORECASE)


def _partner(name: str, who: str = "partner") -> str | None:
    if not name or name.lower() in _NOT_NAMES or name.lower() in ("i", "me", "you"):
        return None
    return f"my {who} is called {name[0].upper()}{name[1:]}"


def _a_partner_name(m: re.Match[str], name: str) -> bool:
    """Whether ``name`` ends its clause as a person's given name: "I'm dating Kai (now)",
    not "Kai's sister", "Mum", "Dr Patel", "Tom and Jess to plan the trip", "Jen, my
    physio"."""
    if "'" in name or "\u2019" in name or name.lower() in _NO_PARTNER_NAMES:
        return False
    if m.group("n") and not (name[0].isupper() and _NAME_ENDS.fullmatch(m.group("rest") or "")):
        return False
    return not _APPOSITION.match(m.string, m.end())


def _dated(m: re.Match[str]) -> str:
    name = m.group("n") or m.group("c") or m.group("c2") or ""
    if not name or _A_TIME.search(m.group("rest") or ""):
        return m.group(0)
    if not _a_partner_name(m, name):
        return m.group(0)
    verb = m.group("verb").lower()
    if verb == "seeing" and not (m.group("who") or _LASTING.search(m.group(0))):
        return m.group(0)  # "I'm seeing Priya": maybe only today
    said = _partner(name, "fiancé" if verb.startswith("engaged") else "partner")
    return m.group(0) if said is None else said + (m.group("rest") or "")


def _together(m: re.Match[str]) -> str:
    name = m.group("n") or m.group("m") or ""
    said = _partner(name) if name[:1].isupper() else None
    return m.group(0) if said is None or _A_TIME.search(m.group("rest")) else said


def partners_said(text: str) -> str:
    """``text`` with a partner said by going out with them said as "my partner is called X"
    (see the module docstring); as it is when none is."""
    said = _DATING.sub(_dated, text)
    said = _TOGETHER.sub(_together, said)
    if _BROKE_UP.search(text):
        said = _WITH_NOW.sub(lambda m: _partner(m.group("n")) or m.group(0), said)
    return said


__all__ = ["partners_said"]
