"""``familiars bench consolidation`` (issue 25): what a consolidation pass costs and keeps.

- **Labelled set** (``data/consolidation_facts.jsonl``, 150 facts in 200 texts: rewordings of
  one fact, near-miss look-alikes, updates, singles), all one person's records in one cell:
  facts lost by a pass (goal 0: a fact is lost when no live record says any of its texts)
  and rewording groups merged into one record. Against the baseline of the same run, the
  old rule (cosine alone at 0.9, planned, not written).
- **LoCoMo dev** with the offline writer's facts indexed next to the turns (as ``bench
  locomo --facts``): evidence recall@10 before and after a full pass (the scheduler's work:
  TTL sweep, episodes, merges under the share rail, core profiles), and the records count.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from familiars.benchmarks._locomo import (
    AGENT,
    DEFAULT_DATA,
    DIALOGUE,
    CachingEmbedder,
    Tally,
    load_conversations,
    replay,
)
from familiars.benchmarks._prompt_share import evidence_id
from familiars.benchmarks._replay_facts import written_records
from familiars.memory import (
    Consolidator,
    DialogTrees,
    Embedder,
    EmbedderVectors,
    MemoryStore,
    consolidation_work,
    last_pass,
    make_record,
)
from familiars.terminal import get_ctx, print_json, print_table, want_json

DEFAULT_FACTS = Path(__file__).resolve().parent / "data" / "consolidation_facts.jsonl"
USER = "bench"


@dataclass(frozen=True)
class Group:
    group: str
    kind: str
    facts: list[dict[str, Any]]


def load_groups(path: Path) -> list[Group]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Group(**json.loads(line)) for line in lines if line.strip()]


# --------------------------------------------------------------------------- labelled set


async def _labelled_store(folder: Path, groups: Sequence[Group]) -> MemoryStore:
    store = MemoryStore(folder)
    await store.start()
    for n, group in enumerate(groups):
        for fact in group.facts:
            for text in fact["texts"]:
                ts = f"2026-11-{1 + n % 28:02d}T12:00:00+00:00"
                rec = make_record(text, scope="user", category="preference", user_key=USER, ts=ts)
                await store.append(rec, dedupe=False)
    return store


def _score_labelled(groups: Sequence[Group], live_texts: Sequence[str]) -> dict[str, Any]:
    live = list(live_texts)
    lost = [f["id"] for g in groups for f in g.facts if not any(t in live for t in f["texts"])]
    rewords = [g for g in groups if g.kind == "reword"]
    merged = [g for g in rewords if sum(live.count(t) for t in g.facts[0]["texts"]) == 1]
    return {
        "facts": sum(len(g.facts) for g in groups),
        "records_after": len(live),
        "facts_lost": len(lost),
        "lost": lost,
        "rewordings_merged": len(merged),
        "reword_groups": len(rewords),
    }


def _cosine_only(texts: Sequence[str], matrix: np.ndarray, threshold: float) -> list[str]:
    """The old rule's survivors: greedy clusters by cosine alone, the first text kept."""
    sims = matrix @ matrix.T
    taken: set[int] = set()
    kept: list[str] = []
    for seed in range(len(texts)):
        if seed in taken:
            continue
        members = [j for j in range(len(texts)) if j not in taken and sims[seed, j] >= threshold]
        taken.update(members)
        kept.append(texts[seed])
    return kept


async def labelled(embedder: Embedder, path: Path) -> dict[str, Any]:
    groups = load_groups(path)
    vectors = EmbedderVectors(embedder)
    out: dict[str, Any] = {"file": path.name}
    with tempfile.TemporaryDirectory(prefix="familiars-cons-") as tmp:
        runs = (("1 pass, max share 25%", 0.25, 1), ("3 passes, max share 25%", 0.25, 3),
                ("1 pass, max share 100%", 1.0, 1))  # fmt: skip
        for n, (name, share, passes) in enumerate(runs):
            store = await _labelled_store(Path(tmp) / str(n), groups)
            try:
                texts = [r.content for r in await store.list()]
                out["records_before"] = len(texts)
                for _ in range(passes):
                    report = await Consolidator(store, vectors, max_share=share).run()
                out[name] = _score_labelled(groups, [r.content for r in await store.list()])
                out[name]["stopped"] = len(report.stopped)
            finally:
                await store.close()
        matrix = await vectors.vectors_for(texts)
        out["baseline: cosine alone 0.9"] = _score_labelled(
            groups, _cosine_only(texts, matrix, 0.9)
        )
    return out


# --------------------------------------------------------------------------- LoCoMo


async def _recall_at(reader: Any, conv: dict[str, Any], records: list[Any], tally: Tally) -> None:
    await reader.add_records(records)
    now = conv["turns"][-1]["timestamp"] + 86400.0
    for qa in conv["questions"]:
        result = await reader.build_rag_context(
            qa["question"], agent_id=AGENT, dialogue_id=DIALOGUE, now=now, k=10,
            user_key=qa.get("asker"),
        )  # fmt: skip
        ranked = [d for d in (evidence_id(i) for i in result.items) if d is not None]
        tally.add(qa["category"], qa["evidence"], ranked)


