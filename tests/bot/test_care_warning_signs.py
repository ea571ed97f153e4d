"""Session 34 person-test, warning signs offline: a widower's indirect words of giving up
(U26: "don't see much reason to carry on without her") and of joining his late wife (U78:
"going to be with Joan soon, I've made my peace") get the crisis reply, their look-alikes
do not, and "I'm not going to do anything daft, I just miss her" right after it is met as
a worry taken back, with the missing met too."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from familiars.bot._answers import offline_reply
from familiars.bot._care import AFTER_CARE, speaks_of_self_harm, walked_back
from familiars.bot._turn_actions import TurnActions
from tests.harness import message, say


def _reply(text: str, *, noted: tuple[str, ...] = (), **kw: object) -> str:
    return offline_reply(
        text,
        actions=TurnActions(noted=list(noted)),
        items=[],
        is_group=False,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "text",
    [
        "Some nights I don't see much reason to carry on without her",  # U26, the tester's
        "Most days I can't see a reason to carry on without him",
        "I'm going to be with Joan soon, I've made my peace",  # U78, the tester's
        "I'll be with Harold again soon, I've said my goodbyes",
    ],
)
def test_a_widowers_warning_signs_are_heard(text: str) -> None:
    assert speaks_of_self_harm(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm going to be with my sister soon, flying out Friday",
        "I've made my peace with the new job",
        "I see no reason to carry on with the diet",
        "I'm going to be with Tom soon, I'm at peace with the move",
        "we'll be with them soon, I said my goodbyes to the old house",
        "I've been giving away Joan's things, her clothes went to the hospice shop",
    ],
)
def test_their_look_alikes_stay_clear(text: str) -> None:
    assert not speaks_of_self_harm(text)


@pytest.mark.parametrize(
    "text",
    ["I'm not going to do anything daft, I just miss her.", "I won't do anything stupid, ok"],
)
def test_a_promise_after_the_crisis_reply_is_a_worry_taken_back(text: str) -> None:
    assert walked_back(text)
    reply = _reply(text, after_care=True)
    assert reply.startswith(AFTER_CARE) and "Tell me more" not in reply


def test_missing_her_after_the_crisis_reply_is_met_too() -> None:
    reply = _reply("I'm not going to do anything daft, I just miss her.", after_care=True)
    assert reply.splitlines()[1].startswith("I'm sorry")


async def test_in_a_chat_the_widowers_words_get_the_crisis_reply(app: Application) -> None:
    await say(app, message("I've been giving away Joan's things, her clothes went to the hospice"))
    crisis = await say(
        app, message("I'm going to be with Joan soon, I've made my peace", minutes=1)
    )
    assert "findahelpline.com" in crisis or "116 123" in crisis
    then = await say(app, message("I'm not going to do anything daft, I just miss her.", minutes=2))
    assert AFTER_CARE in then and "116 123" not in then
