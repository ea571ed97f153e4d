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


def test_the_bundled_fallback_is_said_once_per_workspace(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 20: the note printed on every CLI call; now a warning once per workspace and
    model, then an INFO line in the log (status still names the model in use)."""
    import logging

    from familiars.config import Settings
    from familiars.memory import _embedder_loading, embedder_from_settings

    settings = Settings(workspace=tmp_path / "ws", embedding={"model": "no-such/model-xyz"})
    levels = []
    for _ in range(2):
        _embedder_loading._cache.clear()  # a new process each time, as two CLI calls are
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="familiars.memory._embedder_loading"):
            embedder = embedder_from_settings(settings)
        assert embedder.fallback_from == "no-such/model-xyz"  # type: ignore[attr-defined]
        levels.append([r.levelname for r in caplog.records if "bundled" in r.getMessage()])
    assert levels == [["WARNING"], ["INFO"]]
    other = Settings(workspace=tmp_path / "other", embedding={"model": "no-such/model-xyz"})
    _embedder_loading._cache.clear()
    caplog.clear()
    embedder_from_settings(other)
    assert [r.levelname for r in caplog.records if "bundled" in r.getMessage()] == ["WARNING"]
    _embedder_loading._cache.clear()
