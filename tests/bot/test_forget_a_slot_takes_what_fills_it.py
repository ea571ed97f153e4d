"""A forget that names a slot of the person ("where I live", "my job", "my old job") takes
the records that fill it, what they replaced, and the messages they came from; nothing only
for using one of the slot's words (tester s36: nigel's "/forget where I live" offered his
job and "Remind me to book Toby's train home."; maya's "/forget my old job" found nothing
while the replaced "fix peoples teeth" stayed in her files)."""

from __future__ import annotations

from pathlib import Path

from familiars.bot import Application
from familiars.bot._forget_match import past_asked
from tests.bot.test_forget import files_holding
from tests.harness import invocation, message, running_app, say


async def _forget(app: Application, *words: str, minutes: float) -> str:
    assert app.dialogues is not None
    return (await app.dialogues.command(invocation("forget", *words))).text


def test_old_previous_and_used_to_ask_for_the_replaced_value() -> None:
    assert past_asked("my old job") == ("my job", True)
    assert past_asked("my previous address") == ("my address", True)
    assert past_asked("where I used to live") == ("where I live", True)
    assert past_asked("how old I am") == ("how old I am", False)
    assert past_asked("my ex-boyfriend") == ("my ex-boyfriend", False)


async def test_where_i_live_takes_the_home_and_nothing_that_only_says_home(
    workspace: Path,
) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("I work from home as an accountant"))
        await say(app, message("I live in Crewe", minutes=1))
        await say(app, message("Remind me to book Toby's train home.", minutes=2))
        asked = await _forget(app, "where", "I", "live", minutes=3)
        assert "Crewe" in asked, asked
        for other in ("accountant", "Toby", "work from home"):
            assert other not in asked, (other, asked)
        assert (await say(app, message("yes", minutes=4))).startswith("Forgotten")
        [left] = [r.content for r in await app.memory.store.list()]
        assert "accountant" in left, left
    assert files_holding(workspace, "Crewe") == []
    assert files_holding(workspace, "Toby's train home")
    assert files_holding(workspace, "work from home as an accountant")


async def test_my_old_job_takes_the_job_a_newer_one_replaced(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("I fix peoples teeth for a living"))
        assert "dog groomer" in await say(app, message("I work as a dog groomer now", minutes=1))
        asked = await _forget(app, "my", "old", "job", minutes=2)
        assert "teeth" in asked and "groomer" not in asked, asked
        assert (await say(app, message("yes", minutes=3))).startswith("Forgotten")
        left = [r.content for r in await app.memory.store.list(live_only=False)]
        assert left == ["The user works as a dog groomer now."], left
    assert files_holding(workspace, "teeth") == []


async def test_my_old_job_with_none_replaced_is_nothing(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("I work as a dog groomer"))
        told = await _forget(app, "my", "previous", "job", minutes=1)
        assert told.startswith("I found nothing"), told
        assert [r.content for r in await app.memory.store.list()] == [
            "The user works as a dog groomer."
        ]
