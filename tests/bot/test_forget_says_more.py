""" "scratch that" / "forget that" followed by something of its own (tester s34 U4, U53):
"scratch that, its skating AND football actually" took away, at once and unasked, a
reminder set three messages before. A pointing request that goes on with a statement now
asks before it forgets; the afterthoughts of a plain forget still forget at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._forget_words import says_more
from tests.bot.test_forget_everywhere import Bot, offline

pytestmark = pytest.mark.timeout(180)


async def _kept(bot: Bot) -> str:
    return "\n".join(r.content for r in await bot.app.memory.store.list())


@pytest.mark.parametrize(
    "text",
    [
        "scratch that, its skating AND football actually",
        "scratch that, Finn's the older twin by 10 mins haha",
        "forget that - my brother is the one in Leeds",
        "delete that. we sold the caravan last spring",
    ],
)
def test_a_pointing_request_that_goes_on_says_more(text: str) -> None:
    assert says_more(text)


@pytest.mark.parametrize(
    "text",
    [
        "forget that",
        "scratch that",
        "actually forget that, I shouldn't have said it",
        "forget that. it was mean",
        "scratch that, forget it",
        "oops, forget that, my bad",
        "can you forget that? it was too personal",
        "forget that (I was joking)",
        "delete that, thanks",
        "forget that I live in Denver, I shouldn't have said it",
        "don't forget that my sister lands at 6",
    ],
)
def test_a_forget_with_an_afterthought_or_none_says_no_more(text: str) -> None:
    assert not says_more(text)


async def test_a_scratch_that_with_a_statement_asks_before_a_reminder_goes(
    tmp_path: Path,
) -> None:
    async with offline(tmp_path / "ws") as bot:
        set_ = await bot.say("remind me in 10 mins to text keira")
        assert "remind you" in set_, set_
        asked = await bot.say("scratch that, its skating AND football actually")
        assert "Reply yes" in asked and not asked.startswith("Forgotten"), asked
        kept = await bot.say("no")
        assert kept.startswith("Kept"), kept
        assert "keira" in await _kept(bot)
        # What was said instead is a turn of its own: the last thing said, not the reminder.
        plain = await bot.say("forget that")
        assert plain.startswith("Forgotten"), plain
        assert "keira" in await _kept(bot)


async def test_what_is_said_instead_is_kept_once_the_forget_is_answered(
    tmp_path: Path,
) -> None:
    """Review s34 F3: "scratch that, my favourite colour is green" asked to forget blue,
    and on yes blue went and green was never kept."""
    async with offline(tmp_path / "ws") as bot:
        assert "blue" in await bot.say("My favourite colour is blue.")
        asked = await bot.say("scratch that, my favourite colour is green")
        assert "Reply yes" in asked and "blue" in asked, asked
        done = await bot.say("yes")
        assert done.startswith("Forgotten") and "green" in done, done
        kept = await _kept(bot)
        assert "green" in kept and "blue" not in kept, kept
        answer = await bot.say("what's my favourite colour?")
        assert "green" in answer and "blue" not in answer, answer
        kept_no = await bot.say("scratch that, my favourite colour is red")
        assert "Reply yes" in kept_no, kept_no
        said = await bot.say("no")  # the forget declined; red is still what was said
        assert said.startswith("Kept") and "red" in said, said
