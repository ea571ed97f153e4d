"""MemoryReader: scope rules, fusion with score parts, budgets, knobs, bad input."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import numpy as np
import pytest

from familiars.memory import InvalidIdError, make_record
from familiars.memory._dialog_tree import DialogueNotFoundError
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._reader import MemoryReader, RecallError, node_embedding_text
from familiars.memory._scoring import UnknownKnobError
from tests.fakes import HashEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
T0 = NOW.timestamp() - 3600


def _records():
    return [
        make_record("Ana has a dog named Biscuit", scope="user", category="profile",
                    user_key="ana", ts="2026-05-01T10:00:00+00:00", salience=0.9),
        make_record("Bo is allergic to peanuts", scope="user", category="profile",
                    user_key="bo", ts="2026-05-01T10:00:00+00:00"),
        make_record("Always answer in a friendly tone", scope="identity", category="directive"),
        make_record("The channel plans a hiking trip to the Alps", scope="dialogue",
                    category="event", dialogue_id="dialogue_1",
                    evidence={"dialogue_id": "dialogue_1", "turn_id": 1}),
        make_record("Other channel talks about chess openings", scope="dialogue",
                    category="knowledge", dialogue_id="dialogue_2"),
        make_record("Ana used to have a cat", scope="user", category="profile", user_key="ana",
                    deprecated=True),
        make_record("Ana's dog Biscuit is at the vet today", scope="user", category="event",
                    user_key="ana", ttl={"kind": "absolute", "expires_at": "2026-05-02T00:00:00Z"}),
    ]  # fmt: skip


class Sink:
    def __init__(self) -> None:
        self.calls: list[dict[str, int]] = []

    async def touch_access(self, counts: dict[str, int], ts: str | None = None) -> int:
        self.calls.append(dict(counts))
        return len(counts)


@pytest.fixture
async def reader(tmp_path):
    emb = HashEmbedder(dim=128)
    trees = DialogTrees(tmp_path)
    r = MemoryReader(emb, trees=trees, ablated=[], access_sink=Sink(), reranker=None)
    await r.add_records(_records())
    tree = trees.get("agent_0", "dialogue_1", create=True)
    msgs = [
        ("ana", "Who wants to go hiking next month?"),
        ("bo", "Me! I love the Alps. I will bring my camera."),
        ("ana", "Great, let's plan the hiking route this weekend."),
        ("bo", "Unrelated: my favourite pizza is margherita."),
    ]
    for i, (who, text) in enumerate(msgs):
        tree.add_node(text, emb.embed(node_embedding_text(text, who)), timestamp=T0 + 60 * i,
                      metadata={"speaker": who, "user_key": who})  # fmt: skip
    trees.get("agent_0", "dialogue_2", create=True).add_node(
        "chess is fun", emb.embed("chess is fun"), timestamp=T0
    )
    return r


async def _recall(reader: MemoryReader, query: str, **kw):
    args = dict(agent_id="agent_0", dialogue_id="dialogue_1", user_key="ana", now=NOW, k=10)
    args.update(kw)
    return await reader.build_rag_context(query, **args)


async def test_scope_rules(reader) -> None:
    res = await _recall(reader, "peanuts allergy chess dog Biscuit hiking", is_group=True)
    texts = [i.text for i in res.items]
    assert "Ana has a dog named Biscuit" in texts
    assert not any("peanuts" in t for t in texts)  # another person's user scope
    assert not any("chess" in t for t in texts)  # another dialogue
    assert not any("cat" in t for t in texts)  # deprecated
    assert not any("vet" in t for t in texts)  # expired TTL
    assert any(i.kind == "node" for i in res.items)
    as_bo = await _recall(reader, "peanuts allergy", user_key="bo")
    assert any("peanuts" in i.text for i in as_bo.items)
    no_user = await _recall(reader, "dog Biscuit", user_key=None)
    assert not any(i.record and i.record.scope == "user" for i in no_user.items)


async def test_items_carry_score_parts_and_rank_the_match_first(reader) -> None:
    res = await _recall(reader, "What is the name of Ana's dog?")
    top = res.items[0]
    assert top.text == "Ana has a dog named Biscuit"
    assert {"dense", "keyword", "late"} <= set(top.parts)
    assert top.explain["total"] == pytest.approx(top.score, abs=1e-5)  # the breakdown adds up
    assert res.timings_ms["total"] >= res.timings_ms["rank"] >= 0
    assert res.as_dict()["items"][0]["parts"]
    assert all(a.score >= b.score for a, b in zip(res.items, res.items[1:], strict=False))


async def test_record_and_its_source_node_collapse(reader) -> None:
    # read alone: with its conversation (the tree's last messages) the turn outranks the record
    res = await _recall(reader, "hiking trip to the Alps camera", context=())
    keys = [i.key for i in res.items]
    record = next(i for i in res.items if i.text.startswith("The channel plans"))
    assert "node:agent_0/dialogue_1/1" not in keys
    assert record.merged == ["node:agent_0/dialogue_1/1"]
    off = MemoryReader(reader.embedder, ablated=["dedupe"])
    off.index = reader.index
    res2 = await _recall(off, "hiking trip to the Alps camera", dialogue_id=None)
    assert all(not i.merged for i in res2.items)


async def test_speaker_prior_lifts_the_named_persons_messages(reader) -> None:
    res = await _recall(reader, "what does bo like", k=3)
    assert res.items[0].node is not None and res.items[0].parts.get("speaker", 0) > 0


async def test_bad_input(reader) -> None:
    with pytest.raises(RecallError):
        await _recall(reader, "   ")
    with pytest.raises(RecallError):
        await _recall(reader, "dog", k=0)
    with pytest.raises(RecallError):
        await _recall(reader, "dog", profile="turbo")
    with pytest.raises(DialogueNotFoundError):
        await _recall(reader, "dog", dialogue_id="dialogue_99")
    with pytest.raises(InvalidIdError):
        await _recall(reader, "dog", dialogue_id="../etc")
    with pytest.raises(UnknownKnobError):
        MemoryReader(reader.embedder, ablated="keyword,warp_drive")


async def test_budget_drops_stages_from_the_tail(tmp_path, reader, monkeypatch) -> None:
    reader.budgets_ms["standard"] = 0.0
    res = await _recall(reader, "dog")
    assert res.dropped == ["sentences", "late_interaction"]
    assert res.items  # the core stages still answer
    reader.budgets_ms["full"] = 10_000.0
    full = await _recall(reader, "What did Ana say about hiking?", profile="full")
    assert full.dropped == [] and "rrf" not in full.items[0].parts  # no model: no fan-out
    monkeypatch.setattr("familiars.memory._reader.OFFLINE_FANOUT", True)
    fanned = await _recall(reader, "What did Ana say about hiking?", profile="full")
    assert fanned.dropped == [] and "rrf" in fanned.items[0].parts


async def test_constructor_reads_no_environment(monkeypatch, reader) -> None:
    """Ablation is a setting read once at the entry point (``recall.ablate``), not here."""
    monkeypatch.setenv("FAMILIARS_ABLATE_KNOB", "late_interaction, speaker_prior")
    assert MemoryReader(reader.embedder).ablated == frozenset()
    r = MemoryReader(reader.embedder, ablated=["late_interaction", "speaker_prior"])
    assert r.ablated == {"late_interaction", "speaker_prior"}


async def test_access_counters_are_flushed_in_one_batch(reader) -> None:
    await _recall(reader, "dog Biscuit")
    await _recall(reader, "dog Biscuit")
    sink = reader.access_sink
    assert sink.calls == []
    assert await reader.flush_access() >= 1
    assert len(sink.calls) == 1 and max(sink.calls[0].values()) == 2
    assert reader.pending_access == {}


async def test_new_nodes_are_recallable_on_the_next_query(reader) -> None:
    tree = reader.trees.get("agent_0", "dialogue_1")
    text = "My sister Clara moves to Lisbon in July"
    tree.add_node(text, reader.embedder.embed(node_embedding_text(text, "ana")),
                  timestamp=T0 + 600, metadata={"speaker": "ana"})  # fmt: skip
    res = await _recall(reader, "Lisbon Clara", k=3)
    assert res.items[0].text.startswith("My sister Clara")


async def test_empty_index_gives_clean_empty_result(tmp_path) -> None:
    r = MemoryReader(HashEmbedder(), trees=DialogTrees(tmp_path))
    res = await r.build_rag_context("anything", agent_id="agent_0", now=NOW, k=5)
    assert res.items == [] and res.candidates == 0
    assert np.isfinite(res.timings_ms["total"])


async def test_asker_prior_lifts_what_the_asking_person_said_about_themselves(reader) -> None:
    """A message in the first person recalls the speaker's own messages and records; a
    question about someone else, or one with no asker, gets no such lift."""
    mine = await _recall(reader, "I keep thinking about my trip plans", user_key="bo")
    lifted = [i for i in mine.items if i.parts.get("asker")]
    assert lifted and all(i.node is None or i.node.metadata["user_key"] == "bo" for i in lifted)
    about = await _recall(reader, "what does ana plan", user_key="bo")
    assert not any(i.parts.get("asker") for i in about.items)
    nobody = await _recall(reader, "I keep thinking about my trip plans", user_key=None)
    assert not any(i.parts.get("asker") for i in nobody.items)
    off = MemoryReader(reader.embedder, ablated=["asker_prior"])
    off.index = reader.index
    res = await _recall(off, "I keep thinking about my trip plans", user_key="bo", dialogue_id=None)
    assert not any(i.parts.get("asker") for i in res.items)


async def test_small_talk_and_hub_values_are_in_the_explain(reader) -> None:
    res = await _recall(reader, "hiking route")
    node = next(i for i in res.items if i.node is not None)
    assert "substance" in node.parts
    assert 0.0 <= node.parts["substance"] <= 1.0
    record = next(i for i in res.items if i.record is not None)
    assert record.parts["substance"] == 1.0  # a record is never small talk


class _HeldEmbedder(HashEmbedder):
    """Holds the first batch embedded after :meth:`hold` until :meth:`release`."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim=dim)
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()
        self._armed = False

    def hold(self) -> None:
        self._armed = True

    def release(self) -> None:
        self.gate.set()

    async def aembed_batch(self, texts: list[str]) -> np.ndarray:
        gate, self._armed = self._armed, False
        if gate:
            self.entered.set()
            await self.gate.wait()
        return self.embed_batch(texts)


