"""Issue 25's rails, one test each: the writer's fact identity, the share one pass may
deprecate, sources named, --undo from the pass file (index lost too), pinned untouched, no
merge across people or scopes, nothing learned from recall/system/bot text, and forgetting a
source re-derives or drops what was made from it, through the one Forgetter."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.memory import (
    Consolidator,
    Forgetter,
    MemoryStore,
    consolidation_due,
    consolidation_work,
    last_pass,
    make_record,
    open_workspace,
    sweep_expired,
    undo_pass,
)
from familiars.memory._consolidation_passes import load_pass, passes_dir
from familiars.memory._writer._dedupe import EmbedderVectors
from tests.fakes import HashEmbedder

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path):
    async with MemoryStore(tmp_path) as s:
        yield s


@pytest.fixture
def vectors():
    return EmbedderVectors(HashEmbedder(dim=256))


def rec(content, *, user="u1", category="preference", scope="user", **kw):
    kw.setdefault("ts", "2026-11-01T00:00:00+00:00")
    owner = {"user_key": user} if scope == "user" else {"dialogue_id": "dialogue_1"}
    return make_record(content, scope=scope, category=category, **owner, **kw)


async def add(store, *texts, **kw):
    return [await store.append(rec(t, **kw), dedupe=False) for t in texts]


async def live_texts(store, user="u1"):
    return sorted(r.content for r in await store.list(now=NOW, user_key=user))


def cons(store, vectors, **kw):
    kw.setdefault("max_share", 1.0)
    return Consolidator(store, vectors, threshold=0.0, **kw)


async def test_look_alikes_stay_apart_even_with_no_cosine_gate(store, vectors):
    texts = [
        "Ria plays tennis",
        "Ria plays table tennis",
        "The user likes white wine",
        "The user likes red wine",
        "The user has a sister called Emma",
        "The user has a brother called Emma",
    ]
    await add(store, *texts)
    report = await cons(store, vectors).run(now=NOW)
    assert report.created == [] and await live_texts(store) == sorted(texts)


async def test_rewordings_merge_into_one_with_their_sources_named(store, vectors):
    a, b = await add(store, "The user loves green tea", "The user likes green tea")
    await add(store, "The user plays chess")
    report = await cons(store, vectors).run(now=NOW)
    (merged_id,) = report.created
    merged = await store.get(merged_id)
    assert merged.derived_from == sorted([a.id, b.id])
    assert load_pass(store.workspace, report.pass_id).merges[0]["sources"] == merged.derived_from


async def test_one_pass_deprecates_at_most_its_share_and_says_so(store, vectors):
    await add(store, "The user likes green tea", "The user loves green tea")
    await add(store, "The user likes jazz", "The user loves jazz")
    await add(store, *(f"The user has been to city number {n}" for n in range(4)))
    report = await cons(store, vectors, max_share=0.25).run(now=NOW)  # 8 live: 2 may go
    assert report.deprecated == 2 and len(report.created) == 1
    assert report.stopped and report.stopped[0]["owner"] == "user:u1"
    assert "25%" in report.stopped[0]["reason"]
    assert load_pass(store.workspace, report.pass_id).stopped == report.stopped


async def test_undo_restores_the_previous_state_from_the_pass_file(tmp_path, vectors):
    async with MemoryStore(tmp_path) as store:
        await add(store, "The user likes green tea", "The user loves green tea")
        before = await live_texts(store)
        report = await cons(store, vectors).run(now=NOW)
        assert len(await live_texts(store)) == 1
    (tmp_path / "familiars.db").unlink(missing_ok=True)  # the index is derived: lose it
    assert (passes_dir(tmp_path) / f"{report.pass_id}.json").exists()
    assert "green tea" not in (passes_dir(tmp_path) / f"{report.pass_id}.json").read_text()
    async with MemoryStore(tmp_path) as store:
        log = await undo_pass(store, report.pass_id)
        assert log.undone_at is not None
        assert await live_texts(store) == before
        history = await store.history(report.created[0])
        assert any(e.get("event") == "deprecate" or "deprecate" in json.dumps(e) for e in history)


async def test_pinned_records_are_never_touched(store, vectors):
    pinned = await store.append(rec("The user likes green tea", pinned=True), dedupe=False)
    await add(store, "The user loves green tea")
    report = await cons(store, vectors).run(now=NOW)
    assert report.created == [] and not (await store.get(pinned.id)).deprecated


async def test_two_people_or_two_scopes_are_never_merged(store, vectors):
    await add(store, "The user likes green tea")
    await add(store, "The user loves green tea", user="u2")
    await add(store, "The user likes green tea", scope="dialogue", category="knowledge")
    report = await cons(store, vectors).run(now=NOW)
    assert report.created == []


async def test_nothing_is_learned_from_recall_system_or_bot_text(store, vectors):
    for origin in ("recall", "system", "response"):
        await store.append(rec("The user likes green tea", extra={"origin": origin}), dedupe=False)
    await add(store, "The user loves green tea")
    assert (await cons(store, vectors).run(now=NOW)).created == []


async def test_a_model_text_with_words_no_source_holds_is_refused(store, vectors):
    from familiars.llm import OpenAIChatModel
    from tests.fake_openai import FakeOpenAI, Reply

    await add(store, "The user likes green tea", "The user loves green tea")
    async with FakeOpenAI() as srv:
        srv.script(Reply.text("The user likes green tea and their password is hunter2."))
        model = OpenAIChatModel(name="m", base_url=srv.base_url, model="m")
        report = await cons(store, vectors, model=model).run(now=NOW)
        await model.aclose()
    assert "hunter2" not in (await store.get(report.created[0])).content


async def test_forgetting_a_source_rederives_or_drops_and_the_report_says_which(tmp_path):
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=256)) as mw:
        store = mw.store
        a, b, c = await add(
            store,
            "The user loves green tea from Kyoto",
            "The user likes green tea from Kyoto",
            "The user enjoys green tea from Kyoto",
        )
        x, y = await add(store, "The user likes jazz", "The user loves jazz")
        report = await cons(store, EmbedderVectors(HashEmbedder(dim=256))).run(now=NOW)
        tea, jazz = sorted(report.created, key=lambda i: "jazz" in i)
        tea, jazz = (tea, jazz) if "tea" in (await store.get(tea)).content else (jazz, tea)
        forgetter = Forgetter.for_workspace(mw)
        out = await forgetter.forget(a.id)
        assert tea in out.rederived and out.as_dict()["rederived"] == out.rederived
        again = await store.get(out.rederived[tea])
        assert a.id not in again.derived_from and set(again.derived_from) == {b.id, c.id}
        out2 = await forgetter.forget(x.id)  # one source left: it is live again
        assert out2.rederived[jazz] == y.id and not (await store.get(y.id)).deprecated
        out3 = await forgetter.forget(b.id)
        out4 = await forgetter.forget(c.id)
        assert out3.rederived or out4.dropped or out4.rederived
        words = "\n".join(p.read_text() for p in Path(store.workspace).rglob("*.md*"))
        assert "loves green tea" not in words
        assert not any("green tea" in t for t in await live_texts(store))


async def test_the_pass_as_queue_work_resumes_after_eviction(tmp_path, vectors):
    class Lease:
        def __init__(self, evict_after: int) -> None:
            self.left = evict_after

        def raise_if_preempted(self) -> None:
            self.left -= 1
            if self.left < 0:
                raise RuntimeError("evicted")  # the gate's PreemptedError, in the scheduler

    async with MemoryStore(tmp_path) as store:
        for user in ("u1", "u2"):
            await add(store, "The user likes green tea", "The user loves green tea", user=user)
        work = consolidation_work(store, vectors, max_share=1.0, clock=lambda: NOW)
        state: dict = {}
        with pytest.raises(RuntimeError, match="evicted"):
            await work(state, Lease(0))
        assert state["done"] == ["user:u1"] and len(await live_texts(store, "u2")) == 2
        await work(state, Lease(5))  # resumed: the same pass, the other person
        log = last_pass(tmp_path)
        assert log is not None and log.pass_id == state["pass_id"] and len(log.merges) == 2


async def test_the_sweep_expires_records_whose_ttl_passed(store):
    ttl = {"kind": "absolute", "expires_at": (NOW - timedelta(hours=1)).isoformat()}
    gone = await store.append(rec("The user is at the dentist", ttl=ttl), dedupe=False)
    kept = await store.append(rec("The user likes tea"), dedupe=False)
    assert await sweep_expired(store, NOW) == [gone.id]
    assert (await store.get(gone.id)).deprecated and not (await store.get(kept.id)).deprecated


async def test_a_pass_is_due_after_enough_new_records_and_quiet(store):
    await add(store, *(f"The user said thing {n}" for n in range(5)), ts="2026-11-30T00:00:00Z")
    assert await consolidation_due(store, NOW, min_new=5, quiet=timedelta(hours=8))
    assert not await consolidation_due(store, NOW, min_new=5, quiet=timedelta(hours=14))
    assert not await consolidation_due(store, NOW, min_new=6, quiet=timedelta(hours=8))


async def test_a_source_a_turn_changed_while_the_merge_was_written_is_not_merged(store, vectors):
    """A turn's writer may update, deprecate or pin a source while the pass waits for the
    model's merged text: the plan is stale then, and the pass leaves those records alone
    (the merged text would bring the old fact back beside the person's correction)."""
    from familiars.llm import ChatResult

    a, b = await add(store, "The user likes green tea", "The user loves green tea")

    class SlowModel:  # the reply comes after the person changed their mind
        async def chat(self, messages, **kw):
            await store.update(a.id, "The user no longer likes green tea")
            return ChatResult(text="The user likes green tea", model="m")

    report = await cons(store, vectors, model=SlowModel()).run(now=NOW)
    assert report.created == []
    assert await live_texts(store) == [
        "The user loves green tea",
        "The user no longer likes green tea",
    ]


async def test_undo_leaves_a_merge_the_person_changed_since(store, vectors):
    """After the pass the person changed the merged fact ("no longer"): the writer replaced
    the merged record. Undoing the pass must not bring the old sources back beside the
    correction; the merges and core profiles nothing touched since are undone as usual."""
    await add(store, "The user likes green tea", "The user loves green tea")
    await add(store, "The user plays tennis", "The user plays tennis weekly")
    report = await cons(store, vectors).run(now=NOW)
    tea = [i for i in report.created if "tea" in (await store.get(i)).content][0]
    await store.update(tea, "The user no longer drinks green tea")
    await undo_pass(store, report.pass_id)
    assert await live_texts(store) == [
        "The user no longer drinks green tea",
        "The user plays tennis",
        "The user plays tennis weekly",
    ]


async def test_undo_after_the_merged_record_was_forgotten_brings_nothing_back(tmp_path, vectors):
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        await add(mw.store, "The user likes green tea", "The user loves green tea")
        report = await cons(mw.store, vectors).run(now=NOW)
        await Forgetter.for_workspace(mw).forget(report.created[0])
        await undo_pass(mw.store, report.pass_id)
        assert await live_texts(mw.store) == []


async def test_forgetting_a_merged_record_forgets_the_sources_it_replaced(tmp_path, vectors):
    """The merged record's sources, deprecated by the pass, say the same fact: forgetting
    the merged record takes their words too (they stayed in the file and its history)."""
    from tests.bot.test_forget import files_holding

    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder(dim=64)) as mw:
        await add(mw.store, "The user likes matcha tea", "The user loves matcha tea")
        report = await cons(mw.store, vectors).run(now=NOW)
        forgot = await Forgetter.for_workspace(mw).forget(report.created[0])
        sources = [r.id for r in report.plans[0].sources]
        assert sorted(forgot.records) == sorted([report.created[0], *sources])
    assert files_holding(tmp_path / "ws", "matcha") == []
