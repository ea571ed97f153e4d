"""A conversation about a crisis is a conversation (tester s37): worried messages in a row
get the full crisis text once, then shorter replies that hear what was said, still name a
line and ask about safety; "I'm safe tonight, my sister's coming over" is not asked again;
the number is given again when asked; an apology for "dumping that on you" is met warmly;
a pet's death gets sympathy, not "(it died)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._answers import offline_reply
from familiars.bot._turn_actions import TurnActions
from tests.harness import message, running_app, say

pytestmark = pytest.mark.timeout(120)

WORRIES = [
    "i just feel like a burden",
    "i don't want to be here anymore",
    "no one would even notice if i disappeared",
    "I've been thinking about ending it",
]


async def test_worries_in_a_row_get_no_repeated_paragraph(workspace: Path) -> None:
    async with running_app(workspace) as app:
        await say(app, message("I live in Manchester"))
        replies = [await say(app, message(t, minutes=i + 1)) for i, t in enumerate(WORRIES)]
    assert "emergency number" in replies[0] and "116 123" in replies[0], replies[0]
    assert len(set(replies)) == len(replies), replies
    for reply in replies[1:]:
        assert "116 123" in reply, reply  # a line is still named
        assert len(reply) < len(replies[0]) + 40, reply
    assert "alone" in replies[2] and "ending your life" in replies[3], replies
    assert any("safe" in r or "someone with you" in r for r in replies[1:3]), replies


async def test_safe_with_someone_is_acknowledged_not_asked_again(workspace: Path) -> None:
    async with running_app(workspace) as app:
        await say(app, message("everyone would be better off without me"))
        safe = await say(app, message("I'm safe tonight, my sister's coming over", minutes=1))
        later = await say(app, message("i just feel like a burden", minutes=2))
    assert "glad" in safe and "sister is coming over" in safe, safe
    assert "are you safe" not in safe.lower(), safe
    assert "are you safe" not in later.lower() and "116 123" in later, later


async def test_the_line_is_given_again_when_asked(workspace: Path) -> None:
    async with running_app(workspace) as app:
        await say(app, message("I live in Leeds"))
        await say(app, message("some days I don't see the point of going on", minutes=1))
        again = await say(app, message("what's the number for samaritans again", minutes=2))
        that = await say(app, message("what was that number again?", minutes=3))
    assert "116 123" in again and "don't know" not in again, again
    assert "116 123" in that, that


def _reply(text: str, **kw: object) -> str:
    return offline_reply(text, actions=TurnActions(), items=[], is_group=False, **kw)  # type: ignore[arg-type]


def test_manners_after_something_heavy() -> None:
    sorry = _reply("thanks. sorry for dumping that on you", after_care=True)
    assert "no need to apologise" in sorry and "welcome" not in sorry, sorry
    assert "glad" in _reply("morning. feeling a bit better today")
    assert "glad" not in _reply("I don't feel any better")
    assert "glad I could be there" in _reply("thank you for last night, really")


async def test_a_pets_death_gets_sympathy(workspace: Path) -> None:
    async with running_app(workspace) as app:
        await say(app, message("I have a grumpy old tabby named Pickle"))
        reply = await say(app, message("sadly Pickle passed away on Sunday :(", minutes=1))
        about = await say(app, message("what do you know about me?", minutes=2))
    assert "sorry about Pickle" in reply and "(it died)" not in reply, reply
    assert "(it died)" not in about, about
