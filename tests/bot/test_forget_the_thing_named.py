"""A forget that names a thing as "the allergy thing" or "the bit about my job" is a forget
by words, never a fact (tester s39: "actually forget the allergy thing, i got that wrong"
was noted as "you are allergic to forget the")."""

from __future__ import annotations

from pathlib import Path

from familiars.bot._forget_words import forget_about
from tests.harness import message, running_app, say


def test_the_thing_named_is_what_goes() -> None:
    assert forget_about("actually forget the allergy thing, i got that wrong") == "allergy"
    assert forget_about("please delete the bit about my job") == "my job"
    assert forget_about("forget the allergy thing") == "allergy"
    # a new fact after it is a correction, for the writer; a reminder has its own words
    assert forget_about("forget the allergy thing, I'm allergic to walnuts") is None
    assert forget_about("forget the reminder thing") is None


async def test_forget_the_allergy_thing_forgets_the_allergy(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        await say(app, message("I'm allergic to peanuts"))
        await say(app, message("I live in Crewe", minutes=1))
        asked = await say(
            app, message("actually forget the allergy thing, i got that wrong", minutes=2)
        )
        assert "peanuts" in asked and "Crewe" not in asked, asked
        assert "Noted" not in asked, asked
        assert (await say(app, message("yes", minutes=3))).startswith("Forgotten")
        left = [r.content for r in await app.memory.store.list()]
        assert left == ["The user lives in Crewe."], left
