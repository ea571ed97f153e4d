"""The embedder's constructor does no I/O: the model loads in ``open`` (or on first use)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.memory import Embedder, SentenceTransformerEmbedder
from tests.fakes import HashEmbedder


def test_constructing_a_sentence_transformer_embedder_loads_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    embedder = SentenceTransformerEmbedder("some/model", str(missing))
    assert not embedder.loaded
    assert embedder.dim == 0
    with pytest.raises((OSError, ValueError)):
        embedder.open()  # the load, and its failure, happen here
    assert not embedder.loaded


def test_open_on_an_embedder_without_a_model_is_a_no_op() -> None:
    embedder: Embedder = HashEmbedder(dim=8)
    embedder.open()
    assert embedder.embed("hello").shape == (8,)


def test_the_bundled_model_learns_its_dimension_on_open(real_embedder: object) -> None:
    assert isinstance(real_embedder, SentenceTransformerEmbedder)
    assert real_embedder.loaded and real_embedder.dim == 384
