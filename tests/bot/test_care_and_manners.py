"""Crisis lines by country and the offline companion's manners (issue 23)."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.bot._answers import offline_reply
from familiars.bot._care import countries_of, crisis_reply
from familiars.bot._turn_actions import TurnActions
from familiars.config import Settings


def test_crisis_lines_follow_the_country() -> None:
    text = Settings().care.crisis_text
    assert "116 123" in crisis_reply(
        text, countries_of("Europe/Oslo")
    ) and "988" not in crisis_reply(text, countries_of("Europe/Oslo"))
    assert "988" in crisis_reply(text, countries_of("America/Chicago"))
    assert "13 11 14" in crisis_reply(text, countries_of("Europe/Oslo", "au"))
    unknown = crisis_reply(text, countries_of("UTC"))
    assert "116 123" in unknown and "988" in unknown and "findahelpline.com" in unknown


def _reply(text: str, **kw: object) -> str:
    return offline_reply(text, actions=TurnActions(), items=[], is_group=False, **kw)  # type: ignore[arg-type]


def test_manners() -> None:
    assert "AI" in _reply("are you a real person?")
    assert "glad" in _reply("did you miss me?")
    assert _reply("thanks for listening") != "Got it."
    assert "sorry" in _reply("I hate you").lower()
    assert "How are you" in _reply("how r u today")
    now = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)
    assert _reply("what's the date?", now=now) == "It's Wednesday 2 December 2026."
    assert "Hello there" in _reply("what did you just say?", last_reply="Hello there")


def test_an_unknown_own_name_is_not_answered_with_another_name() -> None:
    """Word overlap alone answers "what's my name?" with the dog's name; a question that
    surely asks the person's own name, with none kept, is not answered with it."""
    from types import SimpleNamespace

    from familiars.bot._answers import DONT_KNOW

    dog = SimpleNamespace(
        kind="record",
        text="The user's dog's name is Biscuit.",
        score=0.0,
        private=True,
        foreign=False,
    )
    question = "what's my name?"
    guessed = offline_reply(question, actions=TurnActions(), items=[dog], is_group=False)
    assert "Biscuit" not in guessed  # the rules alone too: the dog's is another's (F8)
    reply = offline_reply(
        question, actions=TurnActions(), items=[dog], is_group=False, unknown=True
    )
    assert reply == DONT_KNOW


def test_a_message_that_kept_nothing_gets_no_false_acknowledgement() -> None:
    assert _reply("🙂🙂🙂") == "🙂"
    assert _reply("my neighbour's parrot screams all day") == "Oh? Tell me more."
    assert _reply("I had a funny sort of afternoon") == "I see. Tell me more?"


def test_a_recalled_message_is_said_to_be_whoever_said_it() -> None:
    """With no note, the offline answer quotes the nearest message: said to be the asker's
    only when it is (a tester's group: Alice asked about Bob, and was told "you said: Hi all,
    I'm Bob"), the familiar's own reply as its own."""
    from types import SimpleNamespace

    def node(text: str, foreign: bool) -> SimpleNamespace:
        return SimpleNamespace(kind="node", text=text, score=0.5, private=False, foreign=foreign)

    question = "what does Bob do for climbing?"
    bobs = node("(Bob, 02 Dec 2026) Hi all, I'm Bob, I love climbing.", foreign=True)
    own = node("(Alice, 02 Dec 2026) Bob took me climbing once.", foreign=False)
    mine = node("(you, 02 Dec 2026) Climbing with Bob sounds fun.", foreign=False)
    said = {
        n.text: offline_reply(question, actions=TurnActions(), items=[n], is_group=True)
        for n in (bobs, own, mine)
    }
    assert said[bobs.text].startswith("I have no note of that, but Bob said: Hi all")
    assert said[own.text].startswith("I have no note of that, but you said: Bob took")
    assert said[mine.text].startswith("I have no note of that, but I said: Climbing")


def test_a_long_recalled_message_is_quoted_by_its_relevant_sentence() -> None:
    """A tester asked "who is Gerald?" after a long message (5,500 characters, one sentence
    naming Gerald many times) and was answered with 2,000 characters of it, cut mid-word.
    The quote is the sentence that answers, and a long one is cut at a word, with "…"."""
    from types import SimpleNamespace

    week = " ".join(f"On day {i} I sanded oak boards in the workshop." for i in range(1, 60))
    text = f"(me, 02 Dec 2026) {week} My neighbour Gerald is a retired pilot. {week}"
    long_one = SimpleNamespace(kind="node", text=text, score=0.5, private=False, foreign=False)
    said = offline_reply("who is Gerald?", actions=TurnActions(), items=[long_one], is_group=False)
    assert said.startswith("I have no note of that, but you said: ")
    assert "My neighbour Gerald is a retired pilot." in said
    assert "sanded" not in said

    rambling = "(me, 02 Dec 2026) Gerald " + "and then we sanded the table again " * 60
    one = SimpleNamespace(kind="node", text=rambling, score=0.5, private=False, foreign=False)
    said = offline_reply("who is Gerald?", actions=TurnActions(), items=[one], is_group=False)
    quote = said.split("\n")[0].removeprefix("I have no note of that, but you said: ")
    assert len(quote) <= 300 and quote.endswith("…") and quote[:-1] == quote[:-1].rstrip()
