"""``familiars bench turn``: the memory pipeline's cost per turn against one query embedding.

The embedder is the one a person's bot runs: on the CPU with ``embedding.backend = "auto"``
that is the configured model's ONNX export (made once per workspace, on the first start,
and cached; here made first when missing), not sentence-transformers; the report names it.
Both the turn and the baseline use it. The workspace is prepared as a running bot keeps it:
indexed, with hub values worked out in the background (``keep_hubs_current``).
``--setup-vectors surrogate`` gives the seeded records and nodes cheap vectors in the
model's space (``_turn_setup``) so 10k / 5k can be set up on a small CPU; the turns and the
baseline still embed with the real model. The output says which setup was used.

A workspace with ``--records`` memories and a dialogue of ``--nodes`` nodes; then turns go
through the real DialogueManager in offline mode (its reply costs nothing). Timed per turn:
``respond`` until the reply is handed over (its generator ends): Q node, recall, prompt,
the reply made durable (``keep_reply``): everything but the model's reply. after() (the
writer's turn, the chat's times, the ephemeral clear) runs in a task once the reply is
handed over; it, the writer's work and the reply node's embedding happen off the hot path
and are drained between turns, untimed. The
baseline, one embedding call of a message of the same kind, is measured in the same run,
interleaved with the turns. Each round also runs a turn with the re-ranker switched off
(``rerank`` added to the reader's ablation), so its cost is the difference in the same run;
its own time is ``timings_ms["rerank"]`` of the recall.

What memory adds to a turn is reported beside the whole turn: ``memory`` is every stage less
the answer stage (the offline answerer stands in for the model, whose time is not memory's),
after() included, and ``to_reply`` the stages up to the reply handed over (less after(),
which runs in its task while the person reads). ``stage_ms`` is each stage's mean
(``Turn.spent``; ``after`` timed in its task); the records are read while the message's
node is made, so ``record_message`` holds both and ``read_records`` is about 0.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, cast

import numpy as np
import typer

from familiars.benchmarks._turn_setup import SETUP_KINDS, SetupKind, SetupVectors
from familiars.benchmarks._understanding_cost import understanding_cost
from familiars.benchmarks._util import percentile, synthetic_facts
from familiars.memory import understanding_for
from familiars.terminal import get_ctx, print_json, print_table, want_json

_QUESTIONS = [
    "what was the name of that hiking trail you told me about",
    "do you remember what my sister is learning these days",
    "remind me what I said about the night shift",
    "what did we decide about the book club on fridays",
    "how is the sourdough going, did I mention it before",
    "what do you know about my boss and the marathon",
]


async def run_turn_bench(
    settings: Any,
    records: int,
    nodes: int,
    turns: int,
    *,
    embedder: Any = None,
    setup: SetupKind = "real",
) -> dict[str, Any]:
    """The bench (module docstring); ``embedder`` defaults to the configured model;
    ``setup`` says how the seeded texts get their vectors (``_turn_setup``)."""
    from familiars.bot import Application
    from familiars.memory import embedder_from_settings

    embedder = SetupVectors(embedder or embedder_from_settings(_as_a_bot_runs(settings)), setup)
    with tempfile.TemporaryDirectory(prefix="familiars-bench-turn-") as tmp:
        bench_settings = settings.model_copy(update={"workspace": Path(tmp)})
        app = Application(
            bench_settings,
            embedder=embedder,
            model=None,
            platforms=False,
            scheduler=False,
            watch=False,
        )
        await app.initialize()
        await app.start()
        try:
            t0 = time.perf_counter()
            await _seed_records(app, records)
            base = await _seed_tree(app, embedder, nodes)
            embedder.done()
            setup_s = time.perf_counter() - t0
            now = datetime.fromtimestamp(base + 30 * nodes + 60, UTC)
            times = await _timed_turns(app, embedder, now, turns)
        finally:
            await app.shutdown()
    report = _report(records, nodes, turns, setup_s, times)
    report["setup_vectors"] = embedder.report()
    report["embedder"] = {k: embedder.describe().get(k) for k in ("model", "backend", "device")}
    report["understanding"] = understanding_cost(
        understanding_for(embedder.embed_batch, *embedder.space)
    )
    return report


def _as_a_bot_runs(settings: Any) -> Any:
    """``backend = "auto"`` on the CPU means ONNX from the second start on: ask for it (the
    export is made now when it is missing), so the baseline is the embedding a person's bot
    makes, not the slower first-start one."""
    cfg = settings.embedding
    if cfg.backend != "auto" or cfg.device != "cpu":
        return settings
    return settings.model_copy(update={"embedding": cfg.model_copy(update={"backend": "onnx"})})


async def _seed_records(app: Any, records: int) -> None:
    """``records`` synthetic facts over ten people, appended a thousand at a time."""
    from familiars.memory import make_record

    facts = synthetic_facts(records, seed=3)
    cats = ["profile", "preference", "relation", "knowledge", "event"]
    for start in range(0, records, 1000):
        await app.memory.store.append_many(
            make_record(f, scope="user", category=cats[i % 5], user_key=f"user{i % 10}")
            for i, f in enumerate(facts[start : start + 1000], start=start)
        )


async def _seed_tree(app: Any, embedder: Any, nodes: int) -> float:
    """A dialogue of ``nodes`` turns, 30 s apart, indexed as a start-up would; its start time."""
    info = await app.state.dialogue_for(
        "agent_0", "console", "bench", None, is_group=False, user_key="user0"
    )
    tree = await app.trees.aget("agent_0", info.dialogue_id, create=True)
    texts = synthetic_facts(nodes, seed=5)
    vectors = await embedder.aembed_batch(texts)
    base = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    for i, (text, vec) in enumerate(zip(texts, vectors, strict=True)):
        tree.add_node(text, vec, node_type="Q" if i % 2 == 0 else "A", timestamp=base + 30 * i)
    await app.settle()
    reader = app.dialogues.recaller.reader
    await reader.sync()
    await reader.index.awarm_hubs()  # what the bot's background task does after a start
    return base


@dataclass
class _Times:
    """Per-turn milliseconds: turns with the re-ranker as configured and with it switched
    off, the re-ranker's own share of the former, and the interleaved query embeddings."""

    on: list[float] = field(default_factory=list)
    off: list[float] = field(default_factory=list)
    stages: list[dict[str, float]] = field(default_factory=list)  # of the turns in ``on``
    rerank: list[float] = field(default_factory=list)
    embed: list[float] = field(default_factory=list)
    #: Of the turns in ``on``: how many the re-ranker scored (its pool was large enough and
    #: the profile's budget was not spent first), and the stages recall dropped.
    reranked: int = 0
    dropped: dict[str, int] = field(default_factory=dict)


