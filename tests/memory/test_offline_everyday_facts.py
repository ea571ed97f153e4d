"""The writer_s35 wordings (issue 23, s35): everyday ways of saying a fact, each said the
plain way before the rules read it (an age bare in an opener, a student's introduction, a
relative named by "his name is" after "I have a son", a list of children with their ages,
where one grew up, a worry, "remember this:", "fav X rn", a job after its employer, a change
of work said by its new doing); a joke taken back by what it was about; and what must keep
nothing. Each through the offline writer, rules alone."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from familiars.memory import MemoryRecord, offline_writes
from familiars.memory._offline._everyday import base_verb, everyday
from familiars.memory._offline._values import value_fact

#: Monday 30 November 2026.
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
DRAGON = {"content": "The user has a pet dragon.", "category": "relation", "tags": ["pet"]}
BUS = {"content": "The user works as a bus driver.", "category": "profile", "tags": ["job"]}
TEACHER = {"content": "The user works as a teacher.", "category": "profile", "tags": ["job"]}


def _said(text: str, *prior: dict[str, object]) -> list[str]:
    existing = [
        MemoryRecord(id=f"m_p{i}", scope="user", user_key="u", **json.loads(json.dumps(p)))
        for i, p in enumerate(prior)
    ]
    writes = offline_writes(text, existing=existing, now=NOW, timezone="Europe/London")
    return [
        f"{w.op} {w.entry.content}" + (" (supersedes)" if w.entry.supersedes_id else "")
        for w in writes.writes
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "hiya! 67 and newly retired, so lots of free time lol",
            ["add The user is 67 years old.", "add The user is retired."],
        ),
        ("hello there, 72 years young", ["add The user is 72 years old."]),
        ("morning! just turned 50 last week, feeling ancient", ["add The user is 50 years old."]),
        (
            "im jay, 19, at uni in leeds doing history",
            [
                "add The user's name is Jay.",
                "add The user is 19 years old.",
                "add The user studies history.",
                "add The user lives in Leeds.",
            ],
        ),
        (
            "I have a son. his name is kai",
            ["add The user has a son.", "add The user's son is called Kai."],
        ),
        ("my kids are Tom, 7, and Ava, 4", ["add The user's kids are Tom and Ava."]),
        ("I grew up in Cork", ["add The user grew up in Cork."]),
        ("I'm originally from Manchester", ["add The user grew up in Manchester."]),
        ("we grew up in Cork", ["add The user grew up in Cork."]),
        (
            "i was born and raised in Ohio but live in Denver now",
            ["add The user grew up in Ohio.", "add The user lives in Denver."],
        ),
        (
            "I'm worried about my mum's surgery next week",
            ["add The user is worried about their mum's surgery next week."],
        ),
        ("remember this: my locker code is 4471", ["add The user's locker code is 4471."]),
        ("fav band rn is boygenius", ["add The user's favourite band is boygenius."]),
        ("my hobby is photography", ["add The user likes photography."]),
        (
            "I am work as electrician, I have two childs",
            ["add The user works as an electrician.", "add The user has two children."],
        ),
        (
            "me and my wife Priya just moved to Sheffield",
            ["add The user's wife is called Priya.", "add The user lives in Sheffield."],
        ),
        ("mad for crosswords", ["add The user likes crosswords."]),
        ("I love love love musicals", ["add The user likes musicals."]),
        ("proper into bouldering at the mo", ["add The user likes bouldering."]),
        ("can't get enough of sourdough", ["add The user likes sourdough."]),
        ("allergic 2 cats", ["add The user is allergic to cats."]),
        ("penicillin brings me out in a rash", ["add The user is allergic to penicillin."]),
    ],
)
def test_everyday_wordings_are_kept(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted


@pytest.mark.parametrize(
    "text",
    [
        "50, that's my score",
        "30 and 40 percent of it",
        "45 minutes late again",
        "my friend has a son. his name is Kai",
        "my sister has a daughter. her name is Isla",
        "my neighbour grew up in Cork",
        "I'm worried about it",
        "I'd hate to live in London",
        "the heat gives me a rash",
        "my kids are mad about football",
        "my colleague switched to driving trams",
    ],
)
def test_look_alikes_keep_nothing(text: str) -> None:
    assert _said(text) == []


def test_a_job_after_its_employer_updates_the_job() -> None:
    assert _said("I work at Barclays as a QA engineer now", TEACHER) == [
        "update The user works as a qa engineer. (supersedes)",
        "add The user works at Barclays.",
    ]


LEEDS = {"content": "The user lives in Leeds.", "category": "profile", "tags": ["home"]}


def test_a_move_said_after_leaving_is_the_new_home() -> None:
    moved = ["update The user lives in York. (supersedes)"]
    assert _said("not in leeds anymore, moved to york in the summer", LEEDS) == moved
    assert _said("we're not in Leeds anymore, we moved to York", LEEDS) == moved
    assert _said("my sister, moved to york last year, loves it") == []
    tesco = {"content": "The user works at Tesco.", "category": "profile", "tags": ["work"]}
    assert _said("i quit my job at tesco, working at asda now", tesco) == [
        "update The user works at Asda. (supersedes)"
    ]


def test_a_joke_is_taken_back_by_what_it_was_about() -> None:
    taken = ["update Not true, said as a joke: the user has a pet dragon. (supersedes)"]
    assert _said("the dragon was a joke", DRAGON) == taken
    assert _said("just kidding about the dragon", DRAGON) == taken
    assert _said("the dragon in that film was a joke", DRAGON) == []
    meeting = {"content": "The user has a meeting with Sam.", "category": "event", "tags": ["plan"]}
    assert _said("the meeting was a joke", meeting) == []  # it went badly; it was not made up


def test_a_change_of_work_said_by_its_new_doing() -> None:
    assert everyday("I switched to driving trams") == "I drive trams now."
    assert everyday("switched to installing heat pumps") == "I install heat pumps now."
    assert _said("my colleague switched to driving trams", BUS) == []


@pytest.mark.parametrize(
    ("gerund", "base"),
    [("driving", "drive"), ("running", "run"), ("installing", "install"),
     ("teaching", "teach"), ("studying", "study"), ("delivering", "deliver"), ("using", "use")],
)  # fmt: skip
def test_base_verb(gerund: str, base: str) -> None:
    assert base_verb(gerund) == base


def _son(minutes_ago: int) -> dict[str, object]:
    ts = (NOW - timedelta(minutes=minutes_ago)).isoformat()
    return {"content": "The user has a son.", "category": "relation", "tags": ["family"], "ts": ts}


def test_his_name_in_the_next_message_names_the_member_just_said() -> None:
    assert _said("his name is kai", _son(2)) == ["add The user's son is called Kai."]
    assert _said("her name is Maya", _son(2)) == []  # the pronoun does not fit a son
    assert _said("his name is kai", _son(120)) == []  # said long ago: about someone else now
    assert _said("his name is dave", _son(8)) == []  # minutes on: perhaps someone unkept
    newer = {**BUS, "ts": (NOW - timedelta(minutes=1)).isoformat()}
    assert _said("his name is kai", _son(2), newer) == []  # the son was not the last said


DEGREE = {
    "content": "The user has a degree in history.",
    "category": "profile",
    "tags": ["education"],
}
BOSS = {"content": "The user's boss is called Sam.", "category": "relation", "tags": ["people"]}
TAKEN_BACK = ["update Not true, said as a joke: the user has a pet dragon. (supersedes)"]


@pytest.mark.parametrize(
    ("text", "prior"),
    [
        ("my degree was a joke", DEGREE),
        ("the degree was a joke lol", DEGREE),
        ("my degree was a lie", DEGREE),
        ("my boss is a joke", BOSS),
        ("my boss was a joke tbh", BOSS),
    ],
)
def test_a_real_thing_that_went_badly_is_not_taken_back(
    text: str, prior: dict[str, object]
) -> None:
    assert _said(text, prior) == []


@pytest.mark.parametrize(
    "text",
    [
        "I was joking about the dragon",
        "the dragon thing was a joke",
        "just kidding about the dragon",
        "I don't really have a dragon lol",
        "the dragon was made up",
    ],
)
def test_a_claim_said_in_jest_is_taken_back(text: str) -> None:
    assert _said(text, DRAGON) == TAKEN_BACK


def test_a_real_record_is_taken_back_only_in_so_many_words() -> None:
    assert _said("I was joking about the degree", DEGREE) == [
        "update Not true, said as a joke: the user has a degree in history. (supersedes)"
    ]
    assert _said("the degree thing was a joke", DEGREE) != []
    assert _said("I didn't mean it about the degree", DEGREE) != []


@pytest.mark.parametrize(
    "text",
    [
        "I miss my brother, moved to Australia last year",
        "I'm so proud of my daughter, working at Google now",
        "I miss him, moved to Australia last year",
        "so proud of her, working at Google now",
        "my sister, living in Paris now",
        "my sister is a nurse based in Leeds",
    ],
)
def test_a_clause_after_someone_else_goes_on_with_their_story(text: str) -> None:
    assert not [w for w in _said(text) if "lives in" in w or "works at" in w]


def test_a_clause_after_someone_else_is_the_users_when_it_says_i() -> None:
    assert _said("I miss my brother, I moved to Australia last year")[-1] == (
        "add The user lives in Australia."
    )
    assert _said("I broke up with my boyfriend, moved to Leeds") == ["add The user lives in Leeds."]
    assert _said("my brother moved to Australia, living in Sydney now") == [
        "add The user's brother moved to Australia."
    ]


@pytest.mark.parametrize(
    "text",
    [
        "ok 20, i'll set the timer",
        "ok 30, I've got to go",
        "so 45 and I'm still not done",
        "45 and I'm still not done",
        "hi, 30, I've got to go",
    ],
)
def test_a_bare_number_after_ok_or_before_a_doing_is_no_age(text: str) -> None:
    assert _said(text) == []


AGED = "add The user is %d years old."


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("hey! 34 and I live in Leeds", [AGED % 34, "add The user lives in Leeds."]),
        ("ok 30 years old and single", [AGED % 30, "add The user is single."]),
        ("hey 29 and single", [AGED % 29, "add The user is single."]),
    ],
)
def test_an_age_in_an_opener_with_what_one_is_is_kept(text: str, wanted: list[str]) -> None:
    assert _said(text) == wanted


@pytest.mark.parametrize(
    "text", ["I grew up in fear", "I grew up in chaos", "I grew up in poverty"]
)
def test_a_hometown_is_a_place_not_a_state(text: str) -> None:
    assert _said(text) == []


def test_a_hometown_named_by_a_kind_of_place_is_said_as_said() -> None:
    assert _said("I grew up in the countryside") == ["add The user grew up in the countryside."]
    assert _said("I grew up in the Lake District") == ["add The user grew up in the Lake District."]


def test_where_one_grew_up_and_still_lives_keeps_both() -> None:
    assert _said("I grew up in Cork and I still live in Cork") == [
        "add The user grew up in Cork.",
        "add The user lives in Cork.",
    ]
    assert _said("I still live in Cork") == ["add The user lives in Cork."]


@pytest.mark.parametrize(
    "clause",
    ["I miss my brother, moved to Australia last year", "my sister, she works at Tesco"],
)
def test_a_place_or_an_employer_is_never_a_members_name(clause: str) -> None:
    assert value_fact("family", clause) == []
    assert value_fact("family", "my fella Rohan, he works in Leeds")[0].content == (
        "The user's fella Rohan works in Leeds."
    )
