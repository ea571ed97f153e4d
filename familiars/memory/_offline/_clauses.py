"""Cutting a message into sentences and clauses, the offline writer's first step.

:func:`sentences` cuts at sentence ends (abbreviations kept whole); :func:`_split_sentence`
cuts one sentence into clauses (quoted speech never cut, a left-out "I" given back);
:func:`_sentence_clauses` drops what only imagines and the condition of an "if ...";
:func:`_is_question` / :func:`_as_request` tell a question from a polite "can you remember".
"""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)


_FILLERS = re.compile(
    r"^(?:(?:well|so|oh|hi|hey|hello|ok|okay|yes|yeah|yep|also|and|but|actually|btw|by the way|"
    r"anyway|just so you know|fyi|honestly|fun fact|oh and)[,!.]?\s+)+",
    re.IGNORECASE,
)
_I = r"(?:i|i'm|im|i've|i'd|i'll)"
#: Verbs that may follow "and"/"but" with the subject "I" left out ("I work at Acme and live in
#: Leeds"). Lower case only, so "Peace and Love Festival" stays one object; a verb must be
#: followed by something ("I like peace and love" stays one object).
_SUBJECTLESS_VERB = (
    r"(?-i:(?:also\s+|now\s+|really\s+|still\s+|just\s+)?(?:live|work|like|love|enjoy|adore|hate|"
    r"dislike|detest|drink|prefer|moved|reside|don't|do not|can't stand|am)\b)"
)
_CLAUSE_SPLIT = re.compile(
    rf",?\s+(?:and|but|so|because|since|although|though|while|whereas)\s+(?={_I}\b)"
    r"|,\s+(?:and|but)\s+|\s+but\s+"
    rf"|,\s+(?=(?:{_I}|my)\s)"
    r"|,?\s+and\s+(?=my\s+[\w' -]{1,30}?\s+(?:is|are|was|were)\b)"
    rf"|,?\s+(?:and|but)\s+(?={_SUBJECTLESS_VERB}\s+\S)"
    r"|,\s+(?=(?:do|don't|did|are|aren't|have|haven't|what about|how about|and)\s+you\b)",
    re.IGNORECASE,
)
_SUBJECTLESS = re.compile(rf"^{_SUBJECTLESS_VERB}")
_HAS_SUBJECT_I = re.compile(rf"^{_I}\s", re.IGNORECASE)
#: Sentence ends: after . ! ? ; and a space, or at a line break; not after "Mr." or "a.m.".
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s*\n+\s*")
_ABBREVIATION = re.compile(
    r"\b(?:mr|mrs|ms|dr|st|prof|jr|sr|vs|etc|e\.g|i\.e|a\.m|p\.m|approx|mt|no)\.$", re.IGNORECASE
)
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
#: Sentences that only imagine: nothing in them is a fact.
_HYPOTHETICAL = re.compile(
    r"^(?:imagine|suppose|supposing|pretend|what if|let's say|lets say|hypothetically|"
    r"in theory|in my dreams|if only|i wish|i dream)\b",
    re.IGNORECASE,
)
#: Sentences whose first part is a condition: "If I lived in Leeds and worked at Acme, ...".
_CONDITION = re.compile(r"^(?:if|unless|in case|once|whenever)\b", re.IGNORECASE)
_QUESTION_START = re.compile(
    r"^(?:do|does|did|what|what's|whats|who|whom|whose|where|when|why|how|is|are|was|were|can|"
    r"could|would|will|should|shall|may|might|have|has|am|which)\b(?!['’]t\b|n['’]t\b)",
    re.IGNORECASE,
)
_REPORTED = re.compile(r"[\"“”]|\b(?:said|says|told me|asked|wrote)\b", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends (. ! ? ; and line breaks), abbreviations kept whole."""
    text = text.replace("’", "'").replace("‘", "'")
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if "\n" not in m.group(0) and _ABBREVIATION.search(text[start : m.start()]):
            continue
        out.append(text[start : m.start()])
        start = m.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def _split_sentence(sentence: str) -> list[str]:
    """One sentence's clauses; quoted speech is never cut, and a clause that leaves out its
    subject ("... and live in Leeds") gets back the "I" of the clause before it."""
    quotes: list[str] = []

    def hide(m: re.Match[str]) -> str:
        quotes.append(m.group(0))
        return f"\x00{len(quotes) - 1}\x00"

    masked = _QUOTED.sub(hide, sentence)
    out: list[str] = []
    for part in _CLAUSE_SPLIT.split(masked):
        part = re.sub(r"\x00(\d+)\x00", lambda m: quotes[int(m.group(1))], part)
        part = _FILLERS.sub("", part.strip().strip(".!;,").strip()).strip()
        if not part:
            continue
        if out and _SUBJECTLESS.match(part) and _HAS_SUBJECT_I.match(out[-1]):
            part = "I " + part
        out.append(part)
    return out


def _sentence_clauses(text: str) -> list[tuple[str, list[str]]]:
    """Each sentence that states something, with its clauses: a sentence that only imagines
    is dropped, and so is the condition of an "if ..., ..." sentence."""
    out = []
    for sentence in sentences(text):
        bare = _FILLERS.sub("", sentence)
        if _HYPOTHETICAL.match(bare):
            continue
        if _CONDITION.match(bare):
            masked = _QUOTED.sub("", bare)
            if "," not in masked:
                continue
            sentence = masked.split(",", 1)[1].strip()
        out.append((sentence, _split_sentence(sentence)))
    return out


def clauses(text: str) -> list[str]:
    return [c for _, group in _sentence_clauses(text) for c in group]


_POLITE_REQUEST = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"(?=(?:remember|note|keep\s+in\s+mind|set\s+(?:me\s+)?an?\s+reminder|"
    r"remind\s+me\s+(?!(?:what|who|where|when|how|which|why|whether|if|of)\b))\b)",
    re.IGNORECASE,
)


def _is_question(clause: str, raw_text: str) -> bool:
    return clause.endswith("?") or bool(_QUESTION_START.match(clause))


def _as_request(clause: str) -> str:
    """ "can you remember that my locker code is 4471?" asks to keep a fact, not a question
    (and "could you remind me ..." asks for a reminder)."""
    m = _POLITE_REQUEST.match(clause)
    return clause[m.end() :].rstrip("?").strip() if m else clause
