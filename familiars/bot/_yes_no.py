"""Yes and no to a question the bot asked ("Reply yes to go ahead", "Cancel all 3 of your
reminders?"), and an answer that is neither: "yes pls", "yep do it", "no wait keep them"
(tester s39: "yes pls" was not a yes, and the question was dropped with it)."""

from __future__ import annotations

import re

#: Words that say yes. Not "forget it" (never mind), nor "right", "k" or "please" alone
#: (unclear: "yeah right" scoffs); a yes to a forget or a cancel-all must be plain.
_YES_WORD = (
    r"(?:yes|yeah|yea|yep|yup|ya|y|sure|ok|okay|confirm|confirmed|go ahead|go on(?: then)?|"
    r"do it|please do|absolutely|definitely|of course|alright|all right|correct|"
    r"i'?m sure|im sure|sure thing|that'?s fine|fine|sounds good)"
)
_YES_RE = re.compile(
    rf"{_YES_WORD}(?:[\s,.!]+(?:{_YES_WORD}|please|pls|plz))*"
    r"(?:[\s,.!]+(?:thanks|thank you|thx|ta|cheers))?"
)
_NOT_RE = re.compile(r"\b(?:no|nope|nah|not|don'?t|never|wait|stop|cancel|keep)\b")
#: A no, then at most a few words that keep it a no: "no thanks", "no wait keep them",
#: "nope, leave them", "don't".
_NO_RE = re.compile(
    r"(?:(?:oh|um+|hmm+|actually|wait|sorry)[\s,.!]+)*"
    r"(?:no+|nope|nah|no thanks|don'?t|do not|not now|never ?mind|nvm|forget it|"
    r"keep (?:it|them|them all|everything)|leave (?:it|them))"
    r"(?:[\s,.!]+(?:no+|wait|sorry|thanks|thank you|actually|don'?t|do not|please|pls|"
    r"(?:keep|leave) (?:it|them|them all|everything)|i changed my mind|changed my mind|"
    r"(?:on )?second thoughts?))*"
)
#: Words of an answer that is not clear: a yes or no mixed, a "hmm", a "maybe".
_ANSWERISH = re.compile(
    r"\b(?:yes|yeah|yep|yup|ya|ok|okay|sure|no|nope|nah|maybe|perhaps|hmm+|um+|erm|wait|"
    r"keep|do\s+it|go\s+ahead|not\s+sure|dunno|pls|please|confirm|right|k)\b"
)


def plain_answer(text: str) -> str:
    """An answer as the yes and no rules read it: lower case, one space, no end marks."""
    return " ".join(text.lower().replace("\u2019", "'").split()).strip(" .!")


def is_yes(text: str) -> bool:
    """Whether a message says yes to the question just asked ("yes", "yes pls", "yeah, do
    it", "ok please"): not a question, not a no, and nothing but yes."""
    words = plain_answer(text)
    if not words or "?" in words or _NOT_RE.search(words):
        return False
    return _YES_RE.fullmatch(words) is not None


def is_plain_no(text: str) -> bool:
    """Whether a message says no and nothing else ("no thanks", "nope", "no wait keep
    them"); "no more reminders" is not."""
    words = plain_answer(text)
    return "?" not in words and _NO_RE.fullmatch(words) is not None


def answers_unclearly(text: str) -> bool:
    """Whether a short message reads as an answer to the question but is neither a yes
    nor a no ("yes but not the first one", "hmm maybe", "wait what"): the question is
    asked again, not dropped."""
    words = plain_answer(text)
    if is_yes(text) or is_plain_no(text) or len(words.split()) > 6:
        return False
    return _ANSWERISH.search(words) is not None


#: A question about the question: "what does everything mean", "what goes?", "sure, what goes?".
_WHAT_GOES = re.compile(
    r"\b(?:what|which)\b.*\b(?:mean|means|go|goes|forget|forgotten|delete|deleted|lose|"
    r"include|includes)\b|\bwhat do you mean\b|\blike what\b"
)


def asks_what_goes(text: str) -> bool:
    """Whether a short message asks what the question would remove: it is answered with the
    question again, which says so, and the question still waits."""
    words = plain_answer(text)
    return len(words.split()) <= 10 and _WHAT_GOES.search(words) is not None


__all__ = ["answers_unclearly", "asks_what_goes", "is_plain_no", "is_yes", "plain_answer"]
