"""Lead's s33 tmux session: "we're going to Lanzarote in May", then "scratch that, we're going
to Tenerife in May" kept both plans live ("where am I going on holiday?" named both). The new
fact now takes the place of the one just kept, of its kind; an old record, or one of another
kind, is left alone."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.memory import MemoryRecord, offline_writes

NOW = datetime(2026, 12, 7, 7, 0, tzinfo=UTC)


def _kept(text: str, ts: str) -> MemoryRecord:
    [write] = offline_writes(text, existing=[], now=NOW).writes
    return MemoryRecord(
        id="m1", scope="user", category=write.category, content=write.entry.content,
        tags=list(write.entry.tags), user_key="u", ts=ts,
    )  # fmt: skip


def _after(rec: MemoryRecord, text: str) -> list[tuple[str, str, str | None]]:
    out = offline_writes(text, existing=[rec], now=NOW)
    return [(w.op, w.entry.content, w.entry.supersedes_id) for w in out.writes if w.op != "skip"]


def test_scratch_that_and_a_new_plan_replaces_the_plan_just_kept() -> None:
    plan = _kept("we're going to Lanzarote in May", "2026-12-07T06:58:00+00:00")
    [(op, content, replaced)] = _after(plan, "scratch that, we're going to Tenerife in May")
    assert (op, replaced) == ("update", "m1") and "Tenerife" in content


def test_a_plan_kept_long_ago_is_not_replaced() -> None:
    plan = _kept("we're going to Lanzarote in May", "2026-11-01T10:00:00+00:00")
    [(op, content, replaced)] = _after(plan, "scratch that, we're going to Tenerife in May")
    assert (op, replaced) == ("add", None) and "Tenerife" in content


def test_without_scratch_that_both_plans_stay() -> None:
    plan = _kept("we're going to Lanzarote in May", "2026-12-07T06:58:00+00:00")
    [(op, _content, replaced)] = _after(plan, "we are going to Tenerife in August too")
    assert (op, replaced) == ("add", None)


def test_a_fact_of_another_kind_takes_no_place() -> None:
    pet = _kept("my cat is called Pip", "2026-12-07T06:58:00+00:00")
    [(op, content, replaced)] = _after(pet, "forget that, my husband is called Tim")
    assert (op, replaced) == ("add", None) and "Tim" in content


def test_oh_wait_scratch_that_is_read_too() -> None:
    """The same session: "oh wait scratch that, ..." kept nothing ("I see. Tell me more?")."""
    plan = _kept("we're off to Lanzarote in May", "2026-12-07T06:58:00+00:00")
    [(op, content, replaced)] = _after(plan, "oh wait scratch that, we're going to Tenerife in May")
    assert (op, replaced) == ("update", "m1") and "Tenerife" in content
