"""Issue 23, testers' findings on the offline answers and manners (session 34): plural and
slang kin questions, plans and reminders asked in words, "do I like X?" after a change of
mind, care that hears indirect words and a worry taken back, a good time met warmly."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.bot import Application
from familiars.bot._answers import offline_reply, small_talk
from familiars.bot._care import AFTER_CARE, speaks_of_self_harm, walked_back
from familiars.bot._kin import kin_answer
from familiars.bot._likes import likes_answer
from familiars.bot._reminder_words import _ASKS_IN_WORDS
from familiars.bot._turn_actions import TurnActions
from familiars.bot._window import on_in_span
from familiars.memory import MemoryRecord
from tests.harness import message, say

FAMILY = [
    "The user's son is called Arlo.",
    "The user's son is called Finn.",
    "The user's daughter is called Mia.",
    "The user's gf is called Priya.",
    "The user's sister is called Emma.",
    "The user's sister's husband is called Joaquin.",
]


def _reply(text: str, kept: list[str], **kw: object) -> str:
    return offline_reply(
        text,
        actions=TurnActions(),
        items=[],
        is_group=False,
        kept=kept,
        **kw,  # type: ignore[arg-type]
    )


def test_plural_kin_questions_name_every_one_of_that_kind() -> None:
    assert _reply("what are my boys called?", FAMILY) == "Your sons are Arlo and Finn."
    kids = _reply("who are my kids?", FAMILY)
    assert all(n in kids for n in ("Arlo", "Finn", "Mia")) and "Priya" not in kids
    assert "Arlo" in _reply("what are my kids' names?", FAMILY)
    assert _reply("who are my sisters?", FAMILY) == "Your sister is called Emma."


def test_boys_asked_with_only_a_daughter_kept_is_not_answered_with_her() -> None:
    reply = _reply("what are my boys called?", ["The user's daughter is called Mia."])
    assert reply.startswith("I don't know of any boys") and "your daughter Mia" in reply


def test_slang_names_the_relation_it_means() -> None:
    assert _reply("whos my gf", FAMILY) == "Your girlfriend is called Priya."
    hubby = ["The user's husband is called Tom."]
    assert kin_answer("what's my hubby's name?", hubby) == "Your husband is called Tom."
    assert (
        kin_answer("who's my missus?", ["The user's wife is called Jo."])
        == "Your wife is called Jo."
    )


@pytest.mark.parametrize(
    "text", ["what does my sister do?", "what's my sister's husband called?", "my boys are ok"]
)
def test_other_questions_about_kin_are_left_to_the_other_answers(text: str) -> None:
    assert kin_answer(text, FAMILY) is None


def _rec(content: str, rid: str, *, due: str | None = None, tags: tuple[str, ...] = ("plan",)):
    loop = {"kind": "reminder", "due": due, "status": "open"} if due else None
    return MemoryRecord(
        id=rid, scope="user", category="event", content=content, tags=list(tags),
        user_key="u", extra={"open_loop": loop} if loop else {},
    )  # fmt: skip


NOW = datetime(2026, 12, 7, 13, 0, tzinfo=UTC)  # a Monday
PARIS = _rec("The user is going to Paris on Saturday (Saturday 12 December 2026).", "m1")
RENT = _rec("Remind the user to pay rent.", "m2", due="2026-12-08T09:00:00+00:00", tags=())
TEA = _rec("The user likes tea.", "m3", tags=("likes",))
PAST = _rec("The user went to Rome (Saturday 5 December 2026).", "m4")


@pytest.mark.parametrize("asked", ["what are my plans?", "any plans?", "what's coming up?"])
def test_plans_asked_list_the_plans_and_reminders_to_come(asked: str) -> None:
    reply = on_in_span(asked, NOW, [TEA, PARIS, RENT, PAST]) or ""
    assert "Paris" in reply and "pay rent" in reply
    assert "tea" not in reply and "Rome" not in reply


def test_no_plans_kept_says_so() -> None:
    assert on_in_span("what are my plans?", NOW, [TEA]) == "Nothing planned that I know of."
    assert "Paris" in (on_in_span("what are my plans for this week?", NOW, [PARIS]) or "")


@pytest.mark.parametrize(
    "said", ["what have I asked you to remind me?", "what are you reminding me about?"]
)
def test_asked_to_remind_wordings_list_the_reminders(said: str) -> None:
    assert _ASKS_IN_WORDS.match(said)


def test_do_i_like_after_a_change_of_mind_says_the_change() -> None:
    kept = ["The user likes swimming and cooking.", "The user no longer likes running."]
    assert _reply("do i like running?", kept) == "You don't like running any more."
    assert likes_answer("do I like swimming?", kept) == "You like swimming and cooking."
    assert likes_answer("do I like olives?", ["The user dislikes olives."]) == (
        "You don't like olives."
    )
    assert likes_answer("do i like tennis?", kept) is None
    switched = ["The user likes tea now, no longer coffee."]
    assert likes_answer("do I like coffee?", switched) == "You like tea now, no longer coffee."


def test_do_i_like_reads_the_clause_of_the_thing_and_the_user_alone() -> None:
    """Review F8: a dislike in another clause, or another person's, is not the user's."""
    both = ["The user dislikes coffee but loves tea."]
    assert likes_answer("do I like tea?", both) == "You love tea."
    assert likes_answer("do I like coffee?", both) == "You don't like coffee."
    whereas = ["The user hates mushrooms, whereas they enjoy olives."]  # a wording of our own
    assert likes_answer("do I like olives?", whereas) == "You like olives."
    assert likes_answer("do I like mushrooms?", whereas) == "You don't like mushrooms."
    assert likes_answer("do i like broccoli?", ["The user's son hates broccoli."]) is None
    assert likes_answer("do i like running?", ["The user's son hates running."]) is None
    assert likes_answer("do I like Mark?", ["The user's ex Mark hates the user."]) is None
    assert likes_answer("do I like dogs?", ["The user doesn't like dogs."]) == (
        "You don't like dogs."
    )
    assert likes_answer("do I like chess?", ["The user loves chess."]) == "You love chess."
    listed = ["The user hates coffee, tea and milk."]
    assert likes_answer("do I like milk?", listed) == "You don't like milk."


@pytest.mark.parametrize(
    "text",
    [
        "I want to give my things away, I won't need them",
        "thinking about driving my car into a wall",
        "I keep thinking about stepping in front of a train",
        "nobody would even notice if I was gone",
    ],
)
def test_indirect_self_harm_is_heard(text: str) -> None:
    assert speaks_of_self_harm(text)


@pytest.mark.parametrize(
    "text",
    [
        "this traffic is killing me",
        "I could die of embarrassment",
        "I'm giving my old clothes away to the charity shop",
        "I nearly drove my car into a wall on the ice",
        "I jumped off the pier into the sea, it was freezing!",
        "I'm thinking of ending things with Tom",
    ],
)
def test_look_alikes_are_not_alarms(text: str) -> None:
    assert not speaks_of_self_harm(text)


def test_a_worry_taken_back_after_the_crisis_reply_is_met_warmly() -> None:
    reply = _reply("jk im fine, just tired", [], after_care=True)
    assert reply == AFTER_CARE and "here" in reply
    assert "Tell me more" not in reply
    assert _reply("jk im fine, just tired", []) != AFTER_CARE  # only right after care
    assert not walked_back("I'm fine, I just want to die")
    assert not walked_back("I'm good at chess")


@pytest.mark.parametrize(
    "text",
    ["i had a lovely afternoon with Oliver, we made scones", "we had such a fun day at the beach"],
)
def test_a_good_time_told_gets_a_warm_word(text: str) -> None:
    reply = _reply(text, [])
    assert "lovely" in reply and "Tell me more" not in reply


def test_manners_still_fit() -> None:
    assert _reply("hi", [], name="Nora") == "Hello, Nora!"
    assert _reply("thanks!", []) == "You're welcome!"
    assert "rough" in (small_talk("I'm feeling a bit low") or "")
    assert "AI" in _reply("are you a real person?", [])
    assert small_talk("I had a good cry") is None
    assert _reply("what's the date?", [], now=NOW) == "It's Monday 7 December 2026."
    assert _reply("what did you just say?", [], last_reply="Hello!") == 'I said: "Hello!"'


def test_twin_boys_kept_in_a_list_are_both_sons() -> None:
    kept = ["The user has twin boys, Arlo and Finn.", "The user's daughter is called Mia."]
    assert _reply("what are my boys called?", kept) == "Your sons are Arlo and Finn."


def test_slang_relations_are_listed_as_the_relation_they_mean() -> None:
    from familiars.bot._commands._people import people_lines
    from familiars.memory import build_graph

    records = [
        MemoryRecord(id=f"m{i}", scope="user", category="relation", content=c, user_key="u")
        for i, c in enumerate(
            ["The user's gf is called Priya.", "The user's hubby Tom is a chef.",
             "The user's missus is called Jo."]
        )
    ]  # fmt: skip
    said = "\n".join(people_lines(build_graph(records), NOW))
    assert "**Priya**: your girlfriend" in said and "**Tom**: your husband" in said
    assert "**Jo**: your wife" in said


async def test_in_a_chat_a_worry_taken_back_right_after_the_crisis_reply_is_met_warmly(
    app: Application,
) -> None:
    crisis = await say(app, message("I've started giving my things away, I won't need them"))
    assert "findahelpline.com" in crisis or "116 123" in crisis
    back = await say(app, message("jk im fine, just tired", minutes=1))
    assert AFTER_CARE in back and "Tell me more" not in back
    later = await say(app, message("jk im fine, just tired", minutes=2))
    assert AFTER_CARE not in later  # only the message right after the crisis reply


def test_who_am_i_married_to_is_never_answered_with_a_child() -> None:
    kept = ["The user is married to Aisling.", "The user's son is called Oskar."]
    assert _reply("who am I married to?", kept) == "You're married to Aisling."
    assert _reply("who's my other half?", kept[1:]).startswith("I don't know of a partner")
    assert "Oskar" not in _reply("who am I married to?", kept)
    assert kin_answer("who am I married to?", []) is None  # nothing handed over: no claim


@pytest.mark.parametrize("text", ["whos my gf", "wheres my sister live", "hows my mum doing"])
def test_a_question_typed_without_its_apostrophe_is_a_question(text: str) -> None:
    from familiars.llm import is_question

    assert is_question(text)