async def _one_conversation(
    conv: dict[str, Any], embedder: Embedder, folder: Path, tallies: dict[str, Tally]
) -> tuple[int, int, dict[str, Any]]:
    reader, _ = await replay(conv, embedder, folder, [])
    node_ids = list(range(len(conv["turns"])))
    facts = written_records(conv["turns"], node_ids, agent_id=AGENT, dialogue_id=DIALOGUE)
    store = MemoryStore(folder)
    await store.start()
    try:
        for rec in facts:
            await store.append(rec, dedupe=False)
        before = await store.list()
        await _recall_at(reader, conv, before, tallies["before"])
        when = datetime.fromtimestamp(conv["turns"][-1]["timestamp"] + 86400.0, UTC)
        work = consolidation_work(
            store, EmbedderVectors(embedder), clock=lambda: when, trees=DialogTrees(folder)
        )
        await work({}, _NeverPreempted())
        after = await store.list(now=when)
        fresh, _ = await replay(conv, embedder, folder / "after", [])
        await _recall_at(fresh, conv, after, tallies["after"])
        log = last_pass(folder)
        return len(before), len(after), log.summary() if log is not None else {}
    finally:
        await store.close()


class _NeverPreempted:
    def raise_if_preempted(self) -> None:
        return None


async def locomo(embedder: Embedder, data: Path, selection: list[int] | None) -> dict[str, Any]:
    convs = load_conversations(data, selection)
    tallies = {"before": Tally([10]), "after": Tally([10])}
    counts = []
    with tempfile.TemporaryDirectory(prefix="familiars-cons-locomo-") as tmp:
        for conv in convs:
            counts.append(await _one_conversation(conv, embedder, Path(tmp) / conv["id"], tallies))
    before, after = tallies["before"].overall(), tallies["after"].overall()
    passes = [c[2] for c in counts]
    return {
        "conversations": [c["id"] for c in convs],
        "questions": before.get("questions", 0),
        "recall@10 before": before.get("recall@10"),
        "recall@10 after": after.get("recall@10"),
        "drop": round(before.get("recall@10", 0) - after.get("recall@10", 0), 4),
        "records before": sum(c[0] for c in counts),
        "records after": sum(c[1] for c in counts),
        **{k: sum(int(p.get(k) or 0) for p in passes) for k in _PASS_COUNTS},
    }


_PASS_COUNTS = ("merged", "deprecated", "expired", "episodes", "core_profiles", "stopped")


# --------------------------------------------------------------------------- CLI


def command(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option("--data", help="LoCoMo JSON (dev split).")] = DEFAULT_DATA,
    facts: Annotated[
        Path, typer.Option("--facts", help="The labelled facts (JSONL).")
    ] = DEFAULT_FACTS,
    conversations: Annotated[
        str, typer.Option("--conversations", help="e.g. 0,2 (default: all); none: skip LoCoMo.")
    ] = "",
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Facts lost and rewordings merged on a labelled set; LoCoMo R@10 before/after a pass."""
    from familiars.memory import embedder_from_settings

    embedder = CachingEmbedder(embedder_from_settings(get_ctx(ctx).settings))
    report: dict[str, Any] = {"model": embedder.model_name}
    report["labelled"] = asyncio.run(labelled(embedder, facts))
    if conversations != "none":
        chosen = [int(c) for c in conversations.split(",")] if conversations else None
        report["locomo"] = asyncio.run(locomo(embedder, data, chosen))
    if want_json(ctx, json_out):
        print_json(report)
        return
    _print(report)


def _print(report: dict[str, Any]) -> None:
    lab = report["labelled"]
    rows = [
        [name, lab["records_before"], r["records_after"], r["facts_lost"],
         f"{r['rewordings_merged']}/{r['reword_groups']}", r.get("stopped", "-")]
        for name, r in lab.items()
        if isinstance(r, dict)
    ]  # fmt: skip
    print_table(
        f"labelled set ({lab['1 pass, max share 25%']['facts']} facts)",
        ["rule", "records before", "after", "facts lost", "rewordings merged", "stopped"],
        rows,
    )
    if "locomo" in report:
        lo = report["locomo"]
        print_table(
            f"LoCoMo dev ({lo['questions']} questions, writer facts indexed)",
            ["R@10 before", "R@10 after", "drop", "records before", "records after",
             "merged (from)", "episodes", "core profiles"],
            [[lo["recall@10 before"], lo["recall@10 after"], lo["drop"],
              lo["records before"], lo["records after"], f"{lo['merged']} ({lo['deprecated']})",
              lo["episodes"], lo["core_profiles"]]],
        )  # fmt: skip
