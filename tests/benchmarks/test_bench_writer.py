"""The writer benchmark on a handful of labelled lines: scoring rules and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.benchmarks._writer_bench import DEFAULT_DATA, load_messages, run_writer_bench
from familiars.cli import app

COFFEE = {
    "content": "The user likes coffee.",
    "category": "preference",
    "tags": ["likes", "topic:coffee"],
}
LINES = [
    {"text": "My name is Priya", "kinds": ["name"], "expect": ["Priya"], "split": "dev"},
    {"text": "I live in Porto", "kinds": ["place"], "expect": ["Lisbon"], "split": "dev"},
    {"text": "Do you like coffee?", "kinds": ["none"], "split": "dev"},
    {"text": "I love jazz", "kinds": ["none"], "split": "held"},
    {"text": "I don't like coffee anymore", "kinds": ["change"], "expect": ["coffee"],
     "split": "dev", "prior": [COFFEE]},
    {"text": "I hate tea", "kinds": ["dislike"], "expect": ["tea"], "split": "dev",
     "prior": [{**COFFEE, "keep": True}]},
]  # fmt: skip


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "messages.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    return path


def test_scores_hits_misses_and_false_positives(data: Path) -> None:
    report = run_writer_bench(data, "dev", details=True)
    kinds = report["kinds"]
    assert report["messages"] == 5
    assert kinds["name"] == {
        "n": 1,
        "hits": 1,
        "false_positives": 0,
        "precision": 1.0,
        "recall": 1.0,
    }
    # Porto was written but Lisbon was expected: a miss and a wrong write.
    assert (kinds["place"]["hits"], kinds["place"]["false_positives"]) == (0, 1)
    assert kinds["change"]["hits"] == 1
    assert kinds["dislike"]["hits"] == 1
    assert "change" not in report["wrong"]
    assert kinds["none"]["hits"] == 1


def test_a_none_message_that_writes_is_a_false_positive(data: Path) -> None:
    report = run_writer_bench(data, "held")
    assert report["kinds"]["none"]["recall"] == 0.0
    assert report["kinds"]["like"]["false_positives"] == 1


def test_unknown_split_is_refused(data: Path) -> None:
    with pytest.raises(ValueError):
        run_writer_bench(data, "train")


def test_shipped_set_is_large_and_mostly_dev() -> None:
    messages = load_messages(DEFAULT_DATA)
    assert len(messages) >= 400
    assert sum(m.kinds == ("none",) for m in messages) >= 100
    held = sum(m.split == "held" for m in messages)
    assert 0.25 < held / len(messages) < 0.4


def test_cli_prints_json(data: Path) -> None:
    result = CliRunner().invoke(
        app, ["bench", "writer", "--json", "--split", "all", "--data", str(data)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["messages"] == len(LINES)
    assert "all_facts" in report
