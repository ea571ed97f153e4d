"""The turn knows what it did: actions read before the reply, said to a model, and the duty
of care (crisis replies, the care pause the decider respects)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application
from familiars.bot._forget_words import forget_request
from familiars.bot._turn_actions import PendingReminder, plan_actions
from familiars.config import load_settings
from familiars.llm import ChatModel, ChatResult, second_person
from familiars.scheduler import DialogueState, decide
from tests.bot.test_dialogue import msg, say
from tests.harness import make_app

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def plan(text: str, pending: PendingReminder | None = None) -> Any:
    return plan_actions(
        text,
        existing=[],
        now=NOW,
        timezone="Europe/Lisbon",
        dialogue_id="dialogue_0",
        grace_s=3600,
        pending=pending,
    )


def test_a_reminder_is_read_with_its_local_time() -> None:
    actions = plan("remind me tomorrow at 9 to call mom")
    assert [(r.task, r.when_text()) for r in actions.reminders] == [("call mom", "Wed 2 Dec 09:00")]
    assert actions.prompt_notes() == [
        "A reminder was just set: call mom, Wed 2 Dec 09:00. Confirm it in a few words."
    ]


def test_a_reminder_without_a_time_asks_and_the_answer_completes_it() -> None:
    asked = plan("remind me to water the plants")
    assert asked.ask_when == PendingReminder("water the plants") and not asked.reminders
    done = plan("tomorrow at 8", pending=asked.ask_when)
    assert [r.when_text() for r in done.reminders] == ["Wed 2 Dec 08:00"]
    assert done.writer_text == "remind me to water the plants tomorrow at 8"
    assert plan("I had a good day", pending=asked.ask_when).reminders == []


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("remind me in -5 minutes to test", "test"),
        ("remind me at 25:99 to fail", "fail"),
        ("remind me in 99999999999 years to x", "x"),
        ("remind me to water the plants at 31:70", "water the plants"),
        ("remind me in 300 years to renew my passport", "renew my passport"),
    ],
)
def test_an_impossible_time_sets_nothing_and_says_so(text: str, task: str) -> None:
    """A time that was said but cannot be (below zero, past 23:59, centuries away) is not
    moved to a default day, nor dropped: the person hears that it could not be read."""
    actions = plan(text)
    assert actions.reminders == [] and actions.ask_when is None
    assert actions.unreadable_time == PendingReminder(task)


def test_forget_that_is_a_request_and_not_a_fact() -> None:
    assert forget_request("Please forget that") == ""
    assert forget_request("forget that I live in Denver.") == "I live in Denver"
    assert forget_request("Don't forget that my parking spot is B12") is None
    assert plan("Don't forget that my parking spot is B12").noted


@pytest.mark.parametrize(
    "text",
    [
        "actually forget that, I shouldn't have said it",
        "forget that. I shouldn't have said it",
        "pls forget that lol",
        "forget I said that, it was mean",
        "scratch that, forget it",
        "forget that please",
        "Forget that — it's private.",
        "oops, forget that, my bad",
        "can you forget that? it was too personal",
        "forget what I just said, I was angry",
        "forget I ever said that",
        "forget it. never mind",
        "delete that, thanks",
        "erase that",
        "ok forget that!! I didn't mean it",
        "forget that (I was joking)",
        # T29: an opening afterthought before the request
        "never mind, forget that",
        "nvm forget that",
        "um, on second thought, forget that",
        "well, forget that",
    ],
)
def test_forget_that_with_an_afterthought_means_the_last_thing_said(text: str) -> None:
    """What follows a clause break after "forget that" is an afterthought, not a description
    (tester F7: "I shouldn't have said it" was taken as the description, matched nothing,
    and the message stayed)."""
    assert forget_request(text) == ""


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("forget that I live in Denver, I shouldn't have said it", "I live in Denver"),
        ("forget that I'm moving to Porto. it's not settled", "I'm moving to Porto"),
        ("forget that I was born in Leeds", "I was born in Leeds"),
        ("forget that I'm called Jonas", "I'm called Jonas"),
        ("forget that my sister, Ana, is a pilot", "my sister, Ana, is a pilot"),
        ("forget I said my PIN is 4921 lol", "my PIN is 4921"),
        ("please forget what I said about Gary, that was mean", "about Gary"),
    ],
)
def test_a_description_is_kept_up_to_an_aside(text: str, what: str) -> None:
    assert forget_request(text) == what


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget that my parking spot is B12",
        "I always forget that my keys are in the car",
        "never forget that mum loves tulips",
        "forget about it",
        "scratch that itch",
        "delete this app from my phone",
        "I can't forget that day, it was lovely",
        "forgetting that was easy",
        "unforgettable, that trip",
        "she said forget that, I shouldn't have said it",
    ],
)
def test_look_alikes_do_not_ask_to_forget(text: str) -> None:
    assert forget_request(text) is None


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ("The user has a dog called Biscuit.", "Your dog is called Biscuit."),
        ("The user has two kids called Arjun and Maya.", "Your kids are called Arjun and Maya."),
        ("The user lives in Seattle.", "You live in Seattle."),
        ("The user no longer likes spicy food.", "You no longer like spicy food."),
        ("The user's birthday is on March 3.", "Your birthday is on March 3."),
    ],
)
def test_records_are_said_in_the_second_person(record: str, said: str) -> None:
    assert second_person(record) == said


def test_a_care_pause_blocks_check_ins_but_not_asked_for_reminders() -> None:
    base = DialogueState(agent_id="agent_0", dialogue_id="dialogue_0", user_key="alice")
    quiet = base.__class__(**{**base.__dict__, "last_user_at": NOW - timedelta(days=5)})
    assert decide(NOW.replace(hour=12), quiet).send
    paused = quiet.__class__(**{**quiet.__dict__, "care_paused_until": NOW + timedelta(days=1)})
    decision = decide(NOW.replace(hour=12), paused)
    assert not decision.send and "care pause" in decision.reason


class ScriptedModel(ChatModel):
    name = "scripted"
    model = "scripted"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def chat(self, messages: Any, **kw: Any) -> ChatResult:
        if "memory writer" not in messages[0].content:  # the same model also writes memories
            self.seen.append(messages[0].content)
        return ChatResult(text="Done!", provider="scripted", model="scripted")


@pytest.fixture
async def model_app(workspace: Path) -> AsyncIterator[tuple[Application, ScriptedModel]]:
    model = ScriptedModel()
    app = make_app(load_settings(workspace=workspace), model=model)
    async with app:
        yield app, model


async def test_the_model_is_told_what_the_turn_did(
    model_app: tuple[Application, ScriptedModel],
) -> None:
    app, model = model_app
    first = await say(app, msg("remind me tomorrow at 9am to call mom"))
    assert first.startswith("Hi, I'm") and "AI companion" in first
    assert "A reminder was just set: call mom, " in model.seen[-1]
    assert app.memory is not None
    reminders = [r for r in await app.memory.store.list(live_only=False) if r.open_loop]
    assert len(reminders) == 1  # written on the hot path; the writer's repeat was skipped
    crisis = await say(app, msg("I keep thinking about suicide", minutes=1))
    assert "988" in crisis and len(model.seen) == 1  # no model call for a crisis reply


async def test_in_a_group_offline_answers_never_quote_private_memories(workspace: Path) -> None:
    app = make_app(load_settings(workspace=workspace), model=None)
    async with app:
        await say(app, msg("My dog's name is Biscuit."))
        reply = await say(app, msg("What's my dog's name?", chat="g", group=True, minutes=1))
        assert "Biscuit" not in reply


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("remind me in 1 minute to email Alice's PIN to me", "email Alice's PIN to you"),
        (
            "remind me tomorrow at 9 to call my parents and thank them",
            "call your parents and thank them",
        ),
        ("remind me tomorrow at 9 to tell mum I love her", "tell mum you love her"),
        ("remind me tomorrow at 9 to send Bob his keys", "send Bob his keys"),
        ("remind me tomorrow at 9 to buy myself a coffee", "buy yourself a coffee"),
    ],
)
def test_a_reminder_is_confirmed_to_the_person_as_you(text: str, task: str) -> None:
    """Tester F17: "to email Alice's PIN to me" was confirmed as "... to them" (the record's
    third person turned back only "their"); what was the person's own words is "you", what
    was someone else's stays theirs."""
    [reminder] = plan(text).reminders
    assert reminder.task == task
