"""The person-tester's s32 findings on everyday wordings (T1 lists, T2 names put right, T3
"do I like X?", T14 short introductions, T18 health, T23 casual typing), each through the
offline writer (rules alone) or the answerer by meaning."""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime

import numpy as np
import pytest

from familiars.memory import MemoryRecord, answer_records, asks_unknown, offline_writes
from familiars.memory._offline._meaning import PARTS, Understanding, load_slot_model

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _said(text: str, existing: list[MemoryRecord] | None = None) -> list[str]:
    writes = offline_writes(text, existing=existing or [], now=NOW, timezone="Europe/London")
    return [f"{w.op} {w.entry.content}" for w in writes.writes]


def _rec(i: int, content: str, tags: list[str], category: str = "relation") -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=category, content=content, tags=tags,
        ts=f"2026-11-0{i}T10:00:00+00:00",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "I have a daughter called Lily and a son called Sam.",
            ["add The user has a daughter called Lily.", "add The user has a son called Sam."],
        ),
        (
            "we've got a cat and a rabbit called Tom and Jerry",
            ["add The user has a cat called Tom.", "add The user has a rabbit called Jerry."],
        ),
        (
            "We also have a ginger cat called Marmalade and a beagle named Rufus.",
            [
                "add The user has a ginger cat called Marmalade.",
                "add The user has a beagle called Rufus.",
            ],
        ),
        (
            "I live in Manchester with my husband Tom and our two kids, Lily who is 7 and Sam "
            "who is 4.",
            [
                "add The user lives in Manchester.",
                "add The user's husband is called Tom.",
                "add The user has two kids called Lily and Sam.",
            ],
        ),
    ],
)
def test_every_one_of_a_list_is_kept(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("my dogs name is biscuit", ["add The user has a dog called Biscuit."]),
        ("my dogs called rex", ["add The user has a dog called Rex."]),
        (
            "ive got 2 cats called salt and pepper",
            ["add The user has a cat called Salt.", "add The user has a cat called Pepper."],
        ),
    ],
)
def test_lower_case_without_apostrophes_reads_like_the_careful_spelling(
    text: str, wanted: list[str]
) -> None:
    assert _said(text) == wanted


def test_a_name_put_right_supersedes_the_wrong_one_instead_of_adding_a_second() -> None:
    tom = _rec(1, "The user's husband is called Tom.", ["family", "topic:tom"])
    out = offline_writes(
        "Sorry, I got that wrong, my husband's name is Tim not Tom.",
        existing=[tom], now=NOW,
    ).writes  # fmt: skip
    assert [(w.op, w.entry.content, w.entry.supersedes_id) for w in out] == [
        ("update", "The user's husband is called Tim.", "m_1")
    ]
    jon = _rec(1, "The user's brother is called Jon.", ["family", "topic:jon"])
    assert _said("sorry, it's John not Jon", [jon]) == ["update The user's brother is called John."]
    assert _said("no wait, not Jon, it's John", [jon]) == [
        "update The user's brother is called John."
    ]
    rex = _rec(1, "The user has a dog called Rex.", ["pet", "topic:rex"])
    rex.ts = "2026-11-30T12:58:00+00:00"  # "I meant Max" puts right only a name just said
    assert _said("I meant Max", [rex]) == ["update The user has a dog called Max."]
    for not_a_correction in ("it's Friday", "sorry, it's raining", "I meant it", "i meant well"):
        assert not any("update" in w for w in _said(not_a_correction, [rex]))

    jerry = _rec(1, "The user has a rabbit called Jerry.", ["pet", "topic:jerry"])
    assert not any("update" in w for w in _said("I like Tom, not Jerry", [jerry]))


def test_only_a_name_after_called_is_capitalised_and_only_ones_own_medicine_is_kept() -> None:
    assert _said("im a nurse") == ["add The user works as a nurse."]
    assert _said("i got called in to work") == []
    assert _said("I use an inhaler for my asthma") == [
        "add The user uses an inhaler for their asthma."
    ]
    assert _said("I take the bus every day") == []
    assert _said("I'm on holiday") == []
    assert _said("my mum takes metformin") == []


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I have asthma and eczema", ["add The user has asthma.", "add The user has eczema."]),
        ("I take metformin twice a day.", ["add The user takes metformin twice a day."]),
        ("I'm on 20mg of citalopram", ["add The user takes 20mg of citalopram."]),
        (
            "I was diagnosed with type 2 diabetes last year.",
            ["add The user was diagnosed with type 2 diabetes."],
        ),
    ],
)
def test_conditions_and_medicines_are_kept_each_one(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted


def test_a_short_introduction_keeps_age_and_job_and_no_home_from_the_works_town() -> None:
    said = _said("hey, I'm Raj, 34, software developer at a small startup in Bristol")
    assert said == [
        "add The user's name is Raj.",
        "add The user is 34 years old.",
        "add The user works as a software developer.",
    ]
    assert _said("I'm 34 years old.") == ["add The user is 34 years old."]
    assert _said("I'm 5 minutes away") == []
    dev = _rec(1, "The user works as a software developer.", ["job"], "profile")
    assert _said("I quit the startup last week, I'm freelancing now", [dev]) == [
        "update The user works as a freelancer."
    ]
    assert _said("I'm driving now") == []


def _bag(texts: list[str]) -> np.ndarray:
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            out[i, zlib.crc32(word.encode()) % 384] += 1.0
        out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
    return out


class _AskedLike(Understanding):
    def asked(self, question: str) -> tuple[str, float]:
        return ("like", 0.95) if "like" in question else ("pet", 0.95)


def _understanding() -> Understanding:
    return _AskedLike(embed=_bag, model=load_slot_model(), parts=frozenset(PARTS))


def test_do_i_like_x_is_answered_by_the_record_of_x_not_another_like() -> None:
    kept = [
        _rec(1, "The user likes sourdough baking.", ["likes", "topic:sourdough-baking"]),
        _rec(2, "The user doesn't like hiking.", ["dislikes", "topic:hiking"]),
    ]
    u = _understanding()
    assert [r.content for r in answer_records("do I like hiking?", kept, u)] == [
        "The user doesn't like hiking."
    ]
    assert answer_records("do I like jazz?", kept, u) == []
    assert asks_unknown("do I like jazz?", kept, u)


def test_health_questions_list_every_condition_and_the_medicines() -> None:
    kept = [
        _rec(
            1, "The user was diagnosed with type 2 diabetes.", ["allergy", "condition"], "profile"
        ),
        _rec(2, "The user takes metformin twice a day.", ["allergy", "medication"], "profile"),
        _rec(3, "The user has asthma.", ["allergy", "condition"], "profile"),
    ]
    u = _understanding()
    conditions = answer_records("what health conditions do I have?", kept, u)
    assert {r.id for r in conditions} == {"m_1", "m_3"}
    assert [r.id for r in answer_records("what medication do I take?", kept, u)] == ["m_2"]
    assert [r.id for r in answer_records("how old am I?", kept, u)] == []
    assert asks_unknown("how old am I?", kept, u)


def test_what_is_my_dog_called_is_answered_by_the_beagle() -> None:
    kept = [
        _rec(1, "The user has a ginger cat called Marmalade.", ["pet", "topic:marmalade"]),
        _rec(2, "The user has a beagle called Rufus.", ["pet", "topic:rufus"]),
    ]
    said = [r.content for r in answer_records("what's my dog's name?", kept, _understanding())]
    assert said == ["The user has a beagle called Rufus."]
