"""Retrain the offline writer's slot model (familiars/memory/_offline/meaning_weights.json).

    python scripts/train_meaning.py            # embed, fit, report, write
    python scripts/train_meaning.py --no-write # report only
    python scripts/train_meaning.py --no-cv    # fit and write, no cross-validation

Training sentences: the labelled exemplars beside the weights (``meaning_exemplars.jsonl``)
and the one-kind messages of the writer bench's ``dev`` split (their kind read as a slot;
plans, dates, reminders and notes as ``none``: the rules own them). The held splits (``held``,
``fresh``, ``paraphrase``) are never read here. The model is a softmax regression on the
bundled all-MiniLM-L6-v2 sentence vectors, numpy only, full-batch gradient descent with L2;
the report is 5-fold cross-validated accuracy on the training sentences.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from familiars.benchmarks._writer_bench import DEFAULT_DATA, load_messages  # noqa: E402
from familiars.memory import load_embedder, use_offline_models  # noqa: E402
from familiars.memory._offline._meaning import (  # noqa: E402
    EXEMPLARS_FILE,
    MODEL_NAME,
    QUESTION_SLOTS,
    SLOTS,
    WEIGHTS_FILE,
    SlotModel,
)

KIND_SLOT = {
    "name": "name",
    "nickname": "name",
    "job": "job",
    "workplace": "workplace",
    "place": "home",
    "pet": "pet",
    "family": "family",
    "like": "like",
    "dislike": "dislike",
    "allergy": "allergy",
    "none": "none",
    "plan": "none",
    "birthday": "none",
    "reminder": "none",
    "remember": "none",
}


def training_sentences() -> list[tuple[str, str]]:
    pairs = []
    for line in EXEMPLARS_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            pairs += [(t, row["slot"]) for t in row.get("texts", ()) if "slot" in row]
    for msg in load_messages(DEFAULT_DATA, "dev"):
        if len(msg.kinds) == 1 and msg.kinds[0] in KIND_SLOT:
            pairs.append((msg.text, KIND_SLOT[msg.kinds[0]]))
    return pairs


def questions() -> list[tuple[str, str]]:
    pairs = []
    for line in EXEMPLARS_FILE.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        pairs += [(t, row["question"]) for t in row.get("texts", ()) if "question" in row]
    return pairs


def fit(
    x: np.ndarray,
    y: np.ndarray,
    labels: tuple[str, ...],
    *,
    l2: float = 1e-4,
    steps: int = 3000,
) -> SlotModel:
    k = len(labels)
    w = np.zeros((x.shape[1], k), dtype=np.float64)
    b = np.zeros(k, dtype=np.float64)
    onehot = np.eye(k)[y]
    counts = onehot.sum(axis=0)
    weight = (len(y) / (k * np.maximum(counts, 1)))[y][:, None]  # balance the slots
    lr = 2.0
    for _ in range(steps):
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * weight / len(y)
        w -= lr * (x.T @ g + l2 * w)
        b -= lr * g.sum(axis=0)
    return SlotModel(labels, w.astype(np.float32), b.astype(np.float32), MODEL_NAME)


def cross_validate(x: np.ndarray, y: np.ndarray, labels: tuple[str, ...], folds: int = 5) -> float:
    order = np.random.default_rng(0).permutation(len(y))
    right = 0
    for f in range(folds):
        test = order[f::folds]
        train = np.setdiff1d(order, test)
        model = fit(x[train], y[train], labels)
        right += int((model.probabilities(x[test]).argmax(axis=1) == y[test]).sum())
    return right / len(y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--no-cv", action="store_true", help="Skip the 5-fold report (faster).")
    args = parser.parse_args()
    use_offline_models()
    embedder = load_embedder("sentence-transformers/" + MODEL_NAME, backend="torch")
    out: dict[str, object] = {"model": MODEL_NAME}
    for part, pairs, labels in (
        ("clauses", training_sentences(), SLOTS),
        ("questions", questions(), QUESTION_SLOTS),
    ):
        x = embedder.embed_batch([t.lower() for t, _ in pairs]).astype(np.float64)
        y = np.array([labels.index(s) for _, s in pairs])
        if not args.no_cv:
            accuracy = cross_validate(x, y, labels)
            print(f"{part}: {len(pairs)} sentences; 5-fold accuracy {accuracy:.3f}")
        out[part] = fit(x, y, labels).to_json()
    if not args.no_write:
        WEIGHTS_FILE.write_text(json.dumps(out) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
