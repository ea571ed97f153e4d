"""``/memory people``: who each person is to you, how familiar, and what changed."""

from __future__ import annotations

from familiars.bot._commands._people import people_lines
from familiars.memory import build_graph
from tests.memory.test_people_graph import NOW, records


def test_memory_people_lists_who_they_are_and_what_changed():
    lines = people_lines(build_graph(records()), NOW)
    text = "\n".join(lines)
    assert "**Joaquin**: Emma's husband" in text and "**Emma**: your sister" in text
    assert "**Priya**: was your boss until 2026-11-06 (familiarity" in text
    assert people_lines(build_graph([]), NOW) == ["You have not told me about anyone yet."]
