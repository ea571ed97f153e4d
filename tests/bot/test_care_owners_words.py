"""Issue 23: an owner's own crisis text was said for the first crisis reply only; the
follow-ups (and the lines asked for again) were fixed English. Now the owner's setting is
followed where it exists: their follow-up texts in turn, else their crisis text again; the
shipped text keeps the short replies about what was said."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._care_talk import later_reply, lines_reply
from familiars.config import CareSettings, load_settings
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(120)

NORSK = "Jeg er lei meg for at du har det slik. {helplines} Ring 113 ved fare."
WORRIES = ["i just feel like a burden", "i don't want to be here anymore"]


async def _replies(workspace: Path, care: dict[str, object], *texts: str) -> list[str]:
    settings = load_settings(
        workspace=workspace, care={"country": "NO", "ai_disclosure": False, **care}
    )
    async with running_app(settings, model=None) as app:
        return [await say(app, message(t, minutes=i)) for i, t in enumerate(texts)]


async def test_the_owners_crisis_text_is_said_again_not_english(workspace: Path) -> None:
    replies = await _replies(
        workspace, {"crisis_text": NORSK}, *WORRIES, "what was that number again?"
    )
    for reply in replies:
        assert reply.startswith("Jeg er lei meg") and "116 123" in reply, reply
        assert "I'm here" not in reply and "Are you safe" not in reply, reply


async def test_the_owners_follow_up_texts_are_said_in_turn(workspace: Path) -> None:
    care = {
        "crisis_text": NORSK,
        "crisis_follow_up_texts": ["Jeg er her. {helplines}", "Er du trygg?"],
    }
    first, second, third, fourth = await _replies(workspace, care, *WORRIES, *WORRIES)
    assert first.startswith("Jeg er lei meg"), first
    assert second.startswith("Jeg er her.") and "116 123" in second, second
    assert third == "Er du trygg?" and fourth.startswith("Jeg er her."), (third, fourth)


def test_the_shipped_text_keeps_the_short_replies_about_what_was_said() -> None:
    care = CareSettings()
    reply = later_reply(care, "i just feel like a burden", ["GB"], 1, safe=False)
    assert "burden" in reply and "116 123" in reply
    assert lines_reply(care, ["GB"]).startswith("Of course.")


def test_a_shipped_text_only_rewrapped_is_not_the_owners() -> None:
    care = CareSettings()
    care = care.model_copy(update={"crisis_text": care.crisis_text.replace(" ", "\n ", 3)})
    assert "burden" in later_reply(care, "i just feel like a burden", ["GB"], 1, safe=False)
