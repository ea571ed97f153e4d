"""Someone close who has died: "my late husband Geoffrey passed in 2019", "my husband
Geoffrey died in 2019", "I lost my wife Mary two years ago".

Such a clause says a relation and that it ended in a death; a fact that says the relation as
current ("your husband is Geoffrey") would be wrong, and dropping the clause loses the person
who matters most. It is kept as one relation record that says both ("The user's late husband
Geoffrey died in 2019."), keyed as the relation is (``family:<name>``), so it takes the place
of a record that named him as living, the people graph reads "late husband" as a husband, and
a question about him ("what was my husband's name?") finds him. Pets are not read here: a
pet's death retires its record (:func:`~._misread.ended_writes`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from familiars.memory._offline._objects import Fact, topic_key
from familiars.memory._people_graph import edges_in, relation_of
from familiars.memory._records import MemoryRecord, is_live
from familiars.memory._writer._schema import WriteOp

#: People one mourns by relation (pets are left to ``_misread``).
_KIN = (
    r"(?:husband|wife|partner|spouse|boyfriend|girlfriend|fianc[eé]e?|mother|father|mum|mom|"
    r"dad|son|daughter|brother|sister|grandmother|grandfather|gran|granny|nan|nana|grandma|"
    r"grandpa|grandad|granddad|grandson|granddaughter|aunt|auntie|uncle|cousin|niece|nephew|"
    r"friend|best\s+friend|hubby|twin|stepmother|stepfather|stepmum|stepdad)"
)
_NAME = r"(?-i:(?P<name>[A-Z][\w'-]+))"
#: "passed" and "passed on" only at the clause's end or before when ("passed her driving
#: test", "passed on the message" are no deaths); "died laughing" is none either.
_SOON = (
    r"(?=\s*$|\s+(?:in\s+(?:(?-i:[A-Z][a-z]+)\s+)?(?:19|20)\d\d|last\s+\w+|recently|this\s+year"
    r"|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:years?|months?|weeks?)"
    r"\s+ago)\b)"
)
_DIED = (
    rf"(?:passed\s+away|(?:passed\s+on|passed){_SOON}|was\s+killed|lost\s+(?:his|her|their)"
    r"\s+(?:long\s+|brave\s+)?(?:battle|fight)|died(?!\s+(?:laughing|inside|a\s+little|of\s+"
    r"(?:embarrassment|shame|boredom|laughter|cringe|fright|jealousy)))\b)"
)
_WHEN = (
    r"(?:\s+(?P<when>in\s+(?:(?-i:[A-Z][a-z]+)\s+)?(?:19|20)\d\d|last\s+(?:year|month|week|spring|"
    r"summer|autumn|winter|christmas)|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|\d+)"
    r"\s+(?:years?|months?|weeks?)\s+ago|recently|this\s+year))?"
)
_LATE = re.compile(
    rf"^(?:and\s+|but\s+|sadly\s+)*(?:my|our)\s+late\s+(?P<rel>{_KIN})\s+{_NAME}"
    rf"(?:\s*,?\s+(?:who\s+)?(?:sadly\s+)?{_DIED})?{_WHEN}\b",
    re.I,
)
_DIED_NAMED = re.compile(
    rf"^(?:and\s+|but\s+|sadly\s+)*(?:my|our)\s+(?P<rel>{_KIN})\s*,?\s+{_NAME}\s*,?\s+"
    rf"(?:sadly\s+)?{_DIED}{_WHEN}\b",
    re.I,
)
_LOST = re.compile(
    rf"^(?:and\s+|but\s+|sadly\s+)*(?:i|we)\s+(?:sadly\s+)?lost\s+(?:my|our)\s+(?P<rel>{_KIN})\s*,?\s+"
    rf"{_NAME}(?:\s+to\s+[\w ]+?)?{_WHEN}\b",
    re.I,
)
_YEARS = {
    w: n
    for n, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"], 1
    )
}


def _when(said: str | None, now: datetime) -> str:
    """ " in 2019", " in 2024" for "two years ago" (a year, so it does not go stale)."""
    if not said:
        return ""
    said = " ".join(said.split())
    if said.lower() == "last year":
        return f" in {now.year - 1}"
    m = re.match(r"^(\w+)\s+years?\s+ago$", said, re.I)
    if m is not None:
        n = 1 if m.group(1).lower() in ("a", "one") else _YEARS.get(m.group(1).lower())
        n = n if n is not None else int(m.group(1)) if m.group(1).isdigit() else None
        return f" in {now.year - n}" if n is not None else f" {said}"
    return f" {said}"


def match_late(clause: str, now: datetime) -> Fact | None:
    """The relation who died that ``clause`` states (see the module docstring); None when it
    states none."""
    text = clause.strip(" .!")
    m = _LATE.match(text) or _DIED_NAMED.match(text) or _LOST.match(text)
    if m is None:
        return None
    rel = " ".join(m.group("rel").lower().split())
    rel = rel if rel == "best friend" else relation_of(rel)
    name = m.group("name")
    content = f"The user's late {rel} {name} died{_when(m.group('when'), now)}."
    key = topic_key(name)
    tags = ("family", f"topic:{key}", "deceased")
    return Fact("user", "relation", content, tags, f"family:{key}", 0.85)


def late_takes_place(writes: Sequence[WriteOp], existing: Sequence[MemoryRecord]) -> None:
    """A death told of someone kept as living ("my husband is called Geoffrey", then "my
    husband Geoffrey died in 2019"): the new record takes the old one's place (an update),
    so the old is not also retired as a pet's would be ("no longer has their husband")."""
    for write in writes:
        if write.op != "add" or "deceased" not in write.entry.tags:
            continue
        said = edges_in(write.entry.content)
        for rec in existing:
            if rec.scope != "user" or not is_live(rec):
                continue
            if any((e.rel, e.dst) == (s.rel, s.dst) for e in edges_in(rec.content) for s in said):
                write.op, write.entry.supersedes_id = "update", rec.id
                break


__all__ = ["late_takes_place", "match_late"]
