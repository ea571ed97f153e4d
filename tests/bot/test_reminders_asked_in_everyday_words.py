"""A reminder asked for in other words is set, or the reply says plainly that none is: never
passed over in silence (testers s39: "I need reminding to put the bins out tomorrow night"
got "I see. Tell me more?"). A wish said the turn after its event counts from that event
("it's my sister's birthday on Saturday", then "remind me the day before")."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.bot import Application
from tests.harness import say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # Monday (2026's calendar)

msg = speaker(platform="console", chat="console-sam", user="sam", name="Sam", at=T0)


async def test_needing_a_reminder_sets_one(app: Application) -> None:
    bins = await say(app, msg("I need reminding to put the bins out tomorrow night"))
    assert "remind you to put the bins out on Tue 8 Dec 20:00" in bins
    tax = await say(app, msg("I'll need a reminder to renew the car tax on the 14th", 1))
    assert "remind you to renew the car tax on Mon 14 Dec" in tax
    bday = await say(app, msg("pls remind me abt mums bday on the 20th", 2))
    assert "mums bday on Sun 20 Dec" in bday and "I'll remind you about" in bday


async def test_a_nudge_about_a_thing_reminds_about_it(app: Application) -> None:
    reply = await say(app, msg("can you nudge me about the dentist on friday at 3"))
    assert "Okay, I'll remind you about the dentist on Fri 11 Dec 15:00." in reply
    ping = await say(app, msg("ping me about the parcel tomorrow at 10", 1))
    assert "remind you about the parcel on Tue 8 Dec 10:00" in ping


async def test_a_thing_to_remember_without_a_time_asks_when(app: Application) -> None:
    gas = await say(app, msg("I need reminding about the gas bill"))
    assert "When should I remind you about the gas bill?" in gas
    mot = await say(app, msg("I must remember to book the MOT, remind me", 1))
    assert "When should I remind you to book the MOT?" in mot
    recycling = await say(app, msg("make sure I remember the recycling on Thursday", 2))
    assert "remind you about the recycling on Thu 10 Dec" in recycling


async def test_a_request_nothing_could_be_read_from_says_so(app: Application) -> None:
    reply = await say(app, msg("give me a shout when it's time to leave for the station"))
    assert "no reminder is set" in reply
    assert "Tell me more" not in reply


async def test_a_question_or_a_likeness_is_no_request(app: Application) -> None:
    await say(app, msg("my dog is called Biscuit"))
    asked = await say(app, msg("remind me what my dog is called", 1))
    assert "no reminder is set" not in asked
    alike = await say(app, msg("you remind me of my nan", 2))
    assert "no reminder is set" not in alike


async def test_the_day_before_counts_from_the_event_said_just_before(app: Application) -> None:
    await say(app, msg("it's my sister's birthday on Saturday"))
    reply = await say(app, msg("remind me the day before", 1))
    assert "Okay, I'll remind you on Fri 11 Dec 09:00 that it's your sister's birthday" in reply
    await say(app, msg("the boiler man is coming on the 15th", 2))
    evening = await say(app, msg("could you remind me the evening before please", 3))
    assert "on Mon 14 Dec 18:00 that the boiler man is coming" in evening


async def test_an_age_is_no_day_and_an_opening_no_part_of_the_event(app: Application) -> None:
    await say(app, msg("morning! oh and my mum's 70th is on the 19th"))
    reply = await say(app, msg("can you give me a heads up two days before?", 1))
    assert "I'll remind you on Thu 17 Dec 09:00 that your mum's 70th is on the 19th" in reply


async def test_the_day_before_with_nothing_said_before_is_not_set(app: Application) -> None:
    reply = await say(app, msg("remind me the day before"))
    assert "I'll remind you" not in reply
    assert "no reminder is set" in reply


async def test_more_ways_of_asking_are_requests(app: Application) -> None:
    jog = await say(app, msg("could you jog my memory about the MOT next week"))
    assert "remind you about the MOT on Mon 14 Dec" in jog
    help_ = await say(app, msg("help me remember to pay the window cleaner friday", 1))
    assert "remind you to pay the window cleaner on Fri 11 Dec" in help_
    vet = await say(app, msg("I'd appreciate a reminder to ring the vet on Thursday", 2))
    assert "remind you to ring the vet on Thu 10 Dec" in vet
    jab = await say(app, msg("I want a reminder for my flu jab on the 18th", 3))
    assert "remind you about your flu jab on Fri 18 Dec" in jab
    alarm = await say(app, msg("set an alarm for 7 tomorrow", 4))
    assert "on Tue 8 Dec 07:00" in alarm
