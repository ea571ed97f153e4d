"""Ranking as side-effect-free functions, each with a name, and an ``explain`` breakdown.

The shared machinery of both rankers (recall in ``_recall_signals``, the file finder in
``_documents/knobs``):

- :class:`Signal`: one named part of a score (default weight, how to compute it, the
  ablation knob that switches it off, the profile stage it belongs to);
- :class:`SignalGate`: ablation and the deadline, decided in one place for every signal;
- :func:`compute_signals` / :func:`fuse`: run a signal list, add the weighted parts;
- :class:`KnobRegistry` / :func:`parse_knobs`: the names that can be switched off (unknown
  names raise :class:`UnknownKnobError`);
- :class:`Explain`: how one item's score was made.

Ablation is a setting (``recall.ablate``, ``files.ablate``), read once by the config loader.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

from familiars.memory._errors import UnknownKnobError

__all__ = ["UnknownKnobError"]  # re-exported for callers that import it from here

C = TypeVar("C")


@dataclass(frozen=True)
class Signal(Generic[C]):
    """One part of a score. ``compute(ctx)`` returns the part (an array over candidates, or a
    number for one file), or None where it does not apply. ``knob`` switches it off by name
    (``why`` says what it is for, for the knob registry); a ``stage`` signal runs only when
    the profile has that stage and time is left. A ``bonus`` is added as ``weight * value``
    and shown apart from the fused parts; a ``factor`` multiplies the score by ``weight``
    when its compute returns a true value."""

    name: str
    weight: float
    compute: Callable[[C], Any]
    knob: str | None = None
    why: str = ""
    stage: str | None = None
    bonus: bool = False
    factor: bool = False


@dataclass
class SignalValues:
    """What one run of a signal list gave, by part name: fused parts, bonuses (already
    weighted) and factors (the multipliers that fired)."""

    parts: dict[str, Any] = field(default_factory=dict)
    bonus: dict[str, Any] = field(default_factory=dict)
    factors: dict[str, float] = field(default_factory=dict)


def default_weights(signals: Iterable[Signal[Any]]) -> dict[str, float]:
    """Each signal's default weight, by its part name."""
    return {s.name: s.weight for s in signals}


def signal_knobs(signals: Iterable[Signal[Any]]) -> dict[str, str]:
    """The knobs the signals declare, with why each is there."""
    return {s.knob: s.why for s in signals if s.knob is not None}


class KnobRegistry(dict[str, str]):
    """Knob name -> why it makes sense; what ``ablate`` may name."""

    def parse(self, value: str | Sequence[str] | None) -> frozenset[str]:
        return parse_knobs(value, self)


@dataclass
class SignalGate:
    """Ablation and the deadline, decided once for every signal of one ranking: a knob is on
    unless ablated; a stage runs when the profile lists it and the clock is before
    ``deadline`` (else its name goes to ``dropped``, once)."""

    ablated: frozenset[str] = frozenset()
    stages: Sequence[str] = ()
    deadline: float = math.inf
    dropped: list[str] = field(default_factory=list)
    clock: Callable[[], float] = time.perf_counter
    _decided: dict[str, bool] = field(default_factory=dict)

    def on(self, knob: str | None) -> bool:
        return knob is None or knob not in self.ablated

    def stage(self, name: str) -> bool:
        """Whether stage ``name`` runs. Deciding it decides the profile's earlier stages
        too, at the same moment, so ``dropped`` lists stages in profile order (the tail)."""
        if name not in self.stages:
            return False
        if name not in self._decided:
            ok = self.clock() <= self.deadline
            for earlier in self.stages[: list(self.stages).index(name) + 1]:
                if earlier not in self._decided:
                    self._decided[earlier] = ok
                    if not ok:
                        self.dropped.append(earlier)
        return self._decided[name]

    def allows(self, signal: Signal[Any]) -> bool:
        if not self.on(signal.knob):
            return False
        return signal.stage is None or self.stage(signal.stage)


def compute_signals(signals: Sequence[Signal[C]], ctx: C, gate: SignalGate) -> SignalValues:
    """Run every signal the gate allows, in list order (a None value does not apply)."""
    out = SignalValues()
    for signal in signals:
        if not gate.allows(signal):
            continue
        value = signal.compute(ctx)
        if value is None:
            continue
        if signal.factor:
            if value:
                out.factors[signal.name] = signal.weight
        elif signal.bonus:
            out.bonus[signal.name] = signal.weight * value
        else:
            out.parts[signal.name] = value
    return out


