"""Crisis lines by country and the offline companion's manners (issue 23)."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.bot._answers import offline_reply
from familiars.bot._care import country_of, crisis_reply
from familiars.bot._turn_actions import TurnActions
from familiars.config import Settings


def test_crisis_lines_follow_the_country() -> None:
    text = Settings().care.crisis_text
    assert "116 123" in crisis_reply(text, country_of("Europe/Oslo")) and "988" not in crisis_reply(
        text, country_of("Europe/Oslo")
    )
    assert "988" in crisis_reply(text, country_of("America/Chicago"))
    assert "13 11 14" in crisis_reply(text, country_of("Europe/Oslo", "au"))
    unknown = crisis_reply(text, country_of("UTC"))
    assert "116 123" in unknown and "988" in unknown and "findahelpline.com" in unknown


def _reply(text: str, **kw: object) -> str:
    return offline_reply(text, actions=TurnActions(), items=[], is_group=False, **kw)  # type: ignore[arg-type]


def test_manners() -> None:
    assert "AI" in _reply("are you a real person?")
    assert "glad" in _reply("did you miss me?")
    assert _reply("thanks for listening") != "Got it."
    assert "sorry" in _reply("I hate you").lower()
    assert "How are you" in _reply("how r u today")
    now = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)
    assert _reply("what's the date?", now=now) == "It's Wednesday 2 December 2026."
    assert "Hello there" in _reply("what did you just say?", last_reply="Hello there")


def test_an_unknown_own_name_is_not_answered_with_another_name() -> None:
    """Word overlap alone answers "what's my name?" with the dog's name; a question that
    surely asks the person's own name, with none kept, is not answered with it."""
    from types import SimpleNamespace

    from familiars.bot._answers import DONT_KNOW

    dog = SimpleNamespace(
        kind="record", text="The user's dog's name is Biscuit.", score=0.0, private=True
    )
    question = "what's my name?"
    guessed = offline_reply(question, actions=TurnActions(), items=[dog], is_group=False)
    assert "Biscuit" in guessed  # what the rules alone say
    reply = offline_reply(
        question, actions=TurnActions(), items=[dog], is_group=False, unknown=True
    )
    assert reply == DONT_KNOW


def test_a_message_that_kept_nothing_gets_no_false_acknowledgement() -> None:
    assert _reply("🙂🙂🙂") == "🙂"
    assert _reply("my neighbour's parrot screams all day") == "Oh? Tell me more."
    assert _reply("I had a funny sort of afternoon") == "I see. Tell me more?"
