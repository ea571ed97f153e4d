"""The new value of a change of mind: what took the old one's place.

:mod:`._changes` and :mod:`._shifts` find what a message takes back ("I don't really like
coffee anymore", "not at Aldi anymore", "home's Cork now, not Dublin anymore"); the new
value is often said in a clause of its own that no rule reads as a fact when said alone
("I switched to tea", "drinking tea now", "cycling's my thing now", "I'm at Superdrug now").
Here the slot of such a clause is the slot of what the message took back: a part of the
message that names no fact of its own and is not itself the taking back is read as the new
value of that slot, by light syntax (the object after the verb or "to"/"for", the subject
before "'s my thing", the capitalised name of a town or employer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from familiars.memory._offline._clauses import _is_question, _sentence_clauses
from familiars.memory._offline._kept import keyed_of
from familiars.memory._offline._objects import NO_THING, Fact
from familiars.memory._offline._patterns import match_preference
from familiars.memory._offline._people import WORKPLACES, _work_fact, match_workplace
from familiars.memory._offline._values import about_someone_else, match_place_or_home
from familiars.memory._records import MemoryRecord

#: What says a part of the message is the taking back, not the new value.
_OVER = re.compile(
    r"n't\b|\b(?:not|no\s+longer|never|any\s?more|used\s+to|quit|stopped|gave\s+up|given\s+up|"
    r"left|gone\s+off|off|done\s+with|sick\s+of|over\s+it)\b",
    re.I,
)
_LEAD = re.compile(
    r"^(?:(?:and|but|so|now|these\s+days|nowadays|instead|actually)\s*,?\s+)*"
    r"(?:(?:i|we)(?:'m|'re|'ve|\s+am|\s+are|\s+have)?\s+|im\s+)?"
    r"(?:(?:now|just|mostly|also|really|totally|properly)\s+)*",
    re.I,
)
_TAIL = re.compile(
    r"(?:\s+(?:now|instead|these\s+days|nowadays|for\s+me|at\s+the\s+moment|lately))+$", re.I
)
#: "switched to tea", "moved on to blues", "swapped chess for go", "it's golf now", "cycling's
#: my thing now", "drinking tea now", "I do boxing instead", "into padel".
_NEW_LIKE = re.compile(
    r"^(?:switched|swapped|changed|moved\s+on|gone\s+over|went\s+over|converted|turned)\s+"
    r"(?:over\s+)?(?:to|[\w' -]+?\s+for)\s+(?P<a>.+)$"
    r"|^(?P<b>[\w' -]+?)(?:'s|\s+is)\s+(?:my|the)\s+(?:thing|jam|new\s+thing|go-to)$"
    rf"|^(?:it'?s|its)\s+(?:all\s+(?:about\s+)?)?(?!{NO_THING})(?P<c>.+)$"
    r"|^(?:into|on|onto)\s+(?P<d>.+)$"
    r"|^(?:(?:drink|play|do|eat|listen\s+to|watch|prefer|love|like|enjoy|go)(?:ing)?|"
    r"(?:drinking|playing|doing|eating|listening\s+to|watching|going))\s+(?P<e>.+)$",
    re.I,
)
#: "swapped chess for go", "traded the gym for running": the new value after "for".
_SWAP = re.compile(r"\b(?:swapped|swapping|traded|exchanged)\s+.+?\s+for\s+(?P<new>.+)$", re.I)
#: A place of work by its kind, no name: "in a pharmacy", "at the bakery".
_AT_WORKPLACE = re.compile(
    rf"\b(?:in|at)\s+(?:an?|the)\s+(?:{'|'.join(sorted(WORKPLACES))})$", re.I
)
_NAME = re.compile(r"\b(?P<n>[A-ZÀ-Þ][\w'&.-]*(?:\s+[A-ZÀ-Þ][\w'&.-]*)*)")


def replaced(facts: Sequence[Fact], text: str, existing: Sequence[MemoryRecord]) -> list[Fact]:
    """``facts`` and the new value of each slot the message took back and said no new value
    of: a home or employer replaces its "no longer" fact (so the update says the new one), a
    new like is added beside the "no longer likes" (:func:`_one_change` merges the two)."""
    live = keyed_of(existing)
    gone = [f for f in facts if f.key in live and _takes_back(f, live[f.key])]
    if not gone:
        return list(facts)
    out = list(facts)
    parts = _unclaimed(text, facts)
    for old in gone:
        slot = old.key if old.key in ("home", "work") else "like"
        if any(_holds_new(f, old, slot) for f in facts):
            continue
        new = next((f for p in parts if (f := _read(p, slot)) is not None), None)
        if new is None:
            continue
        if slot == "like":
            out.append(replace(new, quote=new.quote or old.quote))
        else:
            out[out.index(old)] = replace(new, key=old.key, quote=old.quote)
    return out


def _takes_back(fact: Fact, rec: MemoryRecord) -> bool:
    if fact.content.startswith("The user no longer "):
        return True
    return fact.category == "preference" and fact.polarity == "dislikes" and "likes" in rec.tags


def _holds_new(fact: Fact, old: Fact, slot: str) -> bool:
    """Whether ``fact`` already says a new value of ``slot``."""
    if fact is old or fact.content.startswith("The user no longer "):
        return False
    if slot == "like":
        return fact.category == "preference" and fact.polarity != "dislikes"
    return fact.key == slot


def _unclaimed(text: str, facts: Sequence[Fact]) -> list[str]:
    """The parts of ``text`` (clauses, and their comma-separated pieces) that gave no fact
    and do not take anything back."""
    quoted = {f.quote.strip() for f in facts if f.quote}
    out = []
    for _sentence, group in _sentence_clauses(text):
        for clause in group:
            parts = [p.strip() for p in clause.split(",") if p.strip()]
            whole = clause.strip() in quoted and len(parts) < 2 and not _SWAP.search(clause)
            if _is_question(clause, text) or whole:
                continue
            out += [f"switched to {s['new']}" if (s := _SWAP.search(p)) else p for p in parts]
    return [p for p in out if not _OVER.search(p) and not about_someone_else(p)]


def _read(part: str, slot: str) -> Fact | None:
    said = _TAIL.sub("", _LEAD.sub("", part.strip(" .!"))).strip()
    if not said:
        return None
    if slot == "like":
        m = _NEW_LIKE.match(said)
        thing = next((g for g in m.groups() if g), "") if m else ""
        if not thing or len(thing.split()) > 4:
            return None
        return match_preference(f"I like {thing}")
    if slot == "work" and (at := _AT_WORKPLACE.search(said)):  # "I change to work in a pharmacy"
        return next(iter(match_workplace(f"I work {at.group(0)}")), None)
    name = _NAME.search(said)
    place = name.group("n") if name else ""
    if not place or place in ("I", "I'm"):
        return None
    return _work_fact(place) if slot == "work" else match_place_or_home(place)
