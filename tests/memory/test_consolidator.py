"""Consolidator (§5.9) on a real store: clusters merge, pinned never, dry run writes nothing,
a second run does nothing, an interrupted run is finished."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.llm import OpenAIChatModel
from familiars.memory import Consolidator, MemoryStore, make_record
from familiars.memory._writer._dedupe import EmbedderVectors
from tests.fake_openai import FakeOpenAI, Reply
from tests.fakes import HashEmbedder

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path):
    async with MemoryStore(tmp_path) as s:
        yield s


@pytest.fixture
def vectors():
    return EmbedderVectors(HashEmbedder(dim=256))


def rec(content, *, user="u1", category="preference", ts="2026-11-01T00:00:00+00:00", **kw):
    return make_record(content, scope="user", category=category, user_key=user, ts=ts, **kw)


async def seed(store):
    a = await store.append(
        rec("The user likes green tea", salience=0.5, ts="2026-11-01T00:00:00+00:00")
    )
    b = await store.append(
        rec("The user likes green tea a lot", salience=0.7, ts="2026-11-02T00:00:00+00:00")
    )
    c = await store.append(
        rec(
            "The user likes green tea",
            salience=0.5,
            ts="2026-11-03T00:00:00+00:00",
            id=None,
            tags=["x"],
        ),
        dedupe=False,
    )  # noqa: E501
    other = await store.append(rec("The user plays chess on Sundays"))
    someone_else = await store.append(rec("The user likes green tea a lot", user="u2"))
    return a, b, c, other, someone_else


async def live(store, **kw):
    return await store.list(now=NOW, **kw)


async def test_dry_run_plans_but_writes_nothing(store, vectors):
    a, b, c, other, _ = await seed(store)
    before = await store.list(live_only=False)
    report = await Consolidator(store, vectors, threshold=0.8, max_share=1.0).run(
        dry_run=True, now=NOW
    )
    assert len(report.plans) == 1
    plan = report.plans[0]
    assert {r.id for r in plan.sources} == {a.id, b.id, c.id}
    assert plan.content == "The user likes green tea a lot"  # most salient
    assert report.created == [] and await store.list(live_only=False) == before


async def test_merge_deprecates_sources_and_is_idempotent(store, vectors):
    a, b, c, other, someone_else = await seed(store)
    cons = Consolidator(store, vectors, threshold=0.8, max_share=1.0)
    report = await cons.run(now=NOW)
    assert len(report.created) == 1 and report.deprecated == 3
    merged = await store.get(report.created[0])
    assert merged.derived_from == sorted([a.id, b.id, c.id])
    assert merged.content == "The user likes green tea a lot" and merged.salience == 0.7
    assert "x" in merged.tags
    for src in (a, b, c):
        assert (await store.get(src.id)).deprecated
    assert {r.id for r in await live(store, user_key="u1", scope="user")} == {merged.id, other.id}
    assert not (await store.get(someone_else.id)).deprecated  # another person's record
    again = await cons.run(now=NOW)
    assert again.plans == [] and again.created == [] and again.finished_interrupted == 0


async def test_equal_salience_keeps_the_most_recent_text(store, vectors):
    await store.append(
        rec("The user lives in Oslo", category="profile", ts="2026-01-01T00:00:00+00:00")
    )
    await store.append(
        rec("The user lives in Oslo now", category="profile", ts="2026-06-01T00:00:00+00:00")
    )
    report = await Consolidator(store, vectors, threshold=0.7, max_share=1.0).run(now=NOW)
    assert (await store.get(report.created[0])).content == "The user lives in Oslo now"


async def test_pinned_ttl_open_loops_and_negations_are_never_merged(store, vectors):
    pinned = await store.append(rec("The user likes green tea", pinned=True))
    await store.append(rec("The user likes green tea.", id=None), dedupe=False)
    await store.append(rec("The user doesn't like green tea"))
    loop = {"kind": "reminder", "due": "2026-12-01T09:00:00+00:00", "status": "open"}
    await store.append(
        rec("Remind the user to buy tea", category="event", extra={"open_loop": loop})
    )
    await store.append(
        rec("Remind the user to buy tea.", category="event", extra={"open_loop": dict(loop)})
    )
    ttl = {"kind": "absolute", "expires_at": "2027-01-01T00:00:00+00:00"}
    await store.append(rec("The user is in Rome this week", category="event", ttl=ttl))
    await store.append(rec("The user is in Rome this week.", category="event", ttl=ttl))
    report = await Consolidator(store, vectors, threshold=0.8, max_share=1.0).run(now=NOW)
    assert report.plans == []
    assert not (await store.get(pinned.id)).deprecated


async def test_interrupted_run_is_finished_next_time(store, vectors):
    a = await store.append(rec("The user likes jazz"))
    b = await store.append(rec("The user likes jazz a lot"))
    # A merged record was written but the sources were never deprecated (a crash).
    await store.append(rec("The user likes jazz a lot", derived_from=[a.id, b.id]), dedupe=False)
    report = await Consolidator(store, vectors, threshold=0.8, max_share=1.0).run(now=NOW)
    assert report.finished_interrupted == 2 and report.plans == []
    assert len(await live(store, user_key="u1", scope="user")) == 1


async def test_model_writes_the_merged_text(store, vectors):
    await store.append(rec("The user likes green tea"))
    await store.append(rec("The user likes green tea a lot", salience=0.8))
    async with FakeOpenAI() as srv:
        srv.script(Reply.text("The user really likes green tea."))
        model = OpenAIChatModel(name="m", base_url=srv.base_url, model="m")
        report = await Consolidator(store, vectors, model=model, threshold=0.8, max_share=1.0).run(
            now=NOW
        )
        await model.aclose()
    assert report.used_model
    assert (await store.get(report.created[0])).content == "The user really likes green tea."
    assert "The user likes green tea" in srv.requests[0].body["messages"][1]["content"]


async def test_model_failure_keeps_the_base_text(store, vectors):
    await store.append(rec("The user likes green tea"))
    await store.append(rec("The user likes green tea a lot", salience=0.8))
    async with FakeOpenAI() as srv:
        srv.script(Reply.status(500))
        model = OpenAIChatModel(name="m", base_url=srv.base_url, model="m")
        report = await Consolidator(store, vectors, model=model, threshold=0.8, max_share=1.0).run(
            now=NOW
        )
        await model.aclose()
    assert (await store.get(report.created[0])).content == "The user likes green tea a lot"
