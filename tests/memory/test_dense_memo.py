"""The recall index keeps the last query's cosines until a row changes: a message checked
for its topic and then ranked with the same vector costs one product over every row."""

from __future__ import annotations

import numpy as np
import pytest

from familiars.memory._search_index import Doc, RecallIndex


def _doc(key: str) -> Doc:
    return Doc(key=key, kind="record", group="user:u", text=f"text of {key}", timestamp=0.0)


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_the_memo_is_the_product_and_follows_every_change() -> None:
    index = RecallIndex(3)
    index.add(_doc("a"), _unit([1, 0, 0]))
    index.add(_doc("b"), _unit([0, 1, 0]))
    q = _unit([1, 1, 0])
    first = index.dense_all(q)
    assert index.dense_all(q.copy()) is first  # same vector: the kept one
    assert np.array_equal(first, index.matrix @ q)
    with pytest.raises(ValueError):
        first[0] = 5.0  # read-only: a caller cannot spoil it for the next
    assert index.dense_all(_unit([0, 0, 1])) is not first  # another vector
    index.add(_doc("c"), _unit([0, 0, 1]))  # a row added
    assert index.dense_all(q).tolist() == pytest.approx([0.7071, 0.7071, 0.0], abs=1e-4)
    index.add(_doc("a"), _unit([0, 0, 1]))  # a row replaced (its vector changed)
    got = index.dense_all(q)
    assert np.array_equal(got, index.matrix @ q)
    index.forget("b")  # a row forgotten: its vector wiped
    assert index.dense_all(q)[1] == 0.0


def test_the_allowed_mask_is_kept_until_a_row_changes() -> None:
    index = RecallIndex(3)
    index.add(_doc("a"), _unit([1, 0, 0]))
    index.add(Doc(key="n", kind="record", group="user:v", text="hers", timestamp=0.0),
              _unit([0, 1, 0]))  # fmt: skip
    groups = ["user:u", "identity:agent_0"]
    first = index.allowed_mask(groups)
    assert first.tolist() == [True, False]
    assert index.allowed_mask(list(groups)) is first  # the same groups: the kept one
    with pytest.raises(ValueError):
        first[1] = True  # read-only: a caller cannot widen it for the next
    assert index.allowed_mask(["user:v"]).tolist() == [False, True]
    index.add(_doc("b"), _unit([0, 0, 1]))  # a row added
    assert index.allowed_mask(groups).tolist() == [True, False, True]
    index.remove("a")  # a row removed
    assert index.allowed_mask(groups).tolist() == [False, False, True]
    index.forget("b")
    assert not index.allowed_mask(groups).any()


def test_a_kept_product_follows_added_rows_and_is_worked_out_again_after_a_forget() -> None:
    """The conversation read ahead keeps its cosines from turn to turn: rows added since
    are worked out alone, a forget (a wiped vector) works out all again."""
    index = RecallIndex(3)
    index.add(_doc("a"), _unit([1, 0, 0]))
    index.add(_doc("b"), _unit([0, 1, 0]))
    q = _unit([1, 1, 0])
    first = index.dense_kept(q)
    assert index.dense_kept(q.copy()) is first
    with pytest.raises(ValueError):
        first[0] = 5.0
    index.add(_doc("c"), _unit([0, 0, 1]))  # a row added
    index.add(_doc("a"), _unit([0, 1, 1]))  # a row replaced: a new row, the old one dead
    grown = index.dense_kept(q)
    assert grown[:2].tolist() == first.tolist()  # the rows before are not worked out again
    assert grown.tolist() == pytest.approx((index.matrix @ q).tolist(), abs=1e-6)
    index.forget("b")
    assert index.dense_kept(q).tolist() == pytest.approx((index.matrix @ q).tolist(), abs=1e-6)
    assert index.dense_kept(q)[1] == 0.0
    other = _unit([0, 0, 1])
    assert index.dense_kept(other).tolist() == pytest.approx((index.matrix @ other).tolist())


def test_kept_cosines_are_what_the_next_dense_all_of_their_vector_gives() -> None:
    index = RecallIndex(3)
    index.add(_doc("a"), _unit([1, 0, 0]))
    q = _unit([1, 1, 0])
    values = index.matrix @ q
    index.keep_dense(q, values)
    assert index.dense_all(q.copy()) is values
    index.add(_doc("b"), _unit([0, 1, 0]))  # the rows changed: worked out again
    assert index.dense_all(q) is not values
