"""Training data for the re-ranker: the first stage's pooled candidates of every LoCoMo
question and implicit trigger, with their feature rows and whether each is evidence.

:func:`collect` replays each conversation (``_locomo.replay``), runs the reader's own ranking
with a :class:`Recorder` in the re-ranker's place (it keeps the first stage's order and hands
the feature rows back through ``Ranked.features``), and returns one :class:`QueryRows` per
question. ``scripts/train_reranker.py`` fits and scores models on them; nothing here learns.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from familiars.benchmarks._locomo import AGENT, DIALOGUE, replay
from familiars.memory import (
    PROFILE_STAGES,
    ContextReading,
    Embedder,
    MemoryReader,
    Scorer,
    SignalGate,
)

#: How a companion moment is asked (``QueryRows.category`` of its rows): the message alone, and
#: the message read in its conversation. Leave-one-out reports them apart: the message alone is
#: where records are hard, and the two ways pooled hide how it fares.
WAYS: tuple[str, ...] = ("message", "conversation")


@dataclass
class QueryRows:
    """One question's pool: feature rows, 1 for evidence turns, how many evidence turns the
    question has in all (recall's denominator), and where it comes from."""

    conv: int
    source: str  # "locomo" | "implicit" | "companion"
    category: int  # LoCoMo's category; a companion moment's WAYS index (0: the message alone)
    x: np.ndarray
    y: np.ndarray
    n_evidence: int
    ids: tuple[str, ...] = ()  # each row's dia_id: a writer's record and its turn share one

    def found(self, order: np.ndarray, k: int) -> float:
        """Recall@k of the rows in ``order``: distinct evidence turns among the first ``k``
        rows (a record and its own turn count once, as recall collapses them)."""
        top = order[:k]
        if not self.ids:
            return float(self.y[top].sum()) / self.n_evidence
        return len({self.ids[j] for j in top if self.y[j]}) / self.n_evidence


class Recorder(Scorer):
    """Stands in for the model: scores keep the pool's (first-stage) order."""

    def __init__(self, depth: int = 40, dense_depth: int = 40) -> None:
        self.depth = depth
        self.dense_depth = dense_depth

    def score(self, x: np.ndarray) -> np.ndarray:
        return -np.arange(x.shape[0], dtype=np.float64)


async def collect(
    convs: Sequence[dict[str, Any]],
    embedder: Embedder,
    *,
    profile: str = "standard",
    ablated: Sequence[str] = (),
    recorder: Recorder | None = None,
    facts: bool = False,
) -> list[QueryRows]:
    """Every question's pool over each replayed conversation (no latency cap)."""
    out: list[QueryRows] = []
    with tempfile.TemporaryDirectory(prefix="familiars-rerank-") as tmp:
        for n, conv in enumerate(convs):
            reader, _ = await replay(conv, embedder, Path(tmp) / conv["id"], ablated, facts=facts)
            reader.reranker = recorder or Recorder()
            now = conv["turns"][-1]["timestamp"] + 86400.0
            for source in ("locomo", "implicit"):
                key = "questions" if source == "locomo" else "implicit"
                for qa in conv.get(key, []):
                    out.append(await _pool(reader, qa, n, source, now, profile))
    return out


async def _pool(
    reader: MemoryReader, qa: dict[str, Any], conv: int, source: str, now: float, profile: str
) -> QueryRows:
    query = qa["question"]
    vec = (await reader._embed_queries([query]))[0]
    tree = await reader._tree(AGENT, DIALOGUE)
    asker = qa.get("asker")
    groups = reader.allowed_groups(
        agent_id=AGENT, dialogue_id=DIALOGUE, user_key=asker, is_group=False
    )
    mask = reader.index.allowed_mask(groups)
    gate = SignalGate(reader.ablated, PROFILE_STAGES[profile], math.inf, [])
    ranked = reader._rank(query, vec, mask, now, tree, gate, asker=asker)
    assert ranked.features is not None, "the profile has no rerank stage"
    pooled = ~np.isnan(ranked.features).any(axis=1)
    evidence = set(qa["evidence"])
    ids = []
    for row in ranked.rows[pooled]:
        doc = reader.index.doc(int(row))
        ids.append(_doc_dia_id(doc))
    y = np.array([1.0 if i in evidence else 0.0 for i in ids])
    return QueryRows(
        conv, source, int(qa["category"]), ranked.features[pooled], y, len(evidence), tuple(ids)
    )


def _doc_dia_id(doc: Any) -> str:
    """A turn's ``dia_id``, or the one a writer's record came from (``_replay_facts``)."""
    if doc is None:
        return ""
    if doc.kind == "node":
        return str(doc.ref[2].metadata.get("dia_id"))
    return str((doc.ref.evidence or {}).get("dia_id", ""))


async def collect_companion(
    path: Path, embedder: Embedder, *, split: str = "dev", profile: str = "standard"
) -> list[QueryRows]:
    """The companion set's pools (``_companion``): each moment of ``split`` asked with the
    message alone and with its conversation, over its person's records (``conv`` 100 + the
    person's number, so leave-one-out holds one person out; ``category`` the way it was asked,
    an index of :data:`WAYS`). A person with fewer records than the model's pool depth is not
    re-ranked and gives no rows."""
    from familiars.benchmarks._companion import ASKED_AT, load_set, records

    docs, moments = load_set(path)
    people = sorted({d["person"] for d in docs})
    reader = MemoryReader(embedder)
    reader.reranker = Recorder()
    await reader.add_records(records(docs, "person"))
    gate_stages = PROFILE_STAGES[profile]
    out: list[QueryRows] = []
    for m in (m for m in moments if m["split"] == split):
        for way, said in enumerate(([], list(m["context"]))):
            reading = ContextReading(said, m["message"])
            # as recall embeds it: with a context, no query words (they would come after the
            # context's text and be taken for it)
            batch = await reader._embed_queries([m["message"], *reading.extra], words=not said)
            vecs = reading.fuse(batch)
            mask = reader.index.allowed_mask(
                reader.allowed_groups(
                    agent_id=AGENT, dialogue_id=None, user_key=m["person"], is_group=False
                )
            )
            gate = SignalGate(reader.ablated, gate_stages, math.inf, [])
            ranked = reader._rank(m["message"], vecs[0], mask, ASKED_AT, None, gate,
                                  asker=m["person"], reading=reading)  # fmt: skip
            if ranked.features is None:
                continue
            pooled = ~np.isnan(ranked.features).any(axis=1)
            ids = tuple(
                str(getattr(reader.index.docs[int(r)], "key", "")) for r in ranked.rows[pooled]
            )
            y = np.array([1.0 if i in m["gold"] else 0.0 for i in ids])
            out.append(
                QueryRows(100 + people.index(m["person"]), "companion", way,
                          ranked.features[pooled], y, len(m["gold"]), ids)
            )  # fmt: skip
    return out
