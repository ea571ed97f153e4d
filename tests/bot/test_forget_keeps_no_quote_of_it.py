"""Session 36 (the lead's transcript, and a tester's "forget my old job"): a forget by words
of one thing a message said keeps the other things it said, but the memories kept still
quoted the forgotten message ("source_quote": "User message: 'I run a little bakery in
Whitby'") in their entry, every event of their history and the index's copy, so
"Forgotten ... everywhere I kept them" was untrue: the forgotten town stayed in
``profile.md``, its history and ``familiars.db``. Now the quote goes, the memory stays
(its id, content and evidence), and no file or table holds the word."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from familiars.config import load_settings
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, NOW, Bot, WriterSetAside
from tests.harness import make_app

pytestmark = pytest.mark.timeout(180)

INTRO = (
    "evening all! Dot here, 52, I run a little bakery and we live in Whitby with our whippet "
    "called Biscuit"
)


@asynccontextmanager
async def offline(workspace: Path, embedder: Any) -> AsyncIterator[Bot]:
    """The offline bot with the bundled embedder (what ``familiars chat`` understands with:
    "I run a little bakery" is a job to it)."""
    settings = load_settings(workspace=workspace, care={"ai_disclosure": False})
    async with make_app(settings, model=None, clock=lambda: NOW, embedder=embedder) as app:
        yield Bot(app, WriterSetAside(), workspace)


async def dot_says(bot: Bot, text: str) -> str:
    """Dot's message (her name as the chat shows it: she says it in the intro)."""
    return await bot.say(text, name="Dot")


async def memories_of(bot: Bot) -> dict[str, tuple[str, list[str], object]]:
    """Each of Alice's memories: id -> (content, quotes, evidence)."""
    found = await bot.app.memory.store.list(scope="user", user_key=ALICE, live_only=False)
    return {r.id: (r.content, list(r.source_quote), r.evidence) for r in found}


async def test_forgetting_the_old_town_leaves_no_quote_of_it(
    tmp_path: Path, memory_home: str, real_embedder: Any
) -> None:
    ws = tmp_path / "ws"
    async with offline(ws, real_embedder) as bot:
        noted = await dot_says(bot, INTRO)
        assert "bakery" in noted and "Whitby" in noted and "Biscuit" in noted, noted
        assert "Scarborough" in await dot_says(bot, "we live in Scarborough now")
        before = await memories_of(bot)
        assert any("Whitby" in str(q) for _, q, _ in before.values()), before
        asked = await dot_says(bot, "forget my old address")
        assert asked.lstrip().startswith("About to forget") and "Kept" in asked, asked
        assert (await dot_says(bot, "yes")).startswith("Forgotten"), asked
        after = await memories_of(bot)
        for rid, (content, quotes, evidence) in after.items():
            assert before[rid][0] == content and before[rid][2] == evidence, (rid, after)
            assert not any("Whitby" in q or "Biscuit" in q for q in quotes), (rid, quotes)
        contents = " ".join(c for c, _, _ in after.values())
        for kept in ("bakery", "Scarborough", "Biscuit"):
            assert kept in contents, after
        history = [e for rid in after for e in await bot.app.memory.store.history(rid)]
        assert history and not [e for e in history if e["id"] in after and "forgotten" in e]
        assert "bakery" in await dot_says(bot, "What do I do for a living?")
    assert files_holding(ws, "Whitby") == []


async def test_forgetting_the_old_job_leaves_no_quote_of_it(
    tmp_path: Path, memory_home: str, real_embedder: Any
) -> None:
    ws = tmp_path / "ws"
    async with offline(ws, real_embedder) as bot:
        noted = await bot.say("I work as a nurse at st james and I live in Leeds")
        assert "nurse" in noted and "Leeds" in noted, noted
        assert "forget" not in (await bot.say("I work as a teacher now")).lower()
        asked = await bot.say("forget my old job")
        if asked.lstrip().startswith("About to forget"):
            assert (await bot.say("yes")).startswith("Forgotten"), asked
        else:
            assert asked.startswith("Forgotten"), asked
        kept = await memories_of(bot)
        assert "Leeds" in " ".join(c for c, _, _ in kept.values()), kept
    assert files_holding(ws, "nurse") == []
