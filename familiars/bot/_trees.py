"""The dialogue trees as the turn uses them (the ``DialogueLog`` of dialogue.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from familiars.bot._prompt import BranchTurn
from familiars.bot._turn import QueryNode
from familiars.memory import (
    DialogTrees,
    Embedder,
    atomic_write_text,
    is_disk_full,
    is_forgotten,
    node_content_for_llm,
    node_embedding_text,
)

logger = logging.getLogger(__name__)

#: Characters up to which a text joins the next group (see :func:`length_groups`).
SHORT_TEXT = 40


def length_groups(
    texts: list[str], *, spread: float = 2.0, short: int = SHORT_TEXT
) -> list[list[str]]:
    """Texts grouped by similar length, shortest first. A transformer pads a batch to its
    longest text, so a turn's batch (a long reply, its sentences, single words) costs far
    less as a few batches of like lengths: measured on the bundled model, 67 ms instead of
    161 ms for one reply, its 7 sentences, the message and two words. Texts up to ``short``
    characters never start a group of their own: padding a word to a short message costs
    less than one more call of the model (a turn's message and its new words: one call)."""
    groups: list[list[str]] = []
    floor = 0
    for text in sorted(texts, key=len):
        if not groups or len(text) > spread * max(short, floor):
            groups.append([])
            floor = len(text)
        groups[-1].append(text)
    return groups


class RecentEmbeddings(Embedder):
    """An embedder that remembers its last few hundred texts, so the text of a message is
    embedded once per turn however many parts (tree, reader, writer) ask for it."""

    def __init__(self, inner: Embedder, *, size: int = 512) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.size = size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        for group in length_groups(missing):
            for text, vec in zip(group, self.inner.embed_batch(group), strict=True):
                self._remember(text, vec)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            vec = self._cache.get(text)
            if vec is None:  # evicted between the two steps by a huge batch
                vec = self.inner.embed_batch([text])[0]
            else:
                self._cache.move_to_end(text)
            out[i] = vec
        return out

    async def aembed_batch(self, texts: list[str]) -> np.ndarray:
        """Cached texts come from the cache; the rest go to the inner embedder's own async
        path (a gated embedder takes its lease there)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        for group in length_groups(missing):
            fresh = await self.inner.aembed_batch(group)
            for text, vec in zip(group, fresh, strict=True):
                self._remember(text, vec)
        return self.embed_batch(texts)

    def _remember(self, text: str, vec: np.ndarray) -> None:
        self._cache[text] = vec
        if len(self._cache) > self.size:
            self._cache.popitem(last=False)

    def forget_texts(self, texts: list[str]) -> int:
        """Drop forgotten texts (and any cached text holding one) from the cache."""
        wanted = [t for t in texts if t]
        gone = [k for k in self._cache if any(t in k for t in wanted)]
        for key in gone:
            del self._cache[key]
        return len(gone)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class _PendingReply:
    parent: int | None
    text: str
    timestamp: float
    origin: str
    metadata: dict[str, Any]


PENDING_REPLY = "pending_reply.json"


class TreeLog:
    """Adds the turn's nodes. A reply's node is deferred: a background task embeds and adds
    it right after the reply is sent, while the person reads and types, so the next message
    does not wait for it (the next message of the dialogue awaits that task first, so the
    tree's order never changes; :meth:`flush` and :meth:`flush_all` await it too). Without a
    running loop it is embedded in one batch with the next message instead.

    A deferred reply was already sent, so it is durable at once: its text waits in the
    dialogue folder's ``pending_reply.json`` (atomic, fsynced) until its node is added, and
    :meth:`recover` adds what a crash left there on the next start."""

    def __init__(
        self,
        trees: DialogTrees,
        embedder: Embedder,
        *,
        prefetch: Callable[[list[tuple[str, str | None, dict[str, Any]]], str], list[str]]
        | None = None,
    ) -> None:
        self.trees = trees
        self.embedder = embedder
        #: Further texts the reader will embed for these nodes and this query (sentences,
        #: words it has no vector for): embedded in the same batch, so the turn makes one
        #: call to the model and the reader finds them in the embedder's cache.
        self.prefetch = prefetch
        self._pending: dict[tuple[str, str], _PendingReply] = {}
        self._adding: dict[tuple[str, str], asyncio.Task[None]] = {}
        #: The fsync of a message's journal line, running while the turn recalls.
        self._syncing: dict[tuple[str, str], asyncio.Task[None]] = {}

    async def add_user_node(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        text: str,
        timestamp: float,
        metadata: dict[str, Any],
    ) -> QueryNode:
        """The message's node, journaled at once. Only the message as a query is embedded
        now (the attach rule and recall read it); the node's own vector, a transcript line
        with the speaker's name leading (so "what did Ana say" meets Ana's messages), is
        only for later recall: it is embedded after the reply, with the reply's node
        (:meth:`_add_later`), and stands in as the message's vector until then. The
        message's words the reader lacks are not embedded with it: recall embeds them only
        when it matches words (a message read alone), in a call of their own. Padded to the
        message's length in one batch, each word cost about what the message did (bundled
        model on the CPU: 95 ms for a message and one word, 214 ms with five, 55 ms alone;
        the five in a call of their own 56 ms more), and a message read in its
        conversation never reads them."""
        key = (agent_id, dialogue_id)
        await self._added(key)
        await self.durable(agent_id, dialogue_id)  # a turn that ended before its reply
        tree = await self.trees.aget(agent_id, dialogue_id, create=True)
        if key in self._pending or tree.provisional_nodes():  # no loop ran, or no reply
            await self._catch_up(key, tree)
        masked = node_content_for_llm_text(text, metadata)
        own = node_embedding_text(masked, metadata.get("speaker"))
        vec = (await self.embedder.aembed_batch([masked]))[0]
        node = await tree.aadd_node(
            text, vec, node_type="Q", timestamp=timestamp, origin="user", metadata=metadata,
            sync=False, provisional=own != masked,
        )  # fmt: skip
        # The line is in the file (a killed process keeps it); its fsync runs beside the
        # rest of the turn, and the reply waits for it (durable).
        if tree.file is not None:
            task = asyncio.create_task(asyncio.to_thread(tree.file.sync))
            self._syncing[key] = task
        return QueryNode(node.id, masked, vec)

    async def durable(self, agent_id: str, dialogue_id: str) -> None:
        """The dialogue's last message is on disk (its journal line fsynced)."""
        task = self._syncing.pop((agent_id, dialogue_id), None)
        if task is not None:
            await task

    async def defer_reply_node(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        parent: int | None,
        text: str,
        timestamp: float,
        origin: str = "response",
        metadata: dict[str, Any] | None = None,
    ) -> None:
        pending = _PendingReply(parent, text, timestamp, origin, dict(metadata or {}))
        self._pending[(agent_id, dialogue_id)] = pending
        folder = self.trees.folder(agent_id, dialogue_id)
        text_json = json.dumps(asdict(pending), ensure_ascii=False)
        await asyncio.to_thread(atomic_write_text, folder / PENDING_REPLY, text_json)  # fsynced
        self.embed_later(agent_id, dialogue_id)

    def embed_later(self, agent_id: str, dialogue_id: str) -> None:
        """Start the background task that adds the dialogue's pending reply node and embeds
        its provisional messages (after a reply; and after a turn that ended without one,
        so its message is recallable before the dialogue's next message)."""
        key = (agent_id, dialogue_id)
        prior = self._adding.get(key)  # awaited first: the tree's order holds
        with contextlib.suppress(RuntimeError):  # no running loop: the next message adds it
            task = asyncio.get_running_loop().create_task(self._add_later(key, prior))
            self._adding[key] = task

    async def _add_later(
        self, key: tuple[str, str], prior: asyncio.Task[None] | None = None
    ) -> None:
        """The deferred reply's node and the message nodes' own vectors, embedded with what
        the reader will need for them; a failure is logged and the reply stays pending (on
        disk too) for the next try, the messages provisional."""
        if prior is not None:
            await prior  # never raises: it is this method
        try:
            tree = await self.trees.aget(*key, create=True)
            await self._catch_up(key, tree)
        except Exception:  # noqa: BLE001 - a background task must not die silently
            logger.warning("adding the reply node of %s/%s failed; it stays pending", *key,
                           exc_info=True)  # fmt: skip

    async def _catch_up(self, key: tuple[str, str], tree: Any) -> None:
        """One batch: the pending reply of ``key`` (its node is added) and the own vectors
        of the tree's provisional nodes (set), with the prefetch for all of them."""
        pending = self._pending.get(key)
        waiting = tree.provisional_nodes()
        if pending is None and not waiting:
            return
        nodes = [(n.content, n.metadata.get("speaker"), n.metadata) for n in waiting]
        batch = [_own_text(n) for n in waiting]
        if pending is not None:
            nodes.append((pending.text, None, pending.metadata))
            batch.append(pending.text or " ")
        if self.prefetch is not None:
            batch += [t for t in self.prefetch(nodes, "") if t not in batch]
        vectors = await self.embedder.aembed_batch(batch)
        for i, node in enumerate(waiting):
            await asyncio.to_thread(tree.set_embedding, node.id, vectors[i])
        if pending is None or self._pending.get(key) is not pending:
            return  # taken by the next message or a flush meanwhile
        del self._pending[key]
        await self._add_reply(tree, pending, vectors[len(waiting)])
        self._settled(*key)

    async def _added(self, key: tuple[str, str]) -> None:
        """Wait for the background task adding this dialogue's reply node, if any."""
        task = self._adding.pop(key, None)
        if task is not None:
            await asyncio.shield(task)

    def _settled(self, agent_id: str, dialogue_id: str) -> None:
        """The pending reply is in the tree (and so in its journal): its sidecar goes."""
        with contextlib.suppress(FileNotFoundError):
            (self.trees.folder(agent_id, dialogue_id) / PENDING_REPLY).unlink()

    async def recover(self) -> int:
        """Add the reply nodes a crash left pending (sent, not yet in their tree), and embed
        the messages whose own vector it left unmade (provisional nodes)."""
        found = 0
        for path in sorted(self.trees.workspace.glob(f"agents/*/*/{PENDING_REPLY}")):
            agent_id, dialogue_id = path.parent.parent.name, path.parent.name
            try:
                pending = _PendingReply(**json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError) as exc:
                logger.warning("cannot read the pending reply %s (%s); left as it is", path, exc)
                continue
            tree = await self.trees.aget(agent_id, dialogue_id, create=True)
            if any(  # the crash came after the node was added, before the sidecar went
                n.node_type == "A" and n.timestamp == pending.timestamp for n in tree.node_list[-3:]
            ):
                self._settled(agent_id, dialogue_id)
                continue
            self._pending[(agent_id, dialogue_id)] = pending
            await self.flush(agent_id, dialogue_id)
            found += 1
        for key in self.trees.stored():  # messages whose own vector a crash left unmade
            if not self.trees.exists(*key):  # a dialogue's folder before its first message
                continue
            tree = await self.trees.aget(*key)
            if tree.provisional_nodes():
                await self._catch_up(key, tree)
                found += 1
        return found

    async def add_reply_node(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        parent: int | None,
        text: str,
        timestamp: float,
        origin: str,
        metadata: dict[str, Any],
    ) -> int:
        await self.flush(agent_id, dialogue_id)
        tree = await self.trees.aget(agent_id, dialogue_id, create=True)
        vec = await self.embedder.aembed(text or " ")
        node = await tree.aadd_node(
            text, vec, node_type="A", timestamp=timestamp, origin=origin, metadata=metadata
        )
        return node.id

    async def _add_reply(self, tree: Any, pending: _PendingReply, vec: np.ndarray) -> None:
        parent = pending.parent
        nodes = tree.node_list
        if parent is not None and 0 <= parent < len(nodes) and is_forgotten(nodes[parent]):
            await self._add_forgotten_reply(tree, pending, vec)  # forgotten while answered
            return
        await tree.aadd_node(
            pending.text,
            vec,
            node_type="A",
            timestamp=pending.timestamp,
            origin=pending.origin,
            metadata=pending.metadata,
        )

    async def _add_forgotten_reply(
        self, tree: Any, pending: _PendingReply, vec: np.ndarray
    ) -> None:
        """The reply to a message forgotten before the reply was kept (a slow model, a
        whole person's forget meanwhile): an empty place, as the forget would have left it;
        its words are never written (neither the journal nor ``dialogue.json`` holds them)."""
        node = await tree.aadd_node(
            "", np.zeros_like(vec), node_type="A", timestamp=pending.timestamp,
            origin=pending.origin, metadata={},
        )  # fmt: skip
        tree.forget_node(node.id, forgotten_at=pending.timestamp)
        if tree.file is not None:
            await asyncio.to_thread(_compact, tree)

    async def flush(self, agent_id: str, dialogue_id: str) -> None:
        key = (agent_id, dialogue_id)
        await self._added(key)
        if key not in self._pending:  # a message left provisional waits for the next one
            return
        try:
            await self._catch_up(key, await self.trees.aget(*key, create=True))
        except OSError as exc:  # the reply stays pending (the next message tries again)
            if not is_disk_full(exc):
                raise
            logger.warning("the reply node of %s/%s waits: the disk is full", *key)

    async def flush_all(self) -> None:
        for key in list(self._syncing):
            await self.durable(*key)
        for key in list(self._adding):
            await self._added(key)
        for agent_id, dialogue_id in list(self._pending):
            await self.flush(agent_id, dialogue_id)

    async def branch(
        self, agent_id: str, dialogue_id: str, node_id: int, *, max_chars: int | None = None
    ) -> list[BranchTurn]:
        """The topic branch from its root down to ``node_id``; with ``max_chars``, only as
        much of its recent end as fits (a long dialogue's branch can hold thousands of
        nodes, and the prompt keeps only its newest part anyway)."""
        tree = await self.trees.aget(agent_id, dialogue_id, create=True)
        turns: list[BranchTurn] = []
        used = 0
        cur: int | None = node_id
        while cur is not None:
            node = tree.node_list[cur]
            text = node_content_for_llm(node)
            used += len(text)
            if max_chars is not None and used > max_chars and turns:
                break
            turns.append(
                BranchTurn(
                    role="user" if node.node_type == "Q" else "assistant",
                    text=text,
                    speaker=str(node.metadata.get("speaker", "")),
                    user_key=str(node.metadata.get("user_key", "")),
                )
            )
            cur = node.parent
        turns.reverse()
        return turns

    async def speakers(self, agent_id: str, dialogue_id: str) -> set[str]:
        """Every person whose message is in the dialogue (the group guard's members)."""
        tree = await self.trees.aget(agent_id, dialogue_id, create=True)
        marks = (node.metadata.get("user_key") for node in tree.node_list if node.node_type == "Q")
        return {str(key) for key in marks if key}

    async def recent_lines(self, agent_id: str, dialogue_id: str, n: int) -> list[str]:
        tree = await self.trees.aget(agent_id, dialogue_id, create=True)
        nodes = tree.node_list[-n:]
        return [
            f"{'user' if x.node_type == 'Q' else 'assistant'}: {node_content_for_llm(x)}"
            for x in nodes
        ]


def _compact(tree: Any) -> None:
    with tree._lock:
        tree.file.compact(tree)


def _own_text(node: Any) -> str:
    """What a message node's own vector embeds: its transcript line (the speaker leads)."""
    return node_embedding_text(node_content_for_llm(node), node.metadata.get("speaker"))


def node_content_for_llm_text(text: str, metadata: dict[str, Any]) -> str:
    from familiars.memory import Node

    return node_content_for_llm(Node(title="", content=text, metadata=metadata))
