"""Review s34 (F7, F12, F13, F18): the new care and family answers, made safe.

- F12: right after the crisis reply, "I'm ok now, I've got the pills ready" was met with
  "I'm glad you're alright": a take-back with a worrying tail now gets a check-in.
- F13: "remind me to collect my tablets at 5pm" got the crisis reply and no reminder; the
  words of a means in an errand or everyday news are not a worry.
- F7: in a group, the family, likes and plans answers read the speaker's private records.
- F18: "a lovely walk, then I got the call that mum died" got "That sounds lovely!"."""

from __future__ import annotations

import pytest

from familiars.bot import Application
from familiars.bot._answers import GOOD_TIME, small_talk
from familiars.bot._care import (
    AFTER_CARE,
    CHECK_IN,
    asks_a_reminder,
    speaks_of_self_harm,
    takes_back_unsure,
    walked_back,
)
from tests.harness import message, say


@pytest.mark.parametrize(
    "text",
    [
        "I'm ok now, I've got the pills ready",
        "its fine, I've made my decision",
        "all good, it'll all be over soon",
        "I'm fine, I just wanted to say goodbye properly",
    ],
)
def test_a_take_back_with_a_worrying_tail_is_not_taken_back(text: str) -> None:
    assert not walked_back(text) and takes_back_unsure(text)


@pytest.mark.parametrize("text", ["jk im fine, just tired", "ignore me, I'm ok", "lol jk"])
def test_a_plain_take_back_still_is(text: str) -> None:
    assert walked_back(text) and not takes_back_unsure(text)


@pytest.mark.parametrize(
    "text",
    [
        "remind me to collect my tablets at 5pm",
        "I'm collecting my pills from the pharmacy tomorrow",
        "I'm giving away all my stuff before we move to Spain",
        "I'm writing goodbye letters to my students, I'm retiring",
        "I won't be around much longer, my shift ends at 6",
        "the kids were jumping off the bridge into the river all summer",
        "my son keeps driving into the wall of the garage",
        "honestly I just want to sleep forever this weekend",
    ],
)
def test_errands_and_everyday_news_are_no_worry(text: str) -> None:
    assert not speaks_of_self_harm(text)


@pytest.mark.parametrize(
    "text",
    [
        "I've started giving away my things, I won't need them",
        "I've been saving up my pills",
        "nobody would even notice if I was gone",
        "I'm going to drive my car into a wall",
    ],
)
def test_the_means_said_plainly_still_worry(text: str) -> None:
    assert speaks_of_self_harm(text)


def test_a_reminder_asked_for_is_not_read_by_meaning_as_a_worry() -> None:
    assert asks_a_reminder("remind me to finish the last chapter")
    assert asks_a_reminder("ok can you remind me to ring the GP at 9")
    assert not asks_a_reminder("I don't see the point of reminders any more")


def test_hard_news_told_with_a_good_time_is_not_met_as_a_good_time() -> None:
    sad = small_talk("we had a lovely walk, then I got the call that mum died")
    assert sad is not None and GOOD_TIME not in sad and "sorry" in sad
    assert small_talk("we had a lovely walk, then the cancer is back") != GOOD_TIME
    assert small_talk("i had a lovely afternoon with Oliver, we made scones") == GOOD_TIME


async def test_in_a_chat_a_worrying_take_back_gets_a_check_in(app: Application) -> None:
    crisis = await say(app, message("I've started giving my things away, I won't need them"))
    assert "116 123" in crisis or "findahelpline.com" in crisis
    unsure = await say(app, message("I'm ok now, I've got the pills ready", minutes=1))
    assert AFTER_CARE not in unsure, unsure
    assert CHECK_IN in unsure or "116 123" in unsure, unsure


async def test_in_a_group_the_family_and_likes_answers_keep_private_records(
    app: Application,
) -> None:
    await say(app, message("My wife is called Priya and I love gin.", chat="dm-u1"))
    group = {"chat": "g1", "group": True, "mentions_bot": True}
    for asked in ("who is my wife?", "do I like gin?", "what are my plans?"):
        said = await say(app, message(asked, minutes=1, **group))
        assert "Priya" not in said and "gin" not in said.lower().replace(asked, ""), said
    alone = await say(app, message("who is my wife?", minutes=2, chat="dm-u1"))
    assert "Priya" in alone, alone


@pytest.mark.parametrize(
    ("text", "worry"),
    [
        ("I'm ok now, I've got the pills ready", True),
        ("I have enough tablets saved up", True),
        ("I've got my tablets ready for the morning", False),
        ("got the pills ready for mum's dosette box", False),
    ],
)
def test_pills_made_ready_are_a_worry_and_a_days_tablets_are_not(text: str, worry: bool) -> None:
    """My own tmux session: "I'm ok now, I've got the pills ready" said as a first message
    got "I see. Tell me more?"."""
    assert speaks_of_self_harm(text) is worry
