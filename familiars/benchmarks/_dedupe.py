"""``familiars bench dedupe``: does dedupe tell the same fact in other words from a different fact?

The data is ``data/dedupe_pairs.jsonl``: hand-written pairs of memory texts (``old``, ``new``)
labelled ``reword`` (must merge), ``update`` (same slot, new value: a change, must not merge
as a copy) or ``distinct`` (a near miss: "red" / "white" wine, must not merge), each in split
``dev`` (rules were tuned on it) or ``held`` (never looked at while tuning).

Both texts of every pair are embedded with the given model. Per split and per label the
report gives the share merged by :func:`~familiars.memory._fact_identity.same_fact` (cosine
plus word rules) and, as the baseline in the same run, by cosine alone (the writer today):
``reword`` should be high, ``update`` and ``distinct`` 0. ``wrong_merges`` lists what the
rules merged that they should not have.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from familiars.memory import Embedder, same_fact
from familiars.terminal import fail, get_ctx, print_json, print_table, want_json

DEFAULT_PAIRS = Path(__file__).parent / "data" / "dedupe_pairs.jsonl"
LABELS = ("reword", "update", "distinct")
SPLITS = ("dev", "held")


@dataclass(frozen=True)
class Pair:
    old: str
    new: str
    label: str
    split: str
    kind: str


def load_pairs(path: Path) -> list[Pair]:
    """Every pair of the JSONL file; a bad line raises ValueError naming its number."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            pair = Pair(raw["old"], raw["new"], raw["label"], raw["split"], raw.get("kind", ""))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a pair ({exc})") from exc
        if pair.label not in LABELS or pair.split not in SPLITS:
            raise ValueError(f"{path}:{number}: label {pair.label!r} / split {pair.split!r}")
        pairs.append(pair)
    return pairs


def pair_cosines(embedder: Embedder, pairs: list[Pair]) -> np.ndarray:
    """Cosine of old and new for each pair (the embedder returns unit vectors)."""
    if not pairs:
        return np.zeros(0, dtype=np.float32)
    old = embedder.embed_batch([p.old for p in pairs])
    new = embedder.embed_batch([p.new for p in pairs])
    return np.asarray((old * new).sum(axis=1), dtype=np.float32)


def _shares(pairs: list[Pair], merged: list[bool]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for label in LABELS:
        flags = [m for p, m in zip(pairs, merged, strict=True) if p.label == label]
        count = sum(flags)
        share = round(count / len(flags), 3) if flags else 0.0
        out[label] = {"pairs": len(flags), "merged": count, "share": share}
    return out


def run_dedupe_bench(
    embedder: Embedder, pairs_path: Path, split: str, *, threshold: float = 0.85
) -> dict[str, Any]:
    """Merge shares per label for the pairs of ``split``: rules next to cosine alone."""
    pairs = [p for p in load_pairs(pairs_path) if p.split == split]
    cosines = [float(c) for c in pair_cosines(embedder, pairs)]
    matches = [
        same_fact(p.old, p.new, c, threshold=threshold) for p, c in zip(pairs, cosines, strict=True)
    ]
    by_rules = [m.same for m in matches]
    by_cosine = [c >= threshold for c in cosines]
    wrong = [
        {"old": p.old, "new": p.new, "label": p.label, "cosine": round(c, 3), "reason": m.reason}
        for p, c, m in zip(pairs, cosines, matches, strict=True)
        if m.same and p.label != "reword"
    ]
    return {
        "split": split,
        "pairs": len(pairs),
        "threshold": threshold,
        "model": embedder.model_name,
        "rules": _shares(pairs, by_rules),
        "cosine_alone": _shares(pairs, by_cosine),
        "wrong_merges": wrong,
    }


def _rows(report: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for label in LABELS:
        rules, cosine = report["rules"][label], report["cosine_alone"][label]
        rows.append(
            [report["split"], label, rules["pairs"], f"{rules['merged']} ({rules['share']})",
             f"{cosine['merged']} ({cosine['share']})"]
        )  # fmt: skip
    return rows


def command(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option("--data", help="Labelled pairs (JSONL).")] = DEFAULT_PAIRS,
    splits: Annotated[str, typer.Option("--split", help="Splits, comma separated.")] = "dev,held",
    threshold: Annotated[
        float | None,
        typer.Option("--threshold", help="Cosine gate (default: memory.dedupe_cosine)."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Rewordings merged, updates and near-miss facts wrongly merged: rules vs cosine alone."""
    wanted = [s.strip() for s in splits.split(",") if s.strip()]
    if not wanted or set(wanted) - set(SPLITS):
        fail(f"--split takes {', '.join(SPLITS)}")
    if not data.is_file():
        fail(f"no data file {data}")
    try:
        load_pairs(data)
    except ValueError as exc:
        fail(str(exc))
    from familiars.memory import embedder_from_settings

    settings = get_ctx(ctx).settings
    gate = settings.memory.dedupe_cosine if threshold is None else threshold
    embedder = embedder_from_settings(settings)
    reports = {s: run_dedupe_bench(embedder, data, s, threshold=gate) for s in wanted}
    if want_json(ctx, json_out):
        print_json({"threshold": gate, "model": embedder.model_name, "splits": reports})
        return
    print_table(
        f"dedupe at cosine {gate} ({embedder.model_name}): merged (share)",
        ["split", "label", "pairs", "rules", "cosine alone"],
        [row for report in reports.values() for row in _rows(report)],
    )
