"""The recall benchmarks on small inputs: shapes, data handling, bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from familiars.benchmarks import _locomo as locomo
from familiars.benchmarks import _recall as recall
from familiars.benchmarks import _tree as tree
from tests.fakes import HashEmbedder


def _sample() -> list[dict]:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit!"},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Congrats! What breed is it?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "A beagle. He loves the beach."},
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            {
                "speaker": "Bo",
                "dia_id": "D2:1",
                "text": "I ran my first marathon in Oslo.",
                "blip_caption": "a photo of a runner",
            },
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Amazing, how long did it take?"},
        ],  # fmt: skip
    }
    qa = [
        {"question": "What is the name of Ana's puppy?", "answer": "Biscuit",
         "evidence": ["D1:1"], "category": 4},
        {"question": "Where did Bo run a marathon?", "answer": "Oslo",
         "evidence": ["D:2:1; D1:3"], "category": 1},
        {"question": "When did Bo run?", "answer": "June", "evidence": ["D9:9"], "category": 2},
        {"question": "Adversarial", "answer": "-", "evidence": ["D1:1"], "category": 5},
    ]  # fmt: skip
    return [{"sample_id": "conv-x", "conversation": conv, "qa": qa}]


def test_normalise_evidence() -> None:
    assert locomo.normalise_evidence(["D:11:26", "D8:6; D9:17", "D", "D1:3"]) == [
        "D11:26", "D8:6", "D9:17", "D1:3",
    ]  # fmt: skip


async def test_locomo_replay_and_report_shape(tmp_path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    report = await locomo.run_benchmark(
        path, conversations=None, ks=[1, 5], profile="standard",
        embedder=HashEmbedder(dim=64), ablate=True,
    )  # fmt: skip
    assert report["questions"] == 2  # category 5 left out, one without valid evidence
    assert report["questions_without_evidence"] == 1
    assert report["overall"]["recall@5"] == 1.0  # 5 turns, k=5: everything is found
    assert set(report["by_category"]) == {"1", "4"}
    assert set(report["baselines"]) == {"bm25", "dense", "hybrid"}
    assert {"p50", "p95"} <= set(report["latency_ms"])
    assert set(report["ablation"]) == set(locomo.RECALL_KNOBS)
    assert report["by_category"]["4"]["hit@1"] == 1.0


def test_locomo_bad_input(tmp_path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    with pytest.raises(ValueError):
        locomo.load_conversations(path, [3])
    from familiars.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["bench", "locomo", "--data", str(tmp_path / "nope.json")])
    assert out.exit_code == 1 and "no data file" in out.output
    out = runner.invoke(app, ["bench", "locomo", "--data", str(path), "--k", "0"])
    assert out.exit_code == 1


def test_tree_bench_identical_and_faster() -> None:
    report = tree.run_benchmark(400, dim=32, ops=3, k=5)
    assert report["identical"] is True and report["nodes"] == 400
    assert report["ratio"] > 1.0


async def test_recall_bench_shape() -> None:
    report = await recall.run_benchmark([300], HashEmbedder(dim=32), queries=5, k=5)
    size = report["sizes"][0]
    assert size["records"] == 300 and size["ratio"] > 0 and size["ratio_p50"] > 0
    assert size["floor_p95_ms"] > 0 and size["with_query_embedding_p95_ms"] > 0
