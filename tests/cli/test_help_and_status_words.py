"""T32: ``--help`` shows flags as flags (not ``--json <bool>``, which read as taking a value),
and ``familiars status`` says what its recall counts cover (one run, as last saved)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from familiars.cli import app

runner = CliRunner()


def test_help_shows_flags_without_a_value() -> None:
    for args in (["--help"], ["status", "--help"], ["memory", "search", "--help"]):
        out = runner.invoke(app, args).output
        assert "--json" in out and "<bool>" not in out, (args, out)
    search = runner.invoke(app, ["memory", "search", "--help"]).output
    assert "<int>" in search  # an option that takes a value still says what


def test_status_says_the_recall_counts_are_one_runs(tmp_path: Path) -> None:
    state = tmp_path / "ws" / "state"
    state.mkdir(parents=True)
    (state / "recall_stats.json").write_text(
        json.dumps(
            {
                "since": "2026-12-07T05:00:00+00:00",
                "saved_at": "2026-12-07T05:10:30+00:00",
                "recalls": 3,
                "items_per_recall": 2.0,
                "hit_rate": 0.5,
                "latency_ms": {"p50": 4.0, "p95": 9.0},
            }
        )
    )
    result = runner.invoke(app, ["-w", str(tmp_path / "ws"), "status"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())  # the terminal's width may wrap the line
    line = said[said.index("recall (") :]
    assert line.startswith("recall (this run since 2026-12-07T05:00:00+00:00, "), line
    assert "as saved 2026-12-07T05:10:30+00:00): 3 recalls" in line, line
