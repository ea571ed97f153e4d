"""``bench turn`` on a tiny workspace: what it reports (no timing is asserted)."""

from __future__ import annotations

from pathlib import Path

from familiars.benchmarks._turn import run_turn_bench
from familiars.config import Settings
from tests.fakes import HashEmbedder


async def test_turn_bench_reports_the_rerank_cost_and_both_ratios(workspace: Path) -> None:
    settings = Settings(workspace=workspace)
    out = await run_turn_bench(settings, 60, 40, 5, embedder=HashEmbedder(dim=384))
    assert out["turns"] == 5
    for key in ("p50_ms", "p95_ms", "ratio_p50", "ratio_p95", "rerank_p50_ms", "rerank_p95_ms"):
        assert out[key] >= 0.0
    assert set(out["rerank_off"]) == {"p50_ms", "p95_ms", "ratio_p50", "ratio_p95"}
    assert "without the re-ranker" in out["before_after"]
    # what memory adds: the turn less its answer, and up to the whole reply, per stage
    assert set(out["stage_ms"]) >= {"record_message", "recall", "compose", "answer", "after"}
    total = sum(out["stage_ms"].values())
    assert out["stage_ms"]["answer"] < total and out["stage_ms"]["after"] < total
    assert out["to_reply"]["p50_ms"] > 0 and out["memory"]["p50_ms"] > 0
