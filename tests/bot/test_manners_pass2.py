"""Issue 23, second pass: a complaint about the weather is a feeling, not a look-up; a
look-up asked for still gets the honest "I can't look things up"."""

from __future__ import annotations

import pytest

from familiars.bot._answers import small_talk


@pytest.mark.parametrize(
    "text", ["this weather is killing me", "the rain is doing my head in", "ugh, long day"]
)
def test_a_complaint_gets_a_kind_word_not_a_look_up_refusal(text: str) -> None:
    reply = small_talk(text) or ""
    assert "look things up" not in reply and "rough" in reply


@pytest.mark.parametrize("text", ["what's the weather like tomorrow?", "any news today?"])
def test_a_look_up_asked_for_is_refused_honestly(text: str) -> None:
    assert "look things up" in (small_talk(text) or "")


def test_an_update_names_the_old_value_as_it_was_said() -> None:
    from familiars.bot._action_lines import _was

    assert _was("The user lives in Seattle.", "The user lives in Portland.") == " (was Portland)"
    said = _was("The user works as a pharmacist.", "The user fixes teeth for a living.")
    assert said == " (was: you fix teeth for a living)"
