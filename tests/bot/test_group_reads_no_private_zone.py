"""In a group nothing of a person's private home's zone shows or is used (review s37):
``/reminders`` there listed a repeating rule set in a direct chat as "every Monday at 08:00
Australia/Melbourne time", and ``/memory forget today`` there (and "forget everything from
today") read "today" from midnight in Melbourne. In a group both read the room's zone (the
default); in the direct chat the home's zone still holds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from familiars.config import load_settings
from tests.harness import ConsoleBot, console_bot, invocation, message, say

#: 20:00 UTC on the 6th is 07:00 on the 7th in Melbourne: "today" there, not in UTC.
SAID_AT = datetime(2037, 12, 6, 20, 0, tzinfo=UTC)
NOW = datetime(2037, 12, 7, 3, 0, tzinfo=UTC)


async def _in_group(bot: ConsoleBot, *words: str) -> str:
    """A command (``/name args``) or a message of alice's in the group ``g1``."""
    if words[0].startswith("/"):
        name, *args = words
        asked = invocation(name[1:], *args, chat="g1", user="alice", name="alice", group=True)
        assert bot.app.dialogues is not None
        return (await bot.app.dialogues.command(asked)).text
    said = message(words[0], chat="g1", group=True, user="alice", name="alice", at=NOW)
    return await say(bot.app, said)


async def test_a_group_reads_no_zone_of_a_private_home(workspace: Path) -> None:
    clock = [SAID_AT]
    async with console_bot(load_settings(workspace=workspace), clock) as bot:
        await bot.say("I live in Melbourne")
        await bot.say("remind me every Monday at 8am to water the plants")
        clock[0] = NOW
        private = await bot.command("/reminders")
        listed = await _in_group(bot, "/reminders")
        window = await _in_group(bot, "/memory", "forget", "today")
        in_words = await _in_group(bot, "forget everything from today")
        alone = await bot.command("/memory forget today")
    assert "Australia/Melbourne" in private and "every Monday at 08:00" in private, private
    assert "Melbourne" not in listed and "08:00" not in listed, listed
    assert "water the plants" in listed and "(repeats)" in listed, listed
    assert window == "You said nothing to me today that I still keep.", window
    assert in_words == "You said nothing to me today that I still keep.", in_words
    assert alone.startswith("About to forget for good"), alone  # Melbourne's today
