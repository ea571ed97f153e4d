"""What a turn reads off the person's records is worked out once while the records are the
same (issue 20), and gives what reading them afresh each turn gave."""

from __future__ import annotations

from datetime import datetime, timedelta

from familiars.benchmarks import synthetic_facts
from familiars.bot._answers import may_answer
from familiars.bot._records_view import RecordItem, records_view
from familiars.memory import MemoryRecord, cut_text, is_live, make_record, utcnow

_CATEGORIES = ["profile", "preference", "relation", "knowledge", "event"]


def _records(n: int = 300) -> list[MemoryRecord]:
    known = [
        "The user's name is Ali.",
        "The user's sister is called Nadia.",
        "The user has a tabby called Miso.",
        "The user lives in Leeds.",
    ]
    texts = [*known, *synthetic_facts(n, seed=3)]
    return [
        make_record(t, scope="user", category=_CATEGORIES[i % 5], user_key="u1", ts=f"2026-{i:05d}")
        for i, t in enumerate(texts)
    ]


def test_the_same_records_in_a_new_list_find_the_same_view() -> None:
    records = _records()
    view = records_view(records)
    assert records_view(list(records)) is view
    assert records_view([*records, _records(1)[0]]) is not view
    assert records_view(records[:-1]) is not view


def test_the_items_are_the_records_that_may_answer() -> None:
    records = _records()
    texts = [cut_text(r.content) for r in records]
    for question in ("what's my sister called?", "who am I?", "what do I like?", "hi"):
        items = records_view(records).items_for(question)
        assert items == [RecordItem.of(records[i]) for i in may_answer(question, texts)]


def test_a_record_written_is_read_at_once() -> None:
    records = _records()
    assert "The user's brother is called Dev." not in records_view(records).kept(False)
    more = [*records, make_record("The user's brother is called Dev.", scope="user",
                                  category="relation", user_key="u1")]  # fmt: skip
    assert "The user's brother is called Dev." in records_view(more).kept(False)
    assert [i.text for i in records_view(more).items_for("what's my brother called?")][-1] == (
        "The user's brother is called Dev."
    )


def test_a_group_reply_speaks_from_no_private_record() -> None:
    shared = make_record("The team meets on Fridays.", scope="dialogue", category="knowledge",
                         dialogue_id="dialogue_1")  # fmt: skip
    view = records_view([*_records(10), shared])
    assert view.spoken(True) == [shared]
    assert view.kept(True) == []
    assert len(view.spoken(False)) == 15


def test_a_record_that_expired_is_left_out_though_the_records_are_the_same() -> None:
    """The clock is read each time: a reminder's TTL that ran out leaves it, unread again."""
    now = utcnow()
    gone = _timed("The user will water the plants.", now - timedelta(minutes=1))
    due = _timed("The user will call mum.", now + timedelta(hours=1))
    records = [*_records(5), gone, due]
    view = records_view(records)
    assert view.spoken(False) == [r for r in records if is_live(r)]
    assert "The user will call mum." in view.kept(False)
    assert "The user will water the plants." not in view.kept(False)


def _timed(text: str, expires: datetime) -> MemoryRecord:
    ttl = {"kind": "absolute", "expires_at": expires.isoformat()}
    return make_record(text, scope="user", category="event", user_key="u1", ttl=ttl)


def test_the_prompt_reads_the_newest_profile_and_pinned_records_stay() -> None:
    records = _records(100)
    pinned = records[0] = records[0].replace(pinned=True)  # a profile record, the oldest
    view = records_view(records)
    profile = [r for c in ("profile", "preference") for r in records if r.category == c]
    newest = view.newest(20, "user", "profile", "preference")
    assert newest == sorted(profile, key=lambda r: (r.pinned, r.ts))[-20:]
    assert pinned in newest
    assert view.of_scope("user", "profile", "preference") == profile
    assert view.ids_of("user", "profile", "preference") == {r.id for r in profile}
