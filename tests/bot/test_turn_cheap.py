"""The turn's cost outside the reader (issue 20): what is made cheaper gives what it gave."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from familiars.benchmarks import synthetic_facts
from familiars.bot._answers import answer_lines, may_answer

_QUESTIONS = [
    "what was the name of that hiking trail you told me about",
    "do you remember what my sister is learning these days",
    "what's my pet called?",
    "what is my cat's name?",
    "what's my dog's name?",
    "who am I?",
    "where do I live?",
    "what's my job?",
    "what food do I like?",
    "when is my birthday?",
    "what do I like?",
    "remind me what I said about the night shift",
]
_KNOWN = [
    "The user's tabby is called Miso.",
    "The user has a golden retriever named Biscuit.",
    "The user's name is Ali.",
    "The user lives in Denver.",
    "The user works as a nurse.",
    "The user is vegetarian.",
    "The user likes hiking on the Ridge trail.",
    "The user's sister is learning Welsh.",
    "The user's birthday is on 3 May.",
    "(alice, 01 Dec 2026) I work the night shift on fridays",
]


@dataclass
class _Item:
    kind: str
    text: str
    score: float = 0.0
    private: bool = True
    foreign: bool = False


@pytest.mark.parametrize("question", _QUESTIONS)
def test_an_offline_answer_scores_only_what_may_answer_it(question: str) -> None:
    """The offline answer to a question, from the records its words' index finds, is the
    answer scoring every record gives (the others score 0)."""
    texts = [*_KNOWN, *synthetic_facts(400, seed=3)]
    items = [_Item("node" if t.startswith("(") else "record", t) for t in texts]
    picked = may_answer(question, texts)
    assert picked == sorted(picked)
    assert answer_lines(question, [items[i] for i in picked]) == answer_lines(question, items)


def test_a_question_naming_nothing_strong_reads_every_record() -> None:
    texts = ["The user's name is Ali.", "The user likes tea."]
    assert may_answer("who am I?", texts) == [0, 1]
    assert may_answer("what's my cat called?", ["The user has a tabby.", "Tea."]) == [0]
