"""News to be reminded of reads as news, with its own time words, and a time that names no
day is asked about (testers s39: "remind me that my passport expires in March" was set for
the 7th of March, "that your passport expires", and "remind me my passport runs out in
March" set nothing and said nothing)."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.bot import Application
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # Monday (2026's calendar)

msg = speaker(platform="console", chat="console-sam", user="sam", name="Sam", at=T0)


async def test_news_in_a_month_is_asked_when_and_keeps_its_month(app: Application) -> None:
    asked = await say(app, msg("remind me that my passport expires in March"))
    assert "When should I remind you that your passport expires in March?" in asked
    set_ = await say(app, msg("the 1st of February", 1))
    assert "I'll remind you on Mon 1 Feb 2038 09:00 that your passport expires in March" in set_


async def test_news_said_without_that_is_news(app: Application) -> None:
    runs = await say(app, msg("remind me my passport runs out in March"))
    assert "When should I remind you that your passport runs out in March?" in runs
    dentist = await say(app, msg("remind me I've got the dentist at 3 tomorrow", 1))
    assert "I'll remind you on Tue 8 Dec 15:00 that you've got the dentist" in dentist


async def test_a_day_answered_to_when_is_a_day_not_a_clock(app: Application) -> None:
    await say(app, msg("remind me to water the plants"))
    reply = await say(app, msg("12th December at 5pm", 1))
    assert "remind you to water the plants on Sat 12 Dec 17:00" in reply


async def test_a_thing_asked_to_be_told_is_no_reminder(app: Application) -> None:
    reply = await say(app, msg("remind me my mum's number"))
    assert "reminder" not in reply and "remind you" not in reply
