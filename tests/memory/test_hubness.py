"""The hub table against a brute-force neighbour search: lists computed on demand, rows that
join later offered to them, removed rows leaving every list, the bounded reference set, and
what the index reads."""

from __future__ import annotations

import numpy as np
import pytest

from familiars.memory._hubness import HubTable
from familiars.memory._search_index import Doc, RecallIndex


def _unit(rng: np.random.Generator, n: int, dim: int = 16) -> np.ndarray:
    m = rng.normal(size=(n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _brute(m: np.ndarray, alive: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros(len(m))
    for i in np.nonzero(alive)[0]:
        sims = m @ m[i]
        sims[i] = -np.inf
        sims[~alive] = -np.inf
        top = np.sort(sims[np.isfinite(sims)])[::-1][:k]
        out[i] = top.mean() if top.size else 0.0
    return out


def test_on_demand_then_joined_then_removed_match_brute_force() -> None:
    rng = np.random.default_rng(7)
    m = _unit(rng, 400)
    alive = np.ones(400, dtype=bool)
    table = HubTable(k=5)
    for row in range(300):
        table.added(row)
    got = table.values(np.arange(300), m[:300], alive[:300])
    assert got == pytest.approx(_brute(m[:300], alive[:300], 5), abs=1e-5)
    for row in range(300, 330):  # offered to the lists already computed
        table.added(row)
    got = table.values(np.arange(330), m[:330], alive[:330])
    assert got == pytest.approx(_brute(m[:330], alive[:330], 5), abs=1e-5)
    gone = [3, 77, 301]
    alive[gone] = False
    for row in gone:
        table.removed(row)
    got = table.values(np.arange(330), m[:330], alive[:330])
    want = _brute(m[:330], alive[:330], 5)
    assert got[alive[:330]] == pytest.approx(want[alive[:330]], abs=1e-5)


def test_a_lone_row_has_no_hub_value() -> None:
    table = HubTable(k=3)
    table.added(0)
    m = _unit(np.random.default_rng(0), 1)
    assert table.values(np.array([0]), m, np.ones(1, dtype=bool)).tolist() == [0.0]


def test_a_generic_message_is_a_hub_in_the_index() -> None:
    """A vector near every other one gets a higher hub value than an outlier."""
    rng = np.random.default_rng(1)
    index = RecallIndex(8)
    centre = np.ones(8, dtype=np.float32) / np.sqrt(8)
    vectors = [centre + 0.3 * rng.normal(size=8).astype(np.float32) for _ in range(20)]
    vectors.append(-centre)  # the outlier
    for i, v in enumerate(vectors):
        doc = Doc(key=f"n{i}", kind="node", group="g", text=f"I said thing {i}", timestamp=i)
        index.add(doc, v / np.linalg.norm(v))
    hubs = index.hub_values(np.arange(len(index)))
    assert hubs[-1] < hubs[:-1].min()


def test_a_forgotten_row_leaves_no_similarity_behind() -> None:
    rng = np.random.default_rng(2)
    index = RecallIndex(8)
    for i, v in enumerate(_unit(rng, 30, 8)):
        index.add(Doc(key=f"n{i}", kind="node", group="g", text="x", timestamp=i), v)
    index.hub_values(np.arange(30))
    index.forget("n4")
    index.hub_values(np.arange(30))
    table = index.hubs
    assert not (table._ids[:30] == 4).any()


def test_the_reference_set_bounds_the_search() -> None:
    """Past ``reference`` rows, neighbours come from the rows that joined while there was
    room; a row leaving makes room for the next one."""
    rng = np.random.default_rng(5)
    m = _unit(rng, 120)
    alive = np.ones(120, dtype=bool)
    table = HubTable(k=4, reference=50)
    for row in range(120):
        table.added(row)
    got = table.values(np.arange(120), m, alive)
    ref = np.zeros(120, dtype=bool)
    ref[:50] = True
    want = np.array([np.sort(np.where(ref & (np.arange(120) != i), m @ m[i], -np.inf))[-4:].mean()
                     for i in range(120)])  # fmt: skip
    assert got == pytest.approx(want, abs=1e-5)
    alive[7] = False
    table.removed(7)
    table.added(120 - 1)  # already alive, not in the reference: it takes the free place
    got = table.values(np.arange(120), m, alive)
    ref[7], ref[119] = False, True
    want = np.array([np.sort(np.where(ref & (np.arange(120) != i), m @ m[i], -np.inf))[-4:].mean()
                     for i in range(120)])  # fmt: skip
    assert got[alive] == pytest.approx(want[alive], abs=1e-5)


def test_values_worked_out_ahead_are_the_ones_recall_would_compute() -> None:
    """A running bot warms the table in the background (rows in steps, some joining and
    leaving between steps); recall then reads the same values a cold table computes."""
    rng = np.random.default_rng(11)
    m = _unit(rng, 500)
    alive = np.ones(500, dtype=bool)
    warm, cold = HubTable(k=5, reference=350), HubTable(k=5, reference=350)
    for row in range(300):
        warm.added(row)
        cold.added(row)
    assert warm.warm(m[:300], alive[:300], 128) == 128
    for row in range(300, 420):
        warm.added(row)
        cold.added(row)
    alive[[5, 301]] = False
    for table in (warm, cold):
        table.removed(5)
        table.removed(301)
    while warm.warm(m[:420], alive[:420], 128):
        pass
    assert warm.warm(m[:420], alive[:420], 128) == 0  # every live row is current
    rows = np.nonzero(alive[:420])[0]
    got = warm.values(rows, m[:420], alive[:420])
    assert got == pytest.approx(cold.values(rows, m[:420], alive[:420]), abs=1e-6)


async def test_the_index_warms_its_hub_values_in_steps() -> None:
    index = RecallIndex(16)
    vectors = _unit(np.random.default_rng(3), 40)
    for i, vec in enumerate(vectors):
        index.add(Doc(key=f"m_{i}", kind="record", group="user:a", text="", timestamp=0.0), vec)
    assert await index.awarm_hubs(step=16) == 40
    assert await index.awarm_hubs(step=16) == 0
