"""``familiars bench locomo``: evidence recall on the LoCoMo benchmark through the bot's own
recall path.

Each conversation is replayed into a fresh temporary workspace as one dialogue of the real
:class:`DialogTree` (each session's date as the turns' time, ``dia_id`` kept in every node's
metadata), indexed by the real :class:`MemoryReader`, and every question of categories 1-4 is
recalled and mapped back to ``dia_id``s. Plain BM25, plain dense cosine and the plain 0.7/0.3
hybrid over whole turns are computed in the same run on the same turns, and the latency of one
query embedding is measured next to the recall latency. ``--ablate`` reruns the replay with each
ranking knob switched off (embeddings cached in memory) to show what each one earns.

``--implicit FILE`` stitches cue -> trigger pairs into the conversations (``_implicit.py``) and
scores the triggers beside LoCoMo with the same baselines; every run also reports the share of
evidence turns that reach the prompt the bot would build (``_prompt_share.py``).
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from familiars.benchmarks._implicit import DEFAULT_PAIRS, by_kind, load_pairs, stitch
from familiars.benchmarks._locomo_home import RecordHome
from familiars.benchmarks._prompt_share import PromptSetup, PromptShare, evidence_id
from familiars.benchmarks._replay_facts import written_records
from familiars.benchmarks._util import BUDGET_MS
from familiars.bot import ReaderRecaller
from familiars.memory import (
    DEFAULT_BUDGETS_MS,
    RECALL_KNOBS,
    DialogTrees,
    Embedder,
    MemoryReader,
    keyword_terms,
    minmax,
    node_embedding_text,
)
from familiars.terminal import fail, get_ctx, print_json, print_table, want_json

AGENT = "agent_0"
DIALOGUE = "dialogue_1"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
TURN_GAP_S = 30.0
_EVIDENCE = re.compile(r"^D:?(\d+):(\d+)$")


class CachingEmbedder(Embedder):
    """Remembers vectors by text for the whole benchmark run (never on disk), so ablation
    reruns cost no embedding; counts what it really embedded."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.embedded = 0

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            fresh = self.inner.embed_batch(missing)
            with self._lock:
                self._cache.update(zip(missing, fresh, strict=True))
                self.embedded += len(missing)
        with self._lock:
            return np.stack([self._cache[t] for t in texts]).astype(np.float32)


# --------------------------------------------------------------------------- data


def normalise_evidence(items: Sequence[Any]) -> list[str]:
    """'D:11:26' -> 'D11:26'; 'D8:6; D9:17' -> both; anything else is dropped."""
    out: list[str] = []
    for item in items:
        for part in re.split(r"[;,\s]+", str(item)):
            m = _EVIDENCE.match(part.strip())
            if m:
                out.append(f"D{m.group(1)}:{m.group(2)}")
    return out


def parse_session_date(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC)."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_content(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", ""))
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text


def load_conversations(path: Path, selection: list[int] | None) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError("expected a JSON list of LoCoMo samples")
    chosen = range(len(data)) if selection is None else selection
    out = []
    for i in chosen:
        if not 0 <= i < len(data):
            raise ValueError(f"conversation {i} does not exist (0-{len(data) - 1})")
        out.append(_conversation(data[i], i))
    return out


def _conversation(sample: dict[str, Any], index: int) -> dict[str, Any]:
    conv = sample["conversation"]
    turns = []
    n = 1
    while f"session_{n}" in conv:
        start = parse_session_date(conv[f"session_{n}_date_time"]).timestamp()
        for j, turn in enumerate(conv[f"session_{n}"]):
            turns.append(
                {
                    "dia_id": turn["dia_id"],
                    "speaker": turn["speaker"],
                    "content": turn_content(turn),
                    "timestamp": start + TURN_GAP_S * j,
                }
            )
        n += 1
    known = {t["dia_id"] for t in turns}
    questions, dropped_ids, unanswerable = [], 0, 0
    for qa in sample.get("qa", []):
        category = int(qa.get("category", 0))
        if category not in CATEGORIES:
            continue
        evidence = normalise_evidence(qa.get("evidence", []))
        kept = [e for e in dict.fromkeys(evidence) if e in known]
        dropped_ids += len(qa.get("evidence", [])) - len(kept)
        if not kept:
            unanswerable += 1
            continue
        questions.append({"question": qa["question"], "evidence": kept, "category": category})
    return {
        "index": index,
        "id": sample.get("sample_id", f"conv-{index}"),
        "turns": turns,
        "questions": questions,
        "evidence_dropped": dropped_ids,
        "questions_without_evidence": unanswerable,
    }


