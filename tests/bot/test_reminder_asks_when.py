"""A reminder asked for with no time is the bot's question whatever answers the turn: it asks
when, and the next message's time sets it (s36: "remind me to call mum" went to a model that
only chatted, and nothing was set). The offline answerer did so already."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from familiars.bot._turn_actions import PendingReminder, plan_actions
from tests.bot.test_turn_tools import running
from tests.fake_openai import Reply

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _no_ai_disclosure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAMILIARS_CARE__AI_DISCLOSURE", "false")


@pytest.mark.parametrize("tools", ["on", "off"])
async def test_the_bot_asks_when_and_the_next_time_sets_it(workspace: Path, tools: str) -> None:
    async with running(workspace, provider={"tools": tools}) as bot:
        asked = await bot.say("can you remind me to ring my mum")
        assert asked == "When should I remind you to ring your mum?"
        assert not bot.script.turn_requests  # a model that would only chat was not asked
        bot.script.turn(Reply.text("Done, I'll nudge you."))  # it does not say what
        confirmed = await bot.say("tomorrow at 6pm")
        kept = [r for r in await bot.records(scope="dialogue") if "reminder" in r.tags]
    assert [r.open_loop["due"] for r in kept if r.open_loop] == ["2030-11-12T18:00:00+00:00"]
    assert "ring their mum" in kept[0].content
    # the bot says what it set, under a reply that did not (once: as a tool would say it)
    assert confirmed.startswith("Done, I'll nudge you.") and confirmed.count("ring your mum") == 1
    assert "Okay, I'll remind you to ring your mum on Tue 12 Nov 18:00." in confirmed, confirmed


async def test_a_reply_that_confirms_the_reminder_gets_no_second_line(workspace: Path) -> None:
    async with running(workspace, provider={"tools": "off"}) as bot:
        await bot.say("remind me to ring my mum")
        bot.script.turn(Reply.text("Okay, I'll remind you to ring your mum tomorrow at 6pm."))
        said = await bot.say("tomorrow at 6pm")
    assert said == "Okay, I'll remind you to ring your mum tomorrow at 6pm.", said


async def test_a_reminder_with_its_time_still_goes_to_the_model(workspace: Path) -> None:
    async with running(workspace, provider={"tools": "off"}) as bot:
        bot.script.turn(Reply.text("Okay, set."))
        said = await bot.say("remind me to ring my mum tomorrow at 6pm")
    assert said == "Okay, set. Okay, I'll remind you to ring your mum on Tue 12 Nov 18:00."


@pytest.mark.parametrize(
    "question",
    [
        "can you remind me about the plot of the book?",
        "remind me about what you said yesterday",
        "remind me about what we talked about",
    ],
)
async def test_a_question_about_the_past_is_the_models_to_answer(
    workspace: Path, question: str
) -> None:
    """s36 review: "remind me about what you said yesterday" got "When should I remind you
    about what you said yesterday?" in place of the model's answer."""
    async with running(workspace, provider={"tools": "on"}) as bot:
        bot.script.turn(Reply.text("It was about a lighthouse keeper."))
        said = await bot.say(question)
    assert said == "It was about a lighthouse keeper.", said


@pytest.mark.parametrize("other", ["I'm 34.", "I live at 5 Elm Street.", "I have 2 cats."])
async def test_a_message_that_is_no_time_answers_no_when(workspace: Path, other: str) -> None:
    """s36 review: after "When should I remind you ...?", "I'm 34" was taken as an
    unreadable time, and the writer was told to skip it."""
    pending = PendingReminder("ring my mum")
    now = datetime(2026, 12, 7, 16, 0, tzinfo=UTC)
    actions = plan_actions(
        other, existing=[], now=now, timezone="UTC", dialogue_id=None, grace_s=60, pending=pending
    )
    assert actions.unreadable_time is None and actions.writer_text is None, actions
    async with running(workspace, provider={"tools": "off"}) as bot:
        await bot.say("remind me to ring my mum")
        bot.script.turn(Reply.text("Good to know."))
        said = await bot.say(other)
        reminders = [r for r in await bot.records(scope="dialogue") if "reminder" in r.tags]
    assert said == "Good to know.", said
    assert reminders == []


async def test_a_day_in_another_sentence_joins_no_reminder(workspace: Path) -> None:
    async with running(workspace, provider={"tools": "off"}) as bot:
        await bot.say("remind me to ring my mum")
        bot.script.turn(Reply.text("How lovely."))
        await bot.say("My sister is coming on Friday.")
        reminders = [r for r in await bot.records(scope="dialogue") if "reminder" in r.tags]
    assert reminders == [], [r.content for r in reminders]