def fuse(parts: Mapping[str, Any], weights: Mapping[str, float], start: Any = None) -> Any:
    """``start + sum(weights[name] * part)`` in the parts' order, keeping their dtype (the
    order and dtype are part of the result: ties break on the last bit)."""
    total = start
    for name, values in parts.items():
        term = weights.get(name, 0.0) * values
        total = term if total is None else total + term
    return total


def parse_knobs(value: str | Sequence[str] | None, known: Mapping[str, str]) -> frozenset[str]:
    """Knob names from ``"a,b"`` or a list; names ``known`` does not list raise
    :class:`UnknownKnobError`."""
    registry = known
    if value is None:
        return frozenset()
    items = value.split(",") if isinstance(value, str) else list(value)
    names = {item.strip() for item in items if item and item.strip()}
    unknown = sorted(names - set(registry))
    if unknown:
        raise UnknownKnobError(unknown, registry)
    return frozenset(names)


# --------------------------------------------------------------------------- similarity


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    na = float(np.linalg.norm(va))
    nb = float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(va @ vb) / (na * nb)


def cosine_all(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Cosine of ``vector`` to every row of ``matrix`` (rows assumed unit length)."""
    if matrix.shape[0] == 0:
        return np.zeros(0, dtype=np.float32)
    return matrix @ np.asarray(vector, dtype=matrix.dtype)


# --------------------------------------------------------------------------- decays


def recency_decay(dt_seconds: float | np.ndarray, tau: float) -> float | np.ndarray:
    """``exp(-max(0, dt) / tau)``: 1 for now, falling with age."""
    if isinstance(dt_seconds, np.ndarray):
        return np.exp(-np.maximum(dt_seconds, 0.0) / tau)
    return math.exp(-max(0.0, float(dt_seconds)) / tau)


def tree_decay(hops: float | np.ndarray, tau: float) -> float | np.ndarray:
    """``exp(-hops / tau)``; unreachable (``inf``) gives 0."""
    if isinstance(hops, np.ndarray):
        return np.exp(-hops / tau)
    return math.exp(-float(hops) / tau)


# --------------------------------------------------------------------------- fusion


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to 0-1; all-equal input gives zeros (no signal, not full marks)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values
    lo = float(values.min())
    hi = float(values.max())
    if hi <= lo:
        return np.zeros_like(values)
    return (values - lo) / (hi - lo)


def weighted_fusion(parts: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> np.ndarray:
    """``sum(weights[name] * parts[name])`` over the parts that have a weight."""
    total: np.ndarray | None = None
    for name, values in parts.items():
        w = weights.get(name, 0.0)
        if w == 0.0:
            continue
        term = w * np.asarray(values, dtype=np.float64)
        total = term if total is None else total + term
    if total is None:
        size = len(next(iter(parts.values()))) if parts else 0
        return np.zeros(size, dtype=np.float64)
    return total


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], k: int = 60, weights: Sequence[float] | None = None
) -> dict[str, float]:
    """RRF: each list adds ``weight / (k + rank)`` (rank from 1, weight 1 unless given) to
    the ids it holds."""
    fused: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else float(weights[i])
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + w / (k + rank)
    return fused


@dataclass(frozen=True)
class Explain:
    """How one item's score was made: each part's value, weight and contribution."""

    parts: dict[str, float]
    weights: dict[str, float]
    bonus: dict[str, float]
    factors: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        total = sum(self.contributions().values())
        for factor in self.factors.values():
            total *= factor
        return total

    def contributions(self) -> dict[str, float]:
        out = {name: self.weights.get(name, 0.0) * v for name, v in self.parts.items()}
        out.update(self.bonus)
        return out

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "total": round(self.total, 6),
            "parts": {k: round(v, 6) for k, v in self.parts.items()},
            "weights": dict(self.weights),
            "contributions": {k: round(v, 6) for k, v in self.contributions().items()},
        }
        if self.factors:
            out["factors"] = dict(self.factors)
        return out


def explain(
    parts: Mapping[str, float],
    weights: Mapping[str, float],
    bonus: Mapping[str, float] | None = None,
    factors: Mapping[str, float] | None = None,
) -> Explain:
    return Explain(
        parts={k: float(v) for k, v in parts.items()},
        weights={k: float(weights.get(k, 0.0)) for k in parts},
        bonus={k: float(v) for k, v in (bonus or {}).items()},
        factors={k: float(v) for k, v in (factors or {}).items()},
    )
