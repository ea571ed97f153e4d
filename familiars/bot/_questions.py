"""Several questions about the person in one message, each answered (tester s37: "what's my
name and how old am I?" was answered only "You are 34 years old.").

:func:`questions_in` splits a message where a new question begins: after "?", a comma or
"and", before a question word ("what's my name and how old am I?", "where do I work and
what's my dog called", "how old am I, where do I live and what's my job?"). It splits only
when every part is itself a question of two words or more, so "who do I live with and
why" and "I'm tired and what's for tea" stay one message. :func:`asked_each` reads what each
part asks about, as one question's is read (the records by meaning, and whether it surely
asks of a slot nothing kept holds), and :func:`not_known` says a part nothing answers back
to the person in their words turned to "you" ("I don't know that yet: what's your dog
called?").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from familiars.llm import is_question
from familiars.memory import MemoryRecord, Understanding, answer_records, asks_unknown

_ASKS = (
    r"(?:what|what's|whats|where|where's|when|when's|who|who's|whose|which|how|do\s+i|"
    r"did\s+i|am\s+i|is\s+my|are\s+my|have\s+i|has\s+my)"
)
_NEW_QUESTION = re.compile(
    rf"(?:\?+\s*|\s*[,;]\s*(?:and\s+|also\s+)?|\s+and\s+(?:also\s+)?)(?={_ASKS}\b)", re.I
)
MIN_WORDS = 2


@dataclass(frozen=True)
class Asked:
    """One question of a message and what answers it."""

    text: str
    #: The records it asks about, found by meaning, best first.
    meant: tuple[str, ...] = ()
    #: It surely asks of one of the person's slots that nothing kept holds.
    unknown: bool = False


def questions_in(text: str) -> list[str]:
    """The questions ``text`` asks, each on its own (each ending in "?"); ``[text]`` when it
    asks one, or is no list of questions."""
    parts = [p.strip(" ,;") for p in _NEW_QUESTION.split(text.strip())]
    parts = [p for p in parts if p.strip(" ?")]
    if len(parts) < 2 or not all(is_question(p) and len(p.split()) >= MIN_WORDS for p in parts):
        return [text]
    return [p if p.endswith("?") else f"{p}?" for p in parts]


def asked_each(
    text: str, records: Sequence[MemoryRecord], understanding: Understanding
) -> list[Asked]:
    """Each question of ``text`` (:func:`questions_in`) with what answers it; [] when it
    asks one question or none."""
    parts = questions_in(text)
    if len(parts) < 2:
        return []
    out = []
    for part in parts:
        meant = answer_records(part, records, understanding)
        unknown = not meant and asks_unknown(part, records, understanding)
        out.append(Asked(part, tuple(r.content for r in meant), unknown))
    return out


_TO_YOU = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "i'm": "you're", "im": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll",
    "am": "are",
}  # fmt: skip
_FIRST_PERSON = re.compile(r"\b(?:i'm|im|i've|i'd|i'll|i|me|my|mine|myself|am(?=\s+i\b))\b", re.I)


def to_you(question: str) -> str:
    """ "how old am I?" -> "how old are you?", "where do I work?" -> "where do you work?"."""
    said = _FIRST_PERSON.sub(lambda m: _TO_YOU[m.group(0).lower()], question.strip())
    return said[:1].lower() + said[1:]


def not_known(question: str) -> str:
    """The line for a question of several that nothing kept answers."""
    return f"I don't know that yet: {to_you(question)}"


__all__ = ["Asked", "asked_each", "not_known", "questions_in", "to_you"]
