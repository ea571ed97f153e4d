"""The learned re-ranker: a second look at the first stage's best candidates.

Map:

- :func:`lexical_evidence`: how much the query's words really match (one number per query,
  0 = flat or weak BM25, 1 = a clear keyword match), from the absolute top BM25 score and how
  far the best candidate stands above the next ones. The first stage uses it to weigh the
  keyword side (``_recall_signals.keyword_part``); the re-ranker reads it as a feature.
- :func:`pool`: which candidates are re-ranked (the first stage's top ``depth`` and the top
  ``dense_depth`` by meaning alone, so a semantic match the fusion buried is still seen).
- :func:`features`: one row of :data:`FEATURES` per pooled candidate, from the parts the
  signals already computed, their raw scores, ranks and the lexical evidence.
- :class:`Reranker`: a linear (logistic / listwise) model over standardised features, loaded
  from ``rerank_weights.json`` (retrain with ``scripts/train_reranker.py``); ``explain`` says
  what each feature contributed for one item.
- :func:`rerank`: the stage itself, scores in the first stage's order for what it did not pool.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

WEIGHTS_FILE = Path(__file__).resolve().parent / "rerank_weights.json"
#: BM25 (project scale) at or below which a top score counts as no lexical match, and from
#: which as a full one. Top BM25 on the dev split: LoCoMo questions p10/p50 4.4/8.3, implicit
#: triggers p50/p90 5.0/6.9 (their matches are wrong by construction).
LEX_LOW = 3.0
LEX_HIGH = 8.0

FEATURES: tuple[str, ...] = (
    "dense", "keyword", "late", "recency", "tree", "salience", "speaker",
    "cos", "cos_gap", "bm25_log", "bm25_rel", "dense_rank", "kw_rank", "first_rank",
    "lexical", "keyword_x_lex", "late_x_lex", "dense_x_lex", "cos_x_nolex",
    "substance", "hub", "csls", "small_talk", "asker", "meaning", "meaning_rank",
    "meaning_x_nolex", "record",
)  # fmt: skip
#: The pool: the first stage's best ``POOL_DEPTH`` and the best ``MEANING_DEPTH`` by meaning
#: alone (:func:`pool`). Meaning 40 -> 60 (the trees unchanged): implicit dev R@10 .845 -> .900,
#: R@5 and LoCoMo dev the same (.827; .781 / .848); 80 gave .900 too, with R@5 .818. An
#: implicit cue shares no word with its trigger, so the fusion buries it; at 40 the model never
#: saw it.
POOL_DEPTH = 40
MEANING_DEPTH = 60
#: The share of a row's hub value taken off its cosine (CSLS, ``_hubness``): the first
#: stage's dense part and the ``csls`` feature.
HUB_SHARE = 0.5
#: Raw-cosine units a message that is all small talk loses in the ``meaning`` score.
TALK_SHARE = 0.06


def lexical_evidence(kw: np.ndarray | None) -> float:
    """0-1: how strong the best keyword match is, from the top BM25 score in absolute terms
    (``LEX_LOW`` -> 0, ``LEX_HIGH`` -> 1). A weak top (only common or few shared words) says
    the words carry no evidence. How flat the head is (top vs fifth) was measured too and
    added nothing on either set (scripts/train_reranker.py), so it is not used."""
    if kw is None or kw.size == 0:
        return 0.0
    best = float(kw.max())
    return float(np.clip((best - LEX_LOW) / (LEX_HIGH - LEX_LOW), 0.0, 1.0))


def pool(
    total: np.ndarray,
    dense: np.ndarray | None,
    depth: int,
    dense_depth: int,
    orders: Mapping[str, np.ndarray] | None = None,
) -> np.ndarray:
    """Candidate positions to re-rank: the top ``depth`` of the fused score and the top
    ``dense_depth`` of ``dense`` (the :func:`meaning` score), in first-stage order.
    ``orders``: :func:`descending` of ``total`` and of ``dense`` (keys ``total``,
    ``meaning``) when the caller has them."""
    order = orders["total"] if orders else descending(total)
    chosen = np.zeros(total.shape[0], dtype=bool)
    chosen[order[:depth]] = True
    if dense is not None and dense_depth > 0:
        chosen[(orders["meaning"] if orders else descending(dense))[:dense_depth]] = True
    return order[chosen[order]].astype(np.int64)


def descending(values: np.ndarray) -> np.ndarray:
    """Positions from the largest value down, ties in position order."""
    return np.argsort(-values, kind="stable")


def _rank_feature(
    values: np.ndarray, chosen: np.ndarray | None = None, order: np.ndarray | None = None
) -> np.ndarray:
    """``1 / log2(2 + rank)`` of each value among all candidates (1 for the best); of the
    ``chosen`` positions only, when given; ``order``: :func:`descending` of ``values``."""
    ranks = np.empty(values.shape[0])
    ranks[descending(values) if order is None else order] = np.arange(values.shape[0])
    return 1.0 / np.log2(2.0 + (ranks if chosen is None else ranks[chosen]))


@dataclass(frozen=True)
class RawScores:
    """What the features read besides the fused parts: every candidate's raw cosine (with
    the best sentence), raw BM25 (None with the keyword knob off), hub value (None with the
    hubness knob off) and small-talk share (None with the small_talk knob off)."""

    cos: np.ndarray
    bm25: np.ndarray | None
    hub: np.ndarray | None = None
    small_talk: np.ndarray | None = None
    whole: np.ndarray | None = None  # whole-message cosine (no best sentence)
    #: 1 for a record, 0 for a dialogue turn: records (short third-person facts and episodes)
    #: score otherwise than turns, and the model learnt both (issue 24).
    record: np.ndarray | None = None


def meaning(raw: RawScores) -> np.ndarray:
    """Similarity in meaning alone: whole-message cosine less a share of the hub value and
    of the small talk (``_hubness``, ``_small_talk``); pools and a feature read it."""
    score = raw.cos if raw.whole is None else raw.whole
    if raw.hub is not None:
        score = score - HUB_SHARE * raw.hub
    if raw.small_talk is not None:
        score = score - TALK_SHARE * raw.small_talk
    return np.asarray(score, dtype=np.float64)


def features(
    parts: Mapping[str, np.ndarray],
    bonus: Mapping[str, np.ndarray],
    total: np.ndarray,
    raw: RawScores,
    chosen: np.ndarray,
    meaning_all: np.ndarray | None = None,
    orders: Mapping[str, np.ndarray] | None = None,
) -> np.ndarray:
    """The :data:`FEATURES` matrix (rows = ``chosen`` positions); a part that did not run
    (ablated, dropped) reads 0. Ranks and maxima are over every candidate; the rest is worked
    out for the chosen rows alone (element by element, so the same values). ``meaning_all``
    and ``orders``: :func:`meaning` of ``raw`` and :func:`pool`'s orders, when the caller
    has them."""
    orders = orders or {}
    # column after column (Fortran order): each feature is written, and the trees read
    # it, in one run of memory
    x = np.zeros((chosen.shape[0], len(FEATURES)), order="F")
    col = {name: i for i, name in enumerate(FEATURES)}

    def put(name: str, values: np.ndarray | float) -> None:
        x[:, col[name]] = values

    def part(source: Mapping[str, np.ndarray], name: str) -> np.ndarray:
        values = source.get(name)
        return np.zeros(chosen.shape[0]) if values is None else np.asarray(values)[chosen]

    lex = lexical_evidence(raw.bm25)
    for name in (*FEATURES[:6], "substance"):
        put(name, part(parts, name))
    put("speaker", part(bonus, "speaker"))
    put("asker", part(bonus, "asker"))
    cos = raw.cos[chosen]
    put("cos", cos)
    put("cos_gap", cos - float(raw.cos.max(initial=0.0)))
    if raw.bm25 is not None:
        bm25 = raw.bm25[chosen]
        put("bm25_log", np.log1p(bm25))
        put("bm25_rel", bm25 / max(float(raw.bm25.max(initial=0.0)), 1e-9))
        put("kw_rank", np.where(bm25 > 0, _rank_feature(raw.bm25, chosen), 0.0))
    put("dense_rank", _rank_feature(raw.cos, chosen))
    put("first_rank", _rank_feature(total, chosen, orders.get("total")))
    put("lexical", np.full(chosen.shape[0], lex))
    put("keyword_x_lex", x[:, col["keyword"]] * lex)
    put("late_x_lex", x[:, col["late"]] * lex)
    put("dense_x_lex", x[:, col["dense"]] * lex)
    put("cos_x_nolex", cos * (1.0 - lex))
    hub = raw.hub[chosen] if raw.hub is not None else np.zeros(chosen.shape[0])
    put("hub", hub)
    put("csls", cos - HUB_SHARE * hub)
    if raw.small_talk is not None:
        put("small_talk", raw.small_talk[chosen])
    mean = meaning(raw) if meaning_all is None else meaning_all
    put("meaning", mean[chosen])
    put("meaning_rank", _rank_feature(mean, chosen, orders.get("meaning")))
    put("meaning_x_nolex", mean[chosen] * (1.0 - lex))
    if raw.record is not None:
        put("record", raw.record[chosen])
    return x


@dataclass(frozen=True)
class Reranker:
    """``score = ((x - mean) / scale) @ weights + bias`` over :data:`FEATURES`."""

    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    bias: float = 0.0
    depth: int = POOL_DEPTH
    dense_depth: int = MEANING_DEPTH
    names: tuple[str, ...] = FEATURES

    def score(self, x: np.ndarray) -> np.ndarray:
        # row-major, as ``features`` once made it: the product's sums run in the same order
        x = np.ascontiguousarray(x)
        return np.asarray(((x - self.mean) / self.scale) @ self.weights + self.bias)

    def explain_rows(self, x: np.ndarray) -> list[dict[str, Any]]:
        """:meth:`explain` of each row of ``x``."""
        return [self.explain(row) for row in x]

    def explain(self, x: np.ndarray) -> dict[str, Any]:
        """One item's features, the weights and each feature's contribution."""
        z = (x - self.mean) / self.scale
        contrib = z * self.weights
        return {
            "score": round(float(contrib.sum() + self.bias), 6),
            "features": {n: round(float(v), 6) for n, v in zip(self.names, x, strict=True)},
            "contributions": {
                n: round(float(v), 6) for n, v in zip(self.names, contrib, strict=True)
            },
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.names),
            "weights": [float(v) for v in self.weights],
            "mean": [float(v) for v in self.mean],
            "scale": [float(v) for v in self.scale],
            "bias": self.bias,
            "depth": self.depth,
            "dense_depth": self.dense_depth,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reranker:
        _check_names(data)
        return cls(
            weights=np.asarray(data["weights"], dtype=np.float64),
            mean=np.asarray(data["mean"], dtype=np.float64),
            scale=np.asarray(data["scale"], dtype=np.float64),
            bias=float(data.get("bias", 0.0)),
            depth=int(data.get("depth", POOL_DEPTH)),
            dense_depth=int(data.get("dense_depth", MEANING_DEPTH)),
        )


@dataclass(frozen=True)
class TreeReranker:
    """Gradient-boosted trees over :data:`FEATURES` (complete binary trees of ``levels``
    levels; node ``i``'s children are ``2i+1`` (``x <= threshold``) and ``2i+2``). ``values``
    holds every node's value, so a row's score splits into per-feature contributions (the
    change of value at each split it passes) plus the roots' values."""

    feature: np.ndarray  # (trees, internal nodes) int
    threshold: np.ndarray  # (trees, internal nodes)
    values: np.ndarray  # (trees, all nodes)
    levels: int
    depth: int = POOL_DEPTH
    dense_depth: int = MEANING_DEPTH
    names: tuple[str, ...] = FEATURES

    def _walk(self, x: np.ndarray, contrib: np.ndarray | None) -> np.ndarray:
        n = x.shape[0]
        out = np.zeros(n)
        rows = np.arange(n)
        for t in range(self.feature.shape[0]):
            node = np.zeros(n, dtype=np.int64)
            for _ in range(self.levels):
                f = self.feature[t, node]
                child = 2 * node + 1 + (x[rows, f] > self.threshold[t, node])
                if contrib is not None:
                    np.add.at(contrib, (rows, f), self.values[t, child] - self.values[t, node])
                node = child
            out += self.values[t, node]
        return out

    @cached_property
    def _by_node(self) -> tuple[np.ndarray, ...]:
        """The internal nodes' features and thresholds node after node (node 0 of every tree,
        then node 1 ...), the values flat, and each tree's offset into them (``score``'s)."""
        return (
            np.ascontiguousarray(self.feature.T).ravel(),
            np.ascontiguousarray(self.threshold.T).ravel(),
            self.values.ravel(),
            (np.arange(self.feature.shape[0]) * self.values.shape[1])[:, None],
        )

    def score(self, x: np.ndarray) -> np.ndarray:
        """Every tree at once: each internal node's test for every row in one comparison,
        then each level's branch picked from its level's tests by the branches taken above
        (``where``, no index arithmetic); the leaves summed tree after tree (the same sums, to
        the bit, as :meth:`_walk`)."""
        n, trees = x.shape[0], self.feature.shape[0]
        if not trees or not n:
            return np.zeros(n)
        feature, threshold, values, tree_at = self._by_node
        inner = self.feature.shape[1]
        # (inner node, tree, row): x[row, feature[tree, node]] > threshold[tree, node]
        cols = np.ascontiguousarray(x.T)
        right = (cols.take(feature, axis=0) > threshold[:, None]).reshape(inner, trees, n)
        went: list[np.ndarray] = []  # the branch taken at each level so far
        for level in range(self.levels):
            first = 2**level - 1
            went.append(_pick([right[first + j] for j in range(2**level)], went))
        leaf = np.zeros((trees, n), dtype=np.intp)
        for bit in went:  # the leaf's place among its level's nodes, bit after bit
            leaf *= 2
            leaf += bit
        leaves = values.take(tree_at + (2**self.levels - 1) + leaf)
        if n == 1:  # one column: numpy would sum it pairwise; two keep the running sum
            leaves = np.concatenate([leaves, leaves], axis=1)
        # a (trees, rows) reduction over its first axis adds row after row: a running sum
        # tree after tree, as the walk's, not numpy's pairwise one
        return np.add.reduce(leaves, axis=0)[:n]

    def explain(self, x: np.ndarray) -> dict[str, Any]:
        return self.explain_rows(x[None, :])[0]

    def explain_rows(self, x: np.ndarray) -> list[dict[str, Any]]:
        """:meth:`explain` of each row of ``x``, in one walk of the trees for them all."""
        contrib = np.zeros((x.shape[0], len(self.names)))
        scores = self._walk(x, contrib)
        base = round(float(self.values[:, 0].sum()), 6)
        return [
            {
                "score": round(float(score), 6),
                "base": base,
                "features": {n: round(float(v), 6) for n, v in zip(self.names, row, strict=True)},
                "contributions": {
                    n: round(float(v), 6) for n, v in zip(self.names, c, strict=True) if v
                },
            }
            for score, row, c in zip(scores, x, contrib, strict=True)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": "trees",
            "features": list(self.names),
            "levels": self.levels,
            "feature": self.feature.tolist(),
            "threshold": [[round(float(v), 6) for v in row] for row in self.threshold],
            "values": [[round(float(v), 6) for v in row] for row in self.values],
            "depth": self.depth,
            "dense_depth": self.dense_depth,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TreeReranker:
        _check_names(data)
        return cls(
            feature=np.asarray(data["feature"], dtype=np.int64),
            threshold=np.asarray(data["threshold"], dtype=np.float64),
            values=np.asarray(data["values"], dtype=np.float64),
            levels=int(data["levels"]),
            depth=int(data.get("depth", POOL_DEPTH)),
            dense_depth=int(data.get("dense_depth", MEANING_DEPTH)),
        )


def _pick(options: list[np.ndarray], bits: list[np.ndarray]) -> np.ndarray:
    """``options[i]`` where ``i`` is the number ``bits`` write (most significant first), for
    every element: one level's node tests, chosen by the branches taken above it."""
    for bit in reversed(bits):
        options = [np.where(bit, options[i + 1], options[i]) for i in range(0, len(options), 2)]
    return options[0]


def _check_names(data: Mapping[str, Any]) -> None:
    names = tuple(data["features"])
    if names != FEATURES:
        raise ValueError(f"re-ranker features {names} do not match this version's {FEATURES}")


Model = Reranker | TreeReranker


def model_from_dict(data: Mapping[str, Any]) -> Model:
    """A linear model, or ``"kind": "trees"``."""
    if data.get("kind") == "trees":
        return TreeReranker.from_dict(data)
    return Reranker.from_dict(data)


def load_reranker(path: Path | None = None) -> Model | None:
    """The shipped (or given) weights; None, with a warning, when they cannot be read."""
    target = path or WEIGHTS_FILE
    try:
        return model_from_dict(json.loads(target.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("re-ranker weights %s not usable (%s); recall runs without", target, exc)
        return None


class Scorer:
    """What :func:`rerank` needs of a model (a :class:`Reranker`, or a recorder in training)."""

    depth: int
    dense_depth: int

    def score(self, x: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


def rerank(
    model: Model | Scorer,
    parts: Mapping[str, np.ndarray],
    bonus: Mapping[str, np.ndarray],
    total: np.ndarray,
    raw: RawScores,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """New scores for every candidate (pooled ones by the model, above the rest, which keep
    the first stage's order), the pooled positions and their feature rows."""
    mean = meaning(raw)
    orders = {"total": descending(total), "meaning": descending(mean)}
    chosen = pool(total, mean, model.depth, model.dense_depth, orders)
    x = features(parts, bonus, total, raw, chosen, mean, orders)
    scored = model.score(x)
    out = np.empty_like(total, dtype=np.float64)
    rest = np.ones(total.shape[0], dtype=bool)
    rest[chosen] = False
    floor = float(scored.min(initial=0.0)) - 1.0
    out[rest] = floor - (float(total.max(initial=0.0)) - total[rest])
    out[chosen] = scored
    return out, chosen, x


class ExplainBatch:
    """The re-ranker's explanations of one recall's kept items, worked out together the first
    time any of them is read."""

    def __init__(self, model: Reranker | TreeReranker, x: np.ndarray) -> None:
        self.model = model
        self.x = x
        self._rows: list[dict[str, Any]] | None = None

    def item(
        self, i: int, first_stage: dict[str, Any] | Callable[[], dict[str, Any]]
    ) -> Callable[[], dict[str, Any]]:
        def make() -> dict[str, Any]:
            if self._rows is None:
                self._rows = self.model.explain_rows(self.x)
            rr = self._rows[i]
            first = first_stage() if callable(first_stage) else first_stage
            return {"total": rr["score"], "rerank": rr, "first_stage": first}

        return make
