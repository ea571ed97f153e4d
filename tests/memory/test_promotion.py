"""Issue 25's stages: raw turns -> episodes -> a person's core profile, offline and
extractive, each derived entry naming its sources; only the person's own words; forgetting
a turn or a record takes its words out of what was made from it."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from familiars.config import load_settings
from familiars.memory import DialogTrees, Forgetter, make_record, open_workspace
from familiars.memory._promotion import (
    CORE_TAG,
    EPISODE_TAG,
    promote_core_profile,
    promote_episodes,
)
from tests.fakes import HashEmbedder

DAY1 = datetime(2026, 11, 23, 10, tzinfo=UTC).timestamp()
DAY2 = datetime(2026, 11, 24, 18, tzinfo=UTC).timestamp()
VEC = np.ones(8, dtype=np.float32) / np.sqrt(8)


def week(trees: DialogTrees) -> None:
    tree = trees.get("agent_0", "dialogue_1", create=True)
    said = [
        (DAY1, "Q", "user", "I had lunch with my sister Emma today and it was lovely."),
        (DAY1 + 60, "A", "response", "That sounds like a wonderful lunch with Emma!"),
        (DAY1 + 120, "Q", "user", "I'm stressed about the deadline at work on Friday."),
        (DAY1 + 180, "A", "proactive", "Just checking in: you like sailing, right?"),
        (DAY2, "Q", "user", "Joaquin cooked paella for everyone, I was so happy."),
        (DAY2 + 60, "Q", "user", "Ok."),
    ]
    for ts, kind, origin, text in said:
        tree.add_node(text, VEC, node_type=kind, timestamp=ts, origin=origin,
                      metadata={"user_key": "ana"})  # fmt: skip
    tree.add_node("Bob here, my cat Tom is ill.", VEC, timestamp=DAY1 + 240,
                  metadata={"user_key": "bob"})  # fmt: skip


async def test_episodes_come_from_the_persons_own_turns_only(tmp_path):
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=8)) as mw:
        forgetter = Forgetter.for_workspace(mw)
        trees = forgetter.trees  # one set of open trees, as in the bot
        week(trees)
        made = await promote_episodes(mw.store, trees, today="2026-11-30")
        assert len(made) == 3
        episodes = [await mw.store.get(i) for i in made]
        first, second = [e for e in episodes if e.user_key == "ana"]
        assert [e.content for e in episodes if e.user_key == "bob"] == [
            "On 2026-11-23 the user said: Bob here, my cat Tom is ill."
        ]
        assert "Bob" not in first.content
        assert first.content.startswith("On 2026-11-23 the user said: I had lunch with my sister")
        assert "stressed about the deadline" in first.content
        assert "wonderful" not in first.content and "sailing" not in first.content
        assert first.derived_from == ["node:agent_0/dialogue_1/0", "node:agent_0/dialogue_1/2"]
        assert EPISODE_TAG in first.tags and "person:Emma" in first.tags
        assert "feeling:happy" in second.tags and "person:Joaquin" in second.tags
        assert await promote_episodes(mw.store, trees, today="2026-11-30") == []
        report = await forgetter.forget("node:agent_0/dialogue_1/2")
        assert first.id in report.dropped
        again = await promote_episodes(mw.store, trees, today="2026-11-30")
        text = (await mw.store.get(again[0])).content
        assert "deadline" not in text and "lunch with my sister" in text


async def test_the_core_profile_names_its_sources_and_is_made_again_without_a_forgotten_one(
    tmp_path,
):
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=8)) as mw:
        facts = []
        for text, cat in [
            ("The user lives in Lisbon.", "profile"),
            ("The user works as a nurse.", "profile"),
            ("The user likes sailing.", "preference"),
            ("The user's sister is called Emma.", "relation"),
        ]:
            rec = make_record(text, scope="user", category=cat, user_key="ana")
            facts.append(await mw.store.append(rec, dedupe=False))
        core_id, replaced = await promote_core_profile(mw.store, "ana")
        core = await mw.store.get(core_id)
        assert replaced == [] and CORE_TAG in core.tags and core.category == "profile"
        assert core.derived_from == sorted(r.id for r in facts)
        assert "Lisbon" in core.content and "sailing" in core.content
        assert await promote_core_profile(mw.store, "ana") == (None, [])  # nothing new
        report = await Forgetter.for_workspace(mw).forget(facts[2].id)
        again = await mw.store.get(report.rederived[core.id])
        assert "sailing" not in again.content and facts[2].id not in again.derived_from


async def test_a_core_profiles_sources_stay_live_through_later_passes(tmp_path):
    from familiars.memory import Consolidator
    from familiars.memory._writer._dedupe import EmbedderVectors

    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=8)) as mw:
        for text in ("The user lives in Lisbon.", "The user likes sailing.", "The user is 34."):
            rec = make_record(text, scope="user", category="profile", user_key="ana")
            await mw.store.append(rec, dedupe=False)
        await promote_core_profile(mw.store, "ana")
        vectors = EmbedderVectors(HashEmbedder(dim=8))
        report = await Consolidator(mw.store, vectors, max_share=1.0).run()
        assert report.finished_interrupted == 0
        assert len(await mw.store.list(user_key="ana")) == 4


async def test_the_core_profile_learns_nothing_from_a_tainted_turn_the_bot_or_a_ttl(tmp_path):
    """The consolidator's rails hold for the core profile too: a record written in a tainted
    turn (document text, other people's words), one whose words came from the bot or recall,
    and one whose TTL means it ends are never made part of the person's standing profile."""
    from familiars.memory._writer._rights import TAINTED_TURN_TAG

    ENDS = {"kind": "absolute", "expires_at": "2099-01-01T00:00:00+00:00"}  # noqa: N806
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=8)) as mw:
        for text, extra in [
            ("The user lives in Lisbon.", {}),
            ("The user works as a nurse.", {}),
            ("The user is called Dr Evil.", {"tags": [TAINTED_TURN_TAG]}),
            ("The user likes the bot's jokes.", {"extra": {"origin": "response"}}),
            ("The user is in Paris this week.", {"ttl": ENDS}),
        ]:
            rec = make_record(text, scope="user", category="profile", user_key="ana", **extra)
            await mw.store.append(rec, dedupe=False)
        core = await mw.store.get((await promote_core_profile(mw.store, "ana"))[0])
        assert "Lisbon" in core.content and "nurse" in core.content
        assert "Evil" not in core.content and "jokes" not in core.content
        assert "Paris" not in core.content


async def test_a_day_in_two_dialogues_makes_an_episode_in_each(tmp_path):
    """The same person, the same day, two chats: each chat's day is its own episode (the
    second was taken for already done and never made)."""
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=8)) as mw:
        trees = Forgetter.for_workspace(mw).trees
        for dialogue, text in [
            ("dialogue_1", "I had lunch with my sister Emma today."),
            ("dialogue_2", "Joaquin cooked paella for everyone tonight."),
        ]:
            tree = trees.get("agent_0", dialogue, create=True)
            tree.add_node(text, VEC, node_type="Q", timestamp=DAY1, origin="user",
                          metadata={"user_key": "ana"})  # fmt: skip
        made = await promote_episodes(mw.store, trees, today="2026-11-30")
        texts = sorted([(await mw.store.get(i)).content for i in made])
        assert len(texts) == 2 and "Emma" in texts[0] + texts[1] and "paella" in texts[1]
        assert await promote_episodes(mw.store, trees, today="2026-11-30") == []
