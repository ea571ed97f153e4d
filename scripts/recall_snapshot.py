"""A byte-level snapshot of what recall returns, to show a speed change leaves it identical.

    python scripts/recall_snapshot.py OUT.json [--records 20000] [--queries 60]
    python scripts/recall_snapshot.py OUT.json --compare BEFORE.json

A reader over ``--records`` synthetic records (``bench recall``'s sentences) and one dialogue
of a few hundred nodes (speakers, replies, small talk, recent enough to be read as the
conversation), the shipped re-ranker on and no knob off, answers ``--queries`` queries in each
profile (``lite``, ``standard``, ``full``): questions that name their topic, messages that name
nothing (read in their conversation), first-person messages, ones naming a speaker, and a
turn's own message as ``anchor``. Every item's key, score, parts (``repr`` of each float: the
bits, not a rounding), merged keys and explanation, and each result's dropped stages,
candidates and context go to OUT.json; ``--compare`` says whether it matches BEFORE.json byte
for byte and, if not, the first query that differs. Budgets are set far out of reach, so no
stage is dropped for time. Not a test: it takes a minute at 20k records.

The embedder is deterministic (hashed words), so two checkouts give the same vectors: run it
once on the base commit and once on the change, with the same arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from familiars.benchmarks._recall import synthetic_queries, synthetic_records
from familiars.memory import DialogTrees, MemoryReader, node_embedding_text
from tests.fakes import HashEmbedder

NOW = 1.8e9
KEYS = {"ana": "owner", "bo": "bo"}  # the records are the owner's, who speaks as Ana
TALK = [
    ("ana", "I finally fixed the old bicycle this weekend, the chain was rusted through."),
    ("bot", "That sounds satisfying! Did you have to replace the whole chain?"),
    ("ana", "Yes, and the brakes too. Next I want to ride it to the museum in Porto."),
    ("bo", "Haha nice"),
    ("bo", "I lost my camera in Lisbon last summer, still sad about it."),
    ("ana", "Oh no, was it the one you bought for the marathon photos?"),
    ("bo", "Exactly that one. I want to make that evening really special though."),
    ("bot", "Maybe plan a dinner at the bakery you liked?"),
    ("ana", "Thanks!"),
    ("bo", "My sister adopted a kitten, she named it Quilt."),
]
QUESTIONS = [
    "What did Ana fix this weekend?",
    "I want to make that evening really special",
    "I ended up volunteering and now I'm overwhelmed",
    "what did bo say about the camera",
    "Where is the museum Ana wants to ride to?",
    "haha",
    "Did anyone adopt a pet?",
    "I lost something last summer",
]


async def build(records: int, tmp: Path) -> tuple[MemoryReader, Any, list[int]]:
    emb = HashEmbedder(dim=384)
    rng = np.random.default_rng(records)
    recs = synthetic_records(records, rng)
    trees = DialogTrees(tmp)
    reader = MemoryReader(emb, trees=trees, ablated=[],
                          budgets_ms={"lite": 1e9, "standard": 1e9, "full": 1e9})  # fmt: skip
    await reader.add_records(recs, emb.embed_batch([r.content for r in recs]))
    tree = trees.get("agent_0", "dialogue_1", create=True)
    anchors = []
    for i in range(300):
        who, text = TALK[i % len(TALK)]
        text = text if i < len(TALK) else f"{text} ({i})"
        ts = NOW - 3000 + 10 * i if i >= 290 else NOW - 86400 * (300 - i)
        kind = "A" if who == "bot" else "Q"
        meta = {} if who == "bot" else {"speaker": who, "user_key": KEYS[who]}
        node = tree.add_node(text, emb.embed(node_embedding_text(text, who)), node_type=kind,
                             timestamp=ts, metadata=meta)  # fmt: skip
        if kind == "Q" and i >= 290:
            anchors.append(node.id)
    await reader.index.awarm_hubs()
    return reader, tree, anchors


def _floats(values: dict[str, float]) -> dict[str, str]:
    return {k: repr(v) for k, v in values.items()}


def _shown(res: Any) -> dict[str, Any]:
    return {
        "query": res.query,
        "profile": res.profile,
        "dropped": res.dropped,
        "candidates": res.candidates,
        "subqueries": res.subqueries,
        "context": res.context.shown(res.items) if res.context else {},
        "items": [
            {"key": it.key, "score": repr(it.score), "parts": _floats(it.parts),
             "merged": it.merged, "explain": it.explain}
            for it in res.items
        ],
    }  # fmt: skip


async def snapshot(records: int, queries: int) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        reader, tree, anchors = await build(records, Path(tmp))
        texts = synthetic_queries(queries, np.random.default_rng(7))
        texts = [QUESTIONS[i % len(QUESTIONS)] if i % 3 == 0 else t for i, t in enumerate(texts)]
        out = []
        t0 = time.process_time()
        for i, text in enumerate(texts):
            for profile in ("lite", "standard", "full"):
                args: dict[str, Any] = {"agent_id": "agent_0", "now": NOW, "k": 10}
                args["user_key"] = ("owner", "bo")[i % 4 // 2] if i % 2 == 0 else "owner"
                if i % 2 == 0:
                    args["dialogue_id"] = "dialogue_1"
                if i % 5 == 0:
                    args.update(anchor=anchors[i % len(anchors)])
                if i % 7 == 0:
                    args.update(context=())
                res = await reader.build_rag_context(text, profile=profile, **args)
                out.append(_shown(res))
        cpu = time.process_time() - t0
        print(f"{len(out)} recalls, {1000 * cpu / len(out):.2f} ms CPU each", file=sys.stderr)
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--compare", type=Path)
    opts = ap.parse_args()
    shots = asyncio.run(snapshot(opts.records, opts.queries))
    text = json.dumps(shots, indent=1, sort_keys=True, default=repr)
    opts.out.write_text(text)
    print(f"{opts.out}: sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]}")
    if opts.compare is None:
        return
    before = json.loads(opts.compare.read_text())
    if opts.compare.read_text() == text:
        print("identical to", opts.compare)
        return
    for a, b in zip(before, json.loads(text), strict=False):
        if a != b:
            print(f"differs first at {a['profile']} {a['query']!r}", file=sys.stderr)
            break
    sys.exit(1)


if __name__ == "__main__":
    main()
