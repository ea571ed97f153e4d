"""The read chain (§5.8): what the familiar recalls for a message.

``MemoryReader.build_rag_context`` embeds the query once, takes the best candidates of dense
cosine and of BM25 (each 0-1 normalised, 0.7 / 0.3 as the file-finder seed fuses them) from the
records and dialogue nodes the scope rules allow, adds the finer signals of the profile
(sentence matching, word-level late interaction), time decay, tree distance for nodes of the
current dialogue, a speaker prior, keeps what ``is_live``, collapses a record with the dialogue
node it came from, and returns the top ``k`` with every score part.

Profiles ``lite`` / ``standard`` / ``full`` each have a hard ``budget_ms``: optional stages run
in order while time is left and the rest are dropped (and named in the result). ``full`` adds a
multi-query fan-out merged by reciprocal-rank fusion.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from familiars.memory._dialog_tree import DialogTree, DialogTrees, Node
from familiars.memory._embeddings import Embedder
from familiars.memory._errors import MemoryError_
from familiars.memory._paths import check_agent_id, check_dialogue_id, check_user_key
from familiars.memory._records import MemoryRecord, is_live, parse_ts
from familiars.memory._scoring import (
    ablated_from_env,
    explain,
    minmax,
    parse_knobs,
    reciprocal_rank_fusion,
)
from familiars.memory._search_index import Doc, RecallIndex, group_key
from familiars.memory._text import content_words, date_words, keyword_terms, sentences, words

logger = logging.getLogger(__name__)

#: Measured on the LoCoMo dev split (``familiars bench locomo``): with the finer signals on,
#: 0.6/0.4 beats the file-finder's 0.7/0.3 (R@10 0.806 vs 0.793); see the report in the bench.
DEFAULT_WEIGHTS: dict[str, float] = {
    "dense": 0.6,
    "keyword": 0.4,
    "late": 0.3,
    "recency": 0.03,  # a tie-breaker for chats; LoCoMo asks about old events (-0.002 R@10)
    "tree": 0.05,
    "salience": 0.05,
}
SPEAKER_BONUS = 0.25
RERANK_DEPTH: int | None = None  # e.g. 100 trades ~0.012 LoCoMo R@10 for speed
CONTEXT_DENSE = 0.3
RECENCY_TAU_S = 30 * 86400.0


class RecallError(MemoryError_):
    """Bad recall input, shown to the person."""


@dataclass(frozen=True)
class Profile:
    name: str
    budget_ms: float
    stages: tuple[str, ...]  # optional stages, in order; dropped from the tail when late


PROFILE_STAGES: dict[str, tuple[str, ...]] = {
    "lite": (),
    "standard": ("sentences", "late_interaction"),
    "full": ("sentences", "late_interaction", "fanout"),
}
#: Dialogue nodes never recalled as memories (they stay in the tree for context): the
#: person's questions, the bot's notices and care replies, reminders it sent (issue 14).
NOT_RECALLED_KINDS = ("question", "notice", "care", "reminder", "missed_reminder")

DEFAULT_BUDGETS_MS = {"lite": 30.0, "standard": 200.0, "full": 900.0}


class RecordSource(Protocol):
    """What the reader needs of the SQLite index (``MemoryIndex`` fits)."""

    async def load_matrix(
        self, where: str = ..., params: Sequence[Any] = ...
    ) -> tuple[list[str], np.ndarray]: ...

    async def rows(self, ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray: ...


class AccessSink(Protocol):
    """Where access counters go (``MemoryStore.touch_access`` fits)."""

    async def touch_access(self, counts: dict[str, int], ts: str | None = None) -> int: ...


@dataclass
class RecallItem:
    kind: str  # "record" | "node"
    key: str
    text: str
    score: float
    parts: dict[str, float]
    record: MemoryRecord | None = None
    node: Node | None = None
    agent_id: str | None = None
    dialogue_id: str | None = None
    merged: list[str] = field(default_factory=list)
    explain: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "key": self.key,
            "text": self.text,
            "score": round(self.score, 6),
            "parts": {k: round(v, 6) for k, v in self.parts.items()},
            "explain": self.explain,
            "merged": list(self.merged),
        }
        if self.record is not None:
            out.update(
                id=self.record.id,
                scope=self.record.scope,
                category=self.record.category,
                ts=self.record.ts,
            )
        if self.node is not None:
            out.update(
                node_id=self.node.id,
                node_type=self.node.node_type,
                timestamp=self.node.timestamp,
                dialogue_id=self.dialogue_id,
                metadata=self.node.metadata,
            )
        return out


@dataclass
class RecallResult:
    query: str
    profile: str
    items: list[RecallItem] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    ablated: list[str] = field(default_factory=list)
    candidates: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "profile": self.profile,
            "items": [item.as_dict() for item in self.items],
            "dropped": self.dropped,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "ablated": self.ablated,
            "candidates": self.candidates,
        }


@dataclass
class _Ranked:
    rows: np.ndarray
    scores: np.ndarray
    parts: dict[str, np.ndarray]
    bonus: np.ndarray


def node_key(agent_id: str, dialogue_id: str, node_id: int) -> str:
    return f"node:{agent_id}/{dialogue_id}/{node_id}"


def node_group(agent_id: str, dialogue_id: str) -> str:
    return f"nodes:{agent_id}/{dialogue_id}"


def node_speaker(node: Node) -> str | None:
    meta = node.metadata
    for key in ("speaker", "display_name", "user_key"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def node_embedding_text(content: str, speaker: str | None) -> str:
    """What to embed for a dialogue node: the speaker's name leads, as in a transcript, so
    "what did Ana say about ..." meets Ana's own messages."""
    return f"{speaker}: {content}" if speaker else content


