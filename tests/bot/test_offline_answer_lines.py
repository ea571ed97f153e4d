"""F4: the offline answer says a line once, and "what do you know about me?" leads with the
person's own facts, not a relative's."""

from __future__ import annotations

from familiars.bot._answers import offline_reply
from familiars.bot._turn_actions import TurnActions
from familiars.memory import MemoryRecord, about_me


def test_a_line_is_said_once_however_often_it_was_found() -> None:
    reply = offline_reply(
        "what do I like?",
        actions=TurnActions(),
        items=[],
        is_group=False,
        meant=["The user likes tea.", "The user likes tea.", "The user likes hiking."],
    )
    assert reply.splitlines() == ["You like tea.", "You like hiking."]


def _rec(i: int, content: str, tags: list[str]) -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category="relation", content=content, tags=tags,
        ts=f"2026-11-0{i}T10:00:00+00:00",
    )  # fmt: skip


def test_about_me_leads_with_the_persons_own() -> None:
    kept = [
        _rec(1, "The user's name is Sam.", ["name"]),
        _rec(2, "The user works as a nurse.", ["job"]),
        _rec(3, "The user's brother lives in Hull.", ["family", "topic:brother"]),
    ]
    said = [r.content for r in about_me(kept)]
    assert said[-1] == "The user's brother lives in Hull."  # newest, yet after the own facts
    assert set(said) == {r.content for r in kept}
