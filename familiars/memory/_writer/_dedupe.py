"""Is a write a copy of a live record? The word rules and the vectors the writer uses.

:func:`says_nothing_new` (same text, or only some of the old words again),
:func:`contradicts` (negations differ), :class:`Vectors` / :class:`EmbedderVectors`
(texts to unit vectors) and :func:`most_similar` (the closest live record by cosine).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from familiars.memory._embeddings import Embedder, content_hash
from familiars.memory._fact_identity import fact_terms, same_fact, slot_of
from familiars.memory._records import MemoryRecord
from familiars.memory._store import normalise_content

logger = logging.getLogger(__name__)


NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "don't",
        "doesn't",
        "dont",
        "doesnt",
        "isn't",
        "wasn't",
        "won't",
        "can't",
        "cannot",
        "anymore",
        "longer",
        "hate",
        "hates",
        "dislike",
        "dislikes",
    ]
)
_WORD = re.compile(r"[\w']+", re.UNICODE)


def content_tokens(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


#: Where a text lists several things ("likes coffee, tea and jazz").
_LIST_SEPARATOR = re.compile(r"\s*(?:[,;&]|\band\b|\bor\b|\bas well as\b)\s*", re.IGNORECASE)


def _readings(old: str) -> list[str]:
    """``old``, and when it lists things one reading per item, each with the first item's
    frame ("The user likes coffee, tea and jazz" -> "The user likes coffee", "The user likes
    tea", "The user likes jazz")."""
    items = [c for c in _LIST_SEPARATOR.split(old) if c.strip()]
    if len(items) < 2:
        return [old]
    frame = " ".join(items[0].split()[:-1])
    return [old, items[0], *(f"{frame} {item}" for item in items[1:])]


def says_nothing_new(new: str, old: str) -> bool:
    """True when ``new`` is the same text as ``old``, or only repeats some of its words (and
    flips no negation) and is, by :func:`same_fact`'s word rules, the same fact as ``old`` or
    as one item of a list ``old`` gives: writing it would add a copy, not a fact. "I play
    tennis" after "I play table tennis" is new ("table" tells them apart); "likes coffee"
    after "likes coffee and tea" is not."""
    if normalise_content(new) == normalise_content(old):
        return True
    a, b = content_tokens(new), content_tokens(old)
    if len(a) < 3 or (a & NEGATIONS) != (b & NEGATIONS) or not a <= b:
        return False
    return any(same_fact(reading, new, 1.0).same for reading in _readings(old))


#: Slots one holds one value of at a time: where one lives, one's age.
SINGLE_VALUED_SLOTS = frozenset({"residence", "age"})


def refines(new: str, old: str) -> bool:
    """``new`` and ``old`` fill the same single-valued slot and one says all the other says
    ("lives in Berlin, Germany" / "resides in Berlin"): the same fact told in more or less
    detail, not a second one."""
    slot = slot_of(old)
    if slot not in SINGLE_VALUED_SLOTS or slot_of(new) != slot:
        return False
    a, b = fact_terms(new), fact_terms(old)
    return a <= b or b <= a


def one_fact(old: str, new: str, cosine: float, *, threshold: float = 0.85) -> bool:
    """The writer's "same fact" for two texts already written (the consolidator's merge
    rule): :func:`same_fact` in other words, or the same single-valued slot told in more or
    less detail (:func:`refines`), and never across a negation."""
    if cosine < threshold or (content_tokens(old) & NEGATIONS) != (content_tokens(new) & NEGATIONS):
        return False
    return same_fact(old, new, cosine, threshold=threshold).same or refines(new, old)


def contradicts(new: str, old: MemoryRecord) -> bool:
    """Two texts close in meaning whose negations differ ("likes" / "doesn't like")."""
    return (content_tokens(new) & NEGATIONS) != (content_tokens(old.content) & NEGATIONS)


class Vectors(Protocol):
    """Anything that turns texts into unit vectors; :class:`MemoryIndex` is one (it caches by
    content hash), :class:`EmbedderVectors` wraps a bare embedder."""

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbedderVectors:
    """Vectors from an :class:`Embedder` with a bounded in-memory cache by content hash."""

    def __init__(self, embedder: Embedder, *, max_cached: int = 20_000) -> None:
        self.embedder = embedder
        self.max_cached = max_cached
        self._cache: dict[str, np.ndarray] = {}

    async def vectors_for(self, texts: Sequence[str]) -> np.ndarray:
        hashes = [content_hash(t) for t in texts]
        missing = list(dict.fromkeys(h for h in hashes if h not in self._cache))
        if missing:
            by_hash = dict(zip(hashes, texts, strict=True))
            fresh = await self.embedder.aembed_batch([by_hash[h] for h in missing])
            if len(self._cache) + len(missing) > self.max_cached:
                self._cache.clear()
            self._cache.update(zip(missing, fresh, strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._cache[h] for h in hashes]).astype(np.float32)


async def most_similar(
    text: str, candidates: Sequence[MemoryRecord], vectors: Vectors | None
) -> tuple[MemoryRecord | None, float]:
    """The candidate closest to ``text`` by cosine, and that cosine (None, 0 without vectors)."""
    if vectors is None or not candidates:
        return None, 0.0
    matrix = await vectors.vectors_for([text, *(c.content for c in candidates)])
    sims = matrix[1:] @ matrix[0]
    best = int(np.argmax(sims))
    return candidates[best], float(sims[best])
