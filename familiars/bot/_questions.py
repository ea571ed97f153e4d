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

#: Text-speak spelled out, so that "wat do u know about me" is asked as "what do you know
#: about me" (s34 U57).
_SPELLED = {
    "wat": "what", "wot": "what", "wats": "what's", "u": "you", "ur": "your", "r": "are",
    "ya": "you", "abt": "about", "bout": "about", "pls": "please", "plz": "please",
    "rly": "really", "realy": "really", "sry": "sorry",
}  # fmt: skip
_SPOKEN_WORD = re.compile(r"\b(?:" + "|".join(_SPELLED) + r")\b", re.IGNORECASE)


def spelled_out(text: str) -> str:
    """``text`` with its text-speak words written out ("wat do u" -> "what do you")."""
    return _SPOKEN_WORD.sub(lambda m: _SPELLED[m.group(0).lower()], text)


#: Said before a question: "so", "and", "ok".
_OPENING = re.compile(
    r"^(?:(?:so|and|ok(?:ay)?|well|right|oh|hey|um+|hmm+|also)\b[,!.]*\s+)+", re.I
)
#: A question asked of the familiar ("can you tell me where I work", "remind me which town I
#: call home"): the question is what follows.
_ASKED_OF_YOU = re.compile(
    r"^(?:(?:can|could|would|will)\s+(?:you|u)\s+)?(?:please\s+)?(?:remind|tell)\s+me\s+"
    r"(?:again\s+)?(?=(?:what|which|where|who|whose|when|how|if|whether)\b)",
    re.I,
)
#: "tell me my name", "any idea of my age?", "remind me my wife's name": what's my ...
_MY_THING = re.compile(
    r"^(?:(?:(?:can|could|would|will)\s+(?:you|u)\s+)?(?:please\s+)?(?:remind|tell)\s+me|"
    r"(?:have\s+you\s+(?:got\s+)?)?any\s+idea\s+(?:of|about)|do\s+(?:you|u)\s+know)\s+"
    r"(?:again\s+)?(?=my\s+\w)",
    re.I,
)

#: What makes the words after "remind me" a thing to remember, not a thing asked: a verb
#: after the noun or a time ("remind me my passport expires in March", "remind me my mum's
#: coming on Friday"); "remind me my wife's name" asks.
_A_CLAUSE = re.compile(
    r"\b(?:is|are|was|were|will|'ll|has|have|had|can|could|should|must|needs?|does|did|gets?|"
    r"got|expires?|runs?\s+out|starts?|ends?|finishes|due|closes?|opens?|arrives?|comes?|"
    r"coming|goes|going|leaves?|today|tonight|tomorrow|next|january|february|march|april|may|"
    r"june|july|august|september|october|november|december|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|in\s+\d|at\s+\d|on\s+the)\b",
    re.I,
)

#: Everyday words for a friend: "who's my closest mate?" asks of a friend (tester s37: it was
#: answered with the wife's birthday).
_FRIEND_WORD = re.compile(
    r"\b(?P<my>my|your)\s+(?P<how>(?:best|closest|oldest|good|old)\s+)?"
    r"(?:mate|pal|buddy|bestie|bff|chum)\b",
    re.I,
)


def as_asked(text: str) -> str:
    """``text`` as the question it asks: text-speak spelled out, an opening word dropped,
    a friend's everyday name said plainly, and a question asked of the familiar said as
    the question ("so where am I working nowadays" -> "where am I working nowadays", "tell
    me my name" -> "what's my name?", "who's my closest mate?" -> "... closest friend?")."""
    said = _OPENING.sub("", spelled_out(text).strip())
    said = _FRIEND_WORD.sub(lambda m: f"{m['my']} {m['how'] or ''}friend", said)
    if _MY_THING.match(said) and not _A_CLAUSE.search(_MY_THING.sub("", said)):
        said = "what's " + _MY_THING.sub("", said).rstrip("?.! ") + "?"
    elif _ASKED_OF_YOU.match(said):
        said = _ASKED_OF_YOU.sub("", said).rstrip("?.! ") + "?"
    return said or text


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
    asks one, or is no list of questions. A later part's "she", "he", "they" or "it" says
    whom an earlier part names ("who's my sister and what does she do?" -> "who's my
    sister?", "what does my sister do?"); with no one named before it, nothing is split."""
    parts = [p.strip(" ,;") for p in _NEW_QUESTION.split(text.strip())]
    parts = [p for p in parts if p.strip(" ?")]
    if len(parts) < 2 or not all(is_question(p) and len(p.split()) >= MIN_WORDS for p in parts):
        return [text]
    for i in range(1, len(parts)):
        if pronoun := _PRONOUN.search(parts[i]):
            who = _named_in(parts[:i], person=not re.fullmatch(r"its?", pronoun[0], re.I))
            if who is None:
                return [text]
            parts[i] = _PRONOUN.sub(lambda m, who=who: _said_as(m, who), parts[i])
    return [p if p.endswith("?") else f"{p}?" for p in parts]


#: Someone else said as a pronoun; "her" is theirs when a noun follows ("her husband").
_PRONOUN = re.compile(
    r"\b(?:(?P<subject>she|he|they|it|him|them)|(?P<their>his|their|its)"
    r"|her(?P<hers>(?=\s+(?!(?:again|last|up|now|today|yet|about|for|to|on|in|at|with|and|or|"
    r"recently|lately|ever|much|often|first|before|after)\b)[a-z]))?)\b",
    re.I,
)
#: "my sister", "my best friend's", "my dog": the one a later pronoun may mean.
_MY_ONE = re.compile(
    r"\bmy\s+(?P<who>(?:(?:best|closest|oldest|older|younger|little|big|eldest|youngest|"
    r"new|old|step|grand)\s+)?[a-z]+?)(?:'s)?(?=\W|$)",
    re.I,
)
#: A name said inside a question ("who's Kate and where does she live?").
_A_NAME = re.compile(r"(?<=\s)(?!I\b)[A-Z][a-z]+\b")


#: What of one's own is nobody "she" or "he" could mean ("what's my name and ...").
_NO_ONE = frozenset(
    {"name", "names", "age", "birthday", "job", "work", "address", "number", "phone", "email",
     "home", "house", "flat", "car", "favourite", "fave", "height", "weight", "star", "blood"}
)  # fmt: skip


def _named_in(parts: Sequence[str], *, person: bool) -> str | None:
    """The last one the earlier ``parts`` name ("my sister", "Kate"), or None; ``person``:
    only someone ("she", "he", "they"), not a thing of the speaker's ("my name")."""
    for part in reversed(parts):
        mine = [m for m in _MY_ONE.finditer(part) if not (person and m["who"].lower() in _NO_ONE)]
        if mine:
            return f"my {mine[-1]['who']}"
        names = _A_NAME.findall(part)
        if names:
            return str(names[-1])
    return None


def _said_as(m: re.Match[str], who: str) -> str:
    if m["subject"]:
        return who
    if m["their"]:
        return f"{who}'s"
    return f"{who}'s" if m["hers"] is not None else who


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


__all__ = ["Asked", "as_asked", "asked_each", "not_known", "questions_in", "spelled_out", "to_you"]