async def _timed_turns(app: Any, embedder: Any, now: datetime, turns: int) -> _Times:
    """Each round: one query embedding, then one turn with the re-ranker and one without
    (in alternating order), back to back; three warm-up rounds are not counted."""
    rng = random.Random(11)
    times = _Times()
    reader = app.dialogues.recaller.reader
    configured = reader.ablated
    rerank_ms, ran, dropped = 0.0, False, []
    for n in range(turns + 3):
        probe = f"{rng.choice(_QUESTIONS)} [{n}]"
        t = time.perf_counter()
        embedder.embed_batch([probe])
        e = (time.perf_counter() - t) * 1000
        timed: dict[bool, float] = {}
        for rerank_on in (True, False) if n % 2 == 0 else (False, True):
            reader.ablated = configured if rerank_on else configured | {"rerank"}
            question = f"{rng.choice(_QUESTIONS)} ({n}{'' if rerank_on else ' b'})"
            timed[rerank_on] = await _one_turn(app, question, now + timedelta(minutes=2 * n))
            if rerank_on:
                result = app.dialogues.recaller.last_result
                rerank_ms = result.timings_ms.get("rerank", 0.0)
                ran, dropped = "rerank" in result.timings_ms, list(result.dropped)
                spent = dict(app.dialogues.last_spent)
        reader.ablated = configured
        if n >= 3:
            times.on.append(timed[True])
            times.off.append(timed[False])
            times.rerank.append(rerank_ms)
            times.embed.append(e)
            times.stages.append(spent)
            times.reranked += ran
            for stage in dropped:
                times.dropped[stage] = times.dropped.get(stage, 0) + 1
    return times


async def _one_turn(app: Any, question: str, ts: datetime) -> float:
    """One message through the DialogueManager, in ms, until the reply is handed over; after
    it, untimed, the turn's after() task ends, the reply's node is added, the writer's queue
    drains and the index catches up with all (``catch_up``, hub values included): all run in
    the background while a person reads the reply and types the next message."""
    from familiars.bot import IncomingMessage

    message = IncomingMessage(
        platform="console",
        chat_id="bench",
        user_id="user0",
        display_name="User",
        text=question,
        ts=ts,
    )
    t = time.perf_counter()
    async for _ in app.dialogues.respond(message):
        pass
    d = (time.perf_counter() - t) * 1000
    await app.settle()  # after() first: it queues the writer's turn, then the queue drains
    await app.dialogues.recaller.catch_up()  # the bot's background step (every 2 s)
    return d


