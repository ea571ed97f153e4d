"""The one time reader in front of every reminder time: time words said plainly, token by
token (typos, text-speak, clocks in words, parts of day, ordinal dates, politeness), and the
one rule for an hour said without am or pm."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import parse_when
from familiars.memory._offline._dates import zone
from familiars.memory._offline._time_words import (
    afternoon_hour,
    plain_request,
    plain_time,
    spelled,
)

NOW = datetime(2026, 12, 7, 14, 40, tzinfo=UTC)  # Monday


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("tmrw at 7", "tomorrow at 7"),
        ("2moro at seven", "tomorrow at 7"),
        ("tomorow 8pm", "tomorrow 8pm"),
        ("evry sunday", "every sunday"),
        ("on wendsday", "on wednesday"),
        ("half past two in the afternoon", "2:30 pm"),
        ("at quarter to five", "at 4:45"),
        ("at ten past 6", "at 6:10"),
        ("at half 5", "at 5:30"),
        ("10 o'clock in the morning", "10:00 am"),
        ("seven thirty tonight", "7:30 pm tonight"),
        ("the 18th of December", "18 December"),
        ("December the 21st", "December 21"),
        ("Next Thursday at 6pm if you would.", "Next Thursday at 6pm."),
        ("Tomorrow evening at seven, please.", "Tomorrow evening at 7."),
        ("in five minutes", "in 5 minutes"),
    ],
)
def test_time_words_are_said_plainly(said: str, plain: str) -> None:
    assert plain_time(said) == plain


@pytest.mark.parametrize(
    "word", ["ever", "very", "even", "everyday", "fortnightly", "mourning", "yours", "house"]
)
def test_real_words_near_a_time_word_stay(word: str) -> None:
    assert spelled(word) == word


def test_words_that_are_no_time_stay_as_said() -> None:
    said = "remind me to buy seven eggs and read 2 pages for the meeting"
    assert plain_request(said) == said


@pytest.mark.parametrize(
    ("said", "plain"),
    [
        ("remind me 2 clean my room", "remind me to clean my room"),
        ("remind me 2moro 2 buy milk", "remind me tomorrow to buy milk"),
        ("You can remind me in 30 minutes for call my mother?", "You can remind me in 30 "
         "minutes to call my mother"),
        ("remind me for the meeting at 3", "remind me for the meeting at 3"),
        ("Could you remind me to put the bins out?", "Could you remind me to put the bins out"),
    ],
)  # fmt: skip
def test_the_shape_of_a_request_as_people_type_it(said: str, plain: str) -> None:
    assert plain_request(said) == plain


def test_an_hour_without_am_or_pm() -> None:
    assert [afternoon_hour(h, "at h") for h in (1, 4, 6, 7, 9, 12, 0, 15)] == [
        13, 16, 18, 7, 9, 12, 0, 15,
    ]  # fmt: skip
    assert afternoon_hour(6, "tomorrow morning at 6") == 6


def test_am_written_against_the_hour_is_the_morning() -> None:
    """ "5am" has no word edge between the 5 and the "am": it still says the morning."""
    assert afternoon_hour(5, "5am") == afternoon_hour(5, "at 5 a.m.") == 5
    assert afternoon_hour(5, "at 5 with the team") == 17  # "am" inside a word says nothing


@pytest.mark.parametrize(
    ("said", "when"),
    [
        ("tmrw at 4", datetime(2026, 12, 8, 16, 0)),
        ("tmrw at 7", datetime(2026, 12, 8, 7, 0)),
        ("tomorrow at 04:00", datetime(2026, 12, 8, 4, 0)),
        ("tomorrow morning at 6", datetime(2026, 12, 8, 6, 0)),
        ("at 8", datetime(2026, 12, 7, 20, 0)),  # 08:00 has gone by today: the evening
        ("friday at quarter past three", datetime(2026, 12, 11, 15, 15)),
        ("on the 18th of December at half past two in the afternoon", datetime(2026, 12, 18, 14, 30)),  # noqa: E501
        ("Tomorrow evening at seven, please.", datetime(2026, 12, 8, 19, 0)),
    ],
)  # fmt: skip
def test_times_in_words_are_read(said: str, when: datetime) -> None:
    due = parse_when(said, now=NOW, tz=zone("UTC"))
    assert due is not None and due.replace(tzinfo=None) == when, said
