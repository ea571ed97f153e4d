"""A forget by words takes the person's other messages that say a value of what goes
(tester s37: after "forget where I live" + yes, "I'm Mia, 34, ... dental hygienist in
Leeds" stayed in dialogue.json: no home memory was noted from it, so Leeds was not gone).
The question names those messages; the yes forgets them whole; what else was noted from
them stays, and the question says so. Values are a memory's names and numbers, or its
other words together: a message that only shares a common word stays."""

from __future__ import annotations

from pathlib import Path

from familiars.memory import mentions, values_of
from tests.bot.test_forget import files_holding
from tests.harness import message, running_app, say

INTRO = (
    "I'm Mia, 34, and I basically spend my days fixing people's teeth - dental hygienist in Leeds"
)


def test_the_values_of_a_memory_are_its_names_numbers_or_all_its_words() -> None:
    assert values_of("The user lives in Leeds.") == ["Leeds"]
    assert values_of("The user lives in New York now.") == ["New York"]
    assert values_of("The user is 34 years old.") == ["34"]
    assert values_of("The user works as a dental hygienist.") == ["dental hygienist"]
    assert values_of("The user lives in a flat.") == []  # "my tyre is flat" is no home
    assert values_of("The user works from home.") == []
    assert values_of("Call Dr Patel on Friday at 10.", numbers=False) == ["Dr Patel"]
    assert mentions("Leeds", INTRO)
    # A bare age is said only beside the slot's words: "34," alone may be anything.
    assert not mentions("34", INTRO) and mentions("34", "I'm 34 years old", {"<age>"})
    assert mentions("dental hygienist", INTRO)
    assert not mentions("sound engineer", "the sound was lovely")
    assert not mentions("May", "may I ask?") and not mentions("34", "it was 3.34 pm")


async def test_forget_where_i_live_takes_the_other_messages_that_name_the_town(
    workspace: Path,
) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message(INTRO))
        await say(app, message("I live in Leeds", minutes=1))
        await say(app, message("Actually I moved, I live in York now", minutes=2))
        await say(app, message("Leeds was nice but York is quieter", minutes=3))
        await say(app, message("My cat is called Biscuit", minutes=4))
        asked = await say(app, message("forget where I live", minutes=5))
        assert "a message of yours that mentions Leeds: \"I'm Mia, 34" in asked, asked
        # "York" is an everyday word too (of "New York"): alone it is no evidence, but the
        # message goes for Leeds, York with it.
        assert 'mentions Leeds: "Leeds was nice but York is quieter"' in asked, asked
        assert "Kept, though said in the same message: your name is Mia" in asked, asked
        assert "Biscuit" not in asked, asked
        assert (await say(app, message("yes", minutes=6))).startswith("Forgotten")
        left = sorted(r.content for r in await app.memory.store.list())
        # The job said in the first message (without the town) is kept with the name.
        assert left == [
            "The user has a cat called Biscuit.",
            "The user is 34 years old.",
            "The user works as a dental hygienist.",
            "The user's name is Mia.",
        ], left
    for gone in ("Leeds", "York"):
        assert files_holding(workspace, gone) == [], gone
    assert files_holding(workspace, "Biscuit")