def _ratios(turn_ms: list[float], embed_ms: list[float]) -> dict[str, float]:
    p95, embed_p95 = percentile(turn_ms, 95), percentile(embed_ms, 95)
    return {
        "p50_ms": round(percentile(turn_ms, 50), 2),
        "p95_ms": round(p95, 2),
        "ratio_p50": round(float(np.median(turn_ms)) / max(float(np.median(embed_ms)), 1e-9), 2),
        "ratio_p95": round(p95 / max(embed_p95, 1e-9), 2),
    }


def _shares(t: _Times) -> dict[str, Any]:
    """What memory adds (the turn less its answer), the turn up to the whole reply, and each
    stage's mean, of the turns with the re-ranker."""
    memory = [sum(s.values()) - s.get("answer", 0.0) for s in t.stages]
    to_reply = [sum(s.values()) - s.get("after", 0.0) for s in t.stages]
    names = list(dict.fromkeys(name for s in t.stages for name in s))
    return {
        "memory": _ratios(memory, t.embed),
        "to_reply": _ratios(to_reply, t.embed),
        "stage_ms": {n: round(float(np.mean([s.get(n, 0.0) for s in t.stages])), 2) for n in names},
    }


def _report(records: int, nodes: int, turns: int, setup_s: float, t: _Times) -> dict[str, Any]:
    on, off = _ratios(t.on, t.embed), _ratios(t.off, t.embed)
    return {
        "records": records,
        "nodes": nodes,
        "turns": turns,
        "setup_s": round(setup_s, 1),
        **on,
        "embed_p50_ms": round(percentile(t.embed, 50), 2),
        "embed_p95_ms": round(percentile(t.embed, 95), 2),
        "rerank_p50_ms": round(percentile(t.rerank, 50), 2),
        "rerank_p95_ms": round(percentile(t.rerank, 95), 2),
        "reranked_turns": t.reranked,
        "dropped_stages": t.dropped,
        "rerank_off": off,
        **_shares(t),
        "before_after": f"turn ratio p95 {off['ratio_p95']} without the re-ranker, "
        f"{on['ratio_p95']} with it (p50 {off['ratio_p50']} -> {on['ratio_p50']})",
        "note": "turn = respond until the reply is handed over: Q node (the message embedded"
        " as a query; its own vector follows the reply) + recall + prompt + the reply made"
        " durable (keep_reply); after() (the writer's turn, the chat's times, the ephemeral"
        " clear) runs in a task once the reply is handed over: in memory and stage_ms, not"
        " in the turn or to_reply; the writer and the reply node's embedding run in the"
        " background, untimed; each round times one turn with the re-ranker and one"
        " without, next to one query embedding",
    }


def command(
    ctx: typer.Context,
    records: Annotated[int, typer.Option(min=0)] = 10_000,
    nodes: Annotated[int, typer.Option(min=0)] = 5_000,
    turns: Annotated[int, typer.Option(min=5)] = 60,
    setup_vectors: Annotated[
        str,
        typer.Option(
            help="How the seeded records and nodes get vectors: 'real' (the model embeds"
            " every one; slow at 10k on a small CPU) or 'surrogate' (each the mean of its"
            " words' real vectors plus a hashed perturbation). The turns' queries and the"
            " baseline always use the real model."
        ),
    ] = "real",
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Per-turn memory pipeline cost (p50/p95) next to one query embedding."""
    if setup_vectors not in SETUP_KINDS:
        raise typer.BadParameter(f"one of {', '.join(SETUP_KINDS)}", param_hint="--setup-vectors")
    result = asyncio.run(
        run_turn_bench(
            get_ctx(ctx).settings, records, nodes, turns, setup=cast(SetupKind, setup_vectors)
        )
    )
    if want_json(ctx, json_out):
        print_json(result)
        return
    print_table(
        "bench turn",
        ["records", "nodes", "p50 ms", "p95 ms", "embed p95 ms", "ratio p95", "rerank p95 ms"],
        [
            [
                records,
                nodes,
                result["p50_ms"],
                result["p95_ms"],
                result["embed_p95_ms"],
                result["ratio_p95"],
                result["rerank_p95_ms"],
            ]
        ],
    )
    print(result["before_after"])
    print(
        f"the re-ranker scored {result['reranked_turns']} of {turns} turns"
        + (
            f" (stages recall dropped: {result['dropped_stages']})"
            if result["dropped_stages"]
            else ""
        )
    )
    print(
        f"memory (the turn less its answer) ratio p95 {result['memory']['ratio_p95']}, "
        f"up to the whole reply {result['to_reply']['ratio_p95']}; stage ms {result['stage_ms']}"
    )
    print(f"setup vectors: {result['setup_vectors']} (setup {result['setup_s']} s)")
    print("embedder: " + ", ".join(f"{k} {v}" for k, v in result["embedder"].items() if v))
    print(f"understanding by meaning adds: {result['understanding']}")
