"""``/memory people``: the people a person has told the familiar about, how they are related
(to them and to each other), how familiar, and what changed (issue 25)."""

from __future__ import annotations

from datetime import datetime

from familiars.memory import PeopleGraph

_USER = "user"


def people_lines(graph: PeopleGraph, now: datetime, *, limit: int = 30) -> list[str]:
    """One line per person, the most familiar first: who they are to you (or to someone
    you know), how familiar, and past relations ("was: boss until 2026-11-06")."""
    if not graph.people:
        return ["You have not told me about anyone yet."]
    ranked = sorted(graph.people.values(), key=lambda p: (-p.familiarity(now), p.name))
    lines = ["The people you have told me about:"]
    for person in ranked[:limit]:
        mentions = f"{person.mentions} mention" + ("" if person.mentions == 1 else "s")
        how = f"familiarity {person.familiarity(now):.2f}, {mentions}"
        who = [w for w in (_who(graph, person.name), _past(graph, person.name)) if w]
        lines.append(f"- **{person.name}**: {'; '.join(who) or 'mentioned'} ({how})")
    return lines


def _who(graph: PeopleGraph, name: str) -> str:
    said = []
    for edge in graph.edges:
        if edge.dst != name or not edge.current:
            continue
        said.append(f"{_owner(edge.src)} {edge.rel}")
    return ", ".join(dict.fromkeys(said))


def _owner(src: str) -> str:
    return "your" if src == _USER else f"{src}'s"


def _past(graph: PeopleGraph, name: str) -> str:
    was = [
        f"{_owner(e.src)} {e.rel} until {str(e.superseded_at)[:10]}"
        for e in graph.edges
        if e.dst == name and not e.current
    ]
    return f"was {', '.join(was)}" if was else ""


__all__ = ["people_lines"]
