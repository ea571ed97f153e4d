"""Understanding by meaning (issue 23): values by light syntax, answers by slot, care lines."""

from __future__ import annotations

import dataclasses
import re
import zlib

import numpy as np
import pytest

from familiars.memory import MemoryRecord, answer_records, asks_unknown
from familiars.memory._offline._meaning import PARTS, Understanding, load_slot_model
from familiars.memory._offline._values import value_fact


@pytest.mark.parametrize(
    ("slot", "clause", "content"),
    [
        ("pet", "My golden retriever is called Pepper", "has a golden retriever called Pepper"),
        ("pet", "I have a cockatiel named Kiwi", "has a cockatiel called Kiwi"),
        ("family", "my husband is called Dev", "husband is called Dev"),
        ("family", "my missus Aoife is a nurse", "missus Aoife is a nurse"),  # not "missu"
        ("job", "I'm a plumber", "works as a plumber"),
        ("workplace", "I work for a small startup called Lumen", "works at Lumen"),
        ("home", "I'm based in Rotterdam", "lives in Rotterdam"),
        ("like", "I'm crazy about sushi", "likes sushi"),
        ("dislike", "I'm not big on parties", "doesn't like parties"),
        ("name", "hi im kwame", "name is Kwame"),
        ("job", "I fix teeth for a living", "The user fixes teeth for a living."),
        ("name", "hello hello, Siobhan speaking", "name is Siobhan"),
        ("pet", "Skye's my border collie", "has a border collie called Skye"),
        ("pet", "Dot is the greyhound I just adopted", "has a greyhound called Dot"),
        ("job", "I mend bikes for a living", "mends bikes for a living"),
        ("job", "I've been a welder for years", "works as a welder"),
        ("allergy", "oat milk doesn't agree with me", "reacts badly to oat milk"),
        ("allergy", "I'm intolerant to fructose", "is intolerant to fructose"),
        ("like", "I'm a massive Celtic fan", "likes Celtic"),
        ("like", "I'm really getting into pottery", "likes pottery"),
    ],
)
def test_values_are_read_by_general_syntax(slot: str, clause: str, content: str) -> None:
    facts = value_fact(slot, clause)
    assert facts and content in facts[0].content


def test_a_job_said_by_what_one_does_keeps_its_town_and_needs_a_cue_or_a_sure_slot() -> None:
    said = "I fix people's teeth for a living over in Bristol"  # where the work is, no home
    assert [f.content for f in value_fact("job", said)] == [
        "The user fixes people's teeth in Bristol for a living.",
    ]
    assert value_fact("job", "I teach primary school kids") == []
    assert value_fact("job", "I teach primary school kids", sure=True)[0].content == (
        "The user works as a teacher: teaches primary school kids for a living."
    )
    assert value_fact("job", "I walked the dog", sure=True) == []


@pytest.mark.parametrize(
    ("slot", "clause"),
    [
        ("pet", "my friend has a golden retriever called Max"),
        ("home", "They live in Berlin"),
        ("home", "I used to live in Paris"),
        ("name", "My name isn't important"),
        ("pet", "Max is my friend's golden retriever"),
        ("job", "my friend fixes cars for a living"),
        ("allergy", "my mate is allergic to cats"),
    ],
)
def test_someone_else_or_no_value_writes_nothing(slot: str, clause: str) -> None:
    assert value_fact(slot, clause) == []


def _bag(texts: list[str]) -> np.ndarray:
    """A deterministic bag-of-words embedder: enough to rank records by shared words."""
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            out[i, zlib.crc32(word.encode()) % 384] += 1.0
        out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
    return out


class _Asked(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return ("pet", 0.9) if "pet" in question or "dog" in question else ("none", 0.9)


def _rec(i: int, content: str, tags: list[str], *, deprecated: bool = False) -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category="relation", content=content, tags=tags,
        ts=f"2026-11-0{i}T10:00:00+00:00", deprecated=deprecated,
    )  # fmt: skip


def test_answers_by_slot_take_the_live_record_nearest_the_question() -> None:
    u = _Asked(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    records = [
        _rec(1, "The user has a dog called Rex.", ["pet"], deprecated=True),
        _rec(2, "The user has a dog called Pepper.", ["pet"]),
        _rec(3, "The user's sister is called Emma.", ["family"]),
    ]
    found = answer_records("what is my dog called?", records, u)
    assert [r.content for r in found] == ["The user has a dog called Pepper."]
    assert answer_records("how are you?", records, u) == []
    off = _Asked(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS) - {"answers"})
    assert answer_records("what is my dog called?", records, off) == []


