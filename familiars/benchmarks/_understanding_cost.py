"""The added cost of understanding by meaning (issue 23), for ``familiars bench turn``.

Each message (statements and questions of the kinds people send) goes through the offline
writer's plan with and without the learned part, and, for questions, through the answerer by
meaning; the vectors cache is cleared before each call, so every clause is embedded afresh
as in a new turn. Reported: p50/p95 of the added milliseconds.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from familiars.benchmarks._util import percentile
from familiars.memory import MemoryRecord, Understanding, answer_records, offline_writes

MESSAGES = (
    "My beagle is called Ziggy and I work nights at the hospital",
    "not into board games anymore, I do climbing now",
    "what is my dog called?",
    "I moved from Hull to Leeds in the spring",
    "what do I do for work?",
    "had a long day, the trains were a mess",
    "I'm a huge fan of old westerns",
    "where do I live these days?",
)
RECORDS = [
    MemoryRecord(id="m_1", scope="user", category="relation", tags=["pet"],
                 content="The user has a beagle called Ziggy."),
    MemoryRecord(id="m_2", scope="user", category="profile", tags=["home"],
                 content="The user lives in Hull."),
    MemoryRecord(id="m_3", scope="user", category="preference", tags=["likes", "topic:board-game"],
                 content="The user likes board games."),
]  # fmt: skip
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def understanding_cost(understanding: Understanding | None, rounds: int = 5) -> dict[str, Any]:
    """p50/p95 ms the writer and the answerer add per message with ``understanding``."""
    if understanding is None:
        return {"note": "the embedder is not the one the weights were trained on: no cost"}
    understanding.noun_kind("dog")  # the labelled exemplars, embedded once at start-up
    understanding.sounds_like_harm("hello")
    writer: list[float] = []
    answerer: list[float] = []
    for _ in range(rounds):
        for text in MESSAGES:
            base = _ms(lambda t=text: offline_writes(t, existing=RECORDS, now=NOW))
            understanding.forget_cache(force=True)
            with_it = _ms(
                lambda t=text: offline_writes(
                    t, existing=RECORDS, now=NOW, understanding=understanding
                )
            )
            writer.append(max(0.0, with_it - base))
            if text.endswith("?"):
                understanding.forget_cache(force=True)
                answerer.append(_ms(lambda t=text: answer_records(t, RECORDS, understanding)))
    return {
        "writer_added_p50_ms": round(percentile(writer, 50), 2),
        "writer_added_p95_ms": round(percentile(writer, 95), 2),
        "answerer_added_p50_ms": round(percentile(answerer, 50), 2),
        "answerer_added_p95_ms": round(percentile(answerer, 95), 2),
    }


def _ms(call: Any) -> float:
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1000
