"""Person-tester's s34 false or garbled memories of the offline writer, each in the tester's
words and in other words: "her name is X" renamed the user (U15), a place said in passing
was a move (U41), a joke was kept (U46), the evenings were a dislike and "its so boring" part
of the object (U24, U88), a list of kids lost a name (U51), a verb was a name (U35), a move
kept its time phrase (U7, U50), "it's Will not Bill" was no correction (U91), and the second
line of a double text was lost (U67). The bundled model reads as the offline bot does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from familiars.memory import MemoryRecord, offline_writes, understanding_for

NOW = datetime(2026, 12, 9, 13, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: Any) -> Any:
    return understanding_for(real_embedder.embed_batch, *real_embedder.space)


def _rec(
    i: int, content: str, tags: list[str], ago: timedelta = timedelta(days=3), cat: str = "profile"
) -> MemoryRecord:
    return MemoryRecord(
        id=f"m_{i}", scope="user", category=cat, content=content, tags=tags,
        ts=(NOW - ago).isoformat(),
    )  # fmt: skip


def _said(text: str, understanding: Any, existing: list[MemoryRecord] | None = None) -> list[str]:
    out = offline_writes(
        text,
        existing=existing or [],
        now=NOW,
        timezone="Europe/London",
        understanding=understanding,
    )
    return [f"{w.op} {w.entry.content}" for w in out.writes if w.op != "skip"]


NAMED = _rec(1, "The user's name is Wei.", ["name"])
SISTER = _rec(
    2, "The user's sister Brenda lives in Whitby.", ["family", "topic:brenda"], cat="relation"
)


@pytest.mark.parametrize(
    "text",
    [
        "Actually it's Brenda not Brenda, I mean her name is Bernadette, we just call her Brenda",
        "My daughter is born yesterday!! Her name is Meimei 美美",
        "we got a new puppy last week, his name is Rolo",
        "my mum's name is Carol",
    ],
)
def test_her_or_his_name_never_renames_the_user(understanding: Any, text: str) -> None:
    said = _said(text, understanding, [NAMED, SISTER])
    assert not [s for s in said if "The user's name is" in s]


def test_the_users_own_name_is_still_read(understanding: Any) -> None:
    assert _said("my name is Lin", understanding) == ["add The user's name is Lin."]


@pytest.mark.parametrize(
    "text",
    [
        "Hello, I am Wei, I am come from Chengdu, now living in Manchester since two years",
        "Hi I am Wei and I am come here for study",
    ],
)
def test_a_verb_after_i_am_is_no_name(understanding: Any, text: str) -> None:
    names = [s for s in _said(text, understanding) if "name is" in s]
    assert names == ["add The user's name is Wei."]


HOME = _rec(3, "The user lives in Manchester.", ["home"])


@pytest.mark.parametrize(
    "text",
    [
        "this rain in Manchester is killing me haha",
        "this cold in Edinburgh is unreal",
        "the traffic in Leeds was a nightmare today",
    ],
)
def test_a_place_said_in_passing_is_no_move(understanding: Any, text: str) -> None:
    assert not [s for s in _said(text, understanding, [HOME]) if "lives" in s]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("we moved from Leeds to Harrogate in the summer", "The user lives in Harrogate."),
        (
            "Harold and I moved from Harrogate to Scarborough three years ago, lovely sea air",
            "The user lives in Scarborough.",
        ),
        ("I moved to York last year", "The user lives in York."),
    ],
)
def test_when_a_move_was_is_not_part_of_the_place(understanding: Any, text: str, kept: str) -> None:
    assert [s.split(" ", 1)[1] for s in _said(text, understanding, [HOME]) if "lives" in s] == [
        kept
    ]


@pytest.mark.parametrize(
    "text",
    [
        "lol jk i have a pet dragon called smaug",
        "I have a pet tiger called Raja, just kidding",
        "i'm a millionaire. not really",
        "bruh the dragon was a joke",
    ],
)
def test_a_joke_keeps_nothing(understanding: Any, text: str) -> None:
    assert _said(text, understanding) == []


def test_without_a_joke_the_pet_is_kept(understanding: Any) -> None:
    assert _said("i have a pet snake called smaug", understanding) == [
        "add The user has a pet snake called Smaug."
    ]


@pytest.mark.parametrize(
    "text", ["The evenings are the worst.", "I hate the mornings", "nights are the worst"]
)
def test_a_time_of_day_is_no_dislike(understanding: Any, text: str) -> None:
    assert not [s for s in _said(text, understanding) if "like" in s]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("i hate maths its so boring", "add The user doesn't like maths."),
        ("i hate homework its pointless", "add The user doesn't like homework."),
        ("I hate sprouts they're so bitter", "add The user doesn't like sprouts."),
    ],
)
def test_a_comment_after_the_object_is_not_part_of_it(
    understanding: Any, text: str, kept: str
) -> None:
    assert _said(text, understanding) == [kept]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("my kids are Ruby and Finn, twins", "add The user's kids are Ruby and Finn (twins)."),
        (
            "our daughters are Amy, Beth and Cara",
            "add The user's daughters are Amy, Beth and Cara.",
        ),
    ],
)
def test_a_list_of_names_keeps_every_name(understanding: Any, text: str, kept: str) -> None:
    assert _said(text, understanding) == [kept]


BILL = _rec(4, "The user's uncle is called Bill.", ["family", "topic:bill"], cat="relation")
SANDRA = _rec(5, "The user's boss is called Sandra.", ["work", "topic:sandra"], cat="relation")


@pytest.mark.parametrize(
    ("text", "held", "kept"),
    [
        ("it's Will not Bill", BILL, "update The user's uncle is called Will."),
        ("scratch that, it's Will not Bill", BILL, "update The user's uncle is called Will."),
        ("not Sandra, Sandy", SANDRA, "update The user's boss is called Sandy."),
        ("no wait, not Bill, it's Will", BILL, "update The user's uncle is called Will."),
    ],
)
def test_a_common_word_with_its_capital_corrects_a_name_held(
    understanding: Any, text: str, held: MemoryRecord, kept: str
) -> None:
    assert _said(text, understanding, [held]) == [kept]


def test_a_common_word_corrects_only_a_name_held(understanding: Any) -> None:
    assert _said("it's Will not Bill", understanding, [SANDRA]) == []
    assert _said("I will not, Bill", understanding, [BILL]) == []


@pytest.mark.parametrize(
    ("text", "pet"),
    [
        ("my brother Dan lives in Leeds\nand he has a greyhound called Pixie", "Pixie"),
        ("My sister Jo lives in York.\nShe has a cat called Mog", "Mog"),
    ],
)
def test_the_second_line_of_a_double_text_is_kept(understanding: Any, text: str, pet: str) -> None:
    kept = " ".join(_said(text, understanding))
    assert pet in kept and ("Leeds" in kept or "York" in kept)


def test_a_pronoun_that_does_not_fit_joins_nothing(understanding: Any) -> None:
    kept = _said("my brother Dan lives in Leeds\nand she has a cat called Mog", understanding)
    assert not [s for s in kept if "Dan" in s and "Mog" in s]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "My daughter is born yesterday!! Her name is Meimei 美美",
            ["add The user's daughter is called Meimei."],
        ),
        ("my grandson visited today, his name is Leo", ["add The user's grandson is called Leo."]),
        ("my son started school, her name is Amy", []),
        ("my sister and my mum came over, her name is Jo", []),
    ],
)
def test_her_name_names_the_one_member_it_fits_or_no_one(
    understanding: Any, text: str, kept: list[str]
) -> None:
    assert [s for s in _said(text, understanding) if "called" in s or "name" in s] == kept


def test_his_name_after_a_member_not_in_the_pronoun_lists_is_still_kept(understanding: Any) -> None:
    assert _said("my other half is a chef, his name's Marco", understanding) == [
        "add The user's other half is called Marco."
    ]
