"""Where someone the person knows lives or works, said without their name (F8): "my brother
lives in Hull", "my mum works at Tesco", "our son moved to Leeds". With a name ("my sister
Ana lives in York") the people rules read it; without one the learned reading took the place
for a name ("your brother lives in is called Hull"), and "where does my brother live?" then
had nothing right to answer with.
"""

from __future__ import annotations

import re

from familiars.memory._offline._birthdays import RELATIONS, relation_kind
from familiars.memory._offline._objects import Fact, topic_key

_PLACE_OF = re.compile(
    r"^(?:my|our)\s+(?P<mod>(?:older|elder|younger|little|big|baby|best|eldest|youngest|old)\s+)?"
    rf"(?P<rel>{RELATIONS})\s+(?P<verb>lives|works|is\s+living|is\s+working|moved|has\s+moved)"
    r"\s+(?P<prep>in|at|to|for|near)\s+(?P<place>(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*){0,3})"
    r"\s*[.!]*$",
    re.IGNORECASE,
)


def match_relative_place(clause: str) -> Fact | None:
    """ "The user's brother lives in Hull." for "my brother lives in Hull"; None else."""
    m = _PLACE_OF.match(clause.strip())
    if m is None:
        return None
    rel = ((m.group("mod") or "") + m.group("rel")).lower()
    verb = re.sub(r"\s+", " ", m.group("verb").lower())
    content = f"The user's {rel} {verb} {m.group('prep').lower()} {m.group('place')}."
    topic = topic_key(m.group("rel"))
    kind = relation_kind(m.group("rel"))
    return Fact("user", "relation", content, (kind, f"topic:{topic}"), f"{kind}:{topic}:place", 0.7)


def one_record_per_someone(facts: list[Fact]) -> list[Fact]:
    """``facts`` without a liking of someone named in another of them (F21): "I really love
    my dog Biscuit" was noted twice, as "The user likes their dog Biscuit." beside "The
    user's dog is called Biscuit."; the naming record is the one kept."""
    named = {
        tag.removeprefix("topic:")
        for f in facts
        if "likes" not in f.tags
        for tag in f.tags
        if tag.startswith("topic:")
    }
    return [
        f
        for f in facts
        if "likes" not in f.tags
        or not any(f.key.startswith("topic:") and f.key.endswith("-" + n) for n in named)
    ]
