"""Big news gets a fitting word offline (tester T26: a grandmother's death, a new job and an
exam tomorrow all got "I see. Tell me more?"), and look-alikes do not ("my phone died")."""

from __future__ import annotations

import pytest

from familiars.bot._answers import small_talk


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("My grandmother died yesterday.", "sorry for your loss"),
        ("my old dog was put down today", "sorry for your loss"),
        ("my nan passed on sunday", "sorry for your loss"),
        ("I lost my dad last spring", "sorry for your loss"),
        ("I got the job!!! so happy", "congratulations"),
        ("we just got engaged", "congratulations"),
        ("I passed my driving test", "congratulations"),
        ("I'm feeling really anxious about my exam tomorrow", "stressful"),
        ("honestly dreading the meeting on monday", "stressful"),
    ],
)  # fmt: skip
def test_big_news_gets_a_fitting_word(text: str, word: str) -> None:
    assert word in (small_talk(text) or "").lower()


@pytest.mark.parametrize(
    "text",
    ["my phone died", "the battery died again", "my friend passed the test", "I lost my keys",
     "I got the bus", "is my dog going to die?",
     # review of s32: bad news or somebody else's thing taken for a loss or good news
     "i got the test results back, it's cancer", "I got my test results",
     "i got in trouble at work", "we got the job done", "i got a job offer rejected",
     "my dad's phone died", "my mom's plant died", "my dog is gone for a walk",
     "I lost my dad's watch", "I lost my cat for an hour but found her"],
)  # fmt: skip
def test_look_alikes_are_not_big_news(text: str) -> None:
    reply = (small_talk(text) or "").lower()
    assert "loss" not in reply and "congratulations" not in reply and "stressful" not in reply


def test_a_loss_is_met_before_what_was_noted() -> None:
    """ "hi, I'm Maya and my nan passed away on Saturday" noted the name and said nothing of
    the loss."""
    from familiars.bot._answers import offline_reply
    from familiars.bot._turn_actions import TurnActions

    actions = TurnActions(noted=["The user's name is Maya."])
    reply = offline_reply(
        "hi, I'm Maya and my nan passed away on Saturday", actions=actions, items=[],
        is_group=False,
    )  # fmt: skip
    assert reply.splitlines()[0].startswith("I'm so sorry for your loss"), reply
    assert "Maya" in reply


@pytest.mark.parametrize("text", ["I'll call you later", "can I call you tonight"])
def test_a_call_is_not_a_new_name_for_the_familiar(text: str) -> None:
    from familiars.bot._about_you import about_you

    assert "settings" not in (about_you(text, "Familiar") or "")
