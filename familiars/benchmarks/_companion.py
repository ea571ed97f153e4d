"""Companion-domain recall: a person's records brought back at the moment a chat touches them.

``data/companion_set.jsonl`` holds *episodes* (third-person records of a few people's lives:
an event, its time, the feeling it left) and *moments* (two or three messages of a chat and
the message of the turn, with the episode that turn should bring back as gold; ``split`` dev
or held, a third held out and never tuned on). Every episode is one user-scope record of its
person; a moment is asked by that person, so only their own records compete.

Quality is measured without the profile's latency cap (as ``bench locomo`` does): a busy
machine would otherwise drop the late stages at random and move the figures between runs
(companion dev R@5 .743 under load against .771 uncapped, same code). The latency is
reported beside, with how many recalls took longer than the profile's budget.

``--split dev`` asks the dev moments alone (the long-conversation figures too), so a tuning run
never shows the held part; the default ``all`` is the final report.

Each moment is asked three ways on the same reader and index:

- ``message``: the turn's own message, as ``MemoryReader.build_rag_context`` gets it;
- ``conversation``: the message with the recent messages as ``context`` (the reader fuses
  them, see ``_reader``);
- ``cosine`` / ``cosine_conversation``: plain cosine of the same model over the person's
  records, with the message, and with the messages so far joined (the baselines).

``data/multilingual_set.jsonl`` is the same idea per language (zh, ja, es): records and
questions with gold (45 records a person, 15 of them some question's gold and 30 near-topic
others, so that R@10 is not most of a person's records and the re-ranker's pool of 40 is
full), R@k against plain cosine, and how many questions' gold gets a non-zero
keyword score where the question and the gold share a keyword term; and the same again with
the offline multilingual fallback (``multilingual_fallback``: MiniLM for English, the shipped
universal-sentence-encoder-multilingual v3 for other languages) when the configured model
is not already that pair.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from familiars.benchmarks._util import BUDGET_MS
from familiars.memory import (
    DEFAULT_BUDGETS_MS,
    ContextReading,
    Embedder,
    MemoryReader,
    MemoryRecord,
    ScriptAwareEmbedder,
    keyword_terms,
    multilingual_fallback,
)

DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_SET = DATA_DIR / "companion_set.jsonl"
DEFAULT_MULTILINGUAL = DATA_DIR / "multilingual_set.jsonl"
#: Records are dated over the two years before the moments are asked.
RECORD_TS = datetime(2025, 1, 1, tzinfo=UTC)
ASKED_AT = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
CONTEXT_API = True
#: The parts of the set (``--split``): tuning runs ask ``dev`` alone, so the held part is
#: never seen until the one final report.
SPLITS: dict[str, tuple[str, ...]] = {"dev": ("dev",), "held": ("held",), "all": ("dev", "held")}


def uncapped_reader(embedder: Embedder) -> MemoryReader:
    """A reader that runs every stage of every profile whatever the time (quality figures
    that do not depend on the machine's load)."""
    return MemoryReader(embedder, budgets_ms={name: BUDGET_MS for name in DEFAULT_BUDGETS_MS})


def load_set(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Episodes (or records) and moments (or questions) of a JSONL set."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    docs = [r for r in rows if r["type"] in ("episode", "record")]
    asks = [r for r in rows if r["type"] in ("moment", "question")]
    return docs, asks


def records(docs: Sequence[dict[str, Any]], owner: str) -> list[MemoryRecord]:
    out = []
    for i, doc in enumerate(docs):
        ts = datetime.fromtimestamp(RECORD_TS.timestamp() + i * 3600.0, tz=UTC)
        out.append(
            MemoryRecord(
                id=doc["id"], scope="user", category="event", content=doc["text"],
                ts=ts.isoformat(), user_key=str(doc.get(owner) or "someone"),
            )
        )  # fmt: skip
    return out


class _Tally:
    def __init__(self, ks: Sequence[int]) -> None:
        self.ks = list(ks)
        self.found: dict[int, list[float]] = {k: [] for k in ks}

    def add(self, gold: Sequence[str], ranked: Sequence[str]) -> None:
        for k in self.ks:
            top = set(ranked[:k])
            self.found[k].append(sum(1 for g in gold if g in top) / max(1, len(gold)))

    def summary(self) -> dict[str, float]:
        return {
            f"recall@{k}": round(float(np.mean(v)), 4) if v else 0.0 for k, v in self.found.items()
        }


def _cosine_ranking(reader: MemoryReader, qvec: np.ndarray, ids: set[str], k: int) -> list[str]:
    """Plain cosine of the same model over ``ids`` (the person's records)."""
    idx = reader.index
    dense = idx.dense_all(qvec).astype(np.float64)
    keys = [d.key if d is not None else "" for d in idx.docs]
    allowed = np.array([key in ids for key in keys], dtype=bool)
    scores = np.where(allowed, dense, -np.inf)
    return [keys[int(j)] for j in np.argsort(-scores, kind="stable")[:k] if allowed[int(j)]]


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(values or [0.0])
    return {
        "p50": round(float(np.percentile(arr, 50)), 1),
        "p95": round(float(np.percentile(arr, 95)), 1),
    }


async def _ask(
    reader: MemoryReader, ask: dict[str, Any], *, k: int, profile: str, context: Sequence[str]
) -> tuple[list[str], float]:
    """The recalled records' keys and the recall's milliseconds."""
    t0 = time.perf_counter()
    kwargs: dict[str, Any] = {"context": list(context)} if context else {}
    if context and not CONTEXT_API:  # before the reader took a context: the messages joined
        kwargs = {}
        ask = {**ask, "message": " ".join([*context, ask["message"]])}
    result = await reader.build_rag_context(
        ask.get("message") or ask["question"], user_key=ask["person"], now=ASKED_AT, k=k,
        profile=profile, **kwargs,
    )  # fmt: skip
    ms = (time.perf_counter() - t0) * 1000
    return [i.key for i in result.items if i.kind == "record"], ms


async def evaluate_companion(
    path: Path, embedder: Embedder, ks: Sequence[int], *, profile: str = "standard",
    splits: Sequence[str] = SPLITS["all"],
) -> dict[str, Any]:  # fmt: skip
    """Records R@k per split (of ``splits``: the others' moments are not asked at all) for
    the four ways of asking, and recall latency."""
    docs, moments = load_set(path)
    moments = [m for m in moments if m["split"] in splits]
    reader = uncapped_reader(embedder)
    await reader.add_records(records(docs, "person"))
    owned: dict[str, set[str]] = {}
    for doc in docs:
        owned.setdefault(doc["person"], set()).add(doc["id"])
    ways = ("message", "conversation", "cosine", "cosine_conversation")
    tallies = {s: {w: _Tally(ks) for w in ways} for s in splits}
    latency: dict[str, list[float]] = {"message": [], "conversation": []}
    k = max(ks)
    for m in moments:
        t = tallies[m["split"]]
        ranked, ms = await _ask(reader, m, k=k, profile=profile, context=())
        latency["message"].append(ms)
        t["message"].add(m["gold"], ranked)
        ranked, ms = await _ask(reader, m, k=k, profile=profile, context=m["context"])
        latency["conversation"].append(ms)
        t["conversation"].add(m["gold"], ranked)
        joined = " ".join([*m["context"], m["message"]])
        vecs = await embedder.aembed_batch([m["message"], joined])
        ids = owned[m["person"]]
        t["cosine"].add(m["gold"], _cosine_ranking(reader, vecs[0], ids, k))
        t["cosine_conversation"].add(m["gold"], _cosine_ranking(reader, vecs[1], ids, k))
    out: dict[str, Any] = {
        split: {w: tally.summary() for w, tally in by_way.items()}
        for split, by_way in tallies.items()
    }
    out["episodes"] = len(docs)
    out["moments"] = {s: sum(1 for m in moments if m["split"] == s) for s in splits}
    out["latency_ms"] = _percentiles(latency["message"] + latency["conversation"])
    out["latency_ms_by_query"] = {way: _percentiles(ms) for way, ms in latency.items()}
    budget = DEFAULT_BUDGETS_MS[profile]
    out["over_profile_budget"] = sum(
        ms > budget for ms in latency["message"] + latency["conversation"]
    )
    out["long_conversation"] = await _long_conversation(reader, moments, ks, profile)
    out["budget_ms"] = DEFAULT_BUDGETS_MS[profile]
    return out


async def _long_conversation(
    reader: MemoryReader, moments: Sequence[dict[str, Any]], ks: Sequence[int], profile: str
) -> dict[str, Any]:
    """Recall with the conversation when its messages are long: each moment's context led by
    one message made of the person's next four moments' contexts (about 40-70 words), the
    joined text cut to ``ContextReading.max_words`` and uncut, asked in turn (load hits
    both alike): latency and R@k over every moment."""
    cut_at = ContextReading.max_words
    ms: dict[str, list[float]] = {"cut": [], "uncut": []}
    tallies = {way: _Tally(ks) for way in ms}
    for i, m in enumerate(moments):
        mine = [o for o in moments[i + 1 :] if o["person"] == m["person"]][:4]
        context = [" ".join(t for o in mine for t in o["context"]), *m["context"]]
        ways = ("cut", "uncut") if i % 2 == 0 else ("uncut", "cut")
        for way in ways:
            ContextReading.max_words = cut_at if way == "cut" else 0
            try:
                ranked, took = await _ask(reader, m, k=max(ks), profile=profile, context=context)
            finally:
                ContextReading.max_words = cut_at
            ms[way].append(took)
            tallies[way].add(m["gold"], ranked)
    return {
        "max_words": cut_at,
        **{way: {**tallies[way].summary(), "latency_ms": _percentiles(ms[way])} for way in ms},
    }


async def evaluate_multilingual(
    path: Path, embedder: Embedder, ks: Sequence[int], *, profile: str = "standard"
) -> dict[str, Any]:
    """Per language: R@k of recall and of plain cosine, and the keyword part where the
    question shares a keyword term with its gold."""
    docs, questions = load_set(path)
    for doc in docs:
        doc["person"] = f"speaker-{doc['lang']}"
    for q in questions:
        q["person"] = f"speaker-{q['lang']}"
    reader = uncapped_reader(embedder)
    await reader.add_records(records(docs, "person"))
    text = {d["id"]: d["text"] for d in docs}
    out: dict[str, Any] = {}
    k = max(ks)
    for lang in sorted({d["lang"] for d in docs}):
        ids = {d["id"] for d in docs if d["lang"] == lang}
        recall, cosine = _Tally(ks), _Tally(ks)
        shared = keyword_hit = 0
        for q in (q for q in questions if q["lang"] == lang):
            ranked, _ = await _ask(reader, q, k=k, profile=profile, context=())
            recall.add(q["gold"], ranked)
            qvec = (await embedder.aembed_batch([q["question"]]))[0]
            cosine.add(q["gold"], _cosine_ranking(reader, qvec, ids, k))
            terms = keyword_terms(q["question"])
            if set(terms) & set(keyword_terms(text[q["gold"][0]])):
                shared += 1
                scores = reader.index.keywords.scores(terms, len(reader.index))
                row = reader.index.rows.get(q["gold"][0])
                keyword_hit += int(row is not None and scores[row] > 0)
        out[lang] = {
            "recall": recall.summary(),
            "cosine": cosine.summary(),
            "questions": len(recall.found[ks[0]]),
            "records": len(ids),
            "shares_a_keyword_term": shared,
            "keyword_part_nonzero": keyword_hit,
        }
    return out


async def run(
    embedder: Embedder, ks: Sequence[int], *, companion: Path, multilingual: Path | None,
    profile: str, split: str = "all",
) -> dict[str, Any]:  # fmt: skip
    report: dict[str, Any] = {
        "companion": await evaluate_companion(
            companion, embedder, ks, profile=profile, splits=SPLITS[split]
        ),
        "model": embedder.model_name,
        "profile": profile,
    }
    if multilingual is not None:
        report["multilingual"] = await evaluate_multilingual(
            multilingual, embedder, ks, profile=profile
        )
        fallback = multilingual_fallback(embedder)  # the offline one, when the model is not
        if fallback is not None and not isinstance(embedder, ScriptAwareEmbedder):
            report["multilingual_fallback"] = {
                "model": fallback.model_name,
                **await evaluate_multilingual(multilingual, fallback, ks, profile=profile),
            }
    return report


def command(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option("--data", help="Companion set (JSONL).")] = DEFAULT_SET,
    multilingual: Annotated[
        Path, typer.Option("--multilingual", help="Multilingual set (JSONL).")
    ] = DEFAULT_MULTILINGUAL,
    profile: Annotated[str, typer.Option("--profile", help="lite | standard | full.")] = "standard",
    split: Annotated[
        str, typer.Option("--split", help="dev | held | all (tune on dev alone).")
    ] = "all",
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """A person's records recalled from chat moments (dev, held) and per language, vs cosine."""
    import asyncio

    from familiars.memory import embedder_from_settings
    from familiars.terminal import get_ctx, print_json, want_json

    if split not in SPLITS:
        raise typer.BadParameter(f"one of {', '.join(SPLITS)}", param_hint="--split")
    embedder = embedder_from_settings(get_ctx(ctx).settings)
    report = asyncio.run(
        run(embedder, (5, 10), companion=data, multilingual=multilingual, profile=profile,
            split=split)
    )  # fmt: skip
    if want_json(ctx, json_out):
        print_json(report)
        return
    print_report(report)


def print_report(report: dict[str, Any]) -> None:
    from familiars.terminal import print_table

    comp = report["companion"]
    rows = []
    for split in (s for s in ("dev", "held") if s in comp):
        for way, summary in comp[split].items():
            rows.append([split, way, summary.get("recall@5"), summary.get("recall@10")])
    print_table(
        f"companion records recall@k ({comp['episodes']} episodes, moments {comp['moments']},"
        f" {report['model']})",
        ["split", "query", "R@5", "R@10"],
        rows,
    )
    lat = comp["latency_ms"]
    print(
        f"recall latency p50 {lat['p50']} ms, p95 {lat['p95']} ms (budget {comp['budget_ms']},"
        f" {comp.get('over_profile_budget', 0)} recalls over it; figures uncapped)"
    )
    for way, ms in comp.get("latency_ms_by_query", {}).items():
        print(f"  with the {way}: p50 {ms['p50']} ms, p95 {ms['p95']} ms")
    if long := comp.get("long_conversation"):
        for way in ("cut", "uncut"):
            got = long[way]
            print(
                f"  long messages, joined text {way} ({long['max_words']} words):"
                f" R@5 {got['recall@5']} R@10 {got['recall@10']},"
                f" p50 {got['latency_ms']['p50']} ms, p95 {got['latency_ms']['p95']} ms"
            )
    for key in ("multilingual", "multilingual_fallback"):
        if key in report:
            _print_languages(report[key], key, report[key].get("model") or report["model"])


def _print_languages(by_lang: dict[str, Any], key: str, model: str) -> None:
    from familiars.terminal import print_table

    print_table(
        f"{key} records recall@k ({model})",
        ["lang", "records", "R@5", "R@10", "cosine R@5", "cosine R@10",
         "keyword part > 0 / shared"],
        [
            [lang, r["records"], r["recall"]["recall@5"], r["recall"]["recall@10"],
             r["cosine"]["recall@5"], r["cosine"]["recall@10"],
             f"{r['keyword_part_nonzero']} / {r['shares_a_keyword_term']}"]
            for lang, r in by_lang.items()
            if lang != "model"
        ],
    )  # fmt: skip
