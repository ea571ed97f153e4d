"""The implicit-recall pairs, their stitching into LoCoMo conversations, and the bench report."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter

import pytest

from familiars.benchmarks import _implicit as implicit
from familiars.benchmarks import _locomo as locomo
from familiars.benchmarks._prompt_share import PromptSetup
from tests.fakes import HashEmbedder

PAIRS = implicit.load_pairs(implicit.DEFAULT_PAIRS)


def _sample() -> list[dict]:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit!"},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Congrats! What breed is it?"},
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "I ran a marathon in Oslo."}],
        "session_3_date_time": "9:00 am on 2 August, 2023",
        "session_3": [{"speaker": "Ana", "dia_id": "D3:1", "text": "Biscuit loves the beach."}],
    }
    qa = [{"question": "What is the name of Ana's puppy?", "evidence": ["D1:1"], "category": 4}]
    return [{"sample_id": "conv-x", "conversation": conv, "qa": qa}]


def _convs(tmp_path) -> list[dict]:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    return locomo.load_conversations(path, None)


# ------------------------------------------------------------------ the pairs file


def test_pairs_share_no_content_word() -> None:
    shared = {p.id: implicit.shared_terms(p.cue, p.trigger) for p in PAIRS}
    assert {pid: terms for pid, terms in shared.items() if terms} == {}


def test_pairs_file_shape() -> None:
    assert len(PAIRS) >= 150
    assert all(re.fullmatch(r"imp-\d{3}", p.id) for p in PAIRS)
    assert len({p.cue for p in PAIRS}) == len(PAIRS)
    assert set(Counter(p.kind for p in PAIRS)) == set(implicit.KINDS)
    held = sum(p.split == "held" for p in PAIRS) / len(PAIRS)
    assert 0.25 < held < 0.40
    assert len(implicit.load_pairs(implicit.DEFAULT_PAIRS, "dev")) + len(
        implicit.load_pairs(implicit.DEFAULT_PAIRS, "held")
    ) == len(PAIRS)


def test_shared_terms_are_stemmed_content_words() -> None:
    assert implicit.shared_terms("I'm running late", "She runs the shop") == {"run"}
    assert implicit.shared_terms("I'm tired", "I'm hungry") == set()  # "m" is no word


def test_bad_pairs_file(tmp_path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({"id": "x", "kind": "mood", "cue": "a", "trigger": "b",
                                "split": "dev"}))  # fmt: skip
    with pytest.raises(ValueError, match="kind"):
        implicit.load_pairs(path)


# ------------------------------------------------------------------ stitching


def test_stitch_is_deterministic_and_leaves_inputs(tmp_path) -> None:
    convs = _convs(tmp_path)
    before = copy.deepcopy(convs)
    first = implicit.stitch(convs, PAIRS[:6], seed=3)
    assert implicit.stitch(convs, PAIRS[:6], seed=3) == first
    assert implicit.stitch(convs, PAIRS[:6], seed=4) != first
    assert convs == before


def test_stitch_evidence_is_the_cue_turn(tmp_path) -> None:
    convs = _convs(tmp_path)
    (conv,) = implicit.stitch(convs, PAIRS[:6], seed=1)
    by_id = {t["dia_id"]: t for t in conv["turns"]}
    assert len(conv["turns"]) == 4 + 2 * 6
    assert len(by_id) == len(conv["turns"])
    cues = {p.id: p for p in PAIRS[:6]}
    last_session = convs[0]["turns"][-1]["timestamp"]
    for q in conv["implicit"]:
        pair = cues[q["id"]]
        assert q["question"] == pair.trigger and q["kind"] == pair.kind
        (evidence,) = q["evidence"]
        assert evidence == f"{pair.id}:1"
        turn = by_id[evidence]
        assert turn["content"] == pair.cue and turn["speaker"] == "Ana"
        assert convs[0]["turns"][0]["timestamp"] < turn["timestamp"] < last_session
    stamps = [t["timestamp"] for t in conv["turns"]]
    assert stamps == sorted(stamps)
    assert conv["questions"] == convs[0]["questions"]


def test_stitch_spreads_pairs_over_conversations(tmp_path) -> None:
    one = _convs(tmp_path)[0]
    two = {**one, "id": "conv-y"}
    out = implicit.stitch([one, two], PAIRS[:7], seed=0)
    assert sorted(len(c["implicit"]) for c in out) == [3, 4]


# ------------------------------------------------------------------ the bench


async def test_bench_reports_implicit_and_prompt_share(tmp_path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(json.dumps(p.__dict__) for p in PAIRS[:4]))
    setup = PromptSetup(k=8, budget_tokens=3000, persona="You are kind.", agent_name="F")
    report = await locomo.run_benchmark(
        path, conversations=None, ks=[5, 10], profile="standard",
        embedder=HashEmbedder(dim=64), ablate=False, implicit=pairs, implicit_split=None,
        prompt=setup,
    )  # fmt: skip
    imp = report["implicit"]
    assert imp["questions"] == 4 and imp["split"] == "all"
    assert set(imp["baselines"]) == {"bm25", "dense", "hybrid"}
    assert set(imp["by_category"]) <= set(implicit.KINDS)
    assert report["questions"] == 1
    share = report["evidence_in_prompt"]
    assert share["evidence_turns"] == 1 and share["in_prompt"] == 1.0  # the puppy turn is found
    assert imp["evidence_in_prompt"]["evidence_turns"] == 4


async def test_tiny_budget_cuts_recalled_evidence(tmp_path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    setup = PromptSetup(k=8, budget_tokens=256, persona="x" * 700, agent_name="F")
    report = await locomo.run_benchmark(
        path, conversations=None, ks=[5], profile="standard", embedder=HashEmbedder(dim=64),
        ablate=False, prompt=setup,
    )  # fmt: skip
    share = report["evidence_in_prompt"]
    assert share["recalled_at_k"] == 1.0 and share["in_prompt"] == 0.0
    assert share["cut_after_recall"] == 1


def test_cli_refuses_a_missing_pairs_file(tmp_path) -> None:
    from typer.testing import CliRunner

    from familiars.cli import app

    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    args = ["bench", "locomo", "--data", str(path), "--implicit", str(tmp_path / "nope.jsonl")]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 1 and "no pairs file" in out.output
    out = CliRunner().invoke(app, ["bench", "locomo", "--data", str(path), "--implicit-split", "x"])
    assert out.exit_code == 1


def test_triggers_are_asked_by_the_cue_speaker(tmp_path) -> None:
    (conv,) = implicit.stitch(_convs(tmp_path), PAIRS[:3], seed=0)
    assert {q["asker"] for q in conv["implicit"]} == {"ana"}


def test_writer_records_point_at_their_turn() -> None:
    from familiars.benchmarks._replay_facts import written_records

    turns = [
        {"dia_id": "D1:1", "speaker": "Ana", "content": "Loud neighbors always put me on edge.",
         "timestamp": 1_700_000_000.0},
        {"dia_id": "D1:2", "speaker": "Bo", "content": "Wow, did you tell them?",
         "timestamp": 1_700_000_030.0},
        {"dia_id": "D1:3", "speaker": "Bo", "content": "I want to learn to play the cello.",
         "timestamp": 1_700_000_060.0},
    ]  # fmt: skip
    recs = written_records(turns, [0, 1, 2], agent_id="agent_0", dialogue_id="dialogue_1")
    by_turn = {r.evidence["dia_id"]: r for r in recs}
    assert set(by_turn) == {"D1:1", "D1:3"}
    assert by_turn["D1:1"].user_key == "ana" and by_turn["D1:3"].user_key == "bo"
    assert by_turn["D1:3"].evidence["turn_id"] == 2 and by_turn["D1:3"].scope == "user"


async def test_bench_with_writer_facts_counts_a_record_as_its_turn(tmp_path) -> None:
    path = tmp_path / "locomo.json"
    sample = _sample()
    path.write_text(json.dumps(sample))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(json.dumps(p.__dict__) for p in PAIRS[:4]))
    report = await locomo.run_benchmark(
        path, conversations=None, ks=[5, 10], profile="standard",
        embedder=HashEmbedder(dim=64), ablate=False, implicit=pairs, implicit_split=None,
        facts=True,
    )  # fmt: skip
    assert report["writer_facts"] is True
    assert report["implicit"]["questions"] == 4
    for base in report["implicit"]["baselines"].values():  # baselines rank turns only
        assert 0.0 <= base["overall"]["recall@10"] <= 1.0


def test_evidence_id_of_a_turn_and_of_a_writer_record() -> None:
    from types import SimpleNamespace

    from familiars.benchmarks._prompt_share import evidence_id

    turn = SimpleNamespace(node=SimpleNamespace(metadata={"dia_id": "D2:5"}), record=None)
    rec = SimpleNamespace(node=None, record=SimpleNamespace(evidence={"dia_id": "D1:1"}))
    other = SimpleNamespace(node=None, record=SimpleNamespace(evidence=None))
    assert [evidence_id(i) for i in (turn, rec, other)] == ["D2:5", "D1:1", None]


def test_cli_refuses_an_unknown_knob(tmp_path) -> None:
    from typer.testing import CliRunner

    from familiars.cli import app

    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(_sample()))
    out = CliRunner().invoke(app, ["bench", "locomo", "--data", str(path), "--ablate",
                                   "--knobs", "hubness,nope"])  # fmt: skip
    assert out.exit_code == 1 and "unknown knob 'nope'" in out.output
