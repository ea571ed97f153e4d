"""A forgotten fact must not live on in process memory: the caches keyed by people's words
(the records' views and word index, the offline answer's stems and words, the people
graph's relations, whose a fact is...) kept the text after every file had lost it. Each
cache's owner declares it (``familiars.llm.text_cache`` and friends) and the one Forgetter
empties them all at the end of every forget, whichever road asked for it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from familiars.bot import Application
from familiars.bot._records_view import _VIEWS
from familiars.llm import text_cache_sizes
from tests.harness import invocation, message, running_app, say

FACT = "My dog is called Pepperoni."


async def _by_command(app: Application) -> str:
    assert app.dialogues is not None
    [rec] = [r for r in await app.memory.store.list() if "Pepperoni" in r.content]
    asked = await app.dialogues.command(invocation("memory", "forget", rec.id))
    assert "About to forget" in asked.text, asked.text
    done = await app.dialogues.command(invocation("memory", "forget", rec.id, "confirm"))
    return done.text


async def _by_words(app: Application) -> str:
    asked = await say(app, message("forget that my dog is called Pepperoni", minutes=3))
    assert "About to forget" in asked, asked
    return await say(app, message("yes", minutes=4))


ROADS: dict[str, Callable[[Application], Awaitable[str]]] = {
    "command": _by_command,
    "words": _by_words,
}


def _held() -> dict[str, int]:
    return {name: size for name, size in text_cache_sizes().items() if size}


@pytest.mark.parametrize("road", list(ROADS))
async def test_a_forget_leaves_no_text_cache_holding_the_words(workspace: Path, road: str) -> None:
    async with running_app(workspace) as app:
        await say(app, message(FACT))
        assert "Pepperoni" in await say(app, message("what is my dog called?", minutes=1))
        held = _held()
        # The caches the turns filled hold the fact (else the test would prove nothing).
        for name in (
            "familiars.bot._records_view._VIEWS",
            "familiars.llm._offline._said",
            "familiars.memory.LiveReads",
        ):
            assert held.get(name), held
        done = await ROADS[road](app)
        assert done.startswith("Forgotten"), done
        assert _held() == {}
        assert not [r for view in _VIEWS for r in view.records if "Pepperoni" in r.content]
        assert "Pepperoni" not in await say(app, message("what is my dog called?", minutes=5))


async def test_a_forget_that_fails_midway_still_empties_the_caches(workspace: Path) -> None:
    """A step of the forget that fails (a hook here) leaves no forgotten words in memory."""

    def broken(_report: object) -> None:
        raise RuntimeError("hook failed")

    async with running_app(workspace) as app:
        await say(app, message(FACT))
        assert "Pepperoni" in await say(app, message("what is my dog called?", minutes=1))
        assert _held()
        assert app.dialogues is not None
        app.dialogues.forget_words.forgetter.hooks.insert(0, broken)
        [rec] = [r for r in await app.memory.store.list() if "Pepperoni" in r.content]
        with pytest.raises(RuntimeError, match="hook failed"):
            await app.dialogues.forget_words.forgetter.forget(rec.id)
        assert _held() == {}
