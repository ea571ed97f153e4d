"""How ``bench turn`` fills its workspace: the seeded records' and nodes' vectors.

``real`` embeds every seeded text with the configured model, as a bot that met those texts
would: at 10,000 records and 5,000 nodes that is some 25,000 model calls (records, nodes,
their sentences and the index's words), which a two-core machine under load may not finish.

``surrogate`` gives each seeded text a cheap vector in the model's own space: the mean of the
real vectors of its words (each distinct word embedded once, in one batch, by the real model;
the synthetic facts have fewer than a hundred) plus a small deterministic perturbation from a
hash of the text, so no two texts share a vector; a text with no letters (a number) gets the
hash direction alone. The index, hub values and candidate pools then have the size and the
shape they would have; only which records a query finds may differ. Once seeding ends
(:meth:`SetupVectors.done`) every text goes to the real model, so the turn embeds its query
(and its writes) exactly as a bot does, and the baseline is the same real query embedding.
"""

from __future__ import annotations

import hashlib
import re
import threading
from typing import Any, Literal

import numpy as np

from familiars.memory import Embedder

SetupKind = Literal["real", "surrogate"]
SETUP_KINDS: tuple[SetupKind, ...] = ("real", "surrogate")

_LETTERS = re.compile(r"[^\W\d_]{2,}")
_NOISE = 0.15  # length of the hash perturbation against a unit mean of word vectors


class SetupVectors(Embedder):
    """The bench's embedder: ``inner`` for everything, except that while seeding with
    ``kind="surrogate"`` texts get the surrogate vectors of the module docstring."""

    def __init__(self, inner: Embedder, kind: SetupKind = "real") -> None:
        if kind not in SETUP_KINDS:
            raise ValueError(f"setup vectors must be one of {SETUP_KINDS}, not {kind!r}")
        self.inner = inner
        self.kind: SetupKind = kind
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.seeding = kind == "surrogate"
        self.surrogate_texts = 0  # texts given a surrogate vector
        self.real_words = 0  # words the real model embedded for them
        self._words: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def open(self) -> None:
        self.inner.open()
        self.dim = self.inner.dim

    def done(self) -> None:
        """Seeding is over: from now on every text is embedded by the real model."""
        self.seeding = False

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not self.seeding:
            return self.inner.embed_batch(texts)
        return self._surrogate(texts)

    def _surrogate(self, texts: list[str]) -> np.ndarray:
        split = [[w.lower() for w in _LETTERS.findall(t)] for t in texts]
        with self._lock:
            missing = sorted({w for ws in split for w in ws} - self._words.keys())
            if missing:
                self._words.update(zip(missing, self.inner.embed_batch(missing), strict=True))
                self.real_words += len(missing)
            self.surrogate_texts += len(texts)
            words = self._words
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            for i, (text, ws) in enumerate(zip(texts, split, strict=True)):
                out[i] = _one(text, [words[w] for w in ws], self.dim)
        return out

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def report(self) -> str:
        """The setup used, in words, for the bench's output."""
        if self.kind == "real":
            return "real: every seeded record and node embedded by the model"
        return (
            f"surrogate: {self.surrogate_texts} seeded texts got the mean of their words' real"
            f" vectors ({self.real_words} words embedded) plus a hashed perturbation; the"
            " turns' queries, writes and the baseline use the real model"
        )


def _one(text: str, word_vectors: list[np.ndarray], dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")
    noise = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    noise /= max(float(np.linalg.norm(noise)), 1e-12)
    if word_vectors:
        mean = np.mean(word_vectors, axis=0)
        mean /= max(float(np.linalg.norm(mean)), 1e-12)
        noise = mean + _NOISE * noise
    return noise / max(float(np.linalg.norm(noise)), 1e-12)
