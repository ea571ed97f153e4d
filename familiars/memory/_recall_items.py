"""What recall hands back, and the keys it files dialogue nodes under.

``RecallItem`` (one recalled record or dialogue node, with its score parts and ``explain``),
``RecallResult`` (the items, the stages dropped for time, timings), ``Ranked`` (the arrays a
ranking pass produces), and the node helpers: ``node_key`` / ``node_group`` (index keys),
``node_speaker`` and ``node_embedding_text`` (what a node is embedded as).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from familiars.memory._dialog_tree import Node
from familiars.memory._embeddings import BUNDLED_MODEL_NAME
from familiars.memory._records import MemoryRecord

#: The raw cosine (the bundled all-MiniLM-L6-v2) at or above which a memory is related to a
#: search at all. Measured on 14 facts and 15 searches: the right memory for a one-word
#: search scored 0.28-0.75 ("job" -> nurse 0.28, "pet" -> dog 0.45, "allergy" -> peanuts
#: 0.55); the best of the unrelated ones 0.13-0.24 ("quantum chromodynamics" 0.13, "banana
#: bread recipe" 0.19, "weather" 0.24); "xylophone" finds the two music facts (0.29, 0.27).
RELEVANCE_FLOOR = 0.25

#: The floor of each model it was measured on. Cosines are not comparable across models
#: (bge-style models score unrelated text above 0.3), so any other model, the default
#: BAAI/bge-m3 and the multilingual fallback included, has no floor until measured.
_FLOORS = {BUNDLED_MODEL_NAME: RELEVANCE_FLOOR}


def relevance_floor(model: str) -> float | None:
    """The raw cosine floor measured for ``model``; None for a model not measured."""
    return _FLOORS.get(model)


def relevant(raw: Mapping[str, float], model: str) -> bool:
    """A search's hit is related to its query at all: a keyword of it matched, or its raw
    cosine reached the floor of ``model``, the embedder that scored it (the scores are
    relative: the best of ten unrelated memories still scored about 1.0). Unknown evidence,
    or a model with no measured floor, counts as related."""
    if raw.get("bm25", 0.0) > 0.0:
        return True
    cosine = raw.get("cosine")
    floor = relevance_floor(model)
    return cosine is None or floor is None or cosine >= floor


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
    #: The raw evidence (``Ranked.raw``) for this item: ``cosine``, ``bm25`` when known.
    raw: dict[str, float] = field(default_factory=dict)
    #: The score's explanation, or the function that makes it: a turn never reads it, so it
    #: is worked out only when asked (``/memory why``, ``memory search --json``, the API).
    _explain: dict[str, Any] | Callable[[], dict[str, Any]] = field(
        default_factory=dict, repr=False
    )

    @property
    def explain(self) -> dict[str, Any]:
        if callable(self._explain):
            self._explain = self._explain()
        return self._explain

    @explain.setter
    def explain(self, value: dict[str, Any] | Callable[[], dict[str, Any]]) -> None:
        self._explain = value

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "key": self.key,
            "text": self.text,
            "score": round(self.score, 6),
            "parts": {k: round(v, 6) for k, v in self.parts.items()},
            "explain": self.explain,
            "merged": list(self.merged),
            "raw": {k: round(v, 6) for k, v in self.raw.items()},
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
    #: The ``full`` profile's fan-out: each sub-query's kind, text and source (query /
    #: offline / model); empty for the other profiles.
    subqueries: list[dict[str, str]] = field(default_factory=list)
    #: The conversation the query was read in (``_recall_context.Reading``; falsy: none).
    context: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "profile": self.profile,
            "items": [item.as_dict() for item in self.items],
            "dropped": self.dropped,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "ablated": self.ablated,
            "candidates": self.candidates,
            "subqueries": self.subqueries,
            "context": self.context.shown(self.items) if self.context else {},
        }


@dataclass
class Ranked:
    """Candidates best first (index rows), their scores, each part and bonus by name, and
    the re-ranker's feature rows (NaN for candidates it did not pool; None when it did not
    run)."""

    rows: np.ndarray
    scores: np.ndarray
    parts: dict[str, np.ndarray]
    bonus: dict[str, np.ndarray]
    features: np.ndarray | None = None
    #: Raw evidence before any scaling, by name (``cosine``: the query's cosine with the
    #: row, its best sentence's when higher; ``bm25``); NaN where unknown.
    raw: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def empty(cls) -> Ranked:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), {}, {})


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
