"""s38 person-test: "Mr Darcy passed away this morning" got "I see. Tell me more?", and "Thank
you. I am not going to do anything silly, I promise" after the crisis reply got "You're
welcome!". A death said by a name, and a promise of safety, get a warm, careful word; and a
dislike taken back ("i dont hate maths anymore") is not answered as still held."""

from __future__ import annotations

import pytest

from familiars.bot._action_lines import action_lines
from familiars.bot._answers import small_talk
from familiars.bot._likes import likes_answer
from familiars.bot._turn_actions import TurnActions


@pytest.mark.parametrize(
    "text",
    [
        "I should tell you that Mr Darcy passed away this morning. The vet said so.",
        "Biscuit passed away last night",
        "Nana Joan has passed away",
    ],
)
def test_a_death_said_by_name_is_met_as_a_loss(text: str) -> None:
    assert "sorry for your loss" in (small_talk(text) or "")


@pytest.mark.parametrize(
    "text",
    [
        "Thank you. I am not going to do anything silly, I promise. I have Mr Darcy to look after",
        "thanks, i won't do anything stupid",
        "ok thank you. I'm not gonna hurt myself",
        "I'm safe, thank you",
    ],
)
def test_a_promise_of_safety_gets_a_careful_word(text: str) -> None:
    reply = small_talk(text) or ""
    assert "glad to hear that" in reply and "welcome" not in reply


@pytest.mark.parametrize("text", ["thank you!", "thanks, i'm not doing anything this weekend"])
def test_plain_thanks_still_gets_youre_welcome(text: str) -> None:
    assert small_talk(text) == "You're welcome!"


def test_a_pets_death_kept_is_met_with_its_whole_name() -> None:
    actions = TurnActions()
    actions.updated.append(
        (
            "The user no longer has their cat Mr Darcy (it died).",
            "The user's cat is called Mr Darcy, who is a Maine Coon.",
        )
    )
    assert action_lines(actions)[0].startswith("I'm so sorry about Mr Darcy.")


def test_a_dislike_taken_back_is_answered_as_over() -> None:
    """ "tbh i dont hate maths anymore" then "do i like maths": not "You don't like maths."."""
    kept = ["The user no longer dislikes maths."]
    assert likes_answer("do i like maths", kept) == "You don't dislike maths any more."
