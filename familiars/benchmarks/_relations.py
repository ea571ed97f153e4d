"""``familiars bench relations`` (issue 25): questions about the people in a person's life.

``data/relations_people.jsonl``: ten people, each telling the familiar about their sister,
her husband, a boss who changes, a friend and his girlfriend, a dog, a brother and his wife,
their mum (and a few unrelated facts), in their own words; 110 questions, 30 of them two-hop
("what is my sister's husband called?"). Each person's messages go through the offline
writer into their own records, next to ~190 other records of theirs that state no relation
(the consolidation set's texts); each question is recalled for its asker only. Reported: R@5
(a top-5 record states the answer's relation) with and without the people graph, and the
offline answer's first line naming the answer, with and without the graph.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.benchmarks._locomo import AGENT, DIALOGUE, CachingEmbedder
from familiars.bot import ReaderRecaller, answer_lines
from familiars.memory import (
    DialogTrees,
    Embedder,
    MemoryReader,
    MemoryRecord,
    MemoryStore,
    PeopleIndex,
    edges_in,
    make_record,
    offline_writes,
)
from familiars.terminal import get_ctx, print_json, print_table, want_json

DEFAULT_PEOPLE = Path(__file__).resolve().parent / "data" / "relations_people.jsonl"
FILLER = Path(__file__).resolve().parent / "data" / "consolidation_facts.jsonl"
START = datetime(2026, 10, 1, 9, tzinfo=UTC)


def filler_texts() -> list[str]:
    """What else a person has said: the consolidation bench's labelled texts that state no
    relation between people (about 190), so a question competes with a realistic memory."""
    out = []
    for line in FILLER.read_text(encoding="utf-8").splitlines():
        for fact in json.loads(line)["facts"]:
            out += [t for t in fact["texts"] if not edges_in(t)]
    return list(dict.fromkeys(out))


async def _write(
    store: MemoryStore, person: dict[str, Any], filler: list[str]
) -> list[MemoryRecord]:
    """The person's filler records, then their messages through the offline writer, a day
    apart, into their records."""
    for text in filler:
        rec = make_record(
            text, scope="user", category="preference", user_key=person["user_key"],
            ts=(START - timedelta(days=30)).isoformat(),
        )  # fmt: skip
        await store.append(rec, dedupe=False)
    mine: list[MemoryRecord] = []
    for n, text in enumerate(person["messages"]):
        now = START + timedelta(days=n)
        for op in offline_writes(text, existing=mine, now=now).writes:
            if op.op == "skip" or op.scope != "user":
                continue
            rec = make_record(
                op.entry.content, scope="user", category=op.category,
                user_key=person["user_key"], tags=list(op.entry.tags), ts=now.isoformat(),
                supersedes=op.entry.supersedes_id,
            )  # fmt: skip
            if op.entry.supersedes_id:
                await store.deprecate(op.entry.supersedes_id)
            mine = [r for r in mine if r.id != op.entry.supersedes_id]
            mine.append(await store.append(rec, dedupe=False))
    return mine


def _states(text: str, answer: str) -> bool:
    """The record states a relation of the answer (not merely names them)."""
    return any(answer in (s.dst, s.src) for s in edges_in(text))


class _Tally:
    def __init__(self) -> None:
        self.rows: dict[str, list[float]] = defaultdict(list)

    def add(self, name: str, hops: int, value: bool) -> None:
        self.rows[name].append(float(value))
        self.rows[f"{name} ({hops}-hop)"].append(float(value))

    def report(self) -> dict[str, float]:
        return {k: round(sum(v) / len(v), 4) for k, v in sorted(self.rows.items())}


async def _ask(
    recaller: ReaderRecaller, people: PeopleIndex, person: dict[str, Any], tally: _Tally
) -> None:
    now = START + timedelta(days=len(person["messages"]) + 1)
    for qa in person["questions"]:
        for graph in (False, True):
            recaller.people = people if graph else None
            items = await recaller.recall(
                qa["question"], agent_id=AGENT, dialogue_id=DIALOGUE,
                user_key=person["user_key"], is_group=False, now=now, k=5,
            )  # fmt: skip
            label = "with graph" if graph else "without graph"
            hit = any(_states(it.text, qa["answer"]) for it in items if it.kind == "record")
            tally.add(f"R@5 {label}", qa["hops"], hit)
            first = answer_lines(qa["question"], items)[0]
            tally.add(f"offline answer right {label}", qa["hops"], qa["answer"] in first)


async def run(embedder: Embedder, path: Path) -> dict[str, Any]:
    people_data = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    tally = _Tally()
    with tempfile.TemporaryDirectory(prefix="familiars-relations-") as tmp:
        store = MemoryStore(Path(tmp))
        await store.start()
        try:
            filler = filler_texts()
            records = [r for p in people_data for r in await _write(store, p, filler)]
            trees = DialogTrees(Path(tmp))
            trees.get(AGENT, DIALOGUE, create=True)  # an empty dialogue: records only
            reader = MemoryReader(embedder, trees=trees)
            await reader.add_records([r for r in await store.list()])
            recaller = ReaderRecaller(reader)
            people = PeopleIndex(store)
            for person in people_data:
                await _ask(recaller, people, person, tally)
        finally:
            await store.close()
    return {
        "people": len(people_data),
        "questions": sum(len(p["questions"]) for p in people_data),
        "two_hop": sum(1 for p in people_data for q in p["questions"] if q["hops"] == 2),
        "records_written": len(records),
        "filler_records_per_person": len(filler),
        **tally.report(),
    }


def command(
    ctx: typer.Context,
    data: Annotated[
        Path, typer.Option("--data", help="People and their questions (JSONL).")
    ] = DEFAULT_PEOPLE,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """R@5 and offline answers for one- and two-hop questions, with and without the graph."""
    from familiars.memory import embedder_from_settings

    embedder = CachingEmbedder(embedder_from_settings(get_ctx(ctx).settings))
    report = asyncio.run(run(embedder, data))
    report["model"] = embedder.model_name
    if want_json(ctx, json_out):
        print_json(report)
        return
    rows = []
    for scope in ("", " (1-hop)", " (2-hop)"):
        rows.append(
            [
                scope.strip(" ()") or "all",
                *(
                    report.get(f"{m} {g}{scope}")
                    for m in ("R@5", "offline answer right")
                    for g in ("without graph", "with graph")
                ),
            ]
        )
    print_table(
        f"{report['questions']} questions ({report['two_hop']} two-hop), {report['people']} people",
        ["questions", "R@5 no graph", "R@5 graph", "answer no graph", "answer graph"],
        rows,
    )
