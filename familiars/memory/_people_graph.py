"""The people in a person's life, as a graph built from their records (issue 25).

"My sister Emma", "Emma's husband Joaquin" and "my boss Priya" are three records; joined they
answer "what's my sister's husband called?". :func:`edges_in` reads the typed relations a
record states ("The user's sister is called Emma.", "Emma's husband is called Joaquin.",
"The user's sister's husband is called Joaquin.", "The user is married to Sam.", "The user has
a dog called Rex."); :func:`build_graph` joins a person's records into :class:`PeopleGraph`:
people (entities) with how familiar they are (mentions, decaying with time unseen), and edges
with ``valid_from`` (the record's time) and ``superseded_at`` (when a later record replaced
it: a new boss, a new partner), so "who was my boss before?" stays answerable.
:meth:`PeopleGraph.walk` follows a question's chain ("my sister's husband") to the records
that say it. Everything here is pure and rebuildable from the records: the SQLite tables
(:mod:`._people_index`) are a copy.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from familiars.llm import text_cache
from familiars.memory._records import MemoryRecord, parse_ts

USER = "user"


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: How fast familiarity fades with time unseen (days for it to halve).
FAMILIARITY_HALF_LIFE_DAYS = 60.0

#: Relation words and the relation they name.
_REL_SYNONYMS: dict[str, str] = {
    "mum": "mother",
    "mom": "mother",
    "mam": "mother",
    "dad": "father",
    "grandma": "grandmother",
    "gran": "grandmother",
    "granny": "grandmother",
    "nan": "grandmother",
    "nana": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "granddad": "grandfather",
    "auntie": "aunt",
    "kid": "child",
    "coworker": "colleague",
    "co-worker": "colleague",
    "neighbor": "neighbour",
    "roommate": "flatmate",
    "housemate": "flatmate",
    "manager": "boss",
    "fiance": "fiance",
    "fiancé": "fiance",
    "fiancee": "fiance",
    "fiancée": "fiance",
    "landlady": "landlord",
    "puppy": "dog",
    "kitten": "cat",
    "pup": "dog",
    "missus": "wife",
    "wifey": "wife",
    "hubby": "husband",
    "sis": "sister",
    "bro": "brother",
    "bestie": "friend",
    "bff": "friend",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "children": "child",
    "kids": "child",
    "stepmum": "stepmother",
    "stepmom": "stepmother",
    "stepdad": "stepfather",
}
_RELATIONS = _word_set(
    "mother father sister brother son daughter wife husband partner spouse girlfriend "
    "boyfriend fiance grandmother grandfather aunt uncle cousin niece nephew child baby "
    "grandson granddaughter stepmother stepfather stepsister stepbrother twin friend boss "
    "colleague neighbour flatmate landlord teacher mentor therapist doctor coach student "
    "dog cat rabbit hamster parrot horse pet"
)
_REL_WORDS = sorted({*_RELATIONS, *_REL_SYNONYMS}, key=len, reverse=True)
#: One value at a time: a new one supersedes the old ("my new boss is Dana").
SINGLE_VALUED = _word_set(
    "boss partner spouse husband wife girlfriend boyfriend fiance landlord therapist"
)
_SPOUSES = frozenset({"husband", "wife", "partner", "spouse"})
_MODS = (
    r"(?:(?:older|elder|younger|little|big|baby|best|new|old|twin|step|eldest|youngest|late)\s+)?"
)
_REL = rf"(?P<rel>{_MODS}(?:{'|'.join(re.escape(w) for w in _REL_WORDS)}))"
_NAME = r"(?P<name>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)"
_OWNER = r"(?P<owner>[A-Z][\w'-]*)"
_IS = r"(?:\s+is\s+(?:called|named)|\s+is|'s\s+name\s+is|\s+goes\s+by|,)\s+"
_NOT_NAMES = _word_set("The User I He She They It A An This That My Your")

#: Several named at once: "The user's daughters are called Susan and Claire." (s33 U8).
_NAMES = r"(?P<names>[A-Z][\w'-]*(?:(?:,\s*|,?\s+and\s+)[A-Z][\w'-]*)+)"
_ARE = r"\s+are(?:\s+called|\s+named)?\s+"
_PLURAL = re.compile(rf"^(?:The user|{_OWNER})'s {_REL}s?{_ARE}{_NAMES}\b")
#: "The user has two kids called Sam and Lila.", "... a son called Sam and a daughter called
#: Lily.", "The user has twin boys, Arlo and Finn.": every part, each name its own person.
_HAS_PART = re.compile(
    rf"\b(?:a|an|one|\w+)\s+(?:{_REL}s?|(?P<kids>boys|girls))(?:\s+(?:called|named)|,)\s+"
    r"(?P<names>[A-Z][\w'-]*(?:(?:,\s*|,?\s+and\s+)[A-Z][\w'-]*)*)"
)

#: "twin boys", "two girls": sons and daughters (only as the user's, named in a list).
_KIDS = {"boys": "son", "girls": "daughter"}

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "user_rel_rel",
        re.compile(rf"^The user's {_REL}'s\s+{_REL.replace('<rel>', '<rel2>')}{_IS}{_NAME}\b"),
    ),
    ("user_rel_is", re.compile(rf"^The user's {_REL}{_IS}{_NAME}\b")),
    ("user_rel_name", re.compile(rf"^The user's {_REL}\s+{_NAME}\b")),
    (
        "user_has",
        re.compile(rf"^The user has (?:a|an|one|\w+)\s+{_REL}s?\s+(?:called|named)\s+{_NAME}\b"),
    ),
    ("user_married", re.compile(rf"^The user is (?:married|engaged) to {_NAME}\b")),
    ("name_is_user_rel", re.compile(rf"^{_NAME} is the user's {_REL}\b")),
    ("owner_rel_is", re.compile(rf"^{_OWNER}'s {_REL}{_IS}{_NAME}\b")),
    ("owner_rel_name", re.compile(rf"^{_OWNER}'s {_REL}\s+{_NAME}\b")),
    ("owner_married", re.compile(rf"^{_OWNER} is (?:married|engaged) to {_NAME}\b")),
)


def relation_of(word: str) -> str:
    """ "older sister" -> "sister", "mum" -> "mother", "best friend" -> "friend"."""
    base = word.lower().split()[-1]
    return _REL_SYNONYMS.get(base, base)


@dataclass(frozen=True)
class Said:
    """One relation a text states: ``src`` is ``rel`` of... no: ``dst`` is ``src``'s ``rel``.
    ``via`` is set for "the user's sister's husband": ``dst`` is the ``rel`` of the user's
    ``via``."""

    src: str
    rel: str
    dst: str
    via: str | None = None


def edges_in(text: str) -> list[Said]:
    """The relations ``text`` states (see the module docstring); [] when none."""
    return list(_edges_of(text))


def own_edges(contents: Sequence[str]) -> tuple[tuple[str, Said], ...]:
    """(text, relation) for each relation of the person's own (``src`` the user, not through
    another: "The user's sister is called Emma.") that ``contents`` state, in order. The
    offline answers read them off every live record each turn; they are read once while the
    texts are the same (a person's records change far less often than they ask)."""
    return _own_edges(tuple(contents))


@text_cache
@functools.lru_cache(maxsize=16)
def _own_edges(contents: tuple[str, ...]) -> tuple[tuple[str, Said], ...]:
    return tuple((c, e) for c in contents for e in _edges_of(c) if e.src == USER and e.via is None)


@text_cache
@functools.lru_cache(maxsize=65536)
def _edges_of(text: str) -> tuple[Said, ...]:
    """:func:`edges_in`, each text read once (most hold none)."""
    return tuple(_read_edges(text.strip()))


def _read_edges(text: str) -> list[Said]:
    several = _PLURAL.match(text)
    if several is not None:
        owner = several.group("owner") or USER
        names = re.split(r",\s*|,?\s+and\s+", several.group("names"))
        rel = relation_of(several.group("rel"))
        if not _not_a_name(owner) or owner == USER:
            return [Said(owner, rel, n) for n in names if not _not_a_name(n) and n != owner]
    if text.startswith("The user has "):
        found = [
            Said(USER, _KIDS.get(m.group("kids") or "", "") or relation_of(m.group("rel")), name)
            for m in _HAS_PART.finditer(text)
            for name in re.split(r",\s*|,?\s+and\s+", m.group("names"))
            if not _not_a_name(name)
        ]
        if len(found) > 1:  # one alone: the patterns below keep a surname ("Emma Stone")
            return found
    for kind, pattern in _PATTERNS:
        m = pattern.match(text)
        if m is None or _not_a_name(m.groupdict().get("name")):
            continue
        groups = m.groupdict()
        name = _clean_name(groups["name"])
        if kind == "user_rel_rel":
            return [Said(USER, relation_of(groups["rel2"]), name, via=relation_of(groups["rel"]))]
        if kind in ("user_rel_is", "user_rel_name", "user_has", "name_is_user_rel"):
            return [Said(USER, relation_of(groups["rel"]), name)]
        if kind == "user_married":
            return [Said(USER, "spouse", name)]
        owner = groups["owner"]
        if _not_a_name(owner) or owner == name:
            continue
        if kind == "owner_married":
            return [Said(owner, "spouse", name), Said(name, "spouse", owner)]
        return [Said(owner, relation_of(groups["rel"]), name)]
    return []


def _not_a_name(word: str | None) -> bool:
    return word is None or word.split()[0] in _NOT_NAMES


def _clean_name(name: str) -> str:
    """ "Emma Is" never: a second word is kept only when it is a surname-like capital."""
    first, *rest = name.split()
    return name if rest and rest[0] not in _NOT_NAMES and rest[0].isalpha() else first


@dataclass
class Edge:
    src: str
    rel: str
    dst: str
    record_id: str
    valid_from: str
    superseded_at: str | None = None

    @property
    def current(self) -> bool:
        return self.superseded_at is None


@dataclass
class Person:
    name: str
    mentions: int = 0
    first_seen: str = ""
    last_seen: str = ""
    record_ids: list[str] = field(default_factory=list)

    def familiarity(self, now: datetime) -> float:
        """Grows with mentions, halves every ``FAMILIARITY_HALF_LIFE_DAYS`` unseen."""
        seen = parse_ts(self.last_seen)
        days = max(0.0, (now - seen).total_seconds() / 86400) if seen else 365.0
        grown = min(1.0, 0.3 + 0.7 * math.log1p(self.mentions) / math.log(10))
        return round(grown * 0.5 ** (days / FAMILIARITY_HALF_LIFE_DAYS), 3)


@dataclass
class PeopleGraph:
    people: dict[str, Person] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def out(self, src: str, rel: str, *, past: bool = False) -> list[Edge]:
        """Edges from ``src`` naming ``rel`` (a spouse word matches any spouse word), the
        current ones first, newest first; with ``past`` the superseded ones lead."""
        wanted = _SPOUSES if rel in _SPOUSES else {rel}
        found = [e for e in self.edges if e.src == src and e.rel in wanted]
        return sorted(found, key=lambda e: (e.current != past, e.valid_from), reverse=True)

    def walk(self, start: str, chain: Sequence[str], *, past: bool = False) -> list[Edge]:
        """The edges from ``start`` along ``chain`` (relation words): the path, or []."""
        path: list[Edge] = []
        here = start
        for i, rel in enumerate(chain):
            options = self.out(here, rel, past=past and i == len(chain) - 1)
            if not options:
                return []
            path.append(options[0])
            here = options[0].dst
        return path

    def relations_to_user(self, name: str) -> list[str]:
        return sorted({e.rel for e in self.edges if e.src == USER and e.dst == name and e.current})


_REL_BARE = _REL.replace("(?P<rel>", "(?:")
_MY_CHAIN = re.compile(rf"\bmy\s+({_REL_BARE}(?:'s\s+{_REL_BARE})*)", re.I)
_NAME_CHAIN = re.compile(rf"(?-i:\b([A-Z][\w-]+))'s\s+({_REL_BARE}(?:'s\s+{_REL_BARE})*)", re.I)
#: "my old boss", "who was my boss before?"; not "how old is my son?" or "8 years old" (an
#: age: the current record answers it, never the one a correction replaced).
_PAST = re.compile(
    r"\b(?:before|used to|previous|former|(?<!\bhow\s)(?<!\byears\s)old|last|earlier|ex)\b",
    re.I,
)


#: "who is Jo married to?", "is my sister engaged to ...": the spouse of a name or relation.
_MARRIED_TO = re.compile(
    rf"(?:\bmy\s+({_REL_BARE})|(?-i:\b([A-Z][\w-]+)))\s+(?:is\s+|got\s+)?(?:married|engaged)\s+to\b",
    re.I,
)


def asks_about_people(question: str) -> bool:
    """Whether ``question`` names a relation chain ("my sister", "Emma's husband", "Jo
    married to") at all: the graph is built only then."""
    return bool(
        _MY_CHAIN.search(question) or _NAME_CHAIN.search(question) or _MARRIED_TO.search(question)
    )


def question_paths(question: str, graph: PeopleGraph) -> list[list[Edge]]:
    """The paths a question asks along: "what's my sister's husband called?" -> [user
    -sister-> Emma, Emma -husband-> Joaquin]; "Emma's husband" starts at Emma. "before" /
    "previous" / "used to" ask for the superseded edge."""
    past = _PAST.search(question) is not None
    paths: list[list[Edge]] = []
    starts = [(USER, m.group(1)) for m in _MY_CHAIN.finditer(question)]
    starts += [(m.group(1), m.group(2)) for m in _NAME_CHAIN.finditer(question)]
    for start, chain_text in starts:
        if start != USER and start not in graph.people:
            continue
        chain = [relation_of(part.strip()) for part in re.split(r"'s\s+", chain_text)]
        path = graph.walk(start, chain, past=past)
        if path and path not in paths:
            paths.append(path)
    # "who's my friend married to?" asks the spouse: that walk first, the friend after.
    return _spouse_paths(question, graph, past, paths) + paths


def _spouse_paths(
    question: str, graph: PeopleGraph, past: bool, found: list[list[Edge]]
) -> list[list[Edge]]:
    """ "who is Jo married to?": Jo's husband, wife, partner or fiance."""
    paths: list[list[Edge]] = []
    for m in _MARRIED_TO.finditer(question):
        start, chain = (USER, [relation_of(m.group(1))]) if m.group(1) else (m.group(2), [])
        if start != USER and start not in graph.people:
            continue
        for rel in ("husband", "wife", "partner", "spouse", "fiance"):
            path = graph.walk(start, [*chain, rel], past=past)
            if path and path not in found and path not in paths:
                paths.append(path)
                break
    return paths


#: A pet the writer kept by its breed or kind ("a jack russell called Pickles", tag ``pet``).
_PET_BY_KIND = re.compile(
    rf"^The user has (?:a|an|one|\w+)\s+[\w' -]+?\s+(?:called|named)\s+{_NAME}\b"
)


def _pet_in(rec: MemoryRecord) -> list[Said]:
    m = _PET_BY_KIND.match(rec.content.strip()) if "pet" in rec.tags else None
    if m is None or _not_a_name(m.group("name")):
        return []
    return [Said(USER, "pet", _clean_name(m.group("name")))]


def build_graph(records: Iterable[MemoryRecord]) -> PeopleGraph:
    """One person's graph from their user-scope records, live and replaced (a replaced
    record's edges carry ``superseded_at``)."""
    recs = sorted(records, key=lambda r: (r.ts, r.id))
    replaced = {r.supersedes: r.ts for r in recs if r.supersedes}
    graph = PeopleGraph()
    for rec in recs:
        if rec.deprecated and rec.id not in replaced:
            continue  # merged away or expired: its successor (if any) says it
        for said in edges_in(rec.content) or _pet_in(rec):
            src = _via(graph, said) if said.via else said.src
            if src is None:
                continue
            edge = Edge(src, said.rel, said.dst, rec.id, rec.ts, replaced.get(rec.id))
            _add_edge(graph, edge)
    _count_mentions(graph, recs)
    return graph


def _via(graph: PeopleGraph, said: Said) -> str | None:
    assert said.via is not None
    options = graph.out(USER, said.via)
    return options[0].dst if options else None


def _add_edge(graph: PeopleGraph, edge: Edge) -> None:
    for old in graph.edges:
        same = (old.src, old.rel, old.dst) == (edge.src, edge.rel, edge.dst)
        if same and old.current:
            return  # said again: the first saying stands
        if same and edge.current:  # a record rewritten for another reason ("Lila not Lily")
            graph.edges.remove(old)  # still says it: not "was your child until ..."
            break
        replaces = edge.rel in SINGLE_VALUED and (old.src, old.rel) == (edge.src, edge.rel)
        if replaces and old.current and edge.current and old.dst != edge.dst:
            old.superseded_at = edge.valid_from
    graph.edges.append(edge)
    for name in (edge.src, edge.dst):
        if name != USER:
            graph.people.setdefault(name, Person(name))


def _count_mentions(graph: PeopleGraph, recs: Sequence[MemoryRecord]) -> None:
    for name, person in graph.people.items():
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        for rec in recs:
            if rec.deprecated or not pattern.search(rec.content):
                continue
            person.mentions += 1
            person.record_ids.append(rec.id)
            person.first_seen = person.first_seen or rec.ts
            person.last_seen = max(person.last_seen, rec.ts)


__all__ = [
    "FAMILIARITY_HALF_LIFE_DAYS",
    "asks_about_people",
    "Edge",
    "PeopleGraph",
    "Person",
    "Said",
    "build_graph",
    "edges_in",
    "own_edges",
    "question_paths",
    "relation_of",
]
