"""The People page's picture and list, drawn on the server from a person's people graph
(issue 25) as plain data for ``people.html`` (no script, no inline styles: classes and
presentation attributes, so the page's CSP holds; names are the person's own words and reach
the page only through the template's autoescape, in the SVG's text as in the list).

- :func:`people_drawing` - the person in the middle; the people related to them on a ring
  around them, the people known only through someone else ("Emma's husband") on an outer
  ring beside that someone; an edge per relation, labelled ("sister", "Emma's husband"),
  past ones (superseded) dashed and grey with "was ... until DATE"; the more familiar a person,
  the larger and stronger their node.
- :func:`people_rows` - the same people as a list, the most familiar first, with who they are
  now and were, for screen readers and small phones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlencode

from familiars.bot._commands._people import owner_of, relations_of
from familiars.memory import PeopleGraph, Person

USER = "user"
#: Only the most familiar people are drawn (all are listed).
MAX_DRAWN = 40
NAME_CHARS = 22
MARGIN = 90
#: Room along a ring per node (px), so neighbours' names do not run into each other.
ROOM = 105


@dataclass(frozen=True)
class PersonNode:
    name: str
    label: str
    x: int
    y: int
    r: int
    opacity: float
    familiarity: float
    you: bool = False


@dataclass(frozen=True)
class RelationEdge:
    x1: int
    y1: int
    x2: int
    y2: int
    label: str
    lx: int
    ly: int
    past: bool
    title: str


@dataclass(frozen=True)
class PeopleDrawing:
    width: int
    height: int
    nodes: list[PersonNode] = field(default_factory=list)
    edges: list[RelationEdge] = field(default_factory=list)
    left_out: int = 0


@dataclass(frozen=True)
class PersonRow:
    name: str
    now: list[str]
    past: list[str]
    familiarity: float
    mentions: int
    last_seen: str
    memories_href: str


def ranked(graph: PeopleGraph, now: datetime) -> list[Person]:
    return sorted(graph.people.values(), key=lambda p: (-p.familiarity(now), p.name))


def people_rows(graph: PeopleGraph, now: datetime) -> list[PersonRow]:
    rows = []
    for person in ranked(graph, now):
        said_now, said_past = relations_of(graph, person.name)
        rows.append(
            PersonRow(
                name=person.name,
                now=said_now,
                past=said_past,
                familiarity=person.familiarity(now),
                mentions=person.mentions,
                last_seen=person.last_seen[:10],
                memories_href="/web/memories?" + urlencode({"q": person.name}),
            )
        )
    return rows


def _label(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _rings(graph: PeopleGraph, drawn: list[Person]) -> tuple[list[str], list[str]]:
    """(people related to the person themselves, the others), each in drawing order."""
    names = {p.name for p in drawn}
    near = [p.name for p in drawn if any(e.src == USER and e.dst == p.name for e in graph.edges)]
    far = [n for n in (p.name for p in drawn) if n not in near]
    # Alphabetical around the ring reads better than by familiarity; the far ones follow the
    # near one they hang from, so "Emma's husband" sits outside Emma.
    near.sort(key=str.casefold)
    order = {n: i for i, n in enumerate(near)}

    def anchor(name: str) -> float:
        for e in graph.edges:
            other = e.src if e.dst == name else e.dst if e.src == name else None
            if other in order:
                return order[other]
        return len(near) + 0.5  # related to nobody drawn near: at the end

    far.sort(key=lambda n: (anchor(n), n.casefold()))
    return near, [n for n in far if n in names]


def _place(names: list[str], radius: float, cx: float, cy: float, start: float) -> dict:
    placed = {}
    for i, name in enumerate(names):
        angle = start + 2 * math.pi * i / max(len(names), 1)
        placed[name] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle))
    return placed


def people_drawing(graph: PeopleGraph, now: datetime) -> PeopleDrawing:
    """See the module docstring; an empty graph draws only the person."""
    everyone = ranked(graph, now)
    drawn = everyone[:MAX_DRAWN]
    near, far = _rings(graph, drawn)
    r1 = max(140.0, ROOM * len(near) / (2 * math.pi))
    r2 = max(r1 + 120.0, ROOM * len(far) / (2 * math.pi)) if far else r1
    half = r2 + MARGIN
    cx = cy = half
    start = -math.pi / 2  # the first person straight above
    pos = {USER: (cx, cy)}
    pos.update(_place(near, r1, cx, cy, start))
    # The outer ring turns with the inner one so a far person sits beside their anchor.
    pos.update(_place(far, r2, cx, cy, start + (math.pi / max(len(near), 1) if near else 0)))
    by_name = {p.name: p for p in drawn}
    nodes = [PersonNode("you", "you", int(cx), int(cy), 22, 1.0, 1.0, you=True)]
    for name in [*near, *far]:
        fam = by_name[name].familiarity(now)
        x, y = pos[name]
        nodes.append(
            PersonNode(
                name=name,
                label=_label(name),
                x=round(x),
                y=round(y),
                r=round(9 + 11 * fam),
                opacity=round(0.35 + 0.65 * fam, 2),
                familiarity=fam,
            )
        )
    return PeopleDrawing(
        width=round(2 * half),
        height=round(2 * half),
        nodes=nodes,
        edges=_edges(graph, pos),
        left_out=len(everyone) - len(drawn),
    )


def _edges(graph: PeopleGraph, pos: dict) -> list[RelationEdge]:
    """One line per pair of people; its label names every relation between them (current
    first); a pair whose relations are all past is drawn as past. "Sam is married to Emma"
    says it both ways: drawn once."""
    pairs: dict[frozenset[str], list[tuple[bool, str]]] = {}
    ends: dict[frozenset[str], tuple[str, str]] = {}
    for e in graph.edges:
        if e.src not in pos or e.dst not in pos or e.src == e.dst:
            continue
        key = frozenset((e.src, e.dst))
        ends.setdefault(key, (e.src, e.dst))
        said = e.rel if e.src == USER else f"{owner_of(e.src)} {e.rel}"
        if not e.current:
            said = f"was {said} until {str(e.superseded_at)[:10]}"
        mirrored = any(
            s == said.replace(f"{e.src}'s", f"{e.dst}'s") for _, s in pairs.get(key, [])
        )
        if (e.current, said) not in pairs.get(key, []) and not mirrored:
            pairs.setdefault(key, []).append((e.current, said))
    out = []
    for key, said in pairs.items():
        src, dst = ends[key]
        (x1, y1), (x2, y2) = pos[src], pos[dst]
        said.sort(key=lambda s: not s[0])
        label = ", ".join(s for _, s in said)
        past = not any(current for current, _ in said)
        out.append(
            RelationEdge(
                round(x1),
                round(y1),
                round(x2),
                round(y2),
                label if len(label) <= 40 else label[:39] + "…",
                round(x1 + (x2 - x1) * 0.55),
                round(y1 + (y2 - y1) * 0.55),
                past,
                title=f"{src if src != USER else 'you'} – {dst}: {label}",
            )
        )
    out.sort(key=lambda e: not e.past)  # past ones underneath
    return out


__all__ = ["PeopleDrawing", "PersonRow", "people_drawing", "people_rows"]