def _to_epoch(now: datetime | float | None) -> float:
    if now is None:
        return time.time()
    if isinstance(now, datetime):
        return (now if now.tzinfo else now.replace(tzinfo=UTC)).timestamp()
    return float(now)


def _record_epoch(rec: MemoryRecord) -> float:
    dt = parse_ts(rec.ts)
    return dt.timestamp() if dt is not None else 0.0


class MemoryReader:
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
        ablated: Sequence[str] | str | None = None,
        access_sink: AccessSink | None = None,
        access_flush_every: int = 64,
    ) -> None:
        self.embedder = embedder
        self.trees = trees
        self.candidates = candidates
        self.rerank_depth: int | None = RERANK_DEPTH
        self.weights = {**DEFAULT_WEIGHTS, **(weights or {})}
        self.budgets_ms = {**DEFAULT_BUDGETS_MS, **(budgets_ms or {})}
        self.default_profile = default_profile
        self.ablated = ablated_from_env() if ablated is None else parse_knobs(ablated)
        self.index = RecallIndex(embedder.dim, ablated=self.ablated)
        self.access_sink = access_sink
        self.access_flush_every = access_flush_every
        self._pending_nodes: list[tuple[str, str, Node]] = []
        self._queued: set[str] = set()  # node keys queued or indexed
        self._seen_trees: set[tuple[str, str]] = set()
        self._pending_records: list[MemoryRecord] = []
        self._removed: list[str] = []
        self._access: Counter[str] = Counter()
        self._source: RecordSource | None = None
        self._lock = asyncio.Lock()
        if trees is not None:
            trees.subscribe(self._on_node)

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
            **kwargs,
        )

    # ------------------------------------------------------------------ feeding

    def _on_node(self, tree: DialogTree, node: Node) -> None:
        if tree.agent_id and tree.dialogue_id:
            self._queue_node(tree.agent_id, tree.dialogue_id, node)

    def _queue_node(self, agent_id: str, dialogue_id: str, node: Node) -> None:
        if (node.metadata or {}).get("kind") in NOT_RECALLED_KINDS:  # issue 14: echoes
            return
        key = node_key(agent_id, dialogue_id, node.id)
        if key not in self._queued:
            self._queued.add(key)
            self._pending_nodes.append((agent_id, dialogue_id, node))

    def add_tree(self, tree: DialogTree) -> None:
        """Queue every node of an already loaded tree (the registry's own trees are fed
        through its listener)."""
        if tree.agent_id is None or tree.dialogue_id is None:
            raise RecallError("a tree needs agent_id and dialogue_id to be recalled")
        self._seen_trees.add((tree.agent_id, tree.dialogue_id))
        for node in tree.node_list:
            self._queue_node(tree.agent_id, tree.dialogue_id, node)

    async def attach_index(self, source: RecordSource, subscribe: Any = None) -> int:
        """Load every live record of the SQLite index, and keep up with its changes when
        ``subscribe`` (``MemoryIndex.subscribe``) is given. Returns how many were loaded."""
        self._source = source
        ids, matrix = await source.load_matrix()
        recs = await source.rows(ids)
        loaded = [recs[i] for i in ids if i in recs]
        vectors = {rid: matrix[j] for j, rid in enumerate(ids)}
        await self._add_records(loaded, vectors)
        if subscribe is not None:
            subscribe(self._on_records)
        return len(loaded)

    def _on_records(self, upserted: list[MemoryRecord], removed: list[str]) -> None:
        self._pending_records.extend(upserted)
        self._removed.extend(removed)

    async def add_records(
        self, records: Sequence[MemoryRecord], vectors: np.ndarray | None = None
    ) -> None:
        """Index records directly (tests, benchmarks); vectors are embedded when not given."""
        vec_map = None
        if vectors is not None:
            vec_map = {rec.id: vectors[i] for i, rec in enumerate(records)}
        await self._add_records(list(records), vec_map)

    async def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        if self._source is not None:
            return await self._source.vectors_for(texts)
        return await self.embedder.aembed_batch(texts)

    async def _ensure_words(self, texts: Sequence[str]) -> None:
        missing = self.index.words_needing_vectors(texts)
        if missing:
            self.index.vocab.add(missing, await self._embed(missing))

    async def _add_records(
        self, records: list[MemoryRecord], vectors: Mapping[str, np.ndarray] | None
    ) -> None:
        if not records:
            return
        texts = [rec.content for rec in records]
        if vectors is None or any(rec.id not in vectors for rec in records):
            fresh = await self._embed(texts)
            vectors = {rec.id: fresh[i] for i, rec in enumerate(records)}
        sent_vecs = await self._sentence_vectors([(rec.content, None) for rec in records])
        await self._ensure_words([*texts, *(rec.user_key or "" for rec in records)])
        for rec, sv in zip(records, sent_vecs, strict=True):
            if not is_live(rec, now=datetime.now(UTC)) and rec.deprecated:
                self.index.remove(rec.id)
                continue
            owner = group_key(
                rec.scope, user_key=rec.user_key, agent_id=rec.agent_id, dialogue_id=rec.dialogue_id
            )
            ts = _record_epoch(rec)
            doc = Doc(
                key=rec.id,
                kind="record",
                group=owner,
                text=rec.content,
                timestamp=ts,
                speaker=rec.user_key if rec.scope == "user" else None,
                salience=float(rec.salience),
                ref=rec,
                extra_terms=date_words(ts) if ts else "",
            )
            self.index.add(doc, vectors[rec.id], sentence_vectors=sv)

    async def _sentence_vectors(
        self, items: Sequence[tuple[str, str | None]]
    ) -> list[np.ndarray | None]:
        """Vectors of each text's sentences (speaker-prefixed) when it has more than one."""
        wanted: list[str] = []
        spans: list[tuple[int, int] | None] = []
        for text, speaker in items:
            parts = sentences(text)
            if len(parts) < 2:
                spans.append(None)
                continue
            spans.append((len(wanted), len(parts)))
            wanted += [node_embedding_text(p, speaker) for p in parts]
        vecs = await self._embed(wanted)
        return [None if s is None else vecs[s[0] : s[0] + s[1]] for s in spans]

    async def sync(self) -> None:
        """Index what changed since the last call (new nodes, record changes)."""
        async with self._lock:
            for rid in self._removed:
                self.index.remove(rid)
            self._removed.clear()
            if self._pending_records:
                recs, self._pending_records = self._pending_records, []
                await self._add_records(recs, None)
            if self._pending_nodes:
                nodes, self._pending_nodes = self._pending_nodes, []
                await self._add_nodes(nodes)

    async def _add_nodes(self, nodes: list[tuple[str, str, Node]]) -> None:
        speakers = [node_speaker(n) for _, _, n in nodes]
        sent_vecs = await self._sentence_vectors(
            [(n.content, sp) for (_, _, n), sp in zip(nodes, speakers, strict=True)]
        )
        await self._ensure_words([n.content for _, _, n in nodes] + [s or "" for s in speakers])
        for (agent_id, dialogue_id, node), sp, sv in zip(nodes, speakers, sent_vecs, strict=True):
            doc = Doc(
                key=node_key(agent_id, dialogue_id, node.id),
                kind="node",
                group=node_group(agent_id, dialogue_id),
                text=node.content,
                timestamp=node.timestamp,
                speaker=sp,
                ref=(agent_id, dialogue_id, node),
                extra_terms=date_words(node.timestamp),
            )
            self.index.add(doc, node.embedding, sentence_vectors=sv, contextual=True)

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
    ) -> RecallResult:
        """Recall for ``query``; see the module docstring. Bad input raises
        :class:`RecallError` (or an id error); nothing is written."""
        start = time.perf_counter()
        prof = self._profile(profile)
        if not isinstance(query, str) or not query.strip():
            raise RecallError("the query is empty")
        if k <= 0:
            raise RecallError("k must be at least 1")
        check_agent_id(agent_id)
        if user_key is not None:
            check_user_key(user_key)
        tree = await self._tree(agent_id, dialogue_id)
        result = RecallResult(query=query, profile=prof.name, ablated=sorted(self.ablated))
        await self.sync()
        t_sync = time.perf_counter()
        result.timings_ms["sync"] = (t_sync - start) * 1000
        epoch = _to_epoch(now)
        groups = self.allowed_groups(
            agent_id=agent_id, dialogue_id=dialogue_id, user_key=user_key, is_group=is_group
        )
        mask = self.index.allowed_mask(groups)
        subqueries = self._subqueries(query) if "fanout" in prof.stages else [query]
        qwords = self._query_words(subqueries)
        missing = self.index.vocab.missing(qwords)
        vecs = await self.embedder.aembed_batch(subqueries + missing)
        if missing:
            self.index.vocab.add(missing, vecs[len(subqueries) :])
        t_embed = time.perf_counter()
        result.timings_ms["embed"] = (t_embed - t_sync) * 1000
        deadline = t_sync + prof.budget_ms / 1000.0
        stages = list(prof.stages)
        depth = None if self.rerank_depth is None else max(self.rerank_depth, 2 * k)
        with one_blas_thread():
            ranked = self._rank(
                query, vecs[0], mask, epoch, tree, stages, deadline, result.dropped, depth
            )
            if "fanout" in stages and len(subqueries) > 1:
                if time.perf_counter() < deadline:
                    ranked = self._fan_out(
                        ranked, subqueries, vecs, mask, epoch, tree, deadline, result.dropped,
                        depth,
                    )  # fmt: skip
                else:
                    result.dropped.append("fanout")
        result.candidates = int(ranked.rows.size)
        t_rank = time.perf_counter()
        result.timings_ms["rank"] = (t_rank - t_embed) * 1000
        result.items = self._select(ranked, k, epoch, ttl_context)
        self._note_access(result.items)
        result.timings_ms["total"] = (time.perf_counter() - start) * 1000
        return result

    async def _tree(self, agent_id: str, dialogue_id: str | None) -> DialogTree | None:
        if dialogue_id is None:
            return None
        check_dialogue_id(dialogue_id)
        if self.trees is None:
            return None
        tree = await self.trees.aget(agent_id, dialogue_id)  # DialogueNotFoundError if missing
        if (agent_id, dialogue_id) not in self._seen_trees:
            self.add_tree(tree)  # nodes loaded from disk before this reader saw them
        return tree

    def _query_words(self, subqueries: Sequence[str]) -> list[str]:
        if "late_interaction" in self.ablated:
            return []
        return list(dict.fromkeys(w for q in subqueries for w in content_words(q)))

    @staticmethod
    def _subqueries(query: str) -> list[str]:
        """Fan-out for ``full``: the literal query; its keywords only (what a person would
        type in a search box, free of the question's grammar); and the question as a
        statement, since memories are written as statements, not questions."""
        out = [query]
        keywords = " ".join(content_words(query))
        if keywords and keywords != query.lower():
            out.append(keywords)
        statement = _as_statement(query)
        if statement and statement not in out:
            out.append(statement)
        return out

    def _rank(
        self,
        query: str,
        qvec: np.ndarray,
        mask: np.ndarray,
        now: float,
        tree: DialogTree | None,
        stages: Sequence[str],
        deadline: float,
        dropped: list[str],
        depth: int | None = None,
    ) -> _Ranked:
        idx = self.index
        n = len(idx)
        if n == 0 or not mask.any():
            empty = np.zeros(0)
            return _Ranked(np.zeros(0, dtype=np.int64), empty, {}, empty)
        c = self.candidates
        dense_all = idx.dense_all(qvec)
        masked = np.where(mask, dense_all, -np.inf)
        cand = _top(masked, c)
        kw_on = "keyword" not in self.ablated
        if kw_on:
            terms = keyword_terms(query)
            kw_all = idx.keywords.scores(terms, n)
            kw_all[~mask] = 0.0
            kw_top = _top(np.where(kw_all > 0, kw_all, -np.inf), c)
            cand = np.union1d(cand, kw_top)
        cand = cand[np.isfinite(masked[cand])]
        cand = self._shortlist(cand, dense_all, kw_all if kw_on else None, depth)
        parts: dict[str, np.ndarray] = {}
        dense = dense_all[cand].astype(np.float64)
        for stage in stages:
            if stage == "fanout":
                continue
            if time.perf_counter() > deadline:
                dropped.append(stage)
                continue
            if stage == "sentences" and "sentences" not in self.ablated:
                dense = np.maximum(dense, idx.sentence_max(cand, qvec))
            elif stage == "late_interaction" and "late_interaction" not in self.ablated:
                parts["late"] = minmax(self._late(query, cand))
        if "context_dense" not in self.ablated:
            dense = dense + CONTEXT_DENSE * self._neighbour_dense(cand, dense_all)
        parts["dense"] = minmax(dense)
        if kw_on:
            parts["keyword"] = minmax(kw_all[cand])
        if "recency" not in self.ablated and self.weights.get("recency", 0.0):
            parts["recency"] = np.exp(-np.maximum(0.0, now - idx.timestamps(cand)) / RECENCY_TAU_S)
        if "tree_distance" not in self.ablated and tree is not None and len(tree):
            parts["tree"] = self._tree_part(cand, qvec, now, tree)
        if "salience" not in self.ablated:
            parts["salience"] = idx.salience(cand)
        bonus = np.zeros(cand.shape[0])
        if "speaker_prior" not in self.ablated:
            named = self._named_speaker(query)
            if named is not None:
                bonus = SPEAKER_BONUS * idx.speaker_rows(cand, named).astype(np.float64)
        total = bonus.copy()
        for name, values in parts.items():
            total += self.weights.get(name, 0.0) * values
        order = np.argsort(-total, kind="stable")
        return _Ranked(
            cand[order], total[order], {k: v[order] for k, v in parts.items()}, bonus[order]
        )

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

    def _neighbour_dense(self, cand: np.ndarray, dense_all: np.ndarray) -> np.ndarray:
        """Each candidate's best neighbour similarity (whole message; their best sentence
        measured no better on LoCoMo), 0 without neighbours."""
        nbs = self.index.neighbours(cand)
        valid = nbs >= 0
        if not valid.any():
            return np.zeros(cand.shape[0])
        uniq = np.unique(nbs[valid])
        vals = dense_all[uniq].astype(np.float64)
        per = np.where(valid, vals[np.searchsorted(uniq, np.maximum(nbs, 0))], -np.inf)
        best = per.max(axis=1)
        return np.where(np.isfinite(best), best, 0.0)

    def _late(self, query: str, cand: np.ndarray) -> np.ndarray:
        qwords = [w for w in dict.fromkeys(content_words(query)) if w in self.index.vocab.ids]
        if not qwords:
            return np.zeros(cand.shape[0])
        ids = self.index.vocab.lookup(qwords)
        idf = self.index.word_idf(ids, qwords)
        return self.index.late_interaction(
            cand, ids, idf, neighbours="context_words" not in self.ablated
        )

    def _tree_part(
        self, cand: np.ndarray, qvec: np.ndarray, now: float, tree: DialogTree
    ) -> np.ndarray:
        anchor = tree.choose_parent(qvec, now)
        hops = tree.tree_distances(anchor)
        out = np.zeros(cand.shape[0])
        want = node_group(tree.agent_id or "", tree.dialogue_id or "")
        for j, row in enumerate(cand):
            doc = self.index.doc(int(row))
            if doc is not None and doc.kind == "node" and doc.group == want:
                out[j] = float(np.exp(-hops[doc.ref[2].id] / tree.tree_tau))
        return out

    def _named_speaker(self, query: str) -> str | None:
        """The one participant a query names (by any word of their name), if exactly one."""
        qwords = set(words(query))
        named = [
            name
            for name in self.index.speakers
            if any(part in qwords for part in words(name) if len(part) > 1)
        ]
        return named[0] if len(named) == 1 else None

    def _fan_out(
        self,
        first: _Ranked,
        subqueries: list[str],
        vecs: np.ndarray,
        mask: np.ndarray,
        now: float,
        tree: DialogTree | None,
        deadline: float,
        dropped: list[str],
        depth: int | None,
    ) -> _Ranked:
        rankings = [[str(r) for r in first.rows]]
        by_row: dict[int, int] = {int(r): j for j, r in enumerate(first.rows)}
        for i, sub in enumerate(subqueries[1:], start=1):
            if time.perf_counter() > deadline:
                dropped.append(f"fanout:{i}")
                continue
            ranked = self._rank(sub, vecs[i], mask, now, tree, ("sentences",), deadline, [], depth)
            rankings.append([str(r) for r in ranked.rows])
        fused = reciprocal_rank_fusion(rankings)
        order = sorted(fused, key=lambda key: -fused[key])
        rows = np.array([int(key) for key in order], dtype=np.int64)
        scores = np.array([fused[key] for key in order])
        parts = {
            name: np.array([values[by_row[int(r)]] if int(r) in by_row else 0.0 for r in rows])
            for name, values in first.parts.items()
        }
        parts["rrf"] = scores
        bonus = np.array([first.bonus[by_row[int(r)]] if int(r) in by_row else 0.0 for r in rows])
        return _Ranked(rows, scores, parts, bonus)

    def _select(
        self, ranked: _Ranked, k: int, now: float, ttl_context: Mapping[str, Any] | None
    ) -> list[RecallItem]:
        ctx = dict(ttl_context or {})
        ctx.setdefault("now", datetime.fromtimestamp(now, tz=UTC))
        items: list[RecallItem] = []
        by_key: dict[str, RecallItem] = {}
        dedupe = "dedupe" not in self.ablated
        for j, row in enumerate(ranked.rows):
            if len(items) >= k:
                break
            doc = self.index.doc(int(row))
            if doc is None:
                continue
            if doc.kind == "record" and not is_live(doc.ref, **ctx):
                continue
            item = self._item(doc, ranked, j)
            link = _source_node_key(doc) if dedupe else None
            target = by_key.get(link or item.key) if dedupe else None
            if target is not None:
                target.merged.append(item.key)
                continue
            items.append(item)
            by_key[item.key] = item
            if link:
                by_key[link] = item
        return items

    def _item(self, doc: Doc, ranked: _Ranked, j: int) -> RecallItem:
        parts = {name: float(values[j]) for name, values in ranked.parts.items()}
        bonus = {"speaker": float(ranked.bonus[j])} if ranked.bonus[j] else {}
        item = self._make_item(doc, ranked, j, {**parts, **bonus})
        if "rrf" not in parts:
            item.explain = explain(parts, self.weights, bonus).as_dict()
        return item

    def _make_item(self, doc: Doc, ranked: _Ranked, j: int, parts: dict[str, float]) -> RecallItem:
        if doc.kind == "record":
            rec: MemoryRecord = doc.ref
            return RecallItem(
                "record", doc.key, rec.content, float(ranked.scores[j]), parts, record=rec,
                agent_id=rec.agent_id, dialogue_id=rec.dialogue_id,
            )  # fmt: skip
        agent_id, dialogue_id, node = doc.ref
        return RecallItem(
            "node", doc.key, node.content, float(ranked.scores[j]), parts, node=node,
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


_blas: Any = None


def one_blas_thread() -> AbstractContextManager[Any]:
    """Recall's matrix products are small (a query against a few thousand rows): on a busy
    two-core machine a multi-threaded BLAS spins on them and runs ~10x slower than one thread
    (measured: 8 ms vs 0.5 ms for 5 x 3000 x 384). No awaits happen inside."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController

            _blas = ThreadpoolController()
        except ImportError:  # pragma: no cover - threadpoolctl is a declared dependency
            _blas = False
    if _blas is False:
        return contextlib.nullcontext()
    return cast(AbstractContextManager[Any], _blas.limit(limits=1, user_api="blas"))


def _top(values: np.ndarray, k: int) -> np.ndarray:
    if values.shape[0] <= k:
        idx = np.arange(values.shape[0])
    else:
        idx = np.argpartition(-values, k - 1)[:k]
    return idx[np.isfinite(values[idx])]


def _source_node_key(doc: Doc) -> str | None:
    """The dialogue node a record was written from (its ``evidence``), as an index key."""
    if doc.kind != "record":
        return None
    rec: MemoryRecord = doc.ref
    ev = rec.evidence or {}
    dialogue_id, turn_id = ev.get("dialogue_id"), ev.get("turn_id")
    if not dialogue_id or turn_id is None:
        return None
    try:
        return node_key(rec.agent_id, str(dialogue_id), int(turn_id))
    except (TypeError, ValueError):
        return None


_QUESTION_LEAD = {"what", "when", "where", "who", "whom", "which", "why", "how", "whose"}
_AUX = {"did", "does", "do", "is", "are", "was", "were", "has", "have", "had", "can", "could",
        "will", "would", "should"}  # fmt: skip


def _as_statement(query: str) -> str:
    """'What did Ana buy in Rome?' -> 'Ana buy in Rome': drop the question word and the
    auxiliary, keep the rest, so it reads like the memory that answers it."""
    toks = query.strip().rstrip("?").split()
    while toks and toks[0].lower().strip(",") in _QUESTION_LEAD:
        toks = toks[1:]
    if toks and toks[0].lower() in _AUX:
        toks = toks[1:]
    return " ".join(toks)
