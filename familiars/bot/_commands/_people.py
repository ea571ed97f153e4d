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
        now_said, past_said = relations_of(graph, person.name)
        who = [", ".join(now_said), f"was {', '.join(past_said)}" if past_said else ""]
        who = [w for w in who if w]
        lines.append(f"- **{person.name}**: {'; '.join(who) or 'mentioned'} ({how})")
    return lines


def relations_of(graph: PeopleGraph, name: str) -> tuple[list[str], list[str]]:
    """Who ``name`` is, now ("your sister", "Emma's husband") and in the past ("your boss
    until 2026-11-06"); the command and the web page say it in the same words."""
    now_said = [f"{owner_of(e.src)} {e.rel}" for e in graph.edges if e.dst == name and e.current]
    past_said = [
        f"{owner_of(e.src)} {e.rel} until {str(e.superseded_at)[:10]}"
        for e in graph.edges
        if e.dst == name and not e.current
    ]
    return list(dict.fromkeys(now_said)), list(dict.fromkeys(past_said))


def owner_of(src: str) -> str:
    return "your" if src == _USER else f"{src}'s"


__all__ = ["owner_of", "people_lines", "relations_of"]
