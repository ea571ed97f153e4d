"""Who the person is with, and their family as a whole, asked in everyday words (testers
s39: "who am I going out with these days?" named the brother and Nan; "what do you know
about my family?" said it knew nothing while four relatives were kept)."""

from __future__ import annotations

from familiars.bot._kin import kin_answer

KIN = (
    "The user's brother Tom lives in Leeds.",
    "The user's nan Edna is 90.",
    "The user's sister is called Lucy.",
)


def test_the_partner_asked_with_a_time_word_is_the_partner() -> None:
    kept = (*KIN, "The user's boyfriend Jake is a nurse.")
    for asked in (
        "who am I going out with these days?",
        "who am I seeing at the moment?",
        "who am I currently dating?",
        "who's my other half nowadays?",
    ):
        assert kin_answer(asked, kept) == "Your boyfriend is called Jake.", asked


def test_no_partner_kept_is_said_and_no_relative_named_as_one() -> None:
    said = kin_answer("who am I going out with these days?", KIN)
    assert said is not None and said.startswith("I don't know of a partner of yours yet")


def test_the_whole_family_is_named() -> None:
    for asked in (
        "what do you know about my family?",
        "tell me about my relatives",
        "who are my relatives?",
        "what family have I got?",
        "can you tell me about my family",
    ):
        said = kin_answer(asked, KIN)
        assert said is not None, asked
        assert all(name in said for name in ("Tom", "Edna", "Lucy")), (asked, said)


def test_a_friend_is_no_family_and_none_kept_is_said() -> None:
    said = kin_answer("what do you know about my family?", ("The user's friend Ali is a chef.",))
    assert said == "You haven't told me about your family yet; you told me about your friend Ali."


def test_what_about_my_folks_names_them() -> None:
    kept = ("The user's father is called Ron.", "The user's mother is called Sue.")
    assert kin_answer("what about my folks?", kept) == "Your folks are Ron and Sue."
