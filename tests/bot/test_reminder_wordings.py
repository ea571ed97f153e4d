"""F6: reminder wordings the offline understanding missed, through the whole turn: a nudge
with only a time, "don't let me forget", a monthly reminder, and stopping one by its words."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.bot import Application
from tests.harness import say, speaker

T0 = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


msg = speaker(platform="console", chat="console-sam", user="sam", name="Sam", at=T0)


async def test_a_nudge_with_only_a_time_is_set(app: Application) -> None:
    reply = await say(app, msg("give me a nudge at 5"))
    assert "Mon 7 Dec 17:00" in reply and "remind you" in reply
    polite = await say(app, msg("hey, can you give me a nudge at 6 to stretch", 1))
    assert "remind you to stretch on Mon 7 Dec 18:00" in polite


async def test_dont_let_me_forget_sets_a_reminder_or_asks_when(app: Application) -> None:
    reply = await say(app, msg("don't let me forget to call mum tomorrow"))
    assert "remind you to call mum on Tue 8 Dec" in reply
    asked = await say(app, msg("don't let me forget to water the plants", 1))
    assert "When should I remind you to water the plants?" in asked
    answered = await say(app, msg("tomorrow at 6pm", 2))
    assert "remind you to water the plants on Tue 8 Dec 18:00" in answered


async def test_every_month_is_a_monthly_reminder(app: Application) -> None:
    reply = await say(app, msg("remind me every month to pay rent"))
    assert "remind you to pay rent every month on the 8th at 09:00" in reply
    first = await say(app, msg("remind me on the 1st of every month to check the meter", 1))
    assert "every month on the 1st at 09:00, first on Fri 1 Jan" in first


async def test_stop_reminding_me_cancels_by_its_words(app: Application) -> None:
    await say(app, msg("remind me every month to pay rent"))
    await say(app, msg("remind me tomorrow at 8 to water the plants", 1))
    stopped = await say(app, msg("stop reminding me about rent", 2))
    assert stopped.startswith("Cancelled: pay rent")
    unknown = await say(app, msg("stop reminding me about the dentist", 3))
    assert "can't find a reminder about 'dentist'" in unknown
    more = await say(app, msg("no more reminders to water the plants", 4))
    assert more.startswith("Cancelled: water the plants")
