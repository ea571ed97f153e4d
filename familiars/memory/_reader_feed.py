"""What the reader's index is fed, and what leaves it (the reader's half that is not recall).

Records come from the record source (the SQLite index, or the database's, whose change feed
also brings what other workers changed and forgot); dialogue nodes from the trees' listener
and from each tree the reader first meets. Both are queued and indexed at the next
:meth:`IndexFeed.sync` (every recall starts with one).

Whatever leaves, a record or a turn forgotten here or removed by another worker, leaves by
one path, :meth:`IndexFeed._drop`: out of what is still queued (a forgotten turn queued for
indexing is never added back) and out of the index, its vectors and words wiped.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from familiars.memory._dialog_tree import DialogTree, Node
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._embeddings import Embedder
from familiars.memory._errors import RecallError
from familiars.memory._reader_rows import node_owner
from familiars.memory._recall_items import node_embedding_text, node_group, node_key, node_speaker
from familiars.memory._records import MemoryRecord, parse_ts
from familiars.memory._search_index import Doc, RecallIndex, group_key
from familiars.memory._text import date_words, sentences

#: Dialogue nodes never recalled as memories (they stay in the tree for context): the
#: person's questions, the bot's notices and care replies, reminders it sent (issue 14).
NOT_RECALLED_KINDS = ("question", "notice", "care", "reminder", "missed_reminder")


class RecordSource(Protocol):
    """What the reader needs of the SQLite index (``MemoryIndex`` fits)."""

    async def load_matrix(
        self, where: str = ..., params: Sequence[Any] = ...
    ) -> tuple[list[str], np.ndarray]: ...

    async def rows(self, ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray: ...


def _record_epoch(rec: MemoryRecord) -> float:
    dt = parse_ts(rec.ts)
    return dt.timestamp() if dt is not None else 0.0


class IndexFeed:
    """The queues between the memory and the reader's :class:`RecallIndex` (see the module
    docstring); :class:`~familiars.memory.MemoryReader` is one."""

    embedder: Embedder
    trees: DialogTrees | None
    index: RecallIndex

    def _start_feed(self) -> None:
        self._pending_nodes: list[tuple[str, str, Node]] = []
        self._queued: set[str] = set()  # node keys queued, indexed, or gone
        #: The tree object each dialogue was last read from (a copy another worker made stale
        #: is read again by the registry: its nodes are queued once more, new ones kept).
        self._seen_trees: dict[tuple[str, str], DialogTree] = {}
        self._pending_records: list[MemoryRecord] = []
        self._removed: list[str] = []  # removed records and turns, for the next sync
        self._source: RecordSource | None = None
        self._lock = asyncio.Lock()
        #: The queues are filled from threads too (a tree tells its listeners from the thread
        #: that journaled the node: ``aadd_node``, ``set_embedding``): an append never lands
        #: in a list being swapped out or filtered.
        self._queue_lock = threading.RLock()
        if self.trees is not None:
            self.trees.subscribe(self._on_node)

    # ------------------------------------------------------------------ feeding

    def _on_node(self, tree: DialogTree, node: Node) -> None:
        if tree.agent_id and tree.dialogue_id:
            if (tree.agent_id, tree.dialogue_id) not in self._seen_trees:
                self.add_tree(tree)  # its older nodes first: rows keep the tree's order
            self._queue_node(tree.agent_id, tree.dialogue_id, node)

    @staticmethod
    def recalls_kind(metadata: Mapping[str, Any] | None) -> bool:
        """Whether a node with this metadata is indexed at all (issue 14: questions, notices,
        care replies, reminders are not recalled as facts)."""
        return (metadata or {}).get("kind") not in NOT_RECALLED_KINDS

    def _queue_node(self, agent_id: str, dialogue_id: str, node: Node) -> None:
        if not self.recalls_kind(node.metadata) or node.provisional:  # issue 14: echoes
            return  # a provisional node comes again with its own vector (set_embedding)
        key = node_key(agent_id, dialogue_id, node.id)
        with self._queue_lock:
            if node.metadata.get("forgotten"):  # a tombstone (issue 12 forget) is never
                self._queued.add(key)  # indexed, and one indexed as a turn leaves at the sync
                if key in self.index.rows:
                    self._removed.append(key)
                return
            if key not in self._queued:
                self._queued.add(key)
                self._pending_nodes.append((agent_id, dialogue_id, node))

    def add_tree(self, tree: DialogTree) -> None:
        """Queue every node of an already loaded tree (the registry's own trees are fed
        through its listener)."""
        if tree.agent_id is None or tree.dialogue_id is None:
            raise RecallError("a tree needs agent_id and dialogue_id to be recalled")
        self._seen_trees[(tree.agent_id, tree.dialogue_id)] = tree
        for node in tree.node_list:
            self._queue_node(tree.agent_id, tree.dialogue_id, node)

    def _meet(self, tree: DialogTree) -> None:
        """A tree recall reads: queued whole when this reader has not read this copy yet (one
        loaded before the reader saw it, or read again after another worker changed it)."""
        assert tree.agent_id is not None and tree.dialogue_id is not None
        if self._seen_trees.get((tree.agent_id, tree.dialogue_id)) is not tree:
            self.add_tree(tree)

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
        """The source's listener: records changed, and records and turns removed (here, or by
        another worker). What is removed leaves the queues at once; the index at the next
        sync. The latest word on an id wins: one upserted again is not removed."""
        if removed:
            self._unqueue(removed)
            self._removed.extend(removed)
        if upserted:
            back = {rec.id for rec in upserted}
            self._removed = [key for key in self._removed if key not in back]
            self._pending_records.extend(upserted)

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
        docs: list[Doc] = []
        doc_vecs: list[np.ndarray] = []
        doc_sents: list[np.ndarray | None] = []
        for rec, sv in zip(records, sent_vecs, strict=True):
            if rec.deprecated:  # never live again, whatever the time
                self.index.add_many(docs, doc_vecs, doc_sents)  # in order: it may be among them
                docs, doc_vecs, doc_sents = [], [], []
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
                owner=rec.user_key if rec.scope == "user" else None,
                salience=float(rec.salience),
                ref=rec,
                extra_terms=date_words(ts) if ts else "",
            )
            docs.append(doc)
            doc_vecs.append(vectors[rec.id])
            doc_sents.append(sv)
        self.index.add_many(docs, doc_vecs, doc_sents)

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

    @property
    def behind(self) -> bool:
        """Whether something is queued for the next :meth:`sync` (records changed, nodes
        added, rows removed here): a background step can index it before the next recall."""
        with self._queue_lock:
            return bool(self._pending_records or self._pending_nodes or self._removed)

    async def sync(self) -> None:
        """Index what changed since the last call (new nodes, record changes): first what
        other workers changed and forgot up to now (the source's ``catch_up``), so nothing
        a forget confirmed on another worker is recalled here. A removal heard while the
        new rows were embedded is applied before this returns."""
        catch_up = getattr(self._source, "catch_up", None)
        if catch_up is not None:
            await catch_up()
        async with self._lock:
            self._drop_removed()
            if self._pending_records:
                recs, self._pending_records = self._pending_records, []
                await self._add_records(recs, None)
            with self._queue_lock:
                nodes, self._pending_nodes = self._pending_nodes, []
            if nodes:
                await self._add_nodes(nodes)
            self._drop_removed()

    def _drop_removed(self) -> None:
        with self._queue_lock:
            removed, self._removed = self._removed, []
        self._drop(removed)

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
                owner=node_owner(node),
                ref=(agent_id, dialogue_id, node),
                extra_terms=date_words(node.timestamp),
            )
            self.index.add(doc, node.embedding, sentence_vectors=sv, contextual=True)

    # -- forget (issue 12): the recall caches drop forgotten records and turns at once.
    async def forget_keys(self, keys: Sequence[str]) -> int:
        """Drop records (``m_...``) and turns (``node:...``) from the index and from what is
        queued for it, wiping their vectors and words; returns how many rows went."""
        async with self._lock:
            return self._drop(keys)

    def _drop(self, keys: Iterable[str]) -> int:
        """The one way out of the reader (the module docstring): ``keys`` leave the queues
        and the index; returns how many indexed rows went. The caller holds the lock."""
        wanted = self._unqueue(keys)
        return sum(1 for key in wanted if self.index.forget(key))

    def _unqueue(self, keys: Iterable[str]) -> set[str]:
        """``keys`` out of what is queued; a turn's key is never queued again."""
        wanted = set(keys)
        if not wanted:
            return wanted
        self._pending_records = [r for r in self._pending_records if r.id not in wanted]
        with self._queue_lock:
            self._pending_nodes = [
                (a, d, n) for a, d, n in self._pending_nodes if node_key(a, d, n.id) not in wanted
            ]
            self._queued |= {key for key in wanted if key.startswith("node:")}
        return wanted
