"""The conversation as recall's context: what the recent branch of the DialogTree is about.

A turn's message often names nothing ("I want to make that evening really special"); its topic
lies two or three messages back. :func:`recent_messages` takes the person's last messages on
the branch the message joins (the tree's newest node and its ancestors, the message itself
left out); :func:`context_text` is the one extra text embedded for it (those messages
joined, the message not among them, so it is known before the message comes: the reader
embeds it between turns, :meth:`MemoryReader.read_ahead`, and the turn embeds the message
alone); :func:`fuse` adds its vector to the message's at ``CONTEXT_WEIGHT`` and renormalises,
so dense recall (and everything that reads the query vector) reads the message in its
conversation. BM25 reads :func:`context_query` (the messages and the message joined);
word-level matching does not run (``_recall_signals.reads_words``), so no query word is
embedded. :func:`lifts` says, per recalled item, how much the
context moved its cosine (``/memory why``).

Measured on the companion dev set (``familiars bench companion``): records R@10 with the
message in its conversation against plain cosine of the joined text; see
``docs/architecture.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from familiars.memory._blas import one_blas_thread
from familiars.memory._dialog_tree import DialogTree
from familiars.memory._text import last_words

#: How many earlier messages of the branch are read (the topic is usually 2-3 back).
CONTEXT_MESSAGES = 3
#: The context vector's share against the message's (1.0: as much as the message).
#: Companion dev R@5 / R@10 with the conversation (word-level matching off for it), the
#: earlier messages embedded without the message: 1.0 .943/.971, 2.0 .952/.990, 2.5 and 3.0
#: .962/.990 (held .961/1.0, as the message and messages joined at 4.0 gave), 4.0 .962/.981;
#: the mean of the messages' own vectors at best .933/.981. LoCoMo never reads a context.
CONTEXT_WEIGHT = 3.0
#: A message whose own best match is at least this close names its topic and is read alone
#: (``names_its_topic``). All-MiniLM-L6-v2 cosines: the companion dev moments' best match
#: p50 .26, p95 .43, max .53 (none set aside); a question naming what it asks about ~.8.
#: A model with another cosine scale (bge-m3 runs higher) may want its own.
TOPIC_COSINE = 0.6
#: The joined text (context and message) keeps its last this many words: the batch's
#: longest text sets its cost. Companion dev moments' joined text: p50 20, max 30 words.
CONTEXT_MAX_WORDS = 48
#: The earlier messages' text (:func:`context_text`) keeps its last this many words: its
#: vector leans to what was said last, not to a long message before it. Companion dev
#: R@5 / R@10 unchanged at 24-48 (.962/.990); its long messages (one of 40-70 words leading
#: the context) .840/.930 at 24, .789/.891 at 32, .718/.865 at 48 (the message and messages
#: joined, cut at 48, gave .795/.885).
CONTEXT_TEXT_WORDS = 24
#: Messages older than this before the query are another conversation, not its context.
CONTEXT_MAX_AGE_S = 3600.0
#: How many of the newest nodes are looked at.
_SCAN = 40
#: Node kinds that are not the person talking (the bot's notices, care replies, reminders).
_NOT_TALK = ("notice", "care", "reminder", "missed_reminder")


def recent_messages(
    tree: DialogTree | None,
    query: str,
    user_key: str | None,
    now: float,
    limit: int = CONTEXT_MESSAGES,
) -> list[str]:
    """The last ``limit`` messages of the person (``user_key``; anyone's when None) in the
    topic tree of the newest node (same root: a message and the replies and follow-ups it
    branched into), oldest first, said within :data:`CONTEXT_MAX_AGE_S` before ``now``, the
    query's own text left out."""
    if tree is None or limit <= 0 or not len(tree) or tree.last_id is None:
        return []
    root = tree.root_of(tree.last_id)
    out: list[str] = []
    for node in reversed(tree.node_list[max(0, tree.last_id - _SCAN + 1) : tree.last_id + 1]):
        if now - node.timestamp > CONTEXT_MAX_AGE_S:
            break
        if tree.root_of(node.id) != root:
            continue
        meta = node.metadata or {}
        if node.origin != "user" or meta.get("forgotten") or meta.get("kind") in _NOT_TALK:
            continue
        if user_key is not None and meta.get("user_key") not in (None, user_key):
            continue
        text = node.content.strip()
        if not text or text == query.strip():
            continue
        out.append(text)
        if len(out) >= limit:
            break
    return out[::-1]


def context_query(messages: Sequence[str], query: str, max_words: int | None = None) -> list[str]:
    """The extra text to embed with the query (none without context): the messages and the
    query joined, cut to its last ``max_words`` words (:data:`CONTEXT_MAX_WORDS`; 0: uncut;
    a character of a script without spaces counts as a word), so long messages do not make
    the batch's longest text, and its embedding, slower."""
    if not messages:
        return []
    limit = CONTEXT_MAX_WORDS if max_words is None else max_words
    joined = " ".join([*messages, query])
    return [last_words(joined, limit) if limit > 0 else joined]


def context_text(messages: Sequence[str], max_words: int | None = None) -> list[str]:
    """The text embedded for the conversation (none without one): the earlier messages
    joined, cut to their last :data:`CONTEXT_TEXT_WORDS` words (``max_words`` 0: uncut).
    The message is not in it, so the text is known, and embedded, before the message comes."""
    if not messages:
        return []
    limit = CONTEXT_TEXT_WORDS if max_words is None else min(max_words, CONTEXT_TEXT_WORDS)
    joined = " ".join(messages)
    return [last_words(joined, limit) if limit > 0 else joined]


def next_context(tree: DialogTree | None, user_key: str | None) -> list[str]:
    """What :class:`Reading` will embed for the person's next message if it goes on the
    newest node's conversation (said within :data:`CONTEXT_MAX_AGE_S` of that node)."""
    if tree is None or tree.last_id is None or not len(tree):
        return []
    now = tree.node_list[tree.last_id].timestamp
    return context_text(recent_messages(tree, "", user_key, now), Reading.max_words)


def fuse(
    vecs: np.ndarray, n_queries: int, messages: Sequence[str], weight: float | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """The ``n_queries`` query vectors with the first one read in its context (the extra
    vector embedded after them), and the message's own vector (None without context)."""
    if not messages or vecs.shape[0] <= n_queries:
        return vecs[:n_queries], None
    weight = CONTEXT_WEIGHT if weight is None else weight
    message = vecs[0].astype(np.float32)
    fused = message + weight * vecs[n_queries].astype(np.float32)
    out = np.array(vecs[:n_queries], dtype=np.float32, copy=True)
    out[0] = fused / max(float(np.linalg.norm(fused)), 1e-9)
    return out, message


async def read_in_context(
    result: Any, reader: Any, tree: DialogTree | None, user_key: str | None, now: float,
    context: Sequence[str] | None, queries: list[str], groups: Any = None,
) -> np.ndarray:  # fmt: skip
    """``result.context`` (a :class:`Reading` of ``result.query``), and the query vectors
    embedded in one batch with its extra text, the first one read in its context; or, when
    the message names its topic (:func:`names_its_topic` among the rows ``groups`` allow), read
    alone (the conversation in ``set_aside``, the query words embedded then)."""
    result.context = Reading.of(reader.index, tree, result.query, user_key, now, context)
    words = not result.context  # read in its conversation, no word-level matching
    known = reader.read_ahead_vector(result.context.extra)  # embedded between turns
    extra = [] if known is not None else result.context.extra
    vecs: np.ndarray = await reader._embed_queries(queries + extra, words=words)
    if known is not None:
        vecs = np.vstack([vecs[: len(queries)], known[None, :]])
    if not result.context:
        return vecs
    fused = result.context.fuse(vecs)
    # The mask is taken here, after the last await: rows a sync added meanwhile are in it.
    mask = None if groups is None else reader.index.allowed_mask(groups)
    if not names_its_topic(reader.index, vecs[0], mask, result.query):
        if known is not None:  # the ranking's product, from the two at hand
            cosines = _fused_cosines(reader.index, vecs[0], known, result.context.weight)
            reader.index.keep_dense(fused[0], cosines)
        return fused
    result.context = Reading([], result.query, reader.index, set_aside=result.context.messages)
    await reader._embed_words(queries)
    return vecs[: len(queries)]


def _fused_cosines(
    index: Any, message: np.ndarray, context: np.ndarray, weight: float
) -> np.ndarray:
    """Every row's cosine with the message read in its context (:func:`fuse`), without a
    second product over every row: the message's own (:func:`names_its_topic` worked it
    out) and the read-ahead conversation's (kept current between turns) folded as
    :func:`fuse` folds the vectors (equal to the direct product within float32 rounding,
    ~1e-7)."""
    raw = np.asarray(message, dtype=np.float32) + weight * context.astype(np.float32)
    scale = max(float(np.linalg.norm(raw)), 1e-9)
    with one_blas_thread():
        alone, ahead = index.dense_all(message), index.dense_kept(context)
    out: np.ndarray = (alone + np.float32(weight) * ahead) / np.float32(scale)
    return out


def names_its_topic(
    index: Any, message: np.ndarray, mask: np.ndarray | None, query: str = ""
) -> bool:
    """Whether the message names its topic itself: its own best match among the rows recall
    may read (the message's own node, same text, left out) has a cosine of at least
    :data:`TOPIC_COSINE`. Such a message is read alone, as a new topic ("What is the name of
    Ana's dog?" after talk of a hike: .81 with "Ana has a dog named Biscuit"); one that names
    nothing ("I want to make that evening really special") is read in its conversation."""
    with one_blas_thread():  # as the ranking's product: a threaded BLAS spins on a busy CPU
        alone = index.dense_all(message)
    if mask is not None:
        alone = np.where(mask, alone, -np.inf)
    said = query.strip()
    best = np.argpartition(-alone, 3)[:4] if alone.shape[0] > 4 else np.arange(alone.shape[0])
    for row in best[np.argsort(-alone[best], kind="stable")]:
        if alone[row] < TOPIC_COSINE:
            return False
        doc = index.doc(int(row))
        if doc is not None and doc.text.strip() != said:
            return True
    return False


class Reading:
    """One recall's conversation: the messages read with the query, and (worked out only
    when shown: ``/memory why``, ``as_dict``) how much they moved each recalled item."""

    #: The joined text's word cap (0: none; ``bench companion`` times both in one run).
    max_words: int = CONTEXT_MAX_WORDS

    def __init__(
        self, messages: Sequence[str], query: str, index: Any = None,
        set_aside: Sequence[str] = (),
    ) -> None:  # fmt: skip
        self.messages = list(messages)
        #: The conversation left unread: the message named its topic (:func:`names_its_topic`).
        self.set_aside = list(set_aside)
        #: What BM25 reads: the messages and the message joined.
        self.joined = context_query(self.messages, query, self.max_words)
        #: What is embedded with the message: the messages alone (:func:`context_text`).
        self.extra = context_text(self.messages, self.max_words)
        self.weight = CONTEXT_WEIGHT
        self._index = index
        self._message: np.ndarray | None = None
        self._fused: np.ndarray | None = None

    @classmethod
    def of(
        cls, index: Any, tree: DialogTree | None, query: str, user_key: str | None, now: float,
        context: Sequence[str] | None,
    ) -> Reading:  # fmt: skip
        """``context`` as given, or (None) the tree's :func:`recent_messages`."""
        said = recent_messages(tree, query, user_key, now) if context is None else context
        return cls(said, query, index)

    def __bool__(self) -> bool:
        return bool(self.messages)

    def text(self, query: str) -> str:
        """What BM25 reads: the message with its context (the message's own words alone
        pulled keyword noise: "I'll be ordering the chips" after talk of a seafood dinner)."""
        return self.joined[0] if self.joined else query

    def fuse(self, vecs: np.ndarray) -> np.ndarray:
        """The query vectors of the batch (the extra one folded into the first)."""
        n = vecs.shape[0] - len(self.extra)
        out, self._message = fuse(vecs, n, self.messages, self.weight)
        self._fused = out[0] if self._message is not None else None
        return out

    def lifted(self, items: Sequence[Any]) -> dict[str, float]:
        """Per recalled item key: its cosine with the message in its context less its
        cosine with the message alone (what the conversation added to it)."""
        if self._message is None or self._fused is None or self._index is None:
            return {}
        rows = self._index.rows
        keys = [it.key for it in items if it.key in rows]
        if not keys:
            return {}
        sub = self._index.matrix[np.array([rows[key] for key in keys], dtype=np.int64)]
        gain = sub @ self._fused - sub @ self._message
        return {key: round(float(g), 4) for key, g in zip(keys, gain, strict=True)}

    def shown(self, items: Sequence[Any]) -> dict[str, Any]:
        """What ``RecallResult.as_dict`` and ``/memory why`` show (empty without context)."""
        if not self.messages:
            return {}
        return {"messages": self.messages, "weight": self.weight, "lifted": self.lifted(items)}
