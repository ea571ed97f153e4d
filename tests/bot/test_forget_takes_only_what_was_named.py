"""A forget in words takes what was named and nothing else (review s36 items 3 and 6: a quick
yes lost what the person never asked to forget).

- A feeling relates the person to a thing: "forget that I love my job" with a like, a dislike
  and a job kept is nothing (it offered all three); "forget that I hate mushrooms" takes the
  mushroom record; "forget what I like" the likes only, never a dislike nor a wish ("would
  like to visit Japan"), and "what I hate" the dislikes only.
- A slot takes the records of the slot: a reminder that says "home" fills none, and with no
  record of the slot nothing is found, never a message that only uses its word."""

from __future__ import annotations

from pathlib import Path

from familiars.bot._forget_match import taste_asked
from familiars.memory import MemoryRecord, slots_of
from tests.bot.test_forget import files_holding
from tests.harness import message, running_app, say

TASTES = (
    "I love pizza.",
    "I hate mushrooms.",
    "I work as a nurse.",
    "I would like to visit Japan.",
)


async def test_a_feeling_needs_the_thing_named_and_likes_are_not_dislikes(
    workspace: Path,
) -> None:
    async with running_app(workspace, model=None) as app:
        for i, line in enumerate(TASTES):
            await say(app, message(line, minutes=i))
        love_job = await say(app, message("forget that I love my job", minutes=5))
        assert love_job.startswith("I found nothing"), love_job
        likes = await say(app, message("forget what I like", minutes=6))
        assert "pizza" in likes, likes
        for other in ("mushrooms", "Japan", "nurse"):
            assert other not in likes, (other, likes)
        await say(app, message("no", minutes=7))
        hates = await say(app, message("forget what I hate", minutes=8))
        assert "mushrooms" in hates and "pizza" not in hates, hates
        await say(app, message("no", minutes=9))
        named = await say(app, message("forget that I hate mushrooms", minutes=10))
        assert "mushrooms" in named and "pizza" not in named and "Japan" not in named, named
        assert (await say(app, message("yes", minutes=11))).startswith("Forgotten")
        left = sorted(r.content for r in await app.memory.store.list())
        assert left == [
            "The user likes pizza.",
            "The user works as a nurse.",
            "The user would like to visit Japan.",
        ], left
    assert files_holding(workspace, "mushrooms") == []


async def test_where_i_live_leaves_a_reminder_that_says_home(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("I live in Leeds."))
        await say(app, message("remind me to book Toby's train home tomorrow at 5", minutes=1))
        asked = await say(app, message("forget where I live", minutes=2))
        assert "Leeds" in asked and "Toby" not in asked, asked


async def test_a_slot_with_no_record_finds_nothing(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("My sister loves her job in Paris."))
        await say(app, message("I'm reading a book about working from home.", minutes=1))
        told = await say(app, message("forget my job", minutes=2))
        assert told.startswith("I found nothing"), told


def test_a_slot_is_filled_by_what_a_record_says_of_the_person() -> None:
    def rec(text: str) -> MemoryRecord:
        return MemoryRecord(id="r1", scope="user", content=text)

    assert slots_of(rec("The user lives in Crewe.")) == {"<home>"}
    assert slots_of(rec("The user works from home as an accountant.")) == {"<work>"}
    assert slots_of(rec("The user is 34 years old.")) == {"<age>"}
    assert slots_of(rec("Remind the user to book Toby's train home at 17:00.")) == set()
    assert slots_of(rec("The user is reading a book about working from home.")) == set()


async def test_a_feeling_forgot_leaves_another_said_in_the_same_message(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("I hate mushrooms but I love pizza."))
        asked = await say(app, message("forget that I hate mushrooms", minutes=1))
        assert "mushrooms" in asked, asked
        assert "Kept, though said in the same message: you like pizza" in asked, asked


def test_likes_and_dislikes_asked_in_any_form() -> None:
    for what in ("what I like", "my likes", "what I love", "my favourites"):
        assert taste_asked(what) == "likes", what
    for what in ("what I hate", "my dislikes", "what I can't stand", "what I don't like"):
        assert taste_asked(what) == "dislikes", what
