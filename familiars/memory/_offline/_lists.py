"""A list the person types, said again as sentences: a header that says what the items are
("Things I hate: 1) olives 2) Mondays", "My allergies:" then bullets, "Pets: a tortoise
(Sheldon)", "About me:" then "- 34 - teacher - live in Norwich") and "key: value" lines
("- name: Priti", "- age: 38"). Each item becomes the sentence its header frames ("I hate
olives.", "I'm allergic to latex.", "I have a tortoise called Sheldon.", "I'm 34."), so
the rules read a list as they read prose. A list under any other header (shopping, to do,
packing) is left as it is.
"""

from __future__ import annotations

import re

from familiars.memory._offline._objects import JOBS

#: "Header:" then items on the same line or on the lines below.
_HEADED = re.compile(r"^(?P<head>[^:\n]{2,40}):(?P<items>(?:[ \t]*\S.*)?(?:\n.+)*)$", re.M)
#: Where one item ends and the next starts: a bullet, a number, a line break.
_ITEM_MARK = re.compile(r"\s*(?:\n\s*(?:[-*•]|\d+[.)])?|(?:^|\s)(?:[-*•]|\d+[.)]))\s+")
_KEY_VALUE = re.compile(r"^(?P<k>[a-z ]{2,20}):\s*(?P<v>.+)$", re.I)

_LIKING = {
    "hate": "I hate",
    "hates": "I hate",
    "dislike": "I hate",
    "dislikes": "I hate",
    "can't stand": "I hate",
    "love": "I love",
    "loves": "I love",
    "like": "I love",
    "likes": "I love",
    "favourite things": "I love",
    "favorite things": "I love",
    "favourites": "I love",
    "favorites": "I love",
}
_ABOUT_ME = re.compile(
    r"^(?:(?:a\s+bit|some\s+facts|quick\s+facts|facts)(?:\s+about\s+me)?|about\s+me)$"
)
_KEYS = {
    "name": "My name is {}.",
    "age": "I'm {}.",
    "job": "I'm a {}.",
    "occupation": "I'm a {}.",
    "work": "I work at {}.",
    "from": "I live in {}.",
    "location": "I live in {}.",
    "home": "I live in {}.",
    "lives": "I live in {}.",
    "city": "I live in {}.",
    "allergies": "I'm allergic to {}.",
    "likes": "I love {}.",
    "dislikes": "I hate {}.",
}
_PET_NAMED = re.compile(r"^(?:(?P<what>(?:an?|one|two|three|\d+)\s+[\w -]+?)\s*\((?P<n>[^)]+)\)"
                        r"|(?P<n2>[A-Z][\w'-]+)\s*\((?P<w2>[\w -]+)\))$")  # fmt: skip


def _head(head: str) -> str:
    head = re.sub(r"^(?:my|our)\s+|\s+(?:right\s+now|rn|atm|currently|at\s+the\s+moment)$", "",
                  head.strip().lower())  # fmt: skip
    return re.sub(r"^things\s+i\s+", "", head)


def _items(items: str) -> list[str]:
    parts = _ITEM_MARK.split(items)
    return [p.strip(" ,;.") for p in parts if p.strip(" ,;.")]


def _pet(item: str) -> str:
    m = _PET_NAMED.match(item)
    if not m:
        return f"I have {item}."
    if m.group("n"):
        return f"I have {m.group('what')} called {m.group('n')}."
    return f"I have a {m.group('w2')} called {m.group('n2')}."


def _about(item: str) -> str:
    kv = _KEY_VALUE.match(item)
    if kv and kv.group("k").strip().lower() in _KEYS:
        return _KEYS[kv.group("k").strip().lower()].format(kv.group("v").strip())
    low = item.lower()
    if re.fullmatch(r"\d{1,2}", item):
        return f"I'm {item}."
    if re.match(r"(?:name's|name\s+is)\s", low):
        return f"My {item}."
    if re.match(r"(?:live|work|love|like|hate|have|got|grew\s+up)\b", low):
        return f"I {item}."
    if m := re.fullmatch(r"(?P<t>[\w -]+?)\s+born\s+and\s+(?:bred|raised)", item):
        return f"I live in {m.group('t')}."
    last = low.split()[-1]
    if low in JOBS or last in JOBS or re.fullmatch(r"[a-z]+(?:er|or|ist|ian)", last):
        return f"I'm a {item}."
    if _PET_NAMED.match(item):
        return _pet(item)
    return f"{item}."


def _said(head: str, items: list[str]) -> list[str] | None:
    low = _head(head)
    if low in _LIKING:
        return [f"{_LIKING[low]} {item}." for item in items]
    if low in ("allergies", "allergic to", "allergens"):
        return [f"I'm allergic to {item}." for item in items]
    if low == "pets":
        each = [p for item in items for p in re.split(r"\s+and\s+(?=(?:an?|one|two)\s)", item)]
        return [_pet(item) for item in each]
    if _ABOUT_ME.match(low):
        if len(items) == 1:
            items = [p.strip() for p in items[0].split(",") if p.strip()]
        return [_about(item) for item in items]
    return None


def listed(text: str) -> str:
    """``text`` with each list whose header says what its items are said as sentences, and
    "key: value" lines as what they tell."""

    def said(m: re.Match[str]) -> str:
        out = _said(m.group("head"), _items(m.group("items")))
        return m.group(0) if out is None else " ".join(out)

    text = _HEADED.sub(said, text)
    lines = [line.strip(" -*•") for line in text.splitlines() if line.strip()]
    keys = [m["k"].strip().lower() for line in lines if (m := _KEY_VALUE.match(line))]
    if len(lines) >= 2 and len(keys) == len(lines) and set(keys) & set(_KEYS):
        return " ".join(_about(line) for line in lines)
    return text
