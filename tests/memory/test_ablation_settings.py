"""Ablation is typed settings, read once by the loader; every knob name builds both rankers."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from familiars.config import ConfigError, FileKnob, RecallKnob, load_settings
from familiars.memory import FILE_KNOBS, RECALL_KNOBS, DocumentFinder, MemoryReader
from tests.fakes import HashEmbedder


def test_setting_names_mirror_the_rankers_registries() -> None:
    assert set(get_args(RecallKnob)) == set(RECALL_KNOBS)
    assert set(get_args(FileKnob)) == set(FILE_KNOBS)
    assert not set(RECALL_KNOBS) & set(FILE_KNOBS)  # the shorthand can send each to its side


@pytest.mark.parametrize("knob", sorted({*RECALL_KNOBS, *FILE_KNOBS}))
async def test_shorthand_with_any_knob_builds_reader_and_finder(
    knob: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAMILIARS_ABLATE_KNOB", knob)
    settings = load_settings(None, workspace=tmp_path)
    side = settings.recall.ablate if knob in RECALL_KNOBS else settings.files.ablate
    other = settings.files.ablate if knob in RECALL_KNOBS else settings.recall.ablate
    assert list(side) == [knob] and list(other) == []
    emb = HashEmbedder()
    reader = MemoryReader.from_settings(settings, emb)
    finder = DocumentFinder(tmp_path, emb, settings)
    assert reader.ablated | finder.ablate == {knob}


def test_unknown_shorthand_name_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAMILIARS_ABLATE_KNOB", "recency,warp_drive")
    with pytest.raises(ConfigError) as err:
        load_settings(None)
    message = str(err.value)
    assert "\n" not in message
    assert "warp_drive" in message and "FAMILIARS_ABLATE_KNOB" in message


def test_nested_setting_is_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAMILIARS_RECALL__ABLATE", '["recency", "dedupe"]')
    assert load_settings(None).recall.ablate == ["recency", "dedupe"]
    monkeypatch.setenv("FAMILIARS_RECALL__ABLATE", '["synonyms"]')  # a file knob
    with pytest.raises(ConfigError):
        load_settings(None)
