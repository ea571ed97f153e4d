"""A forget by words takes the memories that say what was named, in the person's words or
the record's (tester s36, zoe: "forget that i hate mushrooms" listed the message but KEPT
"you don't like mushrooms", noted from it; after yes "do i like mushrooms" still said so).
A feeling said one way ("hate") is the same fact said another ("doesn't like"); and a
memory noted from a message that goes, sharing a word of what was named, goes with it. The
other things that message said stay."""

from __future__ import annotations

from pathlib import Path

from familiars.bot._forget_match import says
from familiars.memory import terms
from tests.bot.test_forget import files_holding
from tests.harness import message, running_app, say

SAID = "lowkey obsessed w kpop fr 😭 and i hate mushrooms they r so gross"


def test_a_feeling_said_another_way_says_the_same() -> None:
    assert says(terms("i hate mushrooms"), "The user doesn't like mushrooms.")
    assert says(terms("that I can't stand olives"), "The user dislikes olives.")
    assert not says(terms("i hate mushrooms"), "The user likes kpop.")


async def test_forget_that_i_hate_mushrooms_takes_the_memory(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        assert "mushrooms" in await say(app, message(SAID, user="zoe", name="Zoe"))
        asked = await say(app, message("forget that i hate mushrooms", user="zoe", minutes=1))
        assert asked.startswith("About to forget"), asked
        assert "you don't like mushrooms" in asked, asked
        # the kpop the same message told is now kept as its own fact, and stays
        assert "Kept, though said in the same message: you like kpop" in asked, asked
        done = await say(app, message("yes", user="zoe", minutes=2))
        assert done.startswith("Forgotten") and "1 memory" in done, done
        answer = await say(app, message("what food do i not like", user="zoe", minutes=3))
        assert "mushroom" not in answer.lower(), answer
        assert [r for r in await app.memory.store.list() if "mushroom" in r.content] == []
    assert files_holding(workspace, "mushroom") == []


async def test_what_else_the_message_said_stays(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        said = "I'm allergic to shellfish and I hate mushrooms"
        assert "mushrooms" in await say(app, message(said))
        asked = await say(app, message("forget that i hate mushrooms", minutes=1))
        assert "Kept, though said in the same message: you are allergic" in asked, asked
        assert (await say(app, message("yes", minutes=2))).startswith("Forgotten")
        left = [r.content for r in await app.memory.store.list()]
        assert left == ["The user is allergic to shellfish."], left
