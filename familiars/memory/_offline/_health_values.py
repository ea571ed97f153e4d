"""The value of a clause whose slot is health (an allergy, an intolerance, a condition or
a diet), by light syntax: the object of "allergic to", what "makes me ill", the condition
one "gets" or "has", a diet said as a word or "X-free" (:mod:`._values` dispatches here)."""

from __future__ import annotations

import re

from familiars.memory._offline._objects import Fact, topic_key
from familiars.memory._offline._patterns import match_health
from familiars.memory._offline._tidy import _SOMEONE_ELSE

_ALLERGY = re.compile(
    r"\b(?:allergic|allergy)\s+(?:to|of)\s+(?P<a>[\w\s-]+)"
    r"|^(?P<b>[\w\s-]+?)\s+allergy\b|\b(?:have|'ve\s+got|have\s+got|got)\s+an?\s+(?P<c>[\w\s-]+?)\s+allergy\b"
    r"|\bintolerant\s+to\s+(?P<d>[\w\s-]+)"
    r"|^(?P<e>[\w-]+(?:\s+[\w-]+)?)\s+(?:makes?\s+me\s+(?:ill|sick|swell\s+up|itch|itchy|break\s+out)|"
    r"gives?\s+me\s+(?:hives|a\s+rash|a\s+(?:bad\s+)?reaction)|(?:doesn't|don't)\s+agree\s+with\s+me|"
    r"(?:is|are)\s+(?:dangerous|deadly|a\s+danger)\s+(?:for|to)\s+me|could\s+kill\s+me)\b"
    r"|\breact(?:s)?\s+(?:badly\s+|really\s+badly\s+)?to\s+(?P<g>[\w\s-]+)",
    re.I,
)
#: A condition one has, said without "allergic": "I get hay fever every summer".
_CONDITION = re.compile(
    r"\b(?:get|have|suffer\s+from|'ve\s+got|have\s+got)\s+(?:(?:bad|terrible|awful|really\s+bad)\s+)?"
    r"(?P<c>hay\s?fever|eczema|asthma|hives|migraines|coeliac\s+disease|celiac\s+disease)\b",
    re.I,
)
#: A diet said as a word or "X-free": "coeliac", "gluten free here", "vegan btw".
_DIET_WORD = re.compile(
    r"\b(?P<w>coeliac|celiac|vegan|vegetarian|pescatarian|kosher|halal)\b|\b(?P<free>gluten|dairy|nut|"
    r"lactose|meat|sugar)[- ]free\b",
    re.I,
)


def allergy_value(text: str, kind: object = None) -> Fact | None:
    if _SOMEONE_ELSE.search(text):
        return None
    m = _ALLERGY.search(text)
    if m is None:
        return _condition_or_diet(text)
    what = next((g for g in m.groups() if g), "").strip()
    if m.group("d") or m.group("e") or m.group("g"):  # an intolerance or a reaction
        what = what.lower()
        said = "is intolerant to" if m.group("d") else "reacts badly to"
        key = topic_key(what)
        content = f"The user {said} {what}."
        return Fact("user", "profile", content, ("allergy", f"topic:{key}"), f"allergy:{key}", 0.85)
    what = re.sub(r"^(?:i'?m|im|i\s+am|i\s+have)\s+(?:an?\s+)?", "", what, flags=re.I)
    return match_health(f"I'm allergic to {what}") if what else None


def _condition_or_diet(text: str) -> Fact | None:
    """ "I get hay fever every summer" (a condition), "gluten free here, coeliac" (a diet)."""
    m = _CONDITION.search(text)
    if m is not None:
        what = re.sub(r"\s+", " ", m.group("c").lower())
        key = topic_key(what)
        return Fact(
            "user", "profile", f"The user has {what}.", ("allergy", f"topic:{key}"),
            f"allergy:{key}", 0.85,
        )  # fmt: skip
    d = _DIET_WORD.search(text)
    if d is None:
        return None
    word = (d.group("w") or f"{d.group('free')}-free").lower()
    said = match_health(f"I'm {word}")
    if said is not None:
        return said
    key = topic_key(word)
    content = f"The user eats {word}." if d.group("free") else f"The user is {word}."
    return Fact("user", "profile", content, ("diet", f"topic:{key}"), f"diet:{key}", 0.8)
