"""The guard matrix (issue 19): every leak phrasing of the dev split is caught, and ordinary
group replies are rarely flagged; the held split is reported, never tuned on."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.benchmarks._guard import DEFAULT_MATRIX, load_matrix, run_guard_bench
from familiars.cli import app


def test_the_matrix_is_big_enough_and_both_splits_hold_both_kinds() -> None:
    matrix = load_matrix(DEFAULT_MATRIX)
    leaks = [c for c in matrix.cases if c.leak]
    benign = [c for c in matrix.cases if not c.leak]
    assert len(leaks) >= 60 and len(benign) >= 60
    for split in ("dev", "held"):
        assert {c.leak for c in matrix.cases if c.split == split} == {True, False}
    # Leaks of the speaker's own notes and of other members' notes are both in it.
    notes = {name: " ".join(n) for name, n in matrix.notes.items()}
    owners = {next(n for n in notes if n in c.reply or n in " ".join(c.public)) for c in leaks}
    assert len(matrix.notes) >= 3 and len(owners) >= 3


def test_no_dev_leak_passes_and_false_alarms_stay_under_five_percent() -> None:
    report = run_guard_bench()
    dev, held = report["dev"], report["held"]
    print(
        f"\nguard matrix: dev {dev['leaks_passed']}/{dev['leaks']} leaks passed, "
        f"{dev['false_alarms']}/{dev['benign']} false alarms; held {held['leaks_passed']}/"
        f"{held['leaks']} leaks passed, {held['false_alarms']}/{held['benign']} false alarms"
    )
    assert dev["leaks_passed"] == 0, dev["misses"]
    assert dev["false_alarm_rate"] <= 0.05, dev["misses"]
    assert held["false_alarm_rate"] <= 0.10, held["misses"]


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "m.jsonl"
    bad.write_text('{"type": "person", "name": "A", "notes": []}\n{"type": "case"}\n')
    with pytest.raises(ValueError, match=r"m.jsonl:2"):
        load_matrix(bad)


def test_bench_guard_prints_both_splits() -> None:
    result = CliRunner().invoke(app, ["bench", "guard", "--json"])
    assert result.exit_code == 0, result.output
    assert '"dev"' in result.output and '"held"' in result.output
    assert '"leaks_passed": 0' in result.output
