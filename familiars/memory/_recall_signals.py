"""Recall's ranking signals, as one list: add a signal here and nothing else changes.

Each entry of :data:`RECALL_SIGNALS` is a :class:`~familiars.memory._scoring.Signal`: its part
name (as shown in ``explain``), default weight, the function that computes it over the
candidates of one query (a :class:`RankContext`), and the knob that switches it off. The
reader runs the list in order (the order is the summation order, so keep it) through
:func:`~familiars.memory._scoring.compute_signals`, which handles ablation and the deadline.

Knobs that are not a signal of their own (they refine one, or act at indexing or selection)
are in :data:`_REFINING_KNOBS`; :data:`RECALL_KNOBS` is the registry of both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from familiars.memory._dialog_tree import DialogTree
from familiars.memory._recall_items import node_group
from familiars.memory._rerank import HUB_SHARE, lexical_evidence
from familiars.memory._scoring import KnobRegistry, Signal, SignalGate, minmax, signal_knobs
from familiars.memory._search_index import RecallIndex
from familiars.memory._small_talk import FIRST_PERSON
from familiars.memory._text import content_words, no_space_script, words

CONTEXT_DENSE = 0.3
LEX_FLOOR = 0.25  # the keyword part's share that stays when the words carry no evidence
RECENCY_TAU_S = 30 * 86400.0
SUBSTANCE_WEIGHT = 0.07
ASKER_WEIGHT = 0.05


@dataclass
class RankContext:
    """One ranking pass: the query, its candidates (index rows) and what signals read."""

    index: RecallIndex
    query: str
    qvec: np.ndarray
    cand: np.ndarray
    dense_all: np.ndarray  # cosine of every index row
    kw_all: np.ndarray | None  # BM25 of every index row; None with the keyword knob off
    now: float
    tree: DialogTree | None
    weights: Mapping[str, float]
    gate: SignalGate
    memo: dict[str, Any] = field(default_factory=dict)  # raw scores the re-ranker reads
    asker: str | None = None  # user_key of the person whose message the query is
    message: str = ""  # the message alone, when ``query`` is it read with its context
    anchor: int | None = None  # the query's own node in ``tree`` (a turn's message), if any


# --------------------------------------------------------------------------- signals


def late_part(ctx: RankContext) -> np.ndarray | None:
    """idf-weighted word-level matching over word vectors, 0-1 over the candidates; not for
    a message read with its conversation (:func:`reads_words`)."""
    if not reads_words(ctx.query, ctx.message):
        return None
    idx = ctx.index
    qwords = [w for w in dict.fromkeys(content_words(ctx.query)) if w in idx.vocab.ids]
    if not qwords:
        return minmax(np.zeros(ctx.cand.shape[0]))
    ids = idx.vocab.lookup(qwords)
    idf = idx.word_idf(ids, qwords)
    late = idx.late_interaction(ctx.cand, ids, idf, neighbours=ctx.gate.on("context_words"))
    return minmax(late)


def dense_part(ctx: RankContext) -> np.ndarray:
    """Cosine, raised to the best sentence's (stage ``sentences``), less a share of the row's
    hub value (knob ``hubness``), plus a share of the best neighbour's cosine (knob
    ``context_dense``), 0-1 over the candidates."""
    dense = ctx.dense_all[ctx.cand].astype(np.float64)
    if ctx.gate.on("sentences") and ctx.gate.stage("sentences"):
        dense = np.maximum(dense, ctx.index.sentence_max(ctx.cand, ctx.qvec))
    ctx.memo["cos"] = dense
    if ctx.gate.on("hubness"):
        hub = ctx.index.hub_values(ctx.cand)
        ctx.memo["hub"] = hub
        dense = dense - HUB_SHARE * hub
    if ctx.gate.on("context_dense"):
        dense = dense + CONTEXT_DENSE * neighbour_dense(ctx.index, ctx.cand, ctx.dense_all)
    return minmax(dense)


def keyword_part(ctx: RankContext) -> np.ndarray | None:
    """BM25, 0-1 over the candidates; with knob ``lexical_gate`` scaled by how much lexical
    evidence the query has (a flat or weak BM25 is noise that min-max would spread to 0-1)."""
    if ctx.kw_all is None:
        return None
    kw = ctx.kw_all[ctx.cand]
    ctx.memo["bm25"] = kw
    part = minmax(kw)
    # The gate's BM25 scale was measured on English stems; character bigrams (CJK, Thai...)
    # score lower for as clear a match, and there the English-only bundled model's meaning
    # is weak: their keyword part counts in full.
    if ctx.gate.on("lexical_gate") and not no_space_script(ctx.query):
        part = part * (LEX_FLOOR + (1.0 - LEX_FLOOR) * lexical_evidence(kw))
    return part


def recency_part(ctx: RankContext) -> np.ndarray | None:
    if not ctx.weights.get("recency", 0.0):
        return None
    age = np.maximum(0.0, ctx.now - ctx.index.timestamps(ctx.cand))
    return np.exp(-age / RECENCY_TAU_S)


def tree_part(ctx: RankContext) -> np.ndarray | None:
    """Nodes of the current dialogue near the branch the query would join."""
    tree = ctx.tree
    if tree is None or not len(tree):
        return None
    # A turn's message is in the tree already: where it attached is where the query would
    # (its node is the newest, so it is what choose_parent finds), and it is not chosen twice.
    anchor = tree.attached_at(ctx.anchor) if ctx.anchor is not None else None
    if anchor is None:
        anchor = tree.choose_parent(ctx.qvec, ctx.now)
    out = np.zeros(ctx.cand.shape[0])
    ids = ctx.index.node_ids(ctx.cand, node_group(tree.agent_id or "", tree.dialogue_id or ""))
    mine = ids >= 0
    out[mine] = np.exp(-tree.hops_to(anchor, ids[mine]) / tree.tree_tau)
    return out


def salience_part(ctx: RankContext) -> np.ndarray:
    return ctx.index.salience(ctx.cand)


def substance_part(ctx: RankContext) -> np.ndarray:
    """1 for a message that says something about someone, 0 for pure small talk."""
    talk = ctx.index.small_talk(ctx.cand)
    ctx.memo["small_talk"] = talk
    return 1.0 - talk


def asker_part(ctx: RankContext) -> np.ndarray | None:
    """1 for what the asking person said or is about, when they speak of themselves ("I
    ended up volunteering and now I'm overwhelmed" recalls *their* "saying no helped me")."""
    if ctx.asker is None or not FIRST_PERSON & set(words(ctx.message or ctx.query)):
        return None
    own = ctx.index.owner_rows(ctx.cand, ctx.asker).astype(np.float64)
    ctx.memo["asker"] = own
    return own


def speaker_part(ctx: RankContext) -> np.ndarray | None:
    """1 for the messages of the one participant the query names, else 0."""
    named = named_speaker(ctx.index, ctx.message or ctx.query)
    if named is None:
        return None
    return ctx.index.speaker_rows(ctx.cand, named).astype(np.float64)


#: Measured on the LoCoMo dev split (``familiars bench locomo``): with the finer signals on,
#: dense/keyword 0.6/0.4 beats the file-finder's 0.7/0.3 (R@10 0.806 vs 0.793).
RECALL_SIGNALS: tuple[Signal[RankContext], ...] = (
    Signal("late", 0.3, late_part, knob="late_interaction", stage="late_interaction",
           why="idf-weighted word-level matching over word vectors (synonyms and word forms "
           "that exact keywords miss)"),
    Signal("dense", 0.6, dense_part),
    Signal("keyword", 0.4, keyword_part, knob="keyword",
           why="BM25 over stemmed words joins dense recall (names, rare words, numbers)"),
    # a tie-breaker for chats; LoCoMo asks about old events (-0.002 R@10)
    Signal("recency", 0.03, recency_part, knob="recency",
           why="newer memories win ties (time decay)"),
    Signal("tree", 0.05, tree_part, knob="tree_distance",
           why="dialogue nodes near the current topic branch win ties (§5.4.2)"),
    Signal("salience", 0.05, salience_part, knob="salience",
           why="a record's salience lifts it a little"),
    Signal("substance", SUBSTANCE_WEIGHT, substance_part, knob="small_talk",
           why="greetings, thanks, reactions and questions ('Wow, did you make it?') are "
           "not memories; a message that says something about someone wins"),
    Signal("asker", ASKER_WEIGHT, asker_part, knob="asker_prior", bonus=True,
           why="a message about oneself recalls what that person said, not what others did"),
    Signal("speaker", 0.25, speaker_part, knob="speaker_prior", bonus=True,
           why="when the query names one participant, their own messages get a lift"),
)  # fmt: skip

#: Knobs that refine a signal or act outside ranking (indexing, selection).
_REFINING_KNOBS: dict[str, str] = {
    "keyword_date": "a message's date words are searchable ('in May', 'last year's trip')",
    "keyword_speaker": "a message's author name is searchable ('what did Ana say about ...')",
    "context_words": "a message's keyword document and word list also carry the words of the "
    "messages around it (two on each side, the farther at half weight): replies like 'yes, it "
    "was amazing!' get the topic of what they answer",
    "context_dense": "a message's dense score also counts its best neighbour's similarity",
    "sentences": "long messages are matched sentence by sentence (best sentence counts)",
    "dedupe": "a record and the dialogue node it came from collapse to one item",
    "hubness": "a message that is close to every query (a generic reply) counts its cosine "
    "against its closeness to its nearest messages (CSLS)",
    "lexical_gate": "the keyword part counts in full only when the query's words really match "
    "(a clear, peaked BM25 top); a flat or weak BM25 leaves dense meaning to decide",
    "rerank": "a learned re-ranker (rerank_weights.json) re-scores the first stage's best "
    "candidates from every part, their raw scores and ranks, and the lexical evidence",
}

#: Every recall knob, with why it makes sense for a real chat.
RECALL_KNOBS = KnobRegistry({**signal_knobs(RECALL_SIGNALS), **_REFINING_KNOBS})


# --------------------------------------------------------------------------- helpers


def reads_words(query: str, message: str) -> bool:
    """Whether word-level matching runs for ``query``: not when it is the message read with
    its conversation (``message`` differs). Each word's best match over words from several
    messages finds the records that share any one of them: on the companion dev set it cost
    the conversation R@10 .95 -> .99 without, with the vector of the message in its
    conversation deciding (``_recall_context``); the message alone keeps it (.88 vs .86)."""
    return not message or query == message


def neighbour_dense(index: RecallIndex, cand: np.ndarray, dense_all: np.ndarray) -> np.ndarray:
    """Each candidate's best neighbour similarity (whole message; their best sentence
    measured no better on LoCoMo), 0 without neighbours."""
    nbs = index.neighbours(cand)
    valid = nbs >= 0
    if not valid.any():
        return np.zeros(cand.shape[0])
    per = np.where(valid, dense_all[np.maximum(nbs, 0)].astype(np.float64), -np.inf)
    best = np.maximum(per[:, 0], per[:, 1])  # a max over a last axis of 2 is ~15x slower
    return np.where(np.isfinite(best), best, 0.0)


def named_speaker(index: RecallIndex, query: str) -> str | None:
    """The one participant a query names (by any word of their name), if exactly one."""
    qwords = set(words(query))
    named = [
        name
        for name in index.speakers
        if any(part in qwords for part in words(name) if len(part) > 1)
    ]
    return named[0] if len(named) == 1 else None
