"""``/memory why`` says what the conversation added to a turn's recall (issue 24)."""

from __future__ import annotations

from familiars.bot._commands._memory import context_lines


def test_memory_why_says_what_the_conversation_added() -> None:
    lines = context_lines({"messages": ["Priya's birthday is coming up"], "lifted": {"m1": 0.21}})
    assert lines[0].startswith("I read your message with the conversation before it")
    assert "“Priya's birthday is coming up”" in lines[0] and "`m1` +0.21" in lines[1]
    assert context_lines(None) == [] and context_lines({"messages": []}) == []
