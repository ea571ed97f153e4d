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


def says_nothing_new(new: str, old: str) -> bool:
    """True when ``new`` is the same text as ``old`` or only repeats some of its words (and
    flips no negation): writing it would add a copy, not a fact."""
    if normalise_content(new) == normalise_content(old):
        return True
    a, b = content_tokens(new), content_tokens(old)
    if len(a) < 3 or (a & NEGATIONS) != (b & NEGATIONS):
        return False
    return a <= b


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
