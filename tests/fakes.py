"""Small deterministic stand-ins shared by fast unit tests."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Iterator

import numpy as np

from familiars.memory import Embedder, MemoryStore

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder(Embedder):
    """Bag of hashed words (and their 4-character prefixes, a crude stemmer): texts that
    share words get a high cosine, unrelated texts a low one. Deterministic across runs."""

    def __init__(self, dim: int = 64, model_name: str = "test-hash") -> None:
        self.dim = dim
        self.model_name = model_name
        self.calls = 0
        self.texts_embedded = 0

    def _bucket(self, token: str) -> int:
        return int.from_bytes(hashlib.blake2b(token.encode(), digest_size=4).digest(), "big")

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                for token in (word, word[:4]):
                    h = self._bucket(token)
                    out[row, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
            if not out[row].any():
                out[row, 0] = 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / norms


@contextlib.contextmanager
def hand_edit(store: MemoryStore) -> Iterator[MemoryStore]:
    """``store`` taking texts of any length meanwhile, as a person editing the markdown by
    hand does (files are never refused; every write path of the program is)."""
    limit = store.max_record_chars
    store.max_record_chars = 10**9
    try:
        yield store
    finally:
        store.max_record_chars = limit
