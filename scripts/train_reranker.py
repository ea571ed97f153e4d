"""Retrain the recall re-ranker (familiars/memory/rerank_weights.json).

    python scripts/train_reranker.py --dump /tmp/pools.npz            # collect, fit, write
    python scripts/train_reranker.py --load /tmp/pools.npz --no-write # refit, report only

Map: ``collect`` replays the LoCoMo dev conversations with the implicit dev pairs stitched in
(``familiars.benchmarks._rerank_data``) and keeps every question's pooled feature rows;
``fit`` is a listwise (softmax over each question's pool) linear model, numpy only, trained
by full-batch Adam with L2; ``loco`` reports leave-one-conversation-out recall@5/10 for the
first stage and the re-ranker on both sets (the honest figures); the shipped weights are then
fitted on every conversation. Never run on the held pairs: they are for one final report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from familiars.benchmarks._companion import DEFAULT_SET  # noqa: E402
from familiars.benchmarks._implicit import DEFAULT_PAIRS, load_pairs, stitch  # noqa: E402
from familiars.benchmarks._locomo import CachingEmbedder, load_conversations  # noqa: E402
from familiars.benchmarks._rerank_data import (  # noqa: E402
    WAYS,
    QueryRows,
    collect,
    collect_companion,
)
from familiars.memory._rerank import (  # noqa: E402
    FEATURES,
    WEIGHTS_FILE,
    Model,
    Reranker,
    TreeReranker,
)

DEFAULT_DATA = Path("/work/shared/data/locomo_dev.json")
#: Per-source question weights besides LoCoMo's 1 and --implicit-weight (--companion-weight).
_WEIGHTS: dict[str, float] = {}


class DiskCache(CachingEmbedder):
    """The benchmark's embedding cache, kept in a pickle between runs of this script."""

    def load(self, path: Path) -> None:
        if path.exists():
            self._cache.update(pickle.loads(path.read_bytes()))

    def save(self, path: Path) -> None:
        path.write_bytes(pickle.dumps(self._cache))


def gather(args: argparse.Namespace) -> list[QueryRows]:
    from familiars.memory import load_embedder, use_offline_models

    use_offline_models()
    convs = load_conversations(args.data, None)
    convs = stitch(convs, load_pairs(args.pairs, "dev"), seed=0)
    emb = DiskCache(load_embedder("bundled"))
    if args.cache:
        emb.load(args.cache)
    try:
        rows = asyncio.run(collect(convs, emb, ablated=args.ablate, facts=args.facts))
        if args.companion:  # records (issue 24): the companion set's dev moments
            rows += asyncio.run(collect_companion(args.companion, emb))
        return rows
    finally:
        if args.cache:
            emb.save(args.cache)


def save_rows(path: Path, rows: Sequence[QueryRows]) -> None:
    path.write_bytes(pickle.dumps(list(rows)))


def load_rows(path: Path) -> list[QueryRows]:
    return list(pickle.loads(path.read_bytes()))


# --------------------------------------------------------------------------- model