async def test_records_arriving_while_a_recall_embeds(tmp_path) -> None:
    """Another worker's records (the change feed) indexed by a second recall while the
    first one waits for its query vectors: the first ranks one consistent snapshot (it
    raised "operands could not be broadcast together" when its mask was older than the
    rows), and the record that arrived is recalled."""
    emb = _HeldEmbedder(dim=128)
    r = MemoryReader(emb, trees=DialogTrees(tmp_path), ablated=[], access_sink=Sink(),
                     reranker=None)  # fmt: skip
    await r.add_records(_records())
    emb.hold()
    first = asyncio.create_task(_recall(r, "Biscuit the dog", dialogue_id=None))
    await emb.entered.wait()
    came = make_record("Ana's dog Biscuit learnt to fetch", scope="user", category="event",
                       user_key="ana", ts="2026-05-30T10:00:00+00:00")  # fmt: skip
    r._on_records([came], [])  # as the change feed delivers
    await _recall(r, "chess", dialogue_id=None, user_key="bo")  # its sync indexes the record
    emb.release()
    res = await first
    assert "Ana's dog Biscuit learnt to fetch" in [i.text for i in res.items]


async def test_each_item_carries_its_raw_cosine_and_keyword_score(reader) -> None:
    """The parts are scaled over the candidates (the best is 1 however unrelated): the raw
    evidence rides on each item, so a search can tell related from merely best (T30)."""
    from familiars.memory import RELEVANCE_FLOOR, relevant

    emb = reader.embedder
    res = await _recall(reader, "dog Biscuit")
    dog = next(i for i in res.items if i.text == "Ana has a dog named Biscuit")
    own = float(np.dot(emb.embed("dog Biscuit"), emb.embed("Ana has a dog named Biscuit")))
    assert dog.raw["cosine"] >= own - 1e-4  # its best sentence's, when higher
    assert dog.raw["bm25"] > 0 and relevant(dog.raw, emb.model_name)
    assert dog.as_dict()["raw"]["bm25"] > 0
    minilm = "sentence-transformers/all-MiniLM-L6-v2"
    assert not relevant({"cosine": RELEVANCE_FLOOR - 0.01, "bm25": 0.0}, minilm)
    assert relevant({"cosine": RELEVANCE_FLOOR}, minilm)


def test_the_relevance_floor_is_the_measured_models_only() -> None:
    """0.25 was measured on MiniLM; bge-style models score unrelated text above 0.3, so the
    floor said nothing with the default bge-m3. A model not measured gets no floor."""
    from familiars.memory import RELEVANCE_FLOOR, relevance_floor, relevant

    assert relevance_floor("sentence-transformers/all-MiniLM-L6-v2") == RELEVANCE_FLOOR
    assert relevance_floor("BAAI/bge-m3") is None
    assert relevant({"cosine": 0.1, "bm25": 0.0}, "BAAI/bge-m3")
    assert not relevant({"cosine": 0.1, "bm25": 0.0}, "sentence-transformers/all-MiniLM-L6-v2")
