"""Ranking as side-effect-free functions, each with a name, and an ``explain`` breakdown.

Every ranking knob the reader uses is listed in :data:`KNOBS`; ``FAMILIARS_ABLATE_KNOB=a,b``
switches the named ones off so a benchmark can show what each one earns.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ABLATE_ENV = "FAMILIARS_ABLATE_KNOB"

#: Every ranking knob of the reader, with why it makes sense for a real chat.
KNOBS: dict[str, str] = {
    "keyword": "BM25 over stemmed words joins dense recall (names, rare words, numbers)",
    "keyword_date": "a message's date words are searchable ('in May', 'last year's trip')",
    "keyword_speaker": "a message's author name is searchable ('what did Ana say about ...')",
    "context_words": "a message's keyword document and word list also carry the words of the "
    "messages around it (two on each side, the farther at half weight): replies like 'yes, it "
    "was amazing!' get the topic of what they answer",
    "context_dense": "a message's dense score also counts its best neighbour's similarity",
    "sentences": "long messages are matched sentence by sentence (best sentence counts)",
    "late_interaction": "idf-weighted word-level matching over word vectors (synonyms and "
    "word forms that exact keywords miss)",
    "speaker_prior": "when the query names one participant, their own messages get a lift",
    "recency": "newer memories win ties (time decay)",
    "tree_distance": "dialogue nodes near the current topic branch win ties (§5.4.2)",
    "salience": "a record's salience lifts it a little",
    "dedupe": "a record and the dialogue node it came from collapse to one item",
}


class UnknownKnobError(ValueError):
    """A knob name that :data:`KNOBS` does not list."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        super().__init__(
            f"unknown ranking knob(s) {', '.join(sorted(self.names))}; "
            f"known: {', '.join(sorted(KNOBS))}"
        )


def parse_knobs(value: str | Sequence[str] | None) -> frozenset[str]:
    """Knob names from ``"a,b"`` or a list; unknown names raise :class:`UnknownKnobError`."""
    if value is None:
        return frozenset()
    items = value.split(",") if isinstance(value, str) else list(value)
    names = {item.strip() for item in items if item and item.strip()}
    unknown = sorted(names - set(KNOBS))
    if unknown:
        raise UnknownKnobError(unknown)
    return frozenset(names)


def ablated_from_env(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    env = os.environ if environ is None else environ
    return parse_knobs(env.get(ABLATE_ENV))


# --------------------------------------------------------------------------- similarity


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    na = float(np.linalg.norm(va))
    nb = float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(va @ vb) / (na * nb)


def cosine_all(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Cosine of ``vector`` to every row of ``matrix`` (rows assumed unit length)."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    return matrix @ np.asarray(vector, dtype=matrix.dtype)


# --------------------------------------------------------------------------- decays


def recency_decay(dt_seconds: float | np.ndarray, tau: float) -> float | np.ndarray:
    """``exp(-max(0, dt) / tau)``: 1 for now, falling with age."""
    if isinstance(dt_seconds, np.ndarray):
        return np.exp(-np.maximum(dt_seconds, 0.0) / tau)
    return math.exp(-max(0.0, float(dt_seconds)) / tau)


def tree_decay(hops: float | np.ndarray, tau: float) -> float | np.ndarray:
    """``exp(-hops / tau)``; unreachable (``inf``) gives 0."""
    if isinstance(hops, np.ndarray):
        return np.exp(-hops / tau)
    return math.exp(-float(hops) / tau)


# --------------------------------------------------------------------------- fusion


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to 0-1; all-equal input gives zeros (no signal, not full marks)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    lo = float(values.min())
    hi = float(values.max())
    if hi <= lo:
        return np.zeros_like(values)
    return (values - lo) / (hi - lo)


def weighted_fusion(parts: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """``sum(weights[name] * parts[name])`` over the parts that have a weight."""
    total: np.ndarray | None = None
    for name, values in parts.items():
        w = weights.get(name, 0.0)
        if w == 0.0:
            continue
        term = w * np.asarray(values, dtype=np.float64)
        total = term if total is None else total + term
    if total is None:
        size = len(next(iter(parts.values()))) if parts else 0
        return np.zeros(size, dtype=np.float64)
    return total


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = 60) -> dict[str, float]:
    """RRF: each list adds ``1 / (k + rank)`` (rank from 1) to the ids it holds."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused


@dataclass(frozen=True)
class Explain:
    """How one item's score was made: each part's value, weight and contribution."""

    parts: dict[str, float]
    weights: dict[str, float]
    bonus: dict[str, float]

    @property
    def total(self) -> float:
        return sum(self.contributions().values())

    def contributions(self) -> dict[str, float]:
        out = {name: self.weights.get(name, 0.0) * v for name, v in self.parts.items()}
        out.update(self.bonus)
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "total": round(self.total, 6),
            "parts": {k: round(v, 6) for k, v in self.parts.items()},
            "weights": dict(self.weights),
            "contributions": {k: round(v, 6) for k, v in self.contributions().items()},
        }


def explain(
    parts: Mapping[str, float],
    weights: Mapping[str, float],
    bonus: Mapping[str, float] | None = None,
) -> Explain:
    return Explain(
        parts={k: float(v) for k, v in parts.items()},
        weights={k: float(weights.get(k, 0.0)) for k in parts},
        bonus={k: float(v) for k, v in (bonus or {}).items()},
    )
