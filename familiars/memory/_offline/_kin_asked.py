"""A question about a relative the person has not told of, while a near one is kept: "do i
have a son?" with only a grandson kept.

The word-overlap answer took "grandson" for "son" and said "Your grandson is called Oliver.",
a confident wrong answer. A relation asked must be the relation kept: here the kept relations
whose word holds the one asked, or is held by it (grandson and son, stepsister and sister,
grandmother and mother), are found so the reply can say "I don't know of a son; you told me
about your grandson Oliver." Partners count as one relation (KIN), as in :mod:`._asking`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._whose import KIN
from familiars.memory._people_graph import _REL_BARE, own_edges, relation_of

_ASKED = re.compile(rf"\b(?:my|a|an|any|some)\s+({_REL_BARE})s?\b", re.I)
_PETS = frozenset(["dog", "cat", "rabbit", "hamster", "parrot", "horse", "pet"])


def kin_not_kept(
    question: str, contents: Sequence[str]
) -> tuple[str, list[tuple[str, str]]] | None:
    """(the relation ``question`` asks about, [(relation, name)] of the kept near ones) when
    it asks about a relation none of ``contents`` (the person's live records) states and a
    near one is kept; None otherwise (the relation is kept, or nothing near it is)."""
    asked = [relation_of(m.group(1)) for m in _ASKED.finditer(question)]
    asked = [a for a in asked if a not in _PETS]
    if len(asked) != 1:
        return None
    rel = asked[0]
    wanted = KIN.get(rel, {rel})
    kept = [e for _, e in own_edges(contents)]
    if any(e.rel in wanted or (wanted & KIN["partner"] and e.rel in KIN["partner"]) for e in kept):
        return None
    near = [
        (e.rel, e.dst)
        for e in kept
        if e.rel not in _PETS and (e.rel.endswith(rel) or rel.endswith(e.rel))
    ]
    return (rel, list(dict.fromkeys(near))) if near else None


__all__ = ["kin_not_kept"]
