"""Hybrid fusion as pure functions: normalise, fuse 0.7 / 0.3, one row per file.

Both scores are brought to 0-1 over the candidate set before mixing: raw cosines of small
sentence models sit in a narrow band, so their relative order is the signal, not their level.
The two parts are :data:`FUSION_SIGNALS`, fused by the shared ``_scoring.fuse``; a hit's
``explain`` (:func:`file_explain`) is the shared ``Explain`` with the knobs as bonus/factors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from familiars.memory._documents.knobs import FILE_SIGNALS
from familiars.memory._scoring import Signal, default_weights, explain
from familiars.memory._scoring import fuse as fuse_parts

VECTOR_WEIGHT = 0.7
KEYWORD_WEIGHT = 0.3
CANDIDATES = 200
PASSAGE_CHARS = 320


def minmax(scores: np.ndarray) -> np.ndarray:
    """Scale to 0-1; a flat set scores 1 everywhere (nothing to tell apart)."""
    if scores.size == 0:
        return scores.astype(np.float32)
    low, high = float(scores.min()), float(scores.max())
    if high - low < 1e-9:
        return np.ones_like(scores, dtype=np.float32)
    return ((scores - low) / (high - low)).astype(np.float32)


def normalise_bm25(bm25: np.ndarray) -> np.ndarray:
    """FTS5 bm25 is negative, lower is better: the best match becomes 1, no match 0."""
    if bm25.size == 0:
        return bm25.astype(np.float32)
    goodness = np.maximum(-bm25, 0.0)
    top = float(goodness.max())
    if top <= 0:
        return np.zeros_like(goodness, dtype=np.float32)
    return (goodness / top).astype(np.float32)


@dataclass(frozen=True)
class FusionInputs:
    """The candidates' raw scores: cosine, and FTS5 bm25 (0 where no keyword hit)."""

    cosines: np.ndarray
    bm25: np.ndarray


FUSION_SIGNALS: tuple[Signal[FusionInputs], ...] = (
    Signal("dense", VECTOR_WEIGHT, lambda c: minmax(c.cosines)),
    Signal("keyword", KEYWORD_WEIGHT, lambda c: normalise_bm25(c.bm25)),
)
FUSION_WEIGHTS = default_weights(FUSION_SIGNALS)


def fuse(dense_norm: np.ndarray, keyword_norm: np.ndarray) -> np.ndarray:
    result: np.ndarray = fuse_parts({"dense": dense_norm, "keyword": keyword_norm}, FUSION_WEIGHTS)
    return result


def top_indices(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` highest scores, best first."""
    if scores.size == 0 or n <= 0:
        return np.zeros(0, dtype=np.int64)
    n = min(n, scores.size)
    part = np.argpartition(-scores, n - 1)[:n]
    return part[np.argsort(-scores[part], kind="stable")]


@dataclass(frozen=True)
class Candidate:
    row: int
    seq: int  # 0 is the file's summary chunk
    group: tuple[str, str]  # (file_id, version): history versions rank on their own
    cosine: float
    dense: float
    keyword: float
    fused: float


def best_per_file(candidates: list[Candidate]) -> list[Candidate]:
    """Collapse to one row per file version, the best chunk winning, best first."""
    best: dict[tuple[str, str], Candidate] = {}
    for cand in candidates:
        held = best.get(cand.group)
        if held is None or cand.fused > held.fused:
            best[cand.group] = cand
    return sorted(best.values(), key=lambda c: -c.fused)


def best_content_per_file(candidates: list[Candidate]) -> dict[tuple[str, str], Candidate]:
    """The best page or window of each file version: when a file wins on its summary chunk
    (its name), the passage and page shown still come from what the file says."""
    best: dict[tuple[str, str], Candidate] = {}
    for cand in candidates:
        if cand.seq == 0:
            continue
        held = best.get(cand.group)
        if held is None or cand.fused > held.fused:
            best[cand.group] = cand
    return best


def passage_of(text: str, words: Sequence[str], limit: int = PASSAGE_CHARS) -> str:
    """A readable stretch of ``text`` around the first query word it contains."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    lower = flat.lower()
    hits = [lower.find(w.lower()[: max(4, len(w) - 2)]) for w in words if w]
    hits = [h for h in hits if h >= 0]
    start = max(0, min(hits) - limit // 3) if hits else 0
    piece = flat[start : start + limit]
    return ("…" if start else "") + piece + ("…" if start + limit < len(flat) else "")


def file_explain(cand: Candidate, knobs: Mapping[str, float]) -> dict[str, Any]:
    """How a hit's score was made: the fused parts of its best chunk, each knob bonus as
    added, each factor as multiplied (``total`` is the score)."""
    factors = {k: v for k, v in knobs.items() if k in _FACTOR_NAMES}
    bonus = {k: v for k, v in knobs.items() if k not in _FACTOR_NAMES}
    parts = {"dense": cand.dense, "keyword": cand.keyword}
    return explain(parts, FUSION_WEIGHTS, bonus, factors).as_dict()


_FACTOR_NAMES = frozenset(s.name for s in FILE_SIGNALS if s.factor)
