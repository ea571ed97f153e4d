"""Session 34 tester findings (fixrem 2, 3): reminder wordings read as said ("half 7",
"tmrw", "the last day of the month", "I need my tablets every morning at 8, can you remind
me", "... actually just tuesdays", "- van MOT"), and a time that has passed refused."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest

from familiars.bot import Application
from tests.harness import invocation, say, speaker

T0 = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)  # Monday, 10:00 in London


#: Sam, on the console, from ``T0`` on (``msg(text, minutes)``), and Sam's commands.
SAM = {"platform": "console", "chat": "console-sam", "user": "sam", "name": "Sam"}
msg = speaker(**SAM, at=T0)
_cmd = partial(invocation, **SAM)


async def _in_london(app: Application) -> None:
    assert app.state is not None
    await app.state.set_timezone(await app.state.person_for("console", "sam"), "Europe/London")


WORDINGS = [
    # (what was said, what the reply must hold)
    ("nudge me at half 7 tomorrow to call the merchants", "call the merchants on Tue 8 Dec 07:30"),
    ("remind me tmrw at 6:30am to load the van", "to load the van on Tue 8 Dec 06:30"),
    ("remind me 2moro at 6:30am to load the van", "to load the van on Tue 8 Dec 06:30"),
    (
        "remind me on the last day of the month to send my VAT stuff",
        "to send your VAT stuff on Thu 31 Dec 09:00",
    ),
    (
        "i need my blood pressure tablets every morning at 8, can you remind me",
        "to take your blood pressure tablets every day at 08:00, first on Tue 8 Dec 08:00",
    ),
    (
        "remind me every tuesday and thursday at 10 to water the plants... actually just tuesdays",
        "to water the plants every Tuesday at 10:00, first on Tue 8 Dec 10:00.",
    ),
    ("set a reminder for the 23rd at 2pm - van MOT", "I'll remind you about van MOT on Wed 23 Dec"),
    (
        "remind me to put the kettle on on Monday at 3pm",
        "I'll remind you on Mon 14 Dec 15:00 to put the kettle on.",
    ),
]


@pytest.mark.parametrize(("text", "reply"), WORDINGS)
async def test_a_reminder_wording_is_read_as_said(app: Application, text: str, reply: str) -> None:
    await _in_london(app)
    said = await say(app, msg(text))
    assert reply in said, said
    assert "actually" not in said and " on on " not in said


async def test_a_request_after_what_it_is_about_is_not_filler(app: Application) -> None:
    await _in_london(app)
    said = await say(app, msg("I need to call the bank at 3pm tomorrow, can you remind me?"))
    assert "I'll remind you to call the bank on Tue 8 Dec 15:00" in said, said


@pytest.mark.parametrize(
    "text", ["remind me yesterday at 9 to call Bob", "remind me to call Bob yesterday at 9"]
)
async def test_a_time_gone_by_is_refused(app: Application, text: str) -> None:
    """08:00 in London: "yesterday at 9" was read as today 09:00 (still to come)."""
    await _in_london(app)
    early = dataclasses.replace(msg(text), ts=T0 - timedelta(hours=2))
    said = await say(app, early)
    assert "That day has passed, so no reminder is set to call Bob" in said, said
    assert "I'll remind you" not in said
    assert app.dialogues is not None
    listed = (await app.dialogues.command(_cmd("reminders"))).text
    assert "call Bob" not in listed, listed
