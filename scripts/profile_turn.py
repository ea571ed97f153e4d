"""Where a turn's time goes: stage shares of ``bench turn``'s turns, and a pyinstrument
profile of them.

    python scripts/profile_turn.py WORKSPACE [--turns 30] [--records 10000] [--nodes 5000]
                                   [--pyinstrument profile.txt] [--setup-vectors surrogate]

The workspace is built once as ``familiars bench turn`` builds its own (``--records``
synthetic facts, a dialogue of ``--nodes`` turns) and kept, so later runs start in seconds.
Each stage of ``DialogueManager._turn`` is timed (wall clock, awaits included); a stage's
share is its mean over the mean turn. The baseline is one query embedding by the same
embedder, measured before each turn, as the bench does. The embedder is what a bot runs
(``bench turn``'s choice: the ONNX export on the CPU). Not a test: numbers move with load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import familiars.bot._stages as stages
from familiars.benchmarks import _turn as bench
from familiars.benchmarks._turn_setup import SETUP_KINDS, SetupKind, SetupVectors
from familiars.bot import Application, IncomingMessage
from familiars.bot._dialogue import DialogueManager
from familiars.bot._turn_plan import TurnPlanner
from familiars.config import load_settings
from familiars.memory import embedder_from_settings

_spent: dict[str, float] = defaultdict(float)


def _timed(owner: Any, name: str, label: str) -> None:
    inner: Callable[..., Any] = getattr(owner, name)

    async def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return await inner(*args, **kwargs)
        finally:
            _spent[label] += (time.perf_counter() - t0) * 1000

    setattr(owner, name, timed)


def _time_the_stages() -> None:
    for name in ("record_message", "read_records", "recall", "compose", "after"):
        _timed(stages, name, name)
    _timed(TurnPlanner, "begin", "plan")
    _timed(DialogueManager, "_clear_ephemeral", "clear_ephemeral")
    send = stages.send

    async def timed_send(*args: Any) -> AsyncIterator[str]:
        t0 = time.perf_counter()
        async for delta in send(*args):
            yield delta
        _spent["answer+send"] += (time.perf_counter() - t0) * 1000

    stages.send = timed_send  # type: ignore[assignment]


async def _open(
    ws: Path, records: int, nodes: int, setup: SetupKind = "real"
) -> tuple[Application, Any, float]:
    settings = bench._as_a_bot_runs(load_settings(workspace=ws))
    embedder = SetupVectors(embedder_from_settings(settings), setup)
    fresh = not (ws / "familiars.db").exists()
    ws.mkdir(parents=True, exist_ok=True)
    app = Application(
        settings, embedder=embedder, model=None, platforms=False, scheduler=False, watch=False
    )
    await app.initialize()
    await app.start()
    if fresh:
        await bench._seed_records(app, records)
        base = await bench._seed_tree(app, embedder, nodes)
        embedder.done()
    else:
        embedder.done()
        base = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
        reader = app.dialogues.recaller.reader
        await reader.sync()
        await reader.index.awarm_hubs()
    return app, embedder, base + 30 * nodes + 60


async def main(args: argparse.Namespace) -> dict[str, Any]:
    _time_the_stages()
    app, embedder, start = await _open(args.workspace, args.records, args.nodes, args.setup_vectors)
    now = datetime.fromtimestamp(start + 86400 * (int(time.time()) % 1000), UTC)
    rng = random.Random(11)
    profiler = None
    if args.pyinstrument:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.001, async_mode="enabled")
    turns: list[float] = []
    embeds: list[float] = []
    shares: dict[str, list[float]] = defaultdict(list)
    try:
        for n in range(args.turns + 3):
            t0 = time.perf_counter()
            embedder.embed_batch([f"{rng.choice(bench._QUESTIONS)} [{n}]"])
            embed_ms = (time.perf_counter() - t0) * 1000
            _spent.clear()
            message = IncomingMessage(
                platform="console", chat_id="bench", user_id="user0", display_name="User",
                text=f"{rng.choice(bench._QUESTIONS)} ({n})", ts=now + timedelta(minutes=2 * n),
            )  # fmt: skip
            if profiler is not None and n >= 3:
                profiler.start()
            t0 = time.perf_counter()
            async for _ in app.dialogues.respond(message):
                pass
            turn_ms = (time.perf_counter() - t0) * 1000
            if profiler is not None and n >= 3:
                profiler.stop()
            await app.writer_queue.drain()
            await app.settle()
            if n >= 3:  # three warm-up turns
                turns.append(turn_ms)
                embeds.append(embed_ms)
                for stage, ms in _spent.items():
                    shares[stage].append(ms)
    finally:
        await app.shutdown()
    if profiler is not None:
        args.pyinstrument.write_text(profiler.output_text(unicode=False, color=False))
    mean = statistics.mean(turns)
    return {
        "turn_p50_ms": round(statistics.median(turns), 1),
        "embed_p50_ms": round(statistics.median(embeds), 1),
        "ratio_p50": round(statistics.median(turns) / statistics.median(embeds), 2),
        "stage_mean_ms": {k: round(statistics.mean(v), 1) for k, v in shares.items()},
        "stage_share": {k: round(statistics.mean(v) / mean, 3) for k, v in shares.items()},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--pyinstrument", type=Path, default=None)
    parser.add_argument("--setup-vectors", choices=SETUP_KINDS, default="real")
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=1))
