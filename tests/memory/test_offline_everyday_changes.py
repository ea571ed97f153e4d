"""s36 person-test: changes of mind missed or garbled. "I've packed in the buses, I'm a train
driver on the Overground now" kept nothing (a job said with where it is done), "upped
sticks from Walthamstow to Margate, sea air and all that" nothing (a comment after the new
place), "decided to give up gardening" nothing, "moved from Lyon to Grenoble the last month"
a home "Grenoble the", "I don't work more in the hospital, I change to work in a pharmacy"
nothing, and "I am working like nurse in the hospital" no job. Each through the offline
writer with understanding by meaning, against the record the person had."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
BUS = ("The user works as a bus driver.", "profile", ["job"])
HOME = ("The user lives in Walthamstow.", "profile", ["home"])
HOSPITAL = ("The user works at the hospital.", "profile", ["work"])
GARDENING = ("The user likes gardening.", "preference", ["likes", "topic:gardening"])


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _updates(text: str, prior: tuple[str, str, list[str]] | None, u: Any) -> list[str]:
    existing = []
    if prior is not None:
        content, category, tags = prior
        existing = [
            MemoryRecord(
                id="m_p0", scope="user", user_key="u", content=content, category=category, tags=tags
            )
        ]
    writes = offline_writes(text, existing=existing, now=NOW, understanding=u)
    return [
        w.entry.content + (" (was m_p0)" if w.entry.supersedes_id == "m_p0" else "")
        for w in writes.writes
        if w.op != "skip"
    ]


@pytest.mark.parametrize(
    ("text", "prior", "wanted"),
    [
        (
            "Bit of news: I've packed in the buses, I'm a train driver on the Overground now.",
            BUS,
            "The user works as a train driver. (was m_p0)",
        ),
        (
            "And we've upped sticks from Walthamstow to Margate, sea air and all that.",
            HOME,
            "The user lives in Margate. (was m_p0)",
        ),
        (
            "we finally left Walthamstow for Whitby, loving the quiet",
            HOME,
            "The user lives in Whitby. (was m_p0)",
        ),
        (
            "I moved from Walthamstow to Grenoble the last month.",
            HOME,
            "The user lives in Grenoble. (was m_p0)",
        ),
        (
            "I have decided to give up gardening; my back will no longer permit it.",
            GARDENING,
            "The user no longer likes gardening. (was m_p0)",
        ),
        (
            "Now I don't work more in the hospital, I change to work in a pharmacy.",
            HOSPITAL,
            "The user works in a pharmacy. (was m_p0)",
        ),
        ("I am working like nurse in the hospital, I take care of the patients.", None, "nurse"),
        ("no wait i said leeds not walthamstow", HOME, "The user lives in Leeds. (was m_p0)"),
        ("sorry, I meant Derby, not Walthamstow", HOME, "The user lives in Derby. (was m_p0)"),
        ("I live in Leeds not Walthamstow", HOME, "The user lives in Leeds. (was m_p0)"),
    ],
)
def test_a_change_of_mind_in_other_words(
    text: str, prior: tuple[str, str, list[str]] | None, wanted: str, understanding: Any
) -> None:
    said = _updates(text, prior, understanding)
    assert any(wanted in s for s in said), said


def test_moving_for_work_names_no_new_home(understanding: Any) -> None:
    said = _updates("I moved from Walthamstow for work", HOME, understanding)
    assert not any(s.startswith("The user lives in") for s in said), said


def test_quitting_a_workplace_is_no_job_by_meaning(understanding: Any) -> None:
    salon = ("The user works at the salon.", "profile", ["work"])
    said = _updates("i quit the salon, i work at greggs now lol", salon, understanding)
    assert said == ["The user works at Greggs. (was m_p0)"], said
