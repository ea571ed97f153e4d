"""Someone kept by name grows older: "oh and Rosie turned 8 last week!", "Tom's 41 now",
"my daughter Rosie is 8 now".

A new age of a named person is a change of the record that holds them (one record per
person, its history kept): the age it holds is replaced ("Rosie is 7" -> "Rosie is 8"), or
one is added when it held none, and the reply says "Updated: ... (was ...)". Only a record
that names the person as a relative or a pet is changed; a name no record holds keeps nothing
here (the other readers still see the message).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._kept import live_of
from familiars.memory._offline._superseding import superseding
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp

#: "Rosie turned 8", "Rosie just turned 8", "Rosie's 8 now", "Rosie is now 8", "Rosie is 8
#: now", and said plainly, "Leo is 7 and Ava is 4" (it kept nothing: tester s39): a name,
#: then an age.
_NEW_AGE = re.compile(
    r"\b(?P<name>(?-i:[A-Z][a-zà-ÿ-]+))(?:"
    r"\s+(?:just\s+|has\s+just\s+|has\s+|finally\s+)?turned\s+(?P<a>\d{1,3})"
    r"|(?:'s|\s+is)\s+now\s+(?P<b>\d{1,3})"
    r"|(?:'s|\s+is)\s+(?P<c>\d{1,3})(?:\s+now|\s+years?\s+old)?"
    # said plainly, a number is no age with a measure or a score after it
    r"(?!\s*(?:[-:.,/]\d|out\s+of|of\s|in\s|on\s|at\s|times?|points?|kg|kilos?|stone|"
    r"lbs?|ft|feet|foot|inches|cm|miles?|km)\b)"
    r")\b(?!\s*(?:%|am|pm|o'?clock|minutes?|hours?|days?|weeks?|months?|quid|pounds?|dollars?))",
)
#: The age a record holds: "is 7", "aged 7", "7 years old", "age 7".
_HELD_AGE = re.compile(r"\b(?:is|aged|age)\s+(?P<n>\d{1,3})\b|\b(?P<m>\d{1,3})\s+years?\s+old\b")

#: A record that only names someone: "The user's son is called Alfie."
_CALLED = re.compile(r"^(?P<who>The user's [\w -]+?) is called [\w'-]+\.$")


def aged_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord]
) -> list[WriteOp]:
    """``writes`` with the record of each named person said to be a new age updated."""
    out = list(writes)
    taken = {w.entry.supersedes_id for w in writes if w.entry.supersedes_id}
    aged: dict[str, tuple[MemoryRecord, str, set[str]]] = {}  # one update a record
    for m in _NEW_AGE.finditer(text):
        if text[m.end() :].lstrip().startswith("?"):  # "is Leo 7?" asks
            continue
        rec = _held(m["name"], existing)
        if rec is None or rec.id in taken:
            continue
        _, said, topics = aged.get(rec.id, (rec, rec.content, set()))
        content = _aged(said, m["name"], m["a"] or m["b"] or m["c"])
        if content != said:
            aged[rec.id] = (rec, content, topics | {f"topic:{m['name'].lower()}"})
    for rec, content, topics in aged.values():
        out = [w for w in out if w.op == "skip" or not topics & set(w.entry.tags)]
        out.append(superseding(rec, content, text))
    return out


def _held(name: str, existing: Sequence[MemoryRecord]) -> MemoryRecord | None:
    said = re.compile(rf"\b{re.escape(name)}\b")
    kept = [r for r in live_of(existing) if r.category == "relation" and said.search(r.content)]
    return max(kept, key=lambda r: (r.ts, r.id), default=None)


def _aged(content: str, name: str, age: str) -> str:
    """``content`` with the age it holds made ``age``, or the age added after it. A record of
    several people ("The user's kids are Leo and Ava; Leo is 7.") holds an age for each."""
    own = re.search(rf"\b{re.escape(name)}(?:'s|\s+is|\s+aged|,)\s+(?P<n>\d{{1,3}})\b", content)
    held = own or (None if ";" in content else _HELD_AGE.search(content))
    named = _CALLED.match(content)
    if held is None and named is not None:  # "The user's son is called Alfie." -> "... Alfie is 9."
        return f"{named['who']} {name} is {age}."
    if held is None:
        return f"{content.rstrip('.')}; {name} is {age}."
    at = "n" if held["n"] else "m"
    return content[: held.start(at)] + age + content[held.end(at) :]