# --------------------------------------------------------------------------- replay


async def replay(
    conv: dict[str, Any],
    embedder: Embedder,
    workspace: Path,
    ablated: Sequence[str],
    *,
    facts: bool = False,
    home: tuple[RecordHome, AsyncExitStack] | None = None,
) -> tuple[MemoryReader, float]:
    """The conversation as one dialogue through DialogTree + MemoryReader, with ``facts``
    also what the offline writer keeps of each turn (``_replay_facts``): given to the reader
    directly, or with ``home`` written through that home and loaded from it (kept open on
    the stack while the questions are asked); ingest seconds."""
    start = time.perf_counter()
    trees = DialogTrees(workspace)
    reader = MemoryReader(embedder, trees=trees, ablated=list(ablated))
    # Quality is measured without the latency cap (a busy machine would otherwise drop
    # stages at random); latency is reported beside it, and the stages a cap would drop.
    reader.budgets_ms = {name: BUDGET_MS for name in reader.budgets_ms}
    tree = trees.get(AGENT, DIALOGUE, create=True)
    turns = conv["turns"]
    texts = [node_embedding_text(t["content"], t["speaker"]) for t in turns]
    vectors = await embedder.aembed_batch(texts)
    node_ids = []
    for turn, vec in zip(turns, vectors, strict=True):
        node = tree.add_node(
            turn["content"],
            vec,
            node_type="Q",
            timestamp=turn["timestamp"],
            origin="user",
            metadata={
                "dia_id": turn["dia_id"],
                "speaker": turn["speaker"],
                "user_key": turn["speaker"].lower(),
            },
        )
        node_ids.append(node.id)
    await reader.sync()
    if facts:
        records = written_records(turns, node_ids, agent_id=AGENT, dialogue_id=DIALOGUE)
        if home is None:
            await reader.add_records(records)
        else:
            where, stack = home
            await stack.enter_async_context(where.holding(workspace, embedder, records, reader))
            await reader.sync()
    trees.compact_all()
    return reader, time.perf_counter() - start


def _dia_ids(reader: MemoryReader, rows: Iterable[int]) -> list[str]:
    out = []
    for row in rows:
        doc = reader.index.doc(int(row))
        if doc is not None and doc.kind == "node":
            out.append(str(doc.ref[2].metadata.get("dia_id")))
    return out


def _baselines(reader: MemoryReader, question: str, k: int) -> dict[str, list[str]]:
    """Whole-turn baselines on the same index: plain BM25, plain dense, 0.7/0.3 hybrid."""
    idx = reader.index
    n = len(idx)
    turn = np.array([d is not None and d.kind == "node" for d in idx.docs], dtype=bool)
    qvec = reader.embedder.embed(question)
    dense = np.where(turn, idx.dense_all(qvec).astype(np.float64), -np.inf)
    bm25 = np.where(turn, idx.keywords_plain.scores(keyword_terms(question), n), -np.inf)
    hybrid = 0.7 * minmax(dense[turn]) + 0.3 * minmax(bm25[turn])
    hybrid = _spread(hybrid, turn)
    return {
        "bm25": _dia_ids(reader, np.argsort(-bm25, kind="stable")[:k]),
        "dense": _dia_ids(reader, np.argsort(-dense, kind="stable")[:k]),
        "hybrid": _dia_ids(reader, np.argsort(-hybrid, kind="stable")[:k]),
    }


