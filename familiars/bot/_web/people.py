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
PAD = 8
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
    left: int
    top: int
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


def _rings(graph: PeopleGraph, drawn: list[Person]) -> tuple[list[str], dict[str, str | None]]:
    """(people related to the person themselves, alphabetical round the ring; the others,
    each with the near one they hang from, None when none is drawn)."""
    near = sorted(
        (p.name for p in drawn if any(e.src == USER and e.dst == p.name for e in graph.edges)),
        key=str.casefold,
    )
    far: dict[str, str | None] = {}
    for person in sorted(drawn, key=lambda p: p.name.casefold()):
        if person.name in near:
            continue
        far[person.name] = next(
            (
                other
                for e in graph.edges
                for other in ((e.src if e.dst == person.name else e.dst),)
                if person.name in (e.src, e.dst) and other in near
            ),
            None,
        )
    return near, far


def _at(cx: float, cy: float, radius: float, angle: float) -> tuple[float, float]:
    return cx + radius * math.cos(angle), cy + radius * math.sin(angle)


def _clusters(graph: PeopleGraph, names: list[str]) -> list[str]:
    """``names`` ordered so that people related to each other sit side by side."""
    links: dict[str, set[str]] = {n: set() for n in names}
    for e in graph.edges:
        if e.src in links and e.dst in links:
            links[e.src].add(e.dst)
            links[e.dst].add(e.src)
    out: list[str] = []
    for name in sorted(names, key=str.casefold):
        stack = [name]
        while stack:
            here = stack.pop()
            if here not in out:
                out.append(here)
                stack.extend(sorted(links[here] - set(out), key=str.casefold, reverse=True))
    return out


def _layout(
    graph: PeopleGraph, near: list[str], far: dict[str, str | None]
) -> dict[str, tuple[float, float]]:
    """The person at (0, 0); the near ring round them; each far person outside the near one
    they hang from (siblings fanned out), the unanchored ones spread between."""
    r1 = max(130.0, ROOM * len(near) / (2 * math.pi))
    r2 = r1 + 175.0
    start = -math.pi / 2  # the first person straight above
    step = 2 * math.pi / max(len(near), 1)
    angle = {name: start + i * step for i, name in enumerate(near)}
    pos = {USER: (0.0, 0.0)} | {n: _at(0, 0, r1, a) for n, a in angle.items()}
    by_anchor: dict[str | None, list[str]] = {}
    for name, anchor in far.items():
        by_anchor.setdefault(anchor, []).append(name)
    for anchor, names in by_anchor.items():
        if anchor is None:
            # Known only through each other: side by side at the bottom, outside the rest, so
            # their edges are short chords and never cross the person in the middle.
            radius = r2 + 60 if near else r1
            middle, names = start + math.pi, _clusters(graph, names)
        else:
            radius, middle = r2, angle[anchor]
        fan = ROOM / radius  # siblings a name's width apart along their ring
        for i, name in enumerate(names):
            pos[name] = _at(0, 0, radius, middle + (i - (len(names) - 1) / 2) * fan)
    return pos


def people_drawing(graph: PeopleGraph, now: datetime) -> PeopleDrawing:
    """See the module docstring; an empty graph draws only the person. The picture is
    cropped to what is drawn (names and labels included), so a phone shows it large."""
    everyone = ranked(graph, now)
    drawn = everyone[:MAX_DRAWN]
    near, far = _rings(graph, drawn)
    pos = _layout(graph, near, far)
    by_name = {p.name: p for p in drawn}
    nodes = [PersonNode("you", "you", 0, 0, 22, 1.0, 1.0, you=True)]
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
    edges = _edges(graph, pos)
    box = [(n.x - max(n.r, 4.5 * len(n.label)), n.y - n.r) for n in nodes]
    box += [(n.x + max(n.r, 4.5 * len(n.label)), n.y + n.r + 22) for n in nodes]
    box += [(e.lx - 3.6 * len(e.label), e.ly - 12) for e in edges]
    box += [(e.lx + 3.6 * len(e.label), e.ly + 8) for e in edges]
    left, top = min(x for x, _ in box) - PAD, min(y for _, y in box) - PAD
    right, bottom = max(x for x, _ in box) + PAD, max(y for _, y in box) + PAD
    return PeopleDrawing(
        left=round(left),
        top=round(top),
        width=round(right - left),
        height=round(bottom - top),
        nodes=nodes,
        edges=edges,
        left_out=len(everyone) - len(drawn),
    )


def _edges(graph: PeopleGraph, pos: dict[str, tuple[float, float]]) -> list[RelationEdge]:
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
        mirrored = any(s == said.replace(f"{e.src}'s", f"{e.dst}'s") for _, s in pairs.get(key, []))
        if (e.current, said) not in pairs.get(key, []) and not mirrored:
            pairs.setdefault(key, []).append((e.current, said))
    out = []
    seen_from: dict[str, int] = {}
    for key, sayings in pairs.items():
        src, dst = ends[key]
        # Siblings' labels ("Ada's son", "Ada's daughter") staggered along their edges.
        k = seen_from[src] = seen_from.get(src, -1) + 1
        t = 0.55 if src == USER else (0.5, 0.68, 0.34)[k % 3]
        (x1, y1), (x2, y2) = pos[src], pos[dst]
        sayings.sort(key=lambda s: not s[0])
        label = ", ".join(s for _, s in sayings)
        past = not any(current for current, _ in sayings)
        out.append(
            RelationEdge(
                round(x1),
                round(y1),
                round(x2),
                round(y2),
                label if len(label) <= 40 else label[:39] + "…",
                round(x1 + (x2 - x1) * t),
                round(y1 + (y2 - y1) * t),
                past,
                title=f"{src if src != USER else 'you'} – {dst}: {label}",
            )
        )
    out.sort(key=lambda e: not e.past)  # past ones underneath
    return out


__all__ = ["PeopleDrawing", "PersonRow", "people_drawing", "people_rows"]
