"""A clause made plain before its value is read by meaning (:mod:`._values`).

What people say around a fact is not the fact: a greeting before it ("hiya, I'm a nurse"),
a time that only says it is current ("I'm a postie these days", "been a plasterer for twenty
years"), a subject dropped in a chatty style ("been a plasterer", "am a nurse"), where a pet
lives ("we've got a lurcher in our house"). Each is taken off by its grammar (an adverbial
of time at the clause's edge, a verb with no subject before it, a locative of one's own
home), whatever the job, pet or person the clause then names.
"""

from __future__ import annotations

import re

_GREETING = re.compile(
    r"^(?:(?:hi+|hey+a?|hello+|hiya|yo|heya|howdy|morning|oh|ok|okay)\b[\s,!.]*)+", re.I
)
#: Whose clause it is not: "my friend has a dog called Max" is about the friend.
_OTHERS = (
    r"(?:friend|mate|neighbou?r|colleague|co-?worker|boss|flatmate|roommate|housemate|"
    r"classmate|teacher|doctor|ex|manager|landlord|client|cousin's|friend's)"
)
_SOMEONE_ELSE = re.compile(
    rf"\b(?i:my\s+(?:best\s+|old\s+|new\s+)?{_OTHERS}s?)\b|\b(?i:{_OTHERS})'s\b|"
    r"^(?:(?i:he|she|they|his|her|their)\b|[A-Z][a-z]+'s\b(?!\s+(?i:my|our|out|off|over|gone|done|"
    r"finished|history|not|no|so|too|really|just|a|an|the)\b))"
    r"|\b(?i:if|would|wish|used\s+to)\b",
)
#: A time that says the fact holds now, at either edge of the clause.
_NOW = (
    r"(?:these\s+days|nowadays|now|currently|at\s+the\s+moment|at\s+present|right\s+now|"
    r"for\s+now|full[\s-]time|part[\s-]time)"
)
_LASTING = (
    r"(?:for\s+(?:the\s+)?(?:(?:last|past)\s+)?(?:\w+|\d+)(?:\s+or\s+\w+)?\s+(?:years?|months?|"
    r"weeks?)(?:\s+now)?|for\s+(?:years|ages|a\s+while|donkey'?s\s+years)|since\s+[\w' ]+)"
)
_TIME_TAIL = re.compile(rf"(?:\s*,?\s+(?:{_NOW}|{_LASTING}))+$", re.I)
_TIME_HEAD = re.compile(rf"^(?:{_NOW}),?\s+(?=i\b|i'|im\b|we\b)", re.I)
#: A verb with its subject dropped: "been a plasterer", "am a nurse", "work as a chef".
_NO_SUBJECT = re.compile(r"^(?P<verb>been|am|work(?:ing)?\s+as)\b", re.I)
_SUBJECT = {"been": "I've been", "am": "I am"}
#: Where one's own pet lives: "in our house", "at home", "at mine", "with us".
_AT_HOME = re.compile(
    r"\s+(?:in\s+(?:our|my|the)\s+(?:house|home|flat|place|family|household)|at\s+(?:home|mine|"
    r"ours|my\s+place|our\s+place)|with\s+(?:us|me))\b",
    re.I,
)


def plain(clause: str) -> str:
    """``clause`` without the marks around it and a greeting before it."""
    return _GREETING.sub("", clause.strip(" .!?")).strip()


def untimed(text: str) -> str:
    """``text`` without a time that only says the fact is current, and with a dropped "I"
    put back: "been a plasterer for twenty years" -> "I've been a plasterer"."""
    text = _TIME_HEAD.sub("", _TIME_TAIL.sub("", text)).strip(" ,")
    m = _NO_SUBJECT.match(text)
    if m is None:
        return text
    verb = m.group("verb").lower()
    return f"{_SUBJECT.get(verb, 'I ' + verb)}{text[m.end() :]}"


def at_home_dropped(text: str) -> str:
    """``text`` without where one's own pet lives: "there's a spaniel in our house called
    Biscuit" -> "there's a spaniel called Biscuit"."""
    return _AT_HOME.sub("", text)


def says_at_home(text: str) -> bool:
    return bool(_AT_HOME.search(text))


#: Emphasis typed around words: "I *love* hiking", "I __really__ hate queues".
_EMPHASIS = re.compile(r"(?<![\w*_])([*_]{1,2})(?P<said>[^\W_][\w' -]*?)\1(?![\w*_])")


def unemphasised(text: str) -> str:
    """``text`` with emphasis marks taken off the words they stress."""
    return _EMPHASIS.sub(lambda m: m.group("said"), text)


#: A word of candour said inside a statement: after its subject or verb ("I actually work at
#: Lidl", "my cat is actually called Mochi") or at its end ("I live in Leeds now actually").
#: It says how the fact is said, not what it is, and a rule read it as a word of the fact.
_CANDOUR = r"(?:actually|honestly|genuinely|literally|basically|tbh|tbf)"
_CANDOUR_INSIDE = re.compile(
    rf"\b(?P<before>i|i'm|im|we|we're|is|are|am|was)\s+{_CANDOUR}\s+(?=\w)", re.I
)
_CANDOUR_END = re.compile(rf"[\s,]+{_CANDOUR}(?=\s*(?:[.!?;,]|$))", re.I)


def unfilled(text: str) -> str:
    """``text`` without a word of candour inside or at the end of a statement."""
    return _CANDOUR_END.sub("", _CANDOUR_INSIDE.sub(r"\g<before> ", text))
