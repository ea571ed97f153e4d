"""The writer_s34 wordings (issue 23, s34): terse phone texting, family lists, pet names said
in a tail, retirement, health said as what one is, a relative's coming birthday pinned to
its date; and what must keep nothing: idioms ("call me old fashioned"), jokes ("allergic to
mondays lol"), quoted speech in single quotes. Each through the offline writer, rules alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import offline_writes

#: Monday 30 November 2026.
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def _said(text: str) -> list[str]:
    writes = offline_writes(text, existing=[], now=NOW, timezone="Europe/London")
    return [f"{w.op} {w.entry.content}" for w in writes.writes]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("twin boys, Arlo and Finn", ["add The user has twin boys called Arlo and Finn."]),
        (
            "I've got three kids: Maya, Leo and Rosie",
            ["add The user has three kids called Maya, Leo and Rosie."],
        ),
        ("2 daughters, Ella and Grace", ["add The user has 2 daughters called Ella and Grace."]),
        ("my brothers are called Tom and Ben", ["add The user's brothers are called Tom and Ben."]),
        (
            "we have a boy and a girl, Jack and Poppy",
            ["add The user has a boy and a girl called Jack and Poppy."],
        ),
        ("got 3 kids", ["add The user has 3 kids."]),
        (
            "we got a staffie pup last month, she's called Biscuit",
            ["add The user has a staffie pup called Biscuit."],
        ),
        (
            "got a new kitten yesterday, named her Luna",
            ["add The user has a new kitten called Luna."],
        ),
        (
            "we adopted a greyhound in the spring, his name's Pablo",
            ["add The user has a greyhound called Pablo."],
        ),
        ("we got a puppy in March, she's called Daisy", ["add The user has a puppy called Daisy."]),
        (
            "I used to teach piano at the local primary school but im retired now",
            ["add The user is retired."],
        ),
        ("i was a postman for 30 years, retired now", ["add The user is retired."]),
        (
            "I retired last year after forty years as a bus driver",
            ["add The user is retired (after forty years as a bus driver)."],
        ),
        ("I'm type 1 diabetic", ["add The user is type 1 diabetic."]),
        ("on insulin", ["add The user takes insulin."]),
        (
            "my mum turns 80 next Saturday",
            ["add The user's mum turns 80 on Saturday 5 December 2026 (birthday December 5)."],
        ),
        (
            "my son Theo is turning 5 on 12 May",
            ["add The user's son Theo turns 5 on Wednesday 12 May 2027 (birthday May 12)."],
        ),
        (
            "im jay, 19, studying comp sci at UCLA. got a roommate named Devon",
            [
                "add The user's name is Jay.",
                "add The user is 19 years old.",
                "add The user studies comp sci at UCLA.",
                "add The user's flatmate is called Devon.",
            ],
        ),
        ("im olive. 41", ["add The user's name is Olive.", "add The user is 41 years old."]),
        ("im priya. 41", ["add The user's name is Priya.", "add The user is 41 years old."]),
        ("I'm Olive. 41", ["add The user's name is Olive.", "add The user is 41 years old."]),
        (
            "im zainab, 52, taxi driver",
            [
                "add The user's name is Zainab.",
                "add The user is 52 years old.",
                "add The user works as a taxi driver.",
            ],
        ),
        (
            "honestly the thing about me is I've always loved gardening, ever since I was little",
            ["add The user likes gardening."],
        ),
        ("work in a care home", ["add The user works in a care home."]),
        ("my mom is a realtor", ["add The user's mom is a realtor."]),
        ("i have a dog, hes called Rex", ["add The user has a dog called Rex."]),
        (
            "I'm a solicitor, been at the same firm in Leeds for twelve years",
            ["add The user works as a solicitor."],
        ),
        (
            "basically I moved to Brighton last spring after the divorce",
            ["add The user lives in Brighton."],
        ),
        (
            "work has been mad busy at the hospital where I'm a midwife",
            ["add The user works as a midwife."],
        ),
        ("im 33 and a dad of 2", ["add The user is 33 years old.", "add The user is a dad of 2."]),
        ("no kidding, I'm allergic to bees", ["add The user is allergic to bees."]),
        ("allergic to cats unfortunately", ["add The user is allergic to cats."]),
        (
            "we got a rescue cat in october, her names Pepper",
            ["add The user has a rescue cat called Pepper."],
        ),
    ],
)
def test_kept(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted


@pytest.mark.parametrize(
    "text",
    [
        "call me old fashioned but I still write letters",
        "call me crazy",
        "he goes 'my name is Bond, James Bond' and we all lost it",
        "i'm allergic to mondays lol",
        "im tired, 34 hours awake",
        "I'm studying for my exams tonight",
        "I retired my old laptop",
        "two kids ran past",
        "on my way",
        "I got a new car last month",
        "my cat is called Tiddles lol jk I don't have a cat",
        "I'm a nurse. just kidding",
    ],
)
def test_nothing_kept(text: str) -> None:
    assert _said(text) == []


def test_rock_n_roll_is_no_quote() -> None:
    """An apostrophe on each side of one word is no quoted speech."""
    assert _said("I love rock 'n' roll") == ["add The user likes rock 'n' roll."]


def test_pinned_date_is_not_pinned_again() -> None:
    """A day already written with its date ("on Wednesday 12 May 2027") is left as it is
    when the words around it say it is ahead ("is turning")."""
    assert "2 December" not in " ".join(_said("my son Theo is turning 5 on 12 May"))