def _spread(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``values`` (one per True of ``where``) at their rows, -inf elsewhere."""
    out = np.full(where.shape[0], -np.inf)
    out[where] = values
    return out


class Tally:
    """Evidence recall@k and hit@k, overall and per category."""

    def __init__(self, ks: Sequence[int]) -> None:
        self.ks = list(ks)
        self.rows: list[tuple[int, dict[int, float], dict[int, float]]] = []

    def add(self, category: int, evidence: Sequence[str], ranked: Sequence[str]) -> None:
        ev = set(evidence)
        rec, hit = {}, {}
        for k in self.ks:
            found = len(ev & set(ranked[:k]))
            rec[k] = found / len(ev)
            hit[k] = 1.0 if found else 0.0
        self.rows.append((category, rec, hit))

    def _summary(
        self, rows: list[tuple[int, dict[int, float], dict[int, float]]]
    ) -> dict[str, Any]:
        if not rows:
            return {"questions": 0}
        out: dict[str, Any] = {"questions": len(rows)}
        for k in self.ks:
            out[f"recall@{k}"] = round(statistics.fmean(r[1][k] for r in rows), 4)
        for k in self.ks:
            out[f"hit@{k}"] = round(statistics.fmean(r[2][k] for r in rows), 4)
        return out

    def overall(self) -> dict[str, Any]:
        return self._summary(self.rows)

    def by_category(self) -> dict[str, Any]:
        groups: dict[int, list[Any]] = defaultdict(list)
        for row in self.rows:
            groups[row[0]].append(row)
        return {str(c): self._summary(groups[c]) for c in sorted(groups)}


class _Scores:
    """One question set's tallies: the bot's recall, the baselines, what reaches the prompt."""

    def __init__(self, ks: Sequence[int], baselines: bool, prompt: PromptSetup | None) -> None:
        self.tally = Tally(ks)
        self.base = {name: Tally(ks) for name in ("bm25", "dense", "hybrid")} if baselines else {}
        self.prompt = PromptShare(prompt) if prompt is not None else None

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "overall": self.tally.overall(),
            "by_category": self.tally.by_category(),
            "questions": len(self.tally.rows),
        }
        if self.base:
            out["baselines"] = {
                name: {"overall": t.overall(), "by_category": t.by_category()}
                for name, t in self.base.items()
            }
        if self.prompt is not None:
            out["evidence_in_prompt"] = self.prompt.summary()
        return out


async def evaluate(
    convs: list[dict[str, Any]],
    embedder: Embedder,
    ks: Sequence[int],
    *,
    profile: str,
    ablated: Sequence[str] = (),
    baselines: bool = False,
    timing: bool = False,
    prompt: PromptSetup | None = None,
    facts: bool = False,
    home: RecordHome | None = None,
) -> dict[str, Any]:
    """LoCoMo questions (and stitched ``implicit`` ones, reported apart) over each replay
    (its written records in ``home`` when given)."""
    scores = _Scores(ks, baselines, prompt)
    implicit = _Scores(ks, baselines, prompt)
    latencies: list[float] = []
    over_budget = 0
    ingest = 0.0
    with tempfile.TemporaryDirectory(prefix="familiars-locomo-") as tmp:
        for conv in convs:
            async with AsyncExitStack() as stack:
                reader, seconds = await replay(
                    conv, embedder, Path(tmp) / conv["id"], ablated, facts=facts,
                    home=None if home is None else (home, stack),
                )  # fmt: skip
                ingest += seconds
                now = conv["turns"][-1]["timestamp"] + 86400.0
                for qa in conv["questions"]:
                    ms, over = await _score(reader, qa, scores, now, ks, profile)
                    latencies.append(ms)
                    over_budget += over
                for qa in conv.get("implicit", []):
                    await _score(reader, qa, implicit, now, ks, profile)
    out: dict[str, Any] = scores.report()
    out["ingest_s"] = round(ingest, 3)
    if timing:
        out["latency_ms"] = _percentiles(latencies)
        out["over_profile_budget"] = over_budget
    if any("implicit" in conv for conv in convs):
        out["implicit"] = implicit.report()
    return out


async def _score(
    reader: MemoryReader,
    qa: dict[str, Any],
    scores: _Scores,
    now: float,
    ks: Sequence[int],
    profile: str,
) -> tuple[float, bool]:
    """One question into ``scores``; its recall milliseconds and whether it was over budget."""
    t0 = time.perf_counter()
    result = await reader.build_rag_context(
        qa["question"], agent_id=AGENT, dialogue_id=DIALOGUE, now=now, k=max(ks),
        profile=profile, user_key=qa.get("asker"), context=(),
    )  # fmt: skip
    ms = (time.perf_counter() - t0) * 1000
    ranked = [d for d in (evidence_id(i) for i in result.items) if d is not None]
    scores.tally.add(qa["category"], qa["evidence"], ranked)
    if scores.base:
        for name, ids in _baselines(reader, qa["question"], max(ks)).items():
            scores.base[name].add(qa["category"], qa["evidence"], ids)
    if scores.prompt is not None:
        recaller = ReaderRecaller(reader, profile=profile)
        await scores.prompt.add(
            recaller, qa["question"], qa["evidence"], agent_id=AGENT, dialogue_id=DIALOGUE,
            now=now, user_key=qa.get("asker"),
        )  # fmt: skip
    return ms, result.timings_ms["total"] > DEFAULT_BUDGETS_MS[profile]


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0}
    arr = np.asarray(values)
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
    }


def query_embedding_latency(embedder: Embedder, questions: Sequence[str]) -> dict[str, float]:
    """One query embedding, uncached, on the same questions (the floor recall sits on)."""
    inner = embedder.inner if isinstance(embedder, CachingEmbedder) else embedder
    times = []
    for q in questions:
        t0 = time.perf_counter()
        inner.embed_batch([q])
        times.append((time.perf_counter() - t0) * 1000)
    return _percentiles(times)


async def run_benchmark(
    data: Path,
    *,
    conversations: list[int] | None,
    ks: Sequence[int],
    profile: str,
    embedder: Embedder,
    ablate: bool,
    implicit: Path | None = None,
    implicit_split: str | None = "dev",
    seed: int = 0,
    prompt: PromptSetup | None = None,
    facts: bool = False,
    knobs: Sequence[str] | None = None,
    homes: Sequence[RecordHome] = (),
) -> dict[str, Any]:
    """The report; ``implicit`` stitches that pairs file (one split, or all for None) into
    the conversations first, ``prompt`` also measures what reaches the prompt, ``knobs``
    are the ones ``ablate`` switches off (default all), ``homes`` are measured beside (the
    written records through each home)."""
    convs = load_conversations(data, conversations)
    if implicit is not None:
        convs = stitch(convs, load_pairs(implicit, implicit_split), seed=seed)
    cached = CachingEmbedder(embedder)
    report = await evaluate(
        convs, cached, ks, profile=profile, baselines=True, timing=True, prompt=prompt,
        facts=facts,
    )  # fmt: skip
    if implicit is not None:
        report["implicit"] = by_kind(report["implicit"])
        report["implicit"].update(file=str(implicit), split=implicit_split or "all", seed=seed)
    questions = [qa["question"] for c in convs for qa in c["questions"]]
    report["query_embedding_ms"] = query_embedding_latency(cached, questions[:200])
    report["profile"] = profile
    report["writer_facts"] = facts
    report["model"] = embedder.model_name
    report["conversations"] = [c["id"] for c in convs]
    report["turns"] = sum(len(c["turns"]) for c in convs)
    report["evidence_ids_dropped"] = sum(c["evidence_dropped"] for c in convs)
    report["questions_without_evidence"] = sum(c["questions_without_evidence"] for c in convs)
    report["homes"] = await _homes(convs, cached, ks, profile=profile, facts=facts, homes=homes)
    if ablate:
        report["ablation"] = {}
        for knob in knobs or RECALL_KNOBS:
            res = await evaluate(convs, cached, ks, profile=profile, ablated=[knob], facts=facts)
            report["ablation"][knob] = {
                "overall": res["overall"],
                "earns": {
                    f"recall@{k}": round(
                        report["overall"][f"recall@{k}"] - res["overall"].get(f"recall@{k}", 0.0),
                        4,
                    )
                    for k in ks
                },
            }
            if "implicit" in res:
                report["ablation"][knob]["implicit"] = res["implicit"]["overall"]
    return report


async def _homes(
    convs: list[dict[str, Any]],
    embedder: Embedder,
    ks: Sequence[int],
    *,
    profile: str,
    facts: bool,
    homes: Sequence[RecordHome],
) -> dict[str, Any]:
    """The same questions with the written records in each home."""
    out = {}
    for home in homes:
        res = await evaluate(
            convs, embedder, ks, profile=profile, timing=True, facts=facts, home=home
        )
        out[home.name] = {
            "overall": res["overall"],
            "latency_ms": res["latency_ms"],
            "records_loaded": home.loaded,
        }
    return out


# --------------------------------------------------------------------------- CLI


def _parse_range(value: str | None) -> list[int] | None:
    if not value:
        return None
    out: list[int] = []
    for part in value.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-", 1)
            out += list(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def command(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option("--data", help="LoCoMo JSON (locomo10.json format).")] = (
        DEFAULT_DATA
    ),
    conversations: Annotated[
        str, typer.Option("--conversations", help="e.g. 0-4 or 0,2 (default: all).")
    ] = "",
    k: Annotated[str, typer.Option("--k", help="Cut-offs for recall@k and hit@k.")] = "1,3,5,10,20",
    profile: Annotated[str, typer.Option("--profile", help="lite | standard | full.")] = "standard",
    ablate: Annotated[
        bool, typer.Option("--ablate", help="Also rerun with each knob off.")
    ] = False,
    knobs: Annotated[
        str, typer.Option("--knobs", help="With --ablate: only these knobs (e.g. hubness,rerank).")
    ] = "",
    implicit: Annotated[
        Path | None,
        typer.Option(
            "--implicit", help=f"Stitch cue -> trigger pairs in (e.g. {DEFAULT_PAIRS.name})."
        ),
    ] = None,
    implicit_split: Annotated[
        str, typer.Option("--implicit-split", help="dev | held | all.")
    ] = "dev",
    seed: Annotated[int, typer.Option("--seed", help="Where the pairs are stitched.")] = 0,
    facts: Annotated[
        bool, typer.Option("--facts/--no-facts", help="Also index what the writer keeps of a turn.")
    ] = False,
    companion: Annotated[
        Path | None,
        typer.Option("--companion", help="Also the companion set (and the multilingual one)."),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            "--database",
            help="With --facts: the records through the files' and this database's home "
            "(a postgresql:// URL, or 'start' a throwaway server), both in this run.",
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Evidence recall@k on LoCoMo through DialogTree + MemoryReader, with baselines."""
    if database is not None and not facts:  # said before the data file is looked for
        fail("--database compares where the written records live: use it with --facts")
    selection, ks = _checked_options(data, conversations, k, profile, implicit, implicit_split)
    knob_list = _checked_knobs(knobs)
    settings = get_ctx(ctx).settings
    report = _run(
        settings, data, conversations=selection, ks=ks, profile=profile, ablate=ablate,
        implicit=implicit, seed=seed, facts=facts, knobs=knob_list, companion=companion,
        implicit_split=None if implicit_split == "all" else implicit_split, database=database,
    )  # fmt: skip
    if want_json(ctx, json_out):
        print_json(report)
        return
    _print(report, ks)


def _run(
    settings: Any,
    data: Path,
    companion: Path | None = None,
    database: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """The benchmark with the configured embedder; a bad data file is one clear line. With
    ``companion``, the companion and multilingual sets (``_companion``) in the same run;
    with ``database``, the written records' two homes."""
    from familiars.benchmarks._companion import DEFAULT_MULTILINGUAL
    from familiars.benchmarks._companion import run as run_companion
    from familiars.memory import embedder_from_settings

    embedder = embedder_from_settings(settings)
    prompt = PromptSetup.from_settings(settings)
    try:
        if database is None:
            report = asyncio.run(run_benchmark(data, embedder=embedder, prompt=prompt, **options))
        else:
            report = _run_with_database(settings, data, database, embedder, prompt, options)
        if companion is not None:
            more = run_companion(
                embedder,
                options["ks"],
                companion=companion,
                multilingual=DEFAULT_MULTILINGUAL,
                profile=options["profile"],
            )
            report.update(asyncio.run(more))
        return report
    except (ValueError, KeyError) as exc:
        fail(f"cannot run the LoCoMo benchmark: {exc}")


def _run_with_database(
    settings: Any,
    data: Path,
    database: str,
    embedder: Embedder,
    prompt: PromptSetup,
    options: dict[str, Any],
) -> dict[str, Any]:
    from familiars.benchmarks._database import bench_database

    with bench_database(database) as url:
        homes = [RecordHome(settings, None), RecordHome(settings, url)]
        run = run_benchmark(data, embedder=embedder, prompt=prompt, homes=homes, **options)
        return asyncio.run(run)


def _checked_knobs(value: str) -> list[str] | None:
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in RECALL_KNOBS]
    if unknown:
        fail(f"unknown knob {unknown[0]!r}; use one of {', '.join(RECALL_KNOBS)}")
    return names or None


def _checked_options(
    data: Path,
    conversations: str,
    k: str,
    profile: str,
    implicit: Path | None,
    implicit_split: str,
) -> tuple[Any, list[int]]:
    """The conversation selection and the cut-offs; a bad option is one clear line."""
    try:
        selection = _parse_range(conversations)
        ks = sorted({int(x) for x in k.split(",") if x.strip()})
    except ValueError:
        fail("--conversations and --k take numbers such as 0-4 and 1,5,10")
    if not ks or ks[0] <= 0:
        fail("--k needs positive cut-offs")
    if profile not in DEFAULT_BUDGETS_MS:
        fail(f"unknown profile {profile!r}; use one of {', '.join(DEFAULT_BUDGETS_MS)}")
    if not data.exists():
        fail(f"no data file at {data}")
    if implicit is not None and not implicit.exists():
        fail(f"no pairs file at {implicit}")
    if implicit_split not in ("dev", "held", "all"):
        fail("--implicit-split takes dev, held or all")
    return selection, ks


def _print(report: dict[str, Any], ks: Sequence[int]) -> None:
    methods = [(f"familiars ({report['profile']})", report["overall"])]
    methods += [(name, base["overall"]) for name, base in report.get("baselines", {}).items()]
    for metric in ("recall", "hit"):
        print_table(
            f"LoCoMo evidence {metric}@k, {report['questions']} questions, {report['model']}",
            ["method", *[f"{metric}@{k}" for k in ks]],
            [[name, *[summary.get(f"{metric}@{k}") for k in ks]] for name, summary in methods],
        )
    cat_rows = []
    for cid, summary in report["by_category"].items():
        hyb = report["baselines"]["hybrid"]["by_category"].get(cid, {})
        cat_rows.append(
            [f"{cid} {CATEGORIES[int(cid)]}", summary["questions"], summary.get("recall@5"),
             summary.get("recall@10"), hyb.get("recall@5"), hyb.get("recall@10")]
        )  # fmt: skip
    print_table("by category", ["category", "n", "R@5", "R@10", "hybrid R@5", "hybrid R@10"],
                cat_rows)  # fmt: skip
    lat, emb = report["latency_ms"], report["query_embedding_ms"]
    print_table(
        "latency (ms)",
        ["what", "p50", "p95"],
        [["recall (incl. query embedding)", lat["p50"], lat["p95"]],
         ["one query embedding", emb["p50"], emb["p95"]]],
    )  # fmt: skip
    if report.get("homes"):
        print_table(
            "the written records' home (through its store, loaded from its index)",
            ["home", *[f"recall@{k}" for k in ks], "p50 ms", "p95 ms"],
            [[name, *[h["overall"].get(f"recall@{k}") for k in ks], h["latency_ms"]["p50"],
              h["latency_ms"]["p95"]] for name, h in report["homes"].items()],
        )  # fmt: skip
    if "ablation" in report:
        shown = [k for k in ks if k in (5, 10)] or list(ks)[:2]
        print_table(
            "knob ablation: recall with the knob switched off, and what the knob earns",
            ["knob", *[f"R@{k} off" for k in shown], *[f"earns R@{k}" for k in shown]],
            [
                [knob, *[a["overall"].get(f"recall@{k}") for k in shown],
                 *[a["earns"][f"recall@{k}"] for k in shown]]
                for knob, a in report["ablation"].items()
            ],
        )  # fmt: skip
    _print_prompt_and_implicit(report, ks)
    if "companion" in report:
        from familiars.benchmarks._companion import print_report

        print_report(report)
    print(f"ingest {report['ingest_s']} s for {report['turns']} turns")


def _print_prompt_and_implicit(report: dict[str, Any], ks: Sequence[int]) -> None:
    sets = [("LoCoMo", report)] + (
        [("implicit", report["implicit"])] if "implicit" in report else []
    )
    if "implicit" in report:
        imp = report["implicit"]
        methods = [(f"familiars ({report['profile']})", imp["overall"])]
        methods += [(name, base["overall"]) for name, base in imp.get("baselines", {}).items()]
        print_table(
            f"implicit recall@k, {imp['questions']} pairs ({imp.get('split')})",
            ["method", *[f"recall@{k}" for k in ks]],
            [[name, *[summary.get(f"recall@{k}") for k in ks]] for name, summary in methods],
        )
    rows = [[name, *[s["evidence_in_prompt"][c] for c in
             ("evidence_turns", "recalled_at_k", "in_prompt", "cut_after_recall")],
             s["evidence_in_prompt"]["per_question"]["in_prompt"],
             s["evidence_in_prompt"]["memory_tokens_per_turn"]["mean"]]
            for name, s in sets if "evidence_in_prompt" in s]  # fmt: skip
    if rows:
        first = report["evidence_in_prompt"]
        print_table(
            f"evidence in the prompt (k={first['k']}, {first['budget_tokens']} tokens)",
            [
                "set",
                "evidence turns",
                "recalled at k",
                "in prompt",
                "cut after recall",
                "in prompt, per question",
                "memory tokens / turn",
            ],  # fmt: skip
            rows,
        )
