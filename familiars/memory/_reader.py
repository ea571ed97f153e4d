"""The read chain (§5.8): what the familiar recalls for a message.

``MemoryReader.build_rag_context`` embeds the query once, takes the best candidates of dense
cosine and of BM25 (each 0-1 normalised, fused 0.6 / 0.4 by ``recall.dense_weight`` and
``recall.keyword_weight``; the file-finder seed's 0.7 / 0.3 measured worse here) from the
records and dialogue nodes the scope rules allow, adds the finer signals of the profile
(sentence matching, word-level late interaction), time decay, tree distance for nodes of the
current dialogue, a speaker prior, keeps what ``is_live``, collapses a record with the dialogue
node it came from, and returns the top ``k`` with every score part.

Profiles ``lite`` / ``standard`` / ``full`` each have a hard ``budget_ms``: optional stages run
in order while time is left and the rest are dropped (and named in the result). ``full`` adds a
multi-query fan-out merged by reciprocal-rank fusion: the literal query and the sub-queries of
``_subqueries`` (a ``subquery_writer``'s, within the budget less ``fanout_margin_ms``; else
the offline rewrites, with ``fanout:model`` dropped), listed in ``RecallResult.subqueries``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from familiars.memory import _recall_context as convo
from familiars.memory._blas import one_blas_thread
from familiars.memory._dialog_tree import DialogTree
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._embeddings import Embedder
from familiars.memory._errors import RecallError
from familiars.memory._paths import check_agent_id, check_dialogue_id, check_user_key
from familiars.memory._reader_feed import IndexFeed
from familiars.memory._reader_rows import (
    RankedCells,
    add_ms,
    carry,
    source_node_key,
    top,
    top_set,
    union_rows,
)
from familiars.memory._recall_items import (
    Ranked,
    RecallItem,
    RecallResult,
    node_embedding_text,
    node_group,
    node_key,
    node_speaker,
)
from familiars.memory._recall_signals import RECALL_KNOBS, RECALL_SIGNALS, RankContext
from familiars.memory._records import MemoryRecord, is_live
from familiars.memory._rerank import (
    ExplainBatch,
    Model,
    RawScores,
    Reranker,
    Scorer,
    TreeReranker,
    load_reranker,
    rerank,
)
from familiars.memory._scoring import (
    SignalGate,
    compute_signals,
    default_weights,
    explain,
    fuse,
    minmax,
    parse_knobs,
    reciprocal_rank_fusion,
)
from familiars.memory._search_index import Doc, RecallIndex, group_key
from familiars.memory._subqueries import Subquery, SubqueryWriter, literal, offline_subqueries
from familiars.memory._text import content_words, keyword_terms

logger = logging.getLogger(__name__)

#: Each signal's default weight (``_recall_signals.RECALL_SIGNALS``), by part name.
DEFAULT_WEIGHTS: dict[str, float] = default_weights(RECALL_SIGNALS)
RERANK_DEPTH: int | None = None  # e.g. 100 trades ~0.012 LoCoMo R@10 for speed

__all__ = [
    "DEFAULT_BUDGETS_MS",
    "DEFAULT_WEIGHTS",
    "MemoryReader",
    "RecallError",
    "RecallItem",
    "RecallResult",
    "node_embedding_text",
    "node_group",
    "node_key",
    "node_speaker",
]


@dataclass(frozen=True)
class Profile:
    name: str
    budget_ms: float
    stages: tuple[str, ...]  # optional stages, in order; dropped from the tail when late


PROFILE_STAGES: dict[str, tuple[str, ...]] = {
    "lite": (),
    "standard": ("sentences", "late_interaction", "rerank"),
    "full": ("sentences", "late_interaction", "rerank", "fanout"),
}

#: Without the model's sub-queries, ``full`` ranks the literal query alone: the offline
#: rewrites (keywords, the question as a statement) measured worse on both sets (LoCoMo dev
#: R@10 0.825 vs 0.848, implicit 0.545 vs 0.855).
OFFLINE_FANOUT = False

DEFAULT_BUDGETS_MS = {"lite": 30.0, "standard": 200.0, "full": 900.0}
#: Of the ``full`` budget, what the model's sub-queries leave for embedding and ranking;
#: a call with less than ``MIN_MODEL_MS`` left is not made.
FANOUT_MARGIN_MS = 250.0
MIN_MODEL_MS = 20.0


class AccessSink(Protocol):
    """Where access counters go (``MemoryStore.touch_access`` fits)."""

    async def touch_access(self, counts: dict[str, int], ts: str | None = None) -> int: ...


def _to_epoch(now: datetime | float | None) -> float:
    if now is None:
        return time.time()
    if isinstance(now, datetime):
        return (now if now.tzinfo else now.replace(tzinfo=UTC)).timestamp()
    return float(now)


class MemoryReader(IndexFeed):
    """Recall over records and dialogue nodes, kept in memory and fed incrementally."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        trees: DialogTrees | None = None,
        candidates: int = 200,
        weights: Mapping[str, float] | None = None,
        budgets_ms: Mapping[str, float] | None = None,
        default_profile: str = "standard",
        ablated: Sequence[str] | str = (),
        access_sink: AccessSink | None = None,
        access_flush_every: int = 64,
        reranker: Model | Scorer | None | str = "shipped",
        subquery_writer: SubqueryWriter | None = None,
        fanout_margin_ms: float = FANOUT_MARGIN_MS,
    ) -> None:
        self.embedder = embedder
        self.trees = trees
        self.candidates = candidates
        self.rerank_depth: int | None = RERANK_DEPTH
        self.weights = {**DEFAULT_WEIGHTS, **(weights or {})}
        self.budgets_ms = {**DEFAULT_BUDGETS_MS, **(budgets_ms or {})}
        self.default_profile = default_profile
        self.ablated = parse_knobs(ablated, RECALL_KNOBS)
        self.reranker: Model | Scorer | None = (
            load_reranker() if isinstance(reranker, str) else reranker
        )
        self.index = RecallIndex(embedder.dim, ablated=self.ablated)
        #: The ``full`` profile's model sub-queries (None: offline rewrites only).
        self.subquery_writer = subquery_writer
        self.fanout_margin_ms = fanout_margin_ms
        self.access_sink = access_sink
        self.access_flush_every = access_flush_every
        self._access: Counter[str] = Counter()
        #: The conversation text the next turn will read (``read_ahead``) and its vector.
        self._ahead: tuple[str, np.ndarray] | None = None
        self._start_feed()

    @classmethod
    def from_settings(cls, settings: Any, embedder: Embedder, **kwargs: Any) -> MemoryReader:
        recall = settings.recall
        trees = kwargs.pop("trees", None) or DialogTrees(Path(settings.workspace))
        return cls(
            embedder,
            trees=trees,
            candidates=recall.candidates,
            weights={
                "dense": recall.dense_weight,
                "keyword": recall.keyword_weight,
                "late": recall.late_weight,
            },
            budgets_ms={k: float(v) for k, v in recall.budget_ms.items()},
            default_profile=recall.profile,
            ablated=kwargs.pop("ablated", list(recall.ablate)),
            **kwargs,
        )

    # ------------------------------------------------------------------ recall

    def _profile(self, name: str | None) -> Profile:
        name = name or self.default_profile
        if name not in PROFILE_STAGES:
            raise RecallError(f"unknown profile {name!r}; use one of {', '.join(PROFILE_STAGES)}")
        return Profile(name, float(self.budgets_ms.get(name, 200.0)), PROFILE_STAGES[name])

    def allowed_groups(
        self, *, agent_id: str, dialogue_id: str | None, user_key: str | None, is_group: bool
    ) -> list[str]:
        """DESIGN.md scope rules: the speaker's own user scope (in a DM and in a group alike:
        never another person's), the agent's identity, and the dialogue's scopes and messages
        (they belong to the channel)."""
        groups = [group_key("identity", agent_id=agent_id)]
        if user_key is not None:
            groups.append(group_key("user", user_key=user_key))
        if dialogue_id is not None:
            groups += [
                group_key("dialogue", agent_id=agent_id, dialogue_id=dialogue_id),
                group_key("ephemeral", agent_id=agent_id, dialogue_id=dialogue_id),
                node_group(agent_id, dialogue_id),
            ]
        return groups

    async def build_rag_context(
        self,
        query: str,
        *,
        agent_id: str = "agent_0",
        dialogue_id: str | None = None,
        user_key: str | None = None,
        is_group: bool = False,
        now: datetime | float | None = None,
        k: int = 8,
        profile: str | None = None,
        ttl_context: Mapping[str, Any] | None = None,
        context: Sequence[str] | None = None,
        anchor: int | None = None,
    ) -> RecallResult:
        """Recall for ``query`` in its ``context`` (None: the dialogue's recent messages); see
        the module docstring; ``anchor``: the query's own node in the dialogue's tree (a turn's
        message, attached already). Bad input raises :class:`RecallError`; nothing is written."""
        start = time.perf_counter()
        prof = self._profile(profile)
        _check_query(query, k, agent_id, user_key)
        tree = await self._tree(agent_id, dialogue_id)
        result = RecallResult(query=query, profile=prof.name, ablated=sorted(self.ablated))
        await self.sync()
        t_sync = time.perf_counter()
        result.timings_ms["sync"] = (t_sync - start) * 1000
        epoch = _to_epoch(now)
        groups = self.allowed_groups(
            agent_id=agent_id, dialogue_id=dialogue_id, user_key=user_key, is_group=is_group
        )
        subs = await self._subqueries(query, prof, t_sync, result.dropped)
        result.subqueries = [s.as_dict() for s in subs] if "fanout" in prof.stages else []
        subqueries = [s.text for s in subs]
        vecs = await convo.read_in_context(
            result, self, tree, user_key, epoch, context, subqueries, groups
        )
        t_embed = time.perf_counter()
        result.timings_ms["embed"] = (t_embed - t_sync) * 1000
        gate = SignalGate(
            self.ablated, prof.stages, t_sync + prof.budget_ms / 1000.0, result.dropped
        )
        depth = None if self.rerank_depth is None else max(self.rerank_depth, 2 * k)
        # Nothing awaits from here on: the mask and the ranking's arrays are one snapshot of
        # the index (rows another recall's sync or a forget changed meanwhile are in both).
        mask = self.index.allowed_mask(groups)
        with one_blas_thread():
            ranked = self._rank(
                subqueries[0], vecs[0], mask, epoch, tree, gate, depth, result.timings_ms,
                asker=user_key, reading=result.context, anchor=anchor,
            )  # fmt: skip
            if len(subqueries) > 1 and gate.stage("fanout"):
                ranked = self._fan_out(ranked, subqueries, vecs, mask, epoch, tree, gate, depth)
        result.candidates = int(ranked.rows.size)
        result.timings_ms["rank"] = (time.perf_counter() - t_embed) * 1000
        result.items = self._select(ranked, k, epoch, ttl_context, result.timings_ms)
        self._note_access(result.items)
        result.timings_ms["total"] = (time.perf_counter() - start) * 1000
        return result

    async def _embed_queries(self, subqueries: list[str], *, words: bool = True) -> np.ndarray:
        """One batch: the (sub)queries, and (``words``: word-level matching will run) the
        query words the vocabulary lacks (their vectors join it)."""
        qwords = self._query_words(subqueries) if words else []
        missing = self.index.vocab.missing(qwords)
        vecs = await self.embedder.aembed_batch(subqueries + missing)
        if missing:
            self.index.vocab.add(missing, vecs[len(subqueries) :])
        return vecs

    async def read_ahead(
        self, agent_id: str, dialogue_id: str | None, user_key: str | None
    ) -> bool:
        """Embed now, between turns, the conversation the person's next message will be read
        in (``convo.next_context``), so that turn embeds the message alone, and its cosine
        with every row, so that turn ranks with one product over every row, not two (the
        index keeps it current: the turn works it out for the rows added since). Whether
        anything was embedded (not when the text is the one embedded already, or there is
        none)."""
        texts = convo.next_context(await self._tree(agent_id, dialogue_id), user_key)
        if not texts or (self._ahead is not None and self._ahead[0] == texts[0]):
            return False
        vec = np.asarray((await self.embedder.aembed_batch(texts))[0], dtype=np.float32)
        self._ahead = (texts[0], vec)
        with one_blas_thread():
            self.index.dense_kept(vec)
        return True

    def read_ahead_vector(self, texts: Sequence[str]) -> np.ndarray | None:
        """The vector :meth:`read_ahead` embedded, when ``texts`` is its one text."""
        if self._ahead is None or len(texts) != 1 or texts[0] != self._ahead[0]:
            return None
        return self._ahead[1]

    async def _embed_words(self, subqueries: list[str]) -> None:
        """The query words the vocabulary lacks, embedded (word-level matching reads them)."""
        missing = self.index.vocab.missing(self._query_words(subqueries))
        if missing:
            self.index.vocab.add(missing, await self.embedder.aembed_batch(missing))

    async def _tree(self, agent_id: str, dialogue_id: str | None) -> DialogTree | None:
        if dialogue_id is None:
            return None
        check_dialogue_id(dialogue_id)
        if self.trees is None:
            return None
        tree = await self.trees.aget(agent_id, dialogue_id)  # DialogueNotFoundError if missing
        self._meet(tree)  # nodes loaded before this reader saw them, or by another worker
        return tree

    def _query_words(self, subqueries: Sequence[str]) -> list[str]:
        if "late_interaction" in self.ablated:
            return []
        return list(dict.fromkeys(w for q in subqueries for w in content_words(q)))

    async def _subqueries(
        self, query: str, prof: Profile, t0: float, dropped: list[str]
    ) -> list[Subquery]:
        """What the profile ranks: the literal query alone, or (``full``) the fan-out's, from
        the writer when one is set and answers within the budget (less the ranking margin),
        else (``fanout:model`` named in ``dropped``) what :data:`OFFLINE_FANOUT` says."""
        if "fanout" not in prof.stages:
            return [literal(query)]
        if self.subquery_writer is None:
            return _offline(query)
        left_s = (prof.budget_ms - self.fanout_margin_ms) / 1000 - (time.perf_counter() - t0)
        try:
            if left_s * 1000 < MIN_MODEL_MS:
                raise TimeoutError(f"{left_s * 1000:.0f} ms left")
            written = await asyncio.wait_for(self.subquery_writer(query), timeout=left_s)
            subs = [s for s in written if s.text.strip() and s.text != query]
            if not subs:
                raise ValueError("no sub-query")
        except Exception as exc:  # the turn never fails for a sub-query: offline instead
            logger.info("fan-out sub-queries offline (%s: %s)", type(exc).__name__, exc)
            dropped.append("fanout:model")
            return _offline(query)
        return [literal(query), *subs]

    def _rank(
        self,
        query: str,
        qvec: np.ndarray,
        mask: np.ndarray,
        now: float,
        tree: DialogTree | None,
        gate: SignalGate,
        depth: int | None = None,
        timings: dict[str, float] | None = None,
        *,
        asker: str | None = None,
        reading: convo.Reading | None = None,
        anchor: int | None = None,
    ) -> Ranked:
        """Candidates of dense and keyword search, scored by every signal the gate allows
        (``_recall_signals.RECALL_SIGNALS``), best first; ``asker`` is the user_key of the
        person whose message the query is; words are matched in ``reading``'s text (the
        message with its context). The re-ranker's own time goes to ``timings["rerank"]``."""
        if len(self.index) == 0 or not mask.any():
            return Ranked.empty()
        text = query if reading is None else reading.text(query)
        cand, dense_all, kw_all = self._candidates(text, qvec, mask, depth)
        ctx = RankContext(
            self.index, text, qvec, cand, dense_all, kw_all, now, tree, self.weights, gate,
            asker=asker, message=query, anchor=anchor,
        )  # fmt: skip
        values = compute_signals(RECALL_SIGNALS, ctx, gate)
        parts, bonus = values.parts, values.bonus
        start = np.zeros(cand.shape[0])
        for values in bonus.values():
            start = start + values
        total = fuse(parts, self.weights, start)
        rows_x = None
        if self._reranks(cand.shape[0]) and gate.on("rerank") and gate.stage("rerank"):
            t0 = time.perf_counter()
            total, rows_x = self._rerank(ctx, parts, bonus, total)
            add_ms(timings, "rerank", t0)
        order = np.argsort(-total, kind="stable")
        return Ranked(
            cand[order],
            total[order],
            {name: v[order] for name, v in parts.items()},
            {name: v[order] for name, v in bonus.items()},
            None if rows_x is None else rows_x[order],
            {name: v[order] for name, v in _raw(ctx).items()},
        )

    def _reranks(self, candidates: int) -> bool:
        """A model is set and the pool is as large as the ones it learnt from (a tiny
        workspace's ranks and BM25 scale are not what it saw, so the first stage decides)."""
        return self.reranker is not None and candidates >= self.reranker.depth

    def _rerank(
        self, ctx: RankContext, parts: dict[str, Any], bonus: dict[str, Any], total: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The re-ranker's scores, and every candidate's feature row (NaN where not pooled)."""
        assert self.reranker is not None
        whole = ctx.dense_all[ctx.cand].astype(np.float64)
        cos = ctx.memo.get("cos", whole)
        raw = RawScores(
            cos=cos, bm25=ctx.memo.get("bm25"), hub=ctx.memo.get("hub"),
            small_talk=ctx.memo.get("small_talk"), record=ctx.index.record_rows(ctx.cand),
            whole=whole,
        )  # fmt: skip
        scores, chosen, x = rerank(self.reranker, parts, bonus, total, raw)
        rows_x = np.full((total.shape[0], x.shape[1]), np.nan)
        rows_x[chosen] = x
        return scores, rows_x

    def _candidates(
        self, query: str, qvec: np.ndarray, mask: np.ndarray, depth: int | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The best ``candidates`` rows of dense cosine and of BM25 (keyword knob on) among
        the allowed ones, shortlisted to ``depth``; with every row's cosine and BM25."""
        idx = self.index
        c = self.candidates
        dense_all = idx.dense_all(qvec)
        masked = dense_all if mask.all() else np.where(mask, dense_all, -np.inf)
        kw_all: np.ndarray | None = None
        if "keyword" in self.ablated:
            cand = top(masked, c)
        else:  # the union sorts: the dense rows' order does not matter
            kw_all, hits = idx.keyword_hits(keyword_terms(query), mask, c)
            cand = union_rows(top_set(masked, c), hits)
        cand = cand[np.isfinite(masked[cand])]
        return self._shortlist(cand, dense_all, kw_all, depth), dense_all, kw_all

    def _shortlist(
        self,
        cand: np.ndarray,
        dense_all: np.ndarray,
        kw_all: np.ndarray | None,
        depth: int | None,
    ) -> np.ndarray:
        """The first-stage fusion (dense + keyword) keeps the best ``rerank_depth``
        candidates for the finer, costlier signals."""
        if depth is None or cand.shape[0] <= depth:
            return cand
        first = self.weights["dense"] * minmax(dense_all[cand])
        if kw_all is not None:
            first = first + self.weights["keyword"] * minmax(kw_all[cand])
        return cand[np.argpartition(-first, depth - 1)[:depth]]

    def _fan_out(
        self,
        first: Ranked,
        subqueries: list[str],
        vecs: np.ndarray,
        mask: np.ndarray,
        now: float,
        tree: DialogTree | None,
        gate: SignalGate,
        depth: int | None,
    ) -> Ranked:
        """Rank each further subquery (sentence matching only) and merge every ranking by
        reciprocal-rank fusion, the first (fully ranked, re-ranked) pass weighing as much as
        all the others together: a sub-query lifts what it agrees on, it does not undo the
        re-ranker (offline, equal weights cost 0.017 LoCoMo R@10 and 0.18 implicit R@10).
        The first pass's parts stay with each row."""
        rankings = [[str(r) for r in first.rows]]
        for i, sub in enumerate(subqueries[1:], start=1):
            if gate.clock() > gate.deadline:
                gate.dropped.append(f"fanout:{i}")
                continue
            sub_gate = SignalGate(gate.ablated, ("sentences",), gate.deadline, [], gate.clock)
            ranked = self._rank(sub, vecs[i], mask, now, tree, sub_gate, depth)
            rankings.append([str(r) for r in ranked.rows])
        fused = reciprocal_rank_fusion(
            rankings, weights=[max(1, len(rankings) - 1)] + [1] * (len(rankings) - 1)
        )
        order = sorted(fused, key=lambda key: -fused[key])
        rows = np.array([int(key) for key in order], dtype=np.int64)
        scores = np.array([fused[key] for key in order])
        by_row: dict[int, int] = {int(r): j for j, r in enumerate(first.rows)}
        parts = {name: carry(values, rows, by_row) for name, values in first.parts.items()}
        parts["rrf"] = scores
        bonus = {name: carry(values, rows, by_row) for name, values in first.bonus.items()}
        raw = {name: carry(values, rows, by_row, np.nan) for name, values in first.raw.items()}
        return Ranked(rows, scores, parts, bonus, raw=raw)

    def _select(
        self,
        ranked: Ranked,
        k: int,
        now: float,
        ttl_context: Mapping[str, Any] | None,
        timings: dict[str, float] | None = None,
    ) -> list[RecallItem]:
        ctx = dict(ttl_context or {})
        ctx.setdefault("now", datetime.fromtimestamp(now, tz=UTC))
        items: list[RecallItem] = []
        positions: list[int] = []
        by_key: dict[str, RecallItem] = {}
        dedupe = "dedupe" not in self.ablated
        cells = RankedCells(ranked, 2 * k)
        rows = ranked.rows
        for j in range(rows.shape[0]):
            if len(items) >= k:
                break
            doc = self.index.doc(int(rows[j]))
            if doc is None:
                continue
            if doc.kind == "record" and not is_live(doc.ref, **ctx):
                continue
            item = self._item(doc, cells, j)
            link = source_node_key(doc) if dedupe else None
            target = by_key.get(link or item.key) if dedupe else None
            if target is not None:
                target.merged.append(item.key)
                continue
            items.append(item)
            positions.append(j)
            by_key[item.key] = item
            if link:
                by_key[link] = item
        t0 = time.perf_counter()
        if self._explain_reranked(items, positions, ranked):
            add_ms(timings, "rerank", t0)
        return items

    def _item(self, doc: Doc, cells: RankedCells, j: int) -> RecallItem:
        parts = cells.parts(j)
        bonus = cells.bonus(j)
        item = self._make_item(doc, cells.score(j), {**parts, **bonus})
        item.raw = cells.raw(j)
        weights = self.weights
        if "rrf" in parts:  # the score is the fusion of rankings; the first pass's parts ride
            rrf = parts.pop("rrf")
            item.explain = lambda: {
                **explain({"rrf": rrf}, {"rrf": 1.0}).as_dict(),
                "first_pass": explain(parts, weights, bonus).as_dict(),
            }
        else:
            item.explain = lambda: explain(parts, weights, bonus).as_dict()
        return item

    def _explain_reranked(
        self, items: Sequence[RecallItem], positions: Sequence[int], ranked: Ranked
    ) -> bool:
        """The re-ranker's part on every kept item it scored; its explanation is left for
        when someone asks (then one walk of its trees for all the kept items, not one per
        item); whether it ran."""
        model = self.reranker
        if ranked.features is None or not isinstance(model, Reranker | TreeReranker):
            return False
        feats = ranked.features[positions] if positions else ranked.features[:0]
        pooled = ~np.isnan(feats).any(axis=1)
        if not pooled.any():
            return False
        x = feats[pooled]
        chosen = np.asarray(positions)[pooled]
        lexical = x[:, model.names.index("lexical")].tolist()
        scores = ranked.scores[chosen].tolist()
        scored = [it for it, keep in zip(items, pooled.tolist(), strict=True) if keep]
        batch = ExplainBatch(model, x)
        for i, item in enumerate(scored):
            item.explain = batch.item(i, item._explain)
            item.parts["rerank"] = float(scores[i])
            item.parts["lexical"] = float(lexical[i])
        return True

    def _make_item(self, doc: Doc, score: float, parts: dict[str, float]) -> RecallItem:
        if doc.kind == "record":
            rec: MemoryRecord = doc.ref
            return RecallItem(
                "record", doc.key, rec.content, score, parts, record=rec,
                agent_id=rec.agent_id, dialogue_id=rec.dialogue_id,
            )  # fmt: skip
        agent_id, dialogue_id, node = doc.ref
        return RecallItem(
            "node", doc.key, node.content, score, parts, node=node,
            agent_id=agent_id, dialogue_id=dialogue_id,
        )  # fmt: skip

    # ------------------------------------------------------------------ access counters

    def _note_access(self, items: Sequence[RecallItem]) -> None:
        for item in items:
            if item.record is not None:
                self._access[item.record.id] += 1

    @property
    def pending_access(self) -> dict[str, int]:
        return dict(self._access)

    async def flush_access(self, *, force: bool = True) -> int:
        """Write the batched access counters through the sink (one batch, not per item)."""
        if self.access_sink is None or not self._access:
            return 0
        if not force and sum(self._access.values()) < self.access_flush_every:
            return 0
        counts, self._access = dict(self._access), Counter()
        return await self.access_sink.touch_access(counts)


def _offline(query: str) -> list[Subquery]:
    return offline_subqueries(query) if OFFLINE_FANOUT else [literal(query)]


def _check_query(query: str, k: int, agent_id: str, user_key: str | None) -> None:
    if not isinstance(query, str) or not query.strip():
        raise RecallError("the query is empty")
    if k <= 0:
        raise RecallError("k must be at least 1")
    check_agent_id(agent_id)
    if user_key is not None:
        check_user_key(user_key)


def _raw(ctx: RankContext) -> dict[str, np.ndarray]:
    """The raw evidence the signals saw (:attr:`Ranked.raw`)."""
    cos = ctx.memo["cos"] if "cos" in ctx.memo else ctx.dense_all[ctx.cand].astype(np.float64)
    raw = {"cosine": cos}
    if ctx.memo.get("bm25") is not None:
        raw["bm25"] = np.asarray(ctx.memo["bm25"], dtype=np.float64)
    return raw
