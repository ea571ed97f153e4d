"""The group reply check: numbers, quotes and names from private notes never go out."""

from __future__ import annotations

from familiars.bot._leak_guard import REDACTED, WITHHELD, guard_group_reply

PRIVATE = [
    "The user's bank PIN is 4921.",
    "The user's test result came back positive for Lyme disease.",
    "The user's password hint is the name of their first cat, Whiskers.",
]


def test_a_reply_with_nothing_private_goes_out_unchanged() -> None:
    verdict = guard_group_reply("Good morning everyone! Ready for the quiz?", PRIVATE)
    assert not verdict.changed and verdict.text.startswith("Good morning")


def test_a_pin_is_redacted_even_spaced_out() -> None:
    verdict = guard_group_reply("Sure, it's 4 9 2 1 if I remember well.", PRIVATE)
    assert verdict.changed and "4 9 2 1" not in verdict.text and REDACTED in verdict.text
    assert [leak.kind for leak in verdict.leaks] == ["number"]


def test_a_near_quote_withholds_the_whole_reply() -> None:
    verdict = guard_group_reply("Well, your Test Result came back positive, sorry!", PRIVATE)
    assert verdict.withheld and verdict.text == WITHHELD


def test_a_private_name_is_redacted() -> None:
    verdict = guard_group_reply("Is it Whiskers? Cute name.", PRIVATE)
    assert verdict.changed and "Whiskers" not in verdict.text


def test_what_the_group_itself_said_is_public() -> None:
    message = "My cat Whiskers turned 4921 days old today!"
    verdict = guard_group_reply("Happy 4921 days, Whiskers!", PRIVATE, public=[message])
    assert not verdict.changed


def test_many_small_leaks_withhold() -> None:
    private = ["Lives at 12 Elm Street, phone 555 0199, partner Jordan, dog Pepper."]
    verdict = guard_group_reply("Say hi to Jordan and Pepper, and call 5550199!", private)
    assert verdict.withheld


def test_common_capitalised_words_are_not_names() -> None:
    verdict = guard_group_reply("The weather is nice. I think so too.", ["The user likes rain."])
    assert not verdict.changed


def test_a_reply_to_a_question_naming_someone_is_about_them() -> None:
    """A less common word of Ana's notes counts near her name, and anywhere in a reply to a
    message that names her: the reply says "she", not "Ana"."""
    notes = ["The user is allergic to peanuts.", "The user works as a nurse."]
    asked = "Ben: what is Ana allergic to?"
    for reply in ("She's allergic to peanuts.", "Peanuts, I think.", "She's a nurse, so careful."):
        verdict = guard_group_reply(reply, notes, [asked], ["Ana"], answering=asked)
        assert verdict.changed and "peanuts" not in verdict.text.lower(), reply
        assert "nurse" not in verdict.text, reply
    # The same words in a reply to a message that names no one stay (they are common
    # enough, and nothing says the reply is about Ana).
    hello = "Ben: any snack ideas for the trip?"
    verdict = guard_group_reply("Peanuts travel well.", notes, [hello], ["Ana"], answering=hello)
    assert not verdict.changed


def test_the_name_a_person_gave_in_their_notes_is_theirs_too() -> None:
    """Shown as "anita_92", told the familiar "my name is Ana": "Ana" next to a less common
    word of her notes is her, as her display name would be; a relative's name is not."""
    notes = [
        "The user's name is Ana.",
        "The user is allergic to peanuts.",
        "The user's sister is called Rosa.",
    ]
    asked = "Ben: what is Ana allergic to?"
    for reply in ("Ana is allergic to peanuts.", "She's allergic to peanuts."):
        verdict = guard_group_reply(reply, notes, [asked], ["anita_92"], answering=asked)
        assert verdict.changed and "peanuts" not in verdict.text, reply
    about_rosa = "Ben: what does Rosa like?"
    verdict = guard_group_reply(
        "Rosa likes peanuts.", notes, [about_rosa, "Rosa"], ["anita_92"], answering=about_rosa
    )
    assert not verdict.changed, verdict.text
