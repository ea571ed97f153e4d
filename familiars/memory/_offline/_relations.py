"""Offline recognisers for how the people around a person are related (issue 25): "my boss
is Priya", "Priya is my boss", "Emma's husband is called Joaquin", "my sister's husband is
Joaquin", "my sister Emma married Joaquin". Each becomes a relation record in the shape
:func:`~familiars.memory._people_graph.edges_in` reads, so the people graph is built from
what the writer stored. Closed vocabularies, as in :mod:`._people`: a missed relation costs
less than a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._objects import Fact, _words, topic_key
from familiars.memory._people_graph import _REL, edges_in, relation_of

#: A name of one or two capitalised words ("Priya", "Professor Crumbs", "Mr Pickles").
#: A name's letters after its capital: "O'Brien" keeps its apostrophe, "my son Richard's
#: children" names Richard (a possessive).
_LETTERS = r"(?:[\w-]|'(?!s\b))+"
_NAME = (
    rf"(?-i:(?P<name>[A-Z]{_LETTERS}(?:\s+(?!(?:I|And|But|The|Is|So|On|In|At|To|My|We|He|She|It)\b)"
    rf"[A-Z]{_LETTERS})?))"
)
_OWNER = rf"(?-i:(?P<owner>[A-Z]{_LETTERS}))"
_REL2 = _REL.replace("<rel>", "<rel2>")
_IS = r"\s+(?:is|was)\s+(?:called\s+|named\s+)?"
#: "is a pilot called Marcus": the job said before the name is kept beside it.
_IS_JOB_NAMED = (
    r"\s+(?:is|was)\s+(?:an?\s+(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:called|named)\s+)?"
)
_NOT_NAMES = frozenset(_words("I My Your His Her Our Their The A An And But So It This That"))
#: Animals among the relation words, and the people outside the family: a relative's dog
#: is part of the person's family life ("my nan's cat is called Tiddles"); a friend's or a
#: neighbour's dog is someone else's ("my friend's dog is called Max" keeps nothing).
_ANIMALS = frozenset(_words("dog cat rabbit hamster parrot horse pet"))
_OUTSIDE_FAMILY = frozenset(
    _words(
        "friend boss colleague neighbour flatmate landlord",
        "teacher mentor therapist doctor coach",
    )
)

_MY_REL_REL = re.compile(rf"^my\s+{_REL}'s\s+{_REL2}(?:{_IS_JOB_NAMED}|{_IS}){_NAME}\b", re.I)
_OWNER_REL_IS = re.compile(rf"^{_OWNER}'s\s+{_REL}(?:{_IS_JOB_NAMED}|{_IS}){_NAME}\b", re.I)
_OWNER_REL_NAME = re.compile(rf"^{_OWNER}'s\s+{_REL}\s+{_NAME}\b", re.I)
_MY_REL_IS = re.compile(rf"^my\s+{_REL}(?:{_IS_JOB_NAMED}|{_IS}){_NAME}\b", re.I)
#: "Max is my friend's golden retriever" is about the friend's dog, not a friend called Max.
_NAME_IS_MY_REL = re.compile(rf"^{_NAME}\s+is\s+my\s+{_REL}\b(?!'s\b|s'\s)", re.I)
_MY_REL_NAME = re.compile(rf"\bmy\s+{_REL}\s+{_NAME}\b", re.I)
#: "I have a flatmate called Devon", "got a roommate named Devon".
_HAVE_REL_NAMED = re.compile(
    rf"^(?:i|we)\s*(?:have|'ve\s+got|have\s+got|got)\s+(?:a|an|one)\s+{_REL}\s+"
    rf"(?:called|named)\s+{_NAME}$",
    re.I,
)
_MARRIED = re.compile(
    rf"^my\s+{_REL}\s+{_OWNER}\s+(?:just\s+)?(?:got\s+married\s+to|married|is\s+married\s+to|"
    rf"is\s+engaged\s+to|got\s+engaged\s+to)\s+{_NAME}\b",
    re.I,
)


def _fact(content: str, name: str) -> Fact:
    key = topic_key(name)
    return Fact("user", "relation", content, ("people", f"topic:{key}"), f"rel:{key}", 0.7)


def _named(*names: str | None) -> bool:
    return all(n is not None and n not in _NOT_NAMES for n in names)


def _job_of(m: re.Match[str]) -> str:
    """ ", a pilot" when the clause said the person's job before their name."""
    job = m.groupdict().get("job")
    return f", {'an' if job[0] in 'aeiou' else 'a'} {job}" if job else ""


def match_relations(clause: str) -> list[Fact]:
    """The relations ``clause`` states (see the module docstring)."""
    text = clause.strip(" .!")
    m = _MY_REL_REL.match(text)
    if m and _named(m["name"]):
        rel, rel2 = relation_of(m["rel"]), relation_of(m["rel2"])
        if rel in _OUTSIDE_FAMILY and rel2 in _ANIMALS:
            return []
        said = f"The user's {rel}'s {rel2} is called {m['name']}"
        return [_fact(f"{said}{_job_of(m)}.", m["name"])]
    m = _MARRIED.match(text)
    if m and _named(m["owner"], m["name"]):
        return [
            _fact(f"The user's {relation_of(m['rel'])} is called {m['owner']}.", m["owner"]),
            _fact(f"{m['owner']} is married to {m['name']}.", m["name"]),
        ]
    for pattern in (_OWNER_REL_IS, _OWNER_REL_NAME):
        m = pattern.match(text)
        if m and _named(m["owner"], m["name"]) and m["owner"] != m["name"]:
            said = f"{m['owner']}'s {relation_of(m['rel'])} is called {m['name']}"
            return [_fact(f"{said}{_job_of(m)}.", m["name"])]
    for pattern in (_MY_REL_IS, _NAME_IS_MY_REL, _HAVE_REL_NAMED):
        m = pattern.match(text)
        if m and _named(m["name"]):
            said = f"The user's {relation_of(m['rel'])} is called {m['name']}"
            return [_fact(f"{said}{_job_of(m)}.", m["name"])]
    # Said in passing ("... with my friend Marco"); a clause that starts with one is about
    # that person ("My friend Sam is allergic to nuts"): nothing of it is the user's.
    return [
        _fact(f"The user's {relation_of(p['rel'])} is called {p['name']}.", p["name"])
        for p in _MY_REL_NAME.finditer(text)
        if _named(p["name"]) and p.start() > 0
    ]


def relation_facts(clause: str, found: Sequence[Fact]) -> list[Fact]:
    """:func:`match_relations`, less what ``found`` (the other recognisers) already says."""
    known = {(s.src, s.rel, s.dst) for f in found for s in edges_in(f.content)}
    return [
        f
        for f in match_relations(clause)
        if not {(s.src, s.rel, s.dst) for s in edges_in(f.content)} <= known
    ]


__all__ = ["match_relations", "relation_facts"]
