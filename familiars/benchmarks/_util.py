"""Helpers shared by the benchmarks: percentiles and synthetic chat-like text."""

from __future__ import annotations

import random

import numpy as np

# Quality benches lift the reader's time budgets out of reach, so a loaded machine drops no
# stage at random (bench locomo, bench companion).
BUDGET_MS = 60_000.0

_SUBJECTS = ["I", "My sister", "My partner", "My boss", "Our neighbour", "My friend Sam", "Grandma"]
_VERBS = ["loves", "hates", "is learning", "keeps talking about", "started", "gave up", "misses"]
_OBJECTS = [
    "hiking in the Alps",
    "sourdough baking",
    "jazz piano",
    "the night shift",
    "Italian lessons",
    "marathon training",
    "board games on Fridays",
    "the old apartment",
    "green tea",
    "chess",
    "gardening tomatoes",
    "a new job in Leeds",
    "the cat's vet visits",
    "climbing",
    "photography",
    "learning Rust",
    "the book club",
    "swimming at dawn",
    "vintage cameras",
    "spicy ramen",
]
_WHEN = ["since last spring", "every weekend", "after the move", "this month", "on Tuesdays", ""]


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def synthetic_facts(n: int, seed: int = 7) -> list[str]:
    """``n`` distinct, chat-like facts."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        sentence = (
            f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} "
            f"{rng.choice(_WHEN)}".strip()
        )
        out.append(f"{sentence} (note {i})")
    return out