def standardise(rows: Sequence[QueryRows]) -> tuple[np.ndarray, np.ndarray]:
    x = np.concatenate([r.x for r in rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def fit(
    rows: Sequence[QueryRows],
    *,
    l2: float,
    implicit_weight: float,
    steps: int = 1500,
    lr: float = 0.02,
) -> Reranker:
    """Listwise softmax loss over each question's pool (questions with evidence in it)."""
    mean, scale = standardise(rows)
    usable = [r for r in rows if r.y.any()]
    x = (np.concatenate([r.x for r in usable]) - mean) / scale
    sizes = np.array([len(r.y) for r in usable])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    seg = np.repeat(np.arange(len(usable)), sizes)
    qw = np.array(
        [_WEIGHTS.get(r.source, implicit_weight) if r.source != "locomo" else 1.0 for r in usable]
    )
    qw = qw / qw.sum()
    target = np.concatenate([r.y / r.y.sum() for r in usable])
    w = np.zeros(len(FEATURES))
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        s = x @ w
        e = np.exp(s - np.maximum.reduceat(s, starts)[seg])
        p = e / np.add.reduceat(e, starts)[seg]
        grad = 2 * l2 * w + x.T @ (qw[seg] * (p - target))
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return Reranker(weights=w, mean=mean, scale=scale)


class _Lists:
    """Every usable question's pool stacked: rows, segment ids, targets, question weights."""

    def __init__(self, rows: Sequence[QueryRows], implicit_weight: float) -> None:
        usable = [r for r in rows if r.y.any()]
        self.x = np.concatenate([r.x for r in usable])
        sizes = np.array([len(r.y) for r in usable])
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        self.seg = np.repeat(np.arange(len(usable)), sizes)
        qw = np.array(
            [
                _WEIGHTS.get(r.source, implicit_weight) if r.source != "locomo" else 1.0
                for r in usable
            ]
        )
        self.qw = (qw / qw.sum())[self.seg]
        self.target = np.concatenate([r.y / r.y.sum() for r in usable])

    def softmax(self, s: np.ndarray) -> np.ndarray:
        e = np.exp(s - np.maximum.reduceat(s, self.starts)[self.seg])
        return e / np.add.reduceat(e, self.starts)[self.seg]


def _grow(
    binned: np.ndarray, edges: list[np.ndarray], g: np.ndarray, h: np.ndarray, levels: int,
    lam: float, lr: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """One complete tree by Newton steps: feature/threshold per internal node, every
    node's value (``-lr * G / (H + lam)``)."""
    internal = 2**levels - 1
    feat = np.zeros(internal, dtype=np.int64)
    thr = np.full(internal, np.inf)
    values = np.zeros(2 * internal + 1)
    node = np.zeros(binned.shape[0], dtype=np.int64)
    for i in range(2 * internal + 1):
        sel = node == i
        gs, hs = g[sel].sum(), h[sel].sum()
        values[i] = -lr * gs / (hs + lam)
        if i >= internal or sel.sum() < 20:
            continue
        best, pick = 0.0, None
        for f in range(binned.shape[1]):
            gb = np.bincount(binned[sel, f], g[sel], minlength=len(edges[f]) + 1).cumsum()
            hb = np.bincount(binned[sel, f], h[sel], minlength=len(edges[f]) + 1).cumsum()
            gain = gb**2 / (hb + lam) + (gs - gb) ** 2 / (hs - hb + lam) - gs**2 / (hs + lam)
            j = int(np.argmax(gain[:-1])) if gain.size > 1 else 0
            if gain.size > 1 and gain[j] > best:
                best, pick = float(gain[j]), (f, j)
        if pick is not None:
            feat[i], thr[i] = pick[0], edges[pick[0]][pick[1]]
            node[sel] = 2 * i + 1 + (binned[sel, pick[0]] > pick[1])
        else:
            node[sel] = 2 * i + 1
    return feat, thr, values


def fit_trees(
    rows: Sequence[QueryRows], *, implicit_weight: float, rounds: int = 120, levels: int = 3,
    lr: float = 0.1, lam: float = 1e-3, **_: float,
) -> TreeReranker:  # fmt: skip
    """Listwise (softmax over each pool) gradient boosting on 32 quantile bins per feature."""
    data = _Lists(rows, implicit_weight)
    edges = [np.unique(np.quantile(col, np.linspace(0, 1, 33)[1:-1])) for col in data.x.T]
    binned = np.stack(
        [np.searchsorted(e, col, side="left") for e, col in zip(edges, data.x.T, strict=True)],
        axis=1,
    )
    score = np.zeros(data.x.shape[0])
    trees = []
    for _round in range(rounds):
        p = data.softmax(score)
        g = data.qw * (p - data.target)
        h = data.qw * p * (1 - p) + 1e-12
        feat, thr, values = _grow(binned, edges, g, h, levels, lam, lr)
        trees.append((feat, thr, values))
        model = TreeReranker(feat[None], thr[None], values[None], levels)
        score = score + model.score(data.x)
    return TreeReranker(
        np.stack([t[0] for t in trees]), np.stack([t[1] for t in trees]),
        np.stack([t[2] for t in trees]), levels,
    )  # fmt: skip


def fit_record_trees(
    rows: Sequence[QueryRows], base: TreeReranker, *, rounds: int = 60, lr: float = 0.1,
    lam: float = 1e-3, **_: float,
) -> TreeReranker:  # fmt: skip
    """``base`` (the turns' trees, kept as they are) and trees that only records reach: each
    splits first on the ``record`` feature, its turn side all 0 (a turn's score is base's,
    to the bit, so LoCoMo and the implicit pairs cannot move), its record side a two-level
    tree boosted listwise from base's scores on the record pools in ``rows``. Their mean
    lift over the training records is taken off, so a record stays on base's scale beside
    the turns of a mixed pool; only the order among records changes."""
    data = _Lists([r for r in rows if r.x[:, FEATURES.index("record")].all()], 1.0)
    edges = [np.unique(np.quantile(col, np.linspace(0, 1, 33)[1:-1])) for col in data.x.T]
    binned = np.stack(
        [np.searchsorted(e, col, side="left") for e, col in zip(edges, data.x.T, strict=True)],
        axis=1,
    )
    score = base.score(data.x)
    rec, internal = FEATURES.index("record"), 2**base.levels - 1
    feats, thrs, vals = [], [], []
    for _round in range(rounds):
        p = data.softmax(score)
        g, h = data.qw * (p - data.target), data.qw * p * (1 - p) + 1e-12
        f2, t2, v2 = _grow(binned, edges, g, h, base.levels - 1, lam, lr)
        feat, thr = np.full(internal, rec), np.full(internal, np.inf)
        values = np.zeros(2 * internal + 1)
        thr[0] = 0.5
        for depth_nodes in _right_side(base.levels):
            for small, big in depth_nodes:
                if small < f2.shape[0]:
                    feat[big], thr[big] = f2[small], t2[small]
                values[big] = v2[small]
        feats.append(feat), thrs.append(thr), vals.append(values)
        one = TreeReranker(feat[None], thr[None], values[None], base.levels)
        score = score + one.score(data.x)
    extra = TreeReranker(np.stack(feats), np.stack(thrs), np.stack(vals), base.levels)
    right = [big for level in _right_side(base.levels) for _, big in level]
    vals[-1][right] -= float(extra.score(data.x).mean())  # the record side only
    return TreeReranker(
        np.concatenate([base.feature, np.stack(feats)]),
        np.concatenate([base.threshold, np.stack(thrs)]),
        np.concatenate([base.values, np.stack(vals)]), base.levels,
    )  # fmt: skip


def _turn_trees(path: Path) -> TreeReranker:
    """The trees of a weights file that are not record trees (their root splits on another
    feature), so fitting over the shipped file twice adds no second set."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rec = FEATURES.index("record")
    keep = [t for t, f in enumerate(data["feature"]) if f[0] != rec]
    return TreeReranker(
        np.asarray(data["feature"], dtype=np.int64)[keep],
        np.asarray(data["threshold"], dtype=np.float64)[keep],
        np.asarray(data["values"], dtype=np.float64)[keep], int(data["levels"]),
    )  # fmt: skip


def _with_record_trees(trainer: Any, base: TreeReranker | None = None) -> Any:
    """A trainer that fits ``trainer`` on the turns' rows (LoCoMo, implicit), or keeps
    ``base``, and then :func:`fit_record_trees` on the companion rows over it (issue 24)."""

    def fit_both(rows: Sequence[QueryRows], **kw: Any) -> Model:
        turns = [r for r in rows if r.source != "companion"]
        base_model = base if base is not None else trainer(turns, **kw)
        records = [r for r in rows if r.source == "companion"]
        return fit_record_trees(records, base_model) if records else base_model

    return fit_both


def _right_side(levels: int) -> list[list[tuple[int, int]]]:
    """Node numbers of a tree of ``levels - 1`` levels and where they sit under the right
    child (node 2) of a tree of ``levels`` levels, level by level."""
    out, small, big = [], [0], [2]
    for _ in range(levels):
        out.append(list(zip(small, big, strict=True)))
        small = [c for s in small for c in (2 * s + 1, 2 * s + 2)]
        big = [c for b in big for c in (2 * b + 1, 2 * b + 2)]
    return out


def recall(rows: Sequence[QueryRows], model: Model | None, k: int) -> float:
    """Mean recall@k; ``model`` None is the first stage (the pool's own order)."""
    out = []
    for r in rows:
        order = (
            np.arange(len(r.y)) if model is None else np.argsort(-model.score(r.x), kind="stable")
        )
        out.append(r.found(order, k))
    return float(np.mean(out)) if out else 0.0


def set_of(r: QueryRows) -> str:
    """The set a question's figures go under: its source, and for a companion moment the way
    it was asked (``companion message`` / ``companion conversation``)."""
    return f"{r.source} {WAYS[r.category]}" if r.source == "companion" else r.source


def loco(
    rows: Sequence[QueryRows], trainer: Any, folds: int = 0, **kw: float
) -> dict[str, dict[str, float]]:
    """Leave-one-conversation-out recall of the first stage and the re-ranker, per set (a
    companion "conversation" is a person: leave-one-person-out, per way of asking); with
    ``folds`` > 0, ``folds``-fold by conversation instead (the n-th conversation in sorted
    order is in fold n % folds): fewer models to fit, each on fewer conversations."""
    convs = sorted({r.conv for r in rows})
    fold_of = {c: (n % folds if folds > 0 else n) for n, c in enumerate(convs)}
    held: dict[str, list[tuple[QueryRows, Model]]] = {}
    for fold in sorted(set(fold_of.values())):
        model = trainer([r for r in rows if fold_of[r.conv] != fold], **kw)
        for r in rows:
            if fold_of[r.conv] == fold:
                held.setdefault(set_of(r), []).append((r, model))
    out: dict[str, dict[str, float]] = {}
    for source, pairs in held.items():
        qs = [r for r, _ in pairs]
        out[source] = {f"first R@{k}": round(recall(qs, None, k), 4) for k in (5, 10)}
        for k in (5, 10):
            got = [r.found(np.argsort(-m.score(r.x), kind="stable"), k)
                   for r, m in pairs]  # fmt: skip
            out[source][f"rerank R@{k}"] = round(float(np.mean(got)), 4)
    return out


def diagnose(rows: Sequence[QueryRows]) -> dict[str, object]:
    """Per set: pool recall (the ceiling), the first stage, each feature alone (R@10), and
    the spread of the top BM25 score (what the lexical evidence reads)."""
    out: dict[str, object] = {}
    col = FEATURES.index("bm25_log")
    for source in ("locomo", "implicit"):
        qs = [r for r in rows if r.source == source]
        alone = {}
        for j, name in enumerate(FEATURES):
            got = [r.found(np.argsort(-r.x[:, j], kind="stable"), 10)
                   for r in qs]  # fmt: skip
            alone[name] = round(float(np.mean(got)), 4)
        top = np.array([float(np.expm1(r.x[:, col].max())) for r in qs])
        out[source] = {
            "questions": len(qs),
            "pool recall": round(
                float(np.mean([r.found(np.arange(len(r.y)), len(r.y)) for r in qs])), 4
            ),
            "first R@10": round(recall(qs, None, 10), 4),
            "feature alone R@10": alone,
            "top bm25 quartiles": [
                round(float(q), 2) for q in np.percentile(top, [10, 25, 50, 75, 90])
            ],
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS)
    ap.add_argument("--cache", type=Path, default=None, help="embedding cache pickle")
    ap.add_argument("--dump", type=Path, default=None, help="save the collected pools here")
    ap.add_argument("--load", type=Path, default=None, help="use pools saved by --dump")
    ap.add_argument("--ablate", action="append", default=[], help="knob off while collecting")
    ap.add_argument("--facts", action="store_true", help="index the offline writer's records")
    ap.add_argument(
        "--companion", type=Path, default=DEFAULT_SET, help="companion set (dev moments)"
    )
    ap.add_argument("--no-companion", dest="companion", action="store_const", const=None)
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--implicit-weight", type=float, default=2.0)
    ap.add_argument("--companion-weight", type=float, default=2.0)
    ap.add_argument(
        "--base", type=Path, default=None,
        help="turn trees to keep as they are (e.g. the shipped weights): only record trees "
        "are fitted over them (their leave-one-out turn figures are those of their own run)",
    )  # fmt: skip
    ap.add_argument(
        "--joint", dest="record_trees", action="store_false",
        help="train records and turns in one model (default: record trees over turn trees)",
    )  # fmt: skip
    ap.add_argument("--no-loco", action="store_true", help="skip the held-out report")
    ap.add_argument(
        "--folds", type=int, default=0,
        help="held-out report by N folds of conversations (default: leave one out)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, default=WEIGHTS_FILE)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--model", choices=("trees", "linear"), default="trees")
    ap.add_argument("--rounds", type=float, default=120)
    ap.add_argument("--diagnose", action="store_true", help="per-feature recall, BM25 spread")
    args = ap.parse_args(argv)
    _WEIGHTS["companion"] = args.companion_weight
    rows = load_rows(args.load) if args.load else gather(args)
    if args.dump:
        save_rows(args.dump, rows)
    if args.diagnose:
        print(json.dumps(diagnose(rows), indent=1))
    kw: dict[str, Any] = {"implicit_weight": args.implicit_weight}
    if args.model == "trees":
        trainer: Any = fit_trees
        kw["rounds"] = int(args.rounds)
    else:
        trainer, kw["l2"] = fit, args.l2
    if args.model == "trees" and args.record_trees:
        trainer = _with_record_trees(trainer, _turn_trees(args.base) if args.base else None)
    if not args.no_loco:
        name = f"{args.folds}-fold by conversation" if args.folds > 0 else "loco"
        print(json.dumps({name: loco(rows, trainer, folds=args.folds, **kw)}, indent=1))
    if not args.no_write:
        model = trainer(rows, **kw)
        args.out.write_text(json.dumps(model.as_dict(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
