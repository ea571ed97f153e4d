"""The per-dialogue topic tree (§5.4.1, §5.4.2, §5.5, §5.6).

Every message of a dialogue becomes a :class:`Node`. A new Q node picks its parent with
``alpha*cos + beta*recency + delta*is_immediate_predecessor`` (a new root below
``tau_attach``; a Q candidate that has a parent hands the attachment up to that A node).
:meth:`DialogTree.query` ranks nodes by ``alpha*cos + beta*recency + gamma*exp(-hops/tree_tau)``
with hops counted from the node the query would attach to.

All embeddings live in one matrix, so both rules are one numpy pass over every node; tree
distances use binary lifting (``_up[j][x]`` is the 2**j-th ancestor of ``x``), so nothing loops
over nodes in Python. :func:`reference_choose_parent` and :func:`reference_query` are the plain
per-node loops of the seed, kept as the test oracle and the benchmark baseline.

On disk (``workspace/agents/<agent>/<dialogue>/``): ``dialogue.json`` in the §5.6 format plus
``dialogue.journal.jsonl``, one JSON line per change, so a new node costs one appended line.
:meth:`DialogueFile.compact` folds the journal into ``dialogue.json`` atomically.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from familiars.memory._atomic import append_lines, atomic_write_text, fsync_file
from familiars.memory._blas import one_blas_thread
from familiars.memory._embeddings import content_hash
from familiars.memory._errors import DialogueError

logger = logging.getLogger(__name__)

NODE_TYPES = ("Q", "A")
ORIGINS = ("user", "response", "proactive")
TITLE_CHARS = 40
DIALOGUE_FILE = "dialogue.json"
JOURNAL_FILE = "dialogue.journal.jsonl"
_LIFT_LEVELS = 24  # ancestors up to 2**23 hops away: far beyond any dialogue


class DialogueNotFoundError(DialogueError):
    def __init__(self, agent_id: str, dialogue_id: str) -> None:
        self.agent_id = agent_id
        self.dialogue_id = dialogue_id
        super().__init__(f"dialogue {dialogue_id!r} of agent {agent_id!r} does not exist")


class DialogueLoadError(DialogueError):
    """``dialogue.json`` itself cannot be read (the journal only loses bad lines)."""


def make_title(content: str) -> str:
    """§5.5: at most 40 characters, then an ellipsis."""
    flat = " ".join(content.split())
    return flat if len(flat) <= TITLE_CHARS else flat[:TITLE_CHARS] + "…"


@dataclass
class Node:
    """§5.5. ``embedding`` is a float32 vector (a list in the JSON file). ``provisional``: the
    vector is the message's own, standing in until the node's (the speaker's name leading) is
    set by :meth:`DialogTree.set_embedding`; a node loaded so is embedded again."""

    title: str
    content: str = ""
    id: int = -1
    level: int = 0
    parent: int | None = None
    node_type: str = "Q"
    embedding: Any = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    timestamp: float = 0.0
    origin: str = "response"
    metadata: dict[str, Any] = field(default_factory=dict)
    provisional: bool = False

    def to_json(self) -> dict[str, Any]:
        vec = np.asarray(self.embedding, dtype=np.float64)
        marks = {"provisional": True} if self.provisional else {}
        return {
            "id": self.id,
            "title": self.title,
            "content": self.content,
            "node_type": self.node_type,
            "parent": self.parent,
            "children": list(self.children),
            "embedding": np.round(vec, 8).tolist(),
            "timestamp": float(self.timestamp),
            "origin": self.origin,
            "metadata": self.metadata,
            **marks,
        }


def node_from_json(data: Any) -> Node:
    """A node from its §5.6 dict; raises ValueError on anything malformed."""
    if not isinstance(data, dict):
        raise ValueError("node is not an object")
    try:
        node_id = int(data["id"])
        parent = data.get("parent")
        parent = None if parent is None else int(parent)
        vec = np.asarray(data.get("embedding") or [], dtype=np.float32)
        node_type = str(data.get("node_type", "Q"))
        origin = str(data.get("origin", "user" if node_type == "Q" else "response"))
        metadata = data.get("metadata") or {}
        content = str(data.get("content", ""))
        timestamp = float(data.get("timestamp", 0.0))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"bad node field: {exc}") from exc
    if node_type not in NODE_TYPES or vec.ndim != 1 or not isinstance(metadata, dict):
        raise ValueError("bad node_type, embedding or metadata")
    if not math.isfinite(timestamp):
        raise ValueError("bad timestamp")
    return Node(
        title=str(data.get("title") or make_title(content)),
        content=content,
        id=node_id,
        parent=parent,
        node_type=node_type,
        embedding=vec,
        timestamp=timestamp,
        origin=origin,
        metadata=metadata,
        provisional=data.get("provisional") is True,
    )


#: What a forgotten node keeps of its metadata: who spoke (so "forget what I said" and the
#: owner checks still work), nothing of what was said.
TOMBSTONE_KEEPS = ("user_key", "speaker", "platform")


def tombstone_metadata(metadata: dict[str, Any], forgotten_at: float | None) -> dict[str, Any]:
    kept = {k: metadata[k] for k in TOMBSTONE_KEEPS if k in metadata}
    kept["forgotten"] = True
    if forgotten_at is not None:
        kept["forgotten_at"] = float(forgotten_at)
    return kept


def is_forgotten(node: Node) -> bool:
    return bool(node.metadata.get("forgotten"))


# --------------------------------------------------------------------------- redaction replay


def node_content_for_llm(node: Node) -> str:
    """§5.5.2: ``node.content`` with the stored privacy decisions replayed.

    ``metadata['redactions']`` holds ``{"span": [start, end], "decision": "ignore" | "mask" |
    "record", "token": "..."}``; masks are applied in reverse span order so earlier spans keep
    their offsets. When ``redactions_content_hash`` does not match the content (the text was
    edited since), the raw content is returned.
    """
    redactions = node.metadata.get("redactions")
    if not redactions or not isinstance(redactions, list):
        return node.content
    expected = str(node.metadata.get("redactions_content_hash") or "")
    if expected.removeprefix("sha256:") != content_hash(node.content):
        return node.content
    spans: list[tuple[int, int, str]] = []
    for item in redactions:
        if not isinstance(item, dict) or item.get("decision") != "mask":
            continue
        span = item.get("span")
        if not (isinstance(span, list | tuple) and len(span) == 2):
            continue
        start, end = int(span[0]), int(span[1])
        if 0 <= start <= end <= len(node.content):
            spans.append((start, end, str(item.get("token", "[redacted]"))))
    text = node.content
    for start, end, token in sorted(spans, key=lambda s: s[0], reverse=True):
        text = text[:start] + token + text[end:]
    return text


# --------------------------------------------------------------------------- the tree

NodeListener = Callable[["DialogTree", Node], Any]


class DialogTree:
    """One dialogue's forest of Q/A nodes, with the defaults of §5.4.1 and §5.4.2."""

    def __init__(
        self,
        *,
        alpha: float = 0.3,
        beta: float = 0.3,
        delta: float = 0.35,
        gamma: float = 0.15,
        tau_attach: float = 0.35,
        recency_tau: float = 600.0,
        tree_tau: float = 3.0,
        dim: int | None = None,
    ) -> None:
        self.alpha = alpha
        self.beta = beta
        self.delta = delta
        self.gamma = gamma
        self.tau_attach = tau_attach
        self.recency_tau = recency_tau
        self.tree_tau = tree_tau
        self.dim = dim
        self.node_list: list[Node] = []
        self.roots: list[int] = []
        self._last_id: int | None = None
        self.file: DialogueFile | None = None
        self.agent_id: str | None = None
        self.dialogue_id: str | None = None
        self.load_problems: list[str] = []
        self._listeners: list[NodeListener] = []
        self._lock = threading.Lock()
        self._cap = 0
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._ts = np.zeros(0, dtype=np.float64)
        self._depth = np.zeros(0, dtype=np.int64)
        self._root = np.zeros(0, dtype=np.int64)
        self._is_q = np.zeros(0, dtype=bool)
        self._parent = np.zeros(0, dtype=np.int64)
        self._up = np.zeros((_LIFT_LEVELS, 0), dtype=np.int64)
        self._max_depth = 0
        self._provisional: set[int] = set()

    # ------------------------------------------------------------------ basics

    def __len__(self) -> int:
        return len(self.node_list)

    @property
    def last_id(self) -> int | None:
        return self._last_id

    @property
    def matrix(self) -> np.ndarray:
        """Every node's embedding, one row per node id (a view: do not write to it)."""
        return self._matrix[: len(self.node_list)]

    @property
    def timestamps(self) -> np.ndarray:
        return self._ts[: len(self.node_list)]

    def subscribe(self, listener: NodeListener) -> None:
        """``listener(tree, node)`` after each node is added (the reader indexes it)."""
        self._listeners.append(listener)

    def root_of(self, node_id: int) -> int:
        """The root of ``node_id``'s topic tree (kept per node as it is placed)."""
        return int(self._root[node_id])

    def ancestors(self, node_id: int) -> list[Node]:
        """The branch from the root down to ``node_id`` (the current topic, for the prompt)."""
        chain: list[Node] = []
        cur: int | None = node_id
        while cur is not None:
            chain.append(self.node_list[cur])
            cur = self.node_list[cur].parent
        return chain[::-1]

    # ------------------------------------------------------------------ storage arrays

    def _grow(self, dim: int) -> None:
        if self.dim is None:
            self.dim = dim
        if dim != self.dim:
            raise DialogueError(f"embedding has dimension {dim}, this dialogue uses {self.dim}")
        n = len(self.node_list)
        if n < self._cap:
            return
        cap = max(64, self._cap * 2)
        matrix = np.zeros((cap, dim), dtype=np.float32)
        if n:
            matrix[:n] = self._matrix[:n]
        self._matrix = matrix
        self._ts = _grown(self._ts, cap, 0.0)
        self._depth = _grown(self._depth, cap, 0)
        self._root = _grown(self._root, cap, 0)
        self._is_q = _grown(self._is_q, cap, False)
        self._parent = _grown(self._parent, cap, -1)
        up = np.zeros((_LIFT_LEVELS, cap), dtype=np.int64)
        up[:, :n] = self._up[:, :n]
        self._up = up
        self._cap = cap

    def _place(self, node: Node) -> None:
        """Append ``node`` (id already set to its list index) to the arrays and topology."""
        vec = np.asarray(node.embedding, dtype=np.float32).reshape(-1)
        self._grow(vec.shape[0])
        i = node.id
        node.embedding = vec
        self._matrix[i] = vec
        self._ts[i] = node.timestamp
        self._is_q[i] = node.node_type == "Q"
        if node.parent is None:
            node.level = 0
            self._parent[i] = -1
            self._root[i] = i
            self._up[:, i] = i
            self.roots.append(i)
        else:
            parent = self.node_list[node.parent]
            node.level = parent.level + 1
            parent.children.append(i)
            self._parent[i] = node.parent
            self._root[i] = self._root[node.parent]
            self._up[0, i] = node.parent
            for j in range(1, _LIFT_LEVELS):
                self._up[j, i] = self._up[j - 1, self._up[j - 1, i]]
        self._depth[i] = node.level
        self._max_depth = max(self._max_depth, node.level)
        self.node_list.append(node)
        if node.provisional:
            self._provisional.add(i)

    # ------------------------------------------------------------------ §5.4.1

    def attach_scores(self, embedding: np.ndarray, timestamp: float) -> np.ndarray:
        """``alpha*cos + beta*recency + delta*is_pred`` for every node (one numpy pass)."""
        n = len(self.node_list)
        if n == 0:
            return np.zeros(0, dtype=np.float64)
        sim = (self._matrix[:n] @ np.asarray(embedding, dtype=np.float32)).astype(np.float64)
        dt = np.maximum(0.0, timestamp - self._ts[:n])
        scores = self.alpha * sim + self.beta * np.exp(-dt / self.recency_tau)
        if self._last_id is not None:
            scores[self._last_id] += self.delta
        return scores

    def choose_parent(self, embedding: np.ndarray, timestamp: float) -> int | None:
        """The seed's ``_choose_parent``, vectorised: None means a new root."""
        scores = self.attach_scores(embedding, timestamp)
        if scores.size == 0:
            return None
        best = int(np.argmax(scores))
        if scores[best] < self.tau_attach:
            return None
        if self._is_q[best] and self._parent[best] >= 0:
            return int(self._parent[best])
        return best

    def attached_at(self, node_id: int) -> int | None:
        """Where a message node hangs: its parent, or itself when it began a topic (what
        :meth:`choose_parent` says for a query that is this newest message); None: no node."""
        if not 0 <= node_id < len(self.node_list):
            return None
        parent = self.node_list[node_id].parent
        return node_id if parent is None else parent

    def add_node(
        self,
        content: str,
        embedding: np.ndarray | list[float],
        *,
        node_type: str = "Q",
        timestamp: float,
        origin: str | None = None,
        metadata: dict[str, Any] | None = None,
        title: str | None = None,
        sync: bool = True,
        provisional: bool = False,
    ) -> Node:
        """Attach a new message. Q nodes and proactive A nodes choose their parent by §5.4.1;
        a reply (A, ``origin="response"``) hangs under the message it answers (the last
        node). With a file attached, the node is journaled before this returns (fsynced
        unless ``sync=False``: then ``DialogueFile.sync`` does it). ``provisional``: the
        vector stands in for the node's own until :meth:`set_embedding` (listeners hear of
        the node then, not now)."""
        if node_type not in NODE_TYPES:
            raise DialogueError(f"node_type must be Q or A, not {node_type!r}")
        origin = origin or ("user" if node_type == "Q" else "response")
        if origin not in ORIGINS:
            raise DialogueError(f"origin must be one of {', '.join(ORIGINS)}, not {origin!r}")
        vec = np.asarray(embedding, dtype=np.float32).reshape(-1)
        if self.dim is not None and vec.shape[0] != self.dim:
            raise DialogueError(
                f"embedding has dimension {vec.shape[0]}, this dialogue uses {self.dim}"
            )
        with self._lock:
            if node_type == "A" and origin == "response" and self._last_id is not None:
                parent: int | None = self._last_id
            else:
                parent = self.choose_parent(vec, timestamp)
            node = Node(
                title=title if title is not None else make_title(content),
                content=content,
                id=len(self.node_list),
                parent=parent,
                node_type=node_type,
                embedding=vec,
                timestamp=float(timestamp),
                origin=origin,
                metadata=dict(metadata or {}),
                provisional=provisional,
            )
            self._place(node)
            self._last_id = node.id
            if self.file is not None:
                self.file.append_node(node, sync=sync)
        if not provisional:
            self._tell(node)
        return node

    def _tell(self, node: Node) -> None:
        for listener in self._listeners:
            listener(self, node)

    def provisional_nodes(self) -> list[Node]:
        """The nodes whose vector still stands in for their own (see :class:`Node`)."""
        return [self.node_list[i] for i in sorted(self._provisional)]

    def set_embedding(self, node_id: int, embedding: np.ndarray) -> Node | None:
        """A provisional node's own vector, journaled (without an fsync: a line lost to a
        crash leaves the node provisional, and it is embedded again at the next start);
        then the listeners hear of the node. None when it is no longer provisional (set
        already, or forgotten meanwhile)."""
        vec = np.asarray(embedding, dtype=np.float32).reshape(-1)
        with self._lock:
            node = self.node_list[node_id]
            if not node.provisional:
                return None
            if vec.shape[0] != self.dim:
                raise DialogueError(f"embedding has dimension {vec.shape[0]}, not {self.dim}")
            if self.file is not None:  # first: a failed write leaves the node provisional
                self.file.append_embedding(node_id, vec)
            node.embedding = vec
            node.provisional = False
            self._provisional.discard(node_id)
            self._matrix[node_id] = vec
        self._tell(node)
        return node

    async def aadd_node(self, content: str, embedding: np.ndarray, **kwargs: Any) -> Node:
        """:meth:`add_node` off the event loop (an fsync, a row, a compaction holding the
        tree); on it for an unsynced line: one product over 5,000 nodes, 1-2 ms on one BLAS
        thread, is less than a hop to a thread costs a turn on a busy machine."""
        inline = not kwargs.get("sync", True) and not self._lock.locked()
        if not inline or (self.file is not None and not self.file.appends_inline):
            return await asyncio.to_thread(self.add_node, content, embedding, **kwargs)
        with one_blas_thread():
            return self.add_node(content, embedding, **kwargs)

    def set_metadata(self, node_id: int, **values: Any) -> Node:
        """Merge ``values`` into a node's metadata (journaled)."""
        with self._lock:
            node = self.node_list[node_id]
            node.metadata.update(values)
            if self.file is not None:
                self.file.append_metadata(node)
        return node

    def forget_node(self, node_id: int, *, forgotten_at: float | None = None) -> str:
        """Make a node a tombstone that keeps the topology: empty content and title, a zero
        embedding, ``metadata`` reduced to who spoke and ``forgotten = true``. Returns the
        text it held (empty when it was already forgotten). The file is not rewritten here:
        :meth:`DialogueFile.compact` writes the tombstone (the journal still holds the text)."""
        with self._lock:
            node = self.node_list[node_id]
            text = node.content
            node.content = ""
            node.title = ""
            node.metadata = tombstone_metadata(node.metadata, forgotten_at)
            node.provisional = False  # nothing is embedded for a tombstone
            self._provisional.discard(node_id)
            zero = np.zeros_like(np.asarray(node.embedding, dtype=np.float32))
            node.embedding = zero
            if self._matrix.shape[0] > node_id and self._matrix.shape[1] == zero.shape[0]:
                self._matrix[node_id] = zero
        return text

    # ------------------------------------------------------------------ §5.4.2

    def tree_distances(self, origin: int | None) -> np.ndarray:
        """Hops from ``origin`` to every node; ``inf`` for other trees (or no origin)."""
        return self.hops_to(origin, np.arange(len(self.node_list)))

    def hops_to(self, origin: int | None, ids: np.ndarray) -> np.ndarray:
        """Hops from ``origin`` to each node of ``ids`` (``inf`` for other trees, or no
        origin): the work is in the nodes asked about, not the whole dialogue (recall asks
        about its few candidates of a tree of thousands)."""
        ids = np.asarray(ids, dtype=np.int64)
        dist = np.full(ids.shape[0], np.inf)
        if origin is None or ids.size == 0:
            return dist
        n = len(self.node_list)
        levels = max(1, self._max_depth.bit_length())
        up = self._up[:levels, :n]
        depth = self._depth[:n]
        same = self._root[ids] == self._root[origin]
        members = ids[same]
        # The origin's ancestors, marked, by lifting it to every depth at once.
        d_origin = int(depth[origin])
        steps = d_origin - np.arange(d_origin + 1)
        chain = np.full(d_origin + 1, origin, dtype=np.int64)
        for j in range(levels):
            move = ((steps >> j) & 1).astype(bool)
            chain[move] = up[j, chain[move]]
        on_chain = np.zeros(n, dtype=bool)
        on_chain[chain] = True
        # For each member, climb in the largest jumps that stay off the origin's chain.
        cur = members.copy()
        off = ~on_chain[cur]
        for j in range(levels - 1, -1, -1):
            nxt = up[j, cur]
            jump = off & ~on_chain[nxt]
            cur = np.where(jump, nxt, cur)
        lca = np.where(on_chain[members], members, up[0, cur])
        dist[same] = d_origin + depth[members] - 2 * depth[lca]
        return dist

    def query_scores(
        self, embedding: np.ndarray, *, now: float
    ) -> tuple[np.ndarray, dict[str, np.ndarray], int | None]:
        """Final §5.4.2 score of every node, its parts, and the would-be attach point."""
        n = len(self.node_list)
        vec = np.asarray(embedding, dtype=np.float32)
        if n == 0:
            empty = np.zeros(0, dtype=np.float64)
            return empty, {"cos": empty, "recency": empty, "tree": empty}, None
        anchor = self.choose_parent(vec, now)
        cos = (self._matrix[:n] @ vec).astype(np.float64)
        recency = np.exp(-np.maximum(0.0, now - self._ts[:n]) / self.recency_tau)
        tree = np.exp(-self.tree_distances(anchor) / self.tree_tau)
        final = self.alpha * cos + self.beta * recency + self.gamma * tree
        return final, {"cos": cos, "recency": recency, "tree": tree}, anchor

    def query_vector(
        self, embedding: np.ndarray, k: int, *, now: float
    ) -> list[tuple[Node, float]]:
        if k <= 0:
            raise DialogueError("k must be at least 1")
        final, _, _ = self.query_scores(embedding, now=now)
        order = np.argsort(-final, kind="stable")[:k]
        return [(self.node_list[int(i)], float(final[i])) for i in order]

    def query(self, text: str, k: int, *, embedder: Any, now: float) -> list[tuple[Node, float]]:
        """§5.4.2 ``query(text, k)``: the ``k`` best nodes with their scores."""
        if not text or not text.strip():
            return []
        return self.query_vector(embedder.embed(text), k, now=now)

    # ------------------------------------------------------------------ (de)serialisation

    def to_json(self) -> dict[str, Any]:
        return {
            "nodes": [node.to_json() for node in self.node_list],
            "roots": list(self.roots),
            "_last_id": self._last_id,
        }

    def load_nodes(self, nodes: Iterable[Node], last_id: int | None = None) -> list[str]:
        """Rebuild from stored nodes in id order; ids are made contiguous (a node lost to a
        corrupt line leaves no gap) and a parent that is missing makes a root."""
        problems: list[str] = []
        renumber: dict[int, int] = {}
        for node in nodes:
            old = node.id
            if old in renumber:
                problems.append(f"node {old} appears twice; the later copy is ignored")
                continue
            node.id = len(self.node_list)
            node.children = []
            if node.parent is not None:
                if node.parent not in renumber:
                    problems.append(f"node {old}: parent {node.parent} is missing; made a root")
                    node.parent = None
                else:
                    node.parent = renumber[node.parent]
            try:
                self._place(node)
            except DialogueError as exc:
                problems.append(f"node {old}: {exc}")
                continue
            renumber[old] = node.id
        if last_id is not None and last_id in renumber:
            self._last_id = renumber[last_id]
        elif self.node_list:
            self._last_id = len(self.node_list) - 1
        return problems


def _grown(arr: np.ndarray, cap: int, fill: Any) -> np.ndarray:
    out = np.full(cap, fill, dtype=arr.dtype)
    out[: arr.shape[0]] = arr
    return out


# --------------------------------------------------------------------------- on disk


class DialogueFile:
    """``dialogue.json`` plus its append-only journal, for one dialogue folder."""

    appends_inline = True  # an unsynced line is cheap enough for the event loop

    def __init__(self, folder: Path, *, compact_every: int = 512) -> None:
        self.folder = Path(folder)
        self.json_path = self.folder / DIALOGUE_FILE
        self.journal_path = self.folder / JOURNAL_FILE
        self.compact_every = compact_every
        self.journal_lines = 0
        self.unsynced = False  # lines appended without an fsync since the last one

    def exists(self) -> bool:
        return self.json_path.exists() or self.journal_path.exists()

    def append_node(self, node: Node, *, sync: bool = True) -> None:
        self._append({"op": "node", "node": node.to_json()}, sync=sync)

    def append_metadata(self, node: Node) -> None:
        self._append({"op": "metadata", "id": node.id, "metadata": node.metadata})

    def append_embedding(self, node_id: int, embedding: np.ndarray) -> None:
        vec = np.round(np.asarray(embedding, dtype=np.float64), 8).tolist()
        self._append({"op": "embedding", "id": node_id, "embedding": vec}, sync=False)

    def _append(self, event: dict[str, Any], *, sync: bool = True) -> None:
        append_lines(self.journal_path, [json.dumps(event, ensure_ascii=False)], sync=sync)
        self.journal_lines += 1
        self.unsynced = not sync

    def sync(self) -> None:
        """The journal's unsynced lines on disk (one fsync; a compaction fsynced them)."""
        if self.unsynced:
            self.unsynced = False
            fsync_file(self.journal_path)

    def needs_compaction(self) -> bool:
        return self.journal_lines >= self.compact_every

    def compact(self, tree: DialogTree) -> None:
        """Write the whole tree to ``dialogue.json`` atomically, then drop the journal. A crash
        in between is harmless: loading skips journal nodes the JSON already holds."""
        atomic_write_text(self.json_path, json.dumps(tree.to_json(), ensure_ascii=False))
        if self.journal_path.exists():
            self.journal_path.unlink()
        self.journal_lines = 0

    def load(self, tree: DialogTree) -> list[str]:
        """Fill ``tree`` from disk; returns the problems found (bad journal lines are skipped
        and named, the rest loads). Nothing on disk is changed."""
        nodes: list[Node] = []
        last_id: int | None = None
        problems: list[str] = []
        if self._has_json():
            nodes, last_id = self._read_json()
        by_id = {node.id: node for node in nodes}
        if self._has_journal():
            problems += self._replay(by_id, nodes)
            if nodes:
                last_id = max(last_id or 0, nodes[-1].id)
        problems += tree.load_nodes(sorted(nodes, key=lambda n: n.id), last_id)
        for problem in problems:
            logger.warning("%s: %s", self.folder, problem)
        return problems

    def _has_json(self) -> bool:
        return self.json_path.exists()

    def _has_journal(self) -> bool:
        return self.journal_path.exists()

    def _json_text(self) -> str:
        return self.json_path.read_text(encoding="utf-8")

    def stale(self) -> bool:
        """Another worker changed this dialogue since it was loaded (never on files)."""
        return False

    def _read_json(self) -> tuple[list[Node], int | None]:
        try:
            data = json.loads(self._json_text())
            nodes = [node_from_json(item) for item in data["nodes"]]
            last = data.get("_last_id")
            return nodes, None if last is None else int(last)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DialogueLoadError(f"{self.json_path} cannot be read: {exc}") from exc

    def _replay(self, by_id: dict[int, Node], nodes: list[Node]) -> list[str]:
        with open(self.journal_path, encoding="utf-8", errors="replace") as fh:
            return self._replay_lines(fh, by_id, nodes)

    def _replay_lines(
        self, lines: Iterable[str], by_id: dict[int, Node], nodes: list[Node]
    ) -> list[str]:
        problems: list[str] = []
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            self.journal_lines += 1
            try:
                event = json.loads(line)
                self._apply(event, by_id, nodes)
            except (ValueError, KeyError, TypeError) as exc:
                problems.append(f"{self.journal_path.name} line {lineno} skipped: {exc}")
        return problems

    @staticmethod
    def _apply(event: Any, by_id: dict[int, Node], nodes: list[Node]) -> None:
        if not isinstance(event, dict):
            raise ValueError("not a JSON object")
        op = event.get("op")
        if op == "node":
            node = node_from_json(event["node"])
            if node.id not in by_id:  # already compacted into dialogue.json otherwise
                by_id[node.id] = node
                nodes.append(node)
        elif op == "metadata":
            target = by_id.get(int(event["id"]))
            if target is None or not isinstance(event["metadata"], dict):
                raise ValueError(f"metadata for unknown node {event.get('id')}")
            target.metadata = dict(event["metadata"])
        elif op == "embedding":
            target = by_id.get(int(event["id"]))
            vec = np.asarray(event["embedding"], dtype=np.float32)
            if target is None or vec.shape != np.asarray(target.embedding).shape:
                raise ValueError(f"bad embedding for node {event.get('id')}")
            if target.provisional:  # a tombstone compacted meanwhile keeps its zeros
                target.embedding, target.provisional = vec, False
        else:
            raise ValueError(f"unknown op {op!r}")
