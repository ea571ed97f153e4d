"""The dedupe benchmark on a few pairs with the hash embedder; the bundled data's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.benchmarks import _dedupe as dedupe
from tests.fakes import HashEmbedder

_PAIRS = [
    {"old": "Likes red wine.", "new": "Likes red wine!", "label": "reword", "split": "dev"},
    {"old": "Lives in Portland.", "new": "I live in Portland.", "label": "reword", "split": "dev"},
    {"old": "I love red wine", "new": "I love white wine", "label": "distinct", "split": "dev"},
    {"old": "Plays tennis.", "new": "Plays table tennis.", "label": "distinct", "split": "dev"},
    {"old": "Has 2 kids.", "new": "Has 3 kids.", "label": "update", "split": "dev"},
    {"old": "Has a dog.", "new": "Has a cat.", "label": "distinct", "split": "held"},
]


def _write(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rules_keep_near_misses_apart_where_cosine_alone_merges(tmp_path: Path) -> None:
    path = _write(tmp_path, _PAIRS)
    # threshold 0: cosine alone merges everything, so the rules alone decide
    report = dedupe.run_dedupe_bench(HashEmbedder(dim=64), path, "dev", threshold=0.0)
    assert report["pairs"] == 5 and report["model"] == "test-hash"
    assert report["cosine_alone"]["distinct"] == {"pairs": 2, "merged": 2, "share": 1.0}
    assert report["rules"]["distinct"] == {"pairs": 2, "merged": 0, "share": 0.0}
    assert report["rules"]["update"]["merged"] == 0
    assert report["rules"]["reword"] == {"pairs": 2, "merged": 2, "share": 1.0}
    assert report["wrong_merges"] == []


def test_split_selects_pairs(tmp_path: Path) -> None:
    path = _write(tmp_path, _PAIRS)
    report = dedupe.run_dedupe_bench(HashEmbedder(dim=64), path, "held", threshold=0.0)
    assert report["pairs"] == 1 and report["rules"]["reword"]["pairs"] == 0


def test_bad_lines_are_named(tmp_path: Path) -> None:
    path = _write(tmp_path, [{**_PAIRS[0], "label": "same"}])
    with pytest.raises(ValueError, match=":1:"):
        dedupe.load_pairs(path)
    from familiars.cli import app

    out = CliRunner().invoke(app, ["bench", "dedupe", "--data", str(path)])
    assert out.exit_code == 1
    out = CliRunner().invoke(app, ["bench", "dedupe", "--data", str(tmp_path / "nope.jsonl")])
    assert out.exit_code == 1 and "no data file" in out.output


def test_bundled_pairs_have_the_asked_mix() -> None:
    pairs = dedupe.load_pairs(dedupe.DEFAULT_PAIRS)
    by_label = {label: sum(p.label == label for p in pairs) for label in dedupe.LABELS}
    assert len(pairs) >= 300
    assert by_label["reword"] >= 120 and by_label["update"] >= 45 and by_label["distinct"] >= 130
    held = sum(p.split == "held" for p in pairs)
    assert 0.25 < held / len(pairs) < 0.4
    assert len({(p.old, p.new) for p in pairs}) == len(pairs)