class _AskedName(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return ("name", 0.95) if "my name" in question else ("pet", 0.95)


def test_a_sure_question_about_the_own_name_with_none_kept_is_unknown() -> None:
    u = _AskedName(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    others = [
        _rec(1, "The user has a border collie called Biscuit.", ["pet"]),
        _rec(2, "The user's husband is called Tom.", ["family"]),
    ]
    assert asks_unknown("what's my name?", others, u)
    assert not asks_unknown("what's my dog called?", others, u)
    named = [*others, _rec(3, "The user's name is Priyanka.", ["name"])]
    assert not asks_unknown("what's my name?", named, u)
    forgotten = [*others, _rec(3, "The user's name is Priyanka.", ["name"], deprecated=True)]
    assert asks_unknown("what's my name?", forgotten, u)


class _AskedAll(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return ("all", 0.95)


def test_what_do_you_know_about_me_keeps_the_name_and_every_slot() -> None:
    """Six newer likes and a pet must not push out the name (pinned or not) or the pet: the
    newest record of each slot is said before a second one of any."""
    u = _AskedAll(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    name = MemoryRecord(
        id="m_0", scope="user", category="profile", content="The user's name is Marta.",
        tags=["name"], ts="2026-10-01T10:00:00+00:00",
    )  # fmt: skip
    pet = _rec(1, "The user has a cat called Pixel.", ["pet"])
    likes = [
        MemoryRecord(
            id=f"m_l{i}",
            scope="user",
            category="preference",
            content=f"The user likes {w}.",
            tags=["likes"],
            ts=f"2026-11-2{i}T10:00:00+00:00",
        )  # fmt: skip
        for i, w in enumerate(["jazz", "tea", "chess", "figs", "kites", "owls"])
    ]
    said = [r.content for r in answer_records("what do you know about me?", [name, pet, *likes], u)]
    assert said[:3] == ["The user likes owls.", "The user has a cat called Pixel.", name.content]
    assert len(said) == 8  # all eight: fewer than MAX_ABOUT_ME (10)
    pinned = dataclasses.replace(name, pinned=True)
    said = [
        r.content for r in answer_records("what do you know about me?", [pinned, pet, *likes], u)
    ]
    assert said[0] == name.content


def test_reminders_in_half_an_hour_and_in_minutes() -> None:
    from datetime import UTC, datetime

    from familiars.memory import offline_writes

    now = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)
    for text, at in (
        ("remind me in half an hour to check the oven", "08:30"),
        ("remind me to stretch in 10 mins", "08:10"),
    ):
        writes = offline_writes(text, existing=[], now=now, timezone="Europe/Oslo").writes
        assert writes and f"at {at}" in writes[0].entry.content


class _AskedLike(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return "like", 0.95


def test_what_do_i_like_with_only_dislikes_kept_is_unknown_but_do_i_like_x_is_not() -> None:
    u = _AskedLike(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    dislikes = [_rec(1, "The user no longer likes bouldering.", ["dislikes", "topic:bouldering"])]
    assert asks_unknown("what do I like?", dislikes, u)
    assert not asks_unknown("do I like bouldering?", dislikes, u)
    likes = [*dislikes, _rec(2, "The user likes padel.", ["likes", "topic:padel"])]
    assert not asks_unknown("what do I like?", likes, u)


class _AskedFamily(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return "family", 0.95


def test_a_question_about_one_relative_is_not_answered_by_another() -> None:
    u = _AskedFamily(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    kin = [
        _rec(1, "The user's daughter is called Isla.", ["family"]),
        _rec(2, "The user's wife Priya is a midwife.", ["family"]),
    ]
    assert answer_records("what's my mum's name?", kin, u) == []
    assert asks_unknown("what's my mum's name?", kin, u)
    mum = [*kin, _rec(3, "The user's mother is called Brigid.", ["family"])]
    assert [r.content for r in answer_records("what's my mum called?", mum, u)] == [
        "The user's mother is called Brigid."
    ]
    assert not asks_unknown("what's my mum called?", mum, u)
    assert len(answer_records("who is in my family?", kin, u)) == 2


def test_a_word_for_several_relatives_finds_each() -> None:
    u = _AskedFamily(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    kin = [_rec(1, "The user's son is called Leo.", ["family"])]
    assert [r.content for r in answer_records("what's my kid's name?", kin, u)] == [
        "The user's son is called Leo."
    ]


@pytest.mark.parametrize(
    "clause", ["ok I'm off to bed", "im knackered", "I'm back", "im exhausted"]
)
def test_how_one_is_is_not_a_name(clause: str) -> None:
    assert value_fact("name", clause) == []


class _AskedJob(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return ("job", 0.95)


def test_a_question_naming_someone_else_is_never_answered_with_the_persons_own_fact() -> None:
    """'what does Theo do for work?' asks about Theo: the person's own job is not its answer
    (a tester got 'You work as a teacher' for it); Theo's own record is, when one is kept."""
    u = _AskedJob(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))
    name = _rec(1, "The user's name is Mia.", ["name"])
    mine = _rec(2, "The user works as a teacher.", ["job"])
    theo = _rec(3, "The user's boyfriend Theo is a firefighter.", ["family", "job"])
    assert answer_records("what does Theo do for work?", [name, mine], u) == []
    assert not asks_unknown("what does Theo do for work?", [name, mine], u)
    found = answer_records("what does Theo do for work?", [name, mine, theo], u)
    assert [r.content for r in found] == [theo.content]
    assert [r.content for r in answer_records("what does Mia do?", [name, mine], u)] == [
        mine.content
    ]
