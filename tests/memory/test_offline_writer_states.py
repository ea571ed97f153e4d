"""The offline writer's states, feelings, goals, values and causes (issue 15): what it keeps
from the person's own words, what it leaves alone, and a round trip through the writer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.llm import second_person
from familiars.memory import MemoryRecord, MemoryStore
from familiars.memory._offline._writes import facts_in, offline_writes
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._turn import TurnContext

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)

KEEPS = [
    # states
    ("I'm colorblind, red and green look alike to me.", "state", "profile",
     "The user is colorblind, red and green look alike to them."),
    ("I work from home full-time.", "state", "profile", "The user works from home full-time."),
    ("I'm recovering from a bad flu.", "state", "profile",
     "The user is recovering from a bad flu."),
    ("My back has been killing me lately.", "state", "profile",
     "The user's back has been killing them lately."),
    ("I've been sober for eight months.", "state", "profile",
     "The user has been sober for eight months."),
    # feelings
    ("I've been missing my grandmother a lot since the funeral.", "feeling", "knowledge",
     "The user has been missing their grandmother a lot since the funeral."),
    ("Loud neighbors put me on edge.", "feeling", "knowledge",
     "Loud neighbors put the user on edge."),
    ("I get really nostalgic around the holidays.", "feeling", "knowledge",
     "The user gets really nostalgic around the holidays."),
    ("I'm exhausted lately", "feeling", "knowledge", "The user is exhausted lately."),
    ("Thunderstorms make me feel cozy and safe.", "feeling", "knowledge",
     "Thunderstorms make the user feel cozy and safe."),
    # goals
    ("I want to get back into painting.", "goal", "knowledge",
     "The user wants to get back into painting."),
    ("I'm trying to cut down on sugar.", "goal", "knowledge",
     "The user is trying to cut down on sugar."),
    ("I'm working towards getting my pilot license.", "goal", "knowledge",
     "The user is working towards getting their pilot license."),
    ("I'm hoping to pay off my student loans within three years.", "goal", "knowledge",
     "The user is hoping to pay off their student loans within three years."),
    ("My goal is to run a marathon", "goal", "knowledge", "The user's goal is to run a marathon."),
    ("I'd like to become a better listener", "goal", "knowledge",
     "The user would like to become a better listener."),
    ("I'd love to write a novel someday.", "goal", "knowledge",
     "The user would love to write a novel someday."),
    # values
    ("Being on time is a big deal for me.", "value", "knowledge",
     "Being on time is a big deal for the user."),
    ("I care a lot about animal welfare", "value", "knowledge",
     "The user cares a lot about animal welfare."),
    ("Privacy matters a lot to me", "value", "knowledge", "Privacy matters a lot to the user."),
    ("I believe in saving for a rainy day.", "value", "knowledge",
     "The user believes in saving for a rainy day."),
    ("I try to be patient with my parents.", "value", "knowledge",
     "The user tries to be patient with their parents."),
    # causes
    ("after learning to say no I've felt much less stressed", "cause", "knowledge",
     "The user has felt much less stressed after learning to say no."),
    ("Since I started therapy, I've been arguing less with my partner.", "cause", "knowledge",
     "The user has been arguing less with their partner since they started therapy."),
    ("I sold my car because parking downtown was impossible.", "cause", "knowledge",
     "The user sold their car because parking downtown was impossible."),
]  # fmt: skip

LEAVES = [
    # trivial or of the moment
    "I want coffee",
    "I want to go to bed",
    "I want to sleep right now",
    "I want to ask you something",
    "I'm trying to make it work",
    "I'm fine",
    "I'm so excited!",
    "I'm tired",
    "I feel sick today",
    "I'm late because the bus didn't come",
    "I'd like to order a pizza",
    "I'd love to go to Paris",
    "That makes me happy",
    "You make me laugh",
    "I miss you",
    "I believe so",
    "I think it's at five",
    # questions, hypotheticals, reported speech, sarcasm, other people
    "Do you want to get back into painting?",
    "If I wanted to learn guitar, where would I start?",
    "Imagine I wanted to move abroad",
    'She said "I want to learn guitar"',
    "He told me loud neighbors put him on edge",
    "I just love being stuck in traffic /s",
    "Yeah right, I totally want to run a marathon",
    "My sister wants to move abroad",
    "My friend has been feeling low lately",
    "She's recovering from a bad flu",
]


@pytest.mark.parametrize(("text", "kind", "category", "content"), KEEPS)
def test_keeps_the_persons_own_inner_life(text, kind, category, content):
    [fact] = facts_in(text, now=NOW)
    assert (fact.scope, fact.category, fact.content) == ("user", category, content)
    assert fact.tags[0] == kind and fact.tags[1].startswith("topic:")
    assert fact.key == f"{kind}:{fact.tags[1][6:]}"
    assert 0.5 <= fact.salience <= 0.7


@pytest.mark.parametrize("text", LEAVES)
def test_leaves_the_moment_and_other_voices_alone(text):
    assert facts_in(text, now=NOW) == []


def test_a_plainer_fact_wins_over_a_meaning_one():
    [fact] = facts_in("I'm allergic to peanuts", now=NOW)
    assert fact.tags[0] == "allergy"


def _rec(content: str, category: str, tags: list[str]) -> MemoryRecord:
    return MemoryRecord(
        id="m_old", scope="user", category=category, content=content, tags=tags, user_key="u1"
    )


def test_same_saying_skips_and_a_new_one_supersedes():
    old = _rec("The user wants to get back into painting.", "knowledge", ["goal", "topic:painting"])
    [same] = offline_writes("I want to get back into painting.", existing=[old], now=NOW).writes
    assert same.op == "skip"
    [new] = offline_writes("I really want to get into painting", existing=[old], now=NOW).writes
    assert (new.op, new.entry.supersedes_id) == ("update", "m_old")


def test_a_changed_mood_supersedes_the_old_mood():
    old = _rec("The user has been feeling low lately.", "knowledge", ["feeling", "topic:mood"])
    [new] = offline_writes("I've been feeling much better lately", existing=[old], now=NOW).writes
    assert (new.op, new.entry.supersedes_id) == ("update", "m_old")


@pytest.fixture
async def store(tmp_path):
    async with MemoryStore(tmp_path / "ws") as s:
        yield s


def _turn(text: str) -> TurnContext:
    return TurnContext(
        user_text=text,
        agent_id="agent_0",
        dialogue_id="dialogue_1",
        user_key="u1",
        now=NOW.isoformat(),
    )


async def test_round_trip_through_the_offline_writer(store):
    writer = MemoryWriter(store)
    await writer.process_turn(_turn("Loud neighbors put me on edge."))
    await writer.process_turn(_turn("I want to get back into painting."))
    report = await writer.process_turn(_turn("I want to get back into painting!"))
    assert report.added == 0
    records = await store.list(now=NOW, user_key="u1", scope="user")
    by_content = {r.content: r for r in records}
    assert set(by_content) == {
        "Loud neighbors put the user on edge.",
        "The user wants to get back into painting.",
    }
    goal = by_content["The user wants to get back into painting."]
    assert goal.category == "knowledge" and "goal" in goal.tags and "topic:painting" in goal.tags


def test_the_reply_names_the_user_inside_a_sentence_as_you():
    said = second_person("Loud neighbors put the user on edge.")
    assert said == "Loud neighbors put you on edge."
