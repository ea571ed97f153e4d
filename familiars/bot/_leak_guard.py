"""The last check before a group reply goes out (issue 12).

A reply in a group chat is compared with every private text that reached its prompt: the
speaker's own user-scope notes and anything of another person's scope. What the group itself
said (the message, the visible branch) is public and never counts. Three kinds of evidence:

- **numbers**: a run of three or more digits (separators ignored: "4 9 2 1", "4-921") that is
  in a private text and in the reply: PINs, card and phone numbers, amounts;
- **quotes**: four words in a row (case and punctuation ignored) shared with a private text;
- **names**: a capitalised word of a private text, not a common word, that the reply uses.

:func:`guard_group_reply` redacts what it finds (``[private]``), or withholds the whole reply
when the leak is a quote or more than :data:`MAX_REDACTIONS` spans: a reply with holes in
every line says as much as the original. It is pure: the caller sends the verdict's text and
counts the event.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

REDACTED = "[private]"
WITHHELD = (
    "I'd rather not share that here: it's something I only talk about in private. "
    "Ask me in a direct message."
)
MAX_REDACTIONS = 2
QUOTE_WORDS = 4

_DIGITS = re.compile(r"\d(?:[\s.\-/]?\d){2,}")
_WORD = re.compile(r"[\w']+", re.UNICODE)
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]+\b")
# Capitalised words that are no one's secret: sentence openers, days, pronouns.
_COMMON = frozenset(
    [
        "i",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "the",
        "a",
        "an",
        "and",
        "but",
        "or",
        "so",
        "my",
        "your",
        "his",
        "her",
        "their",
        "our",
        "its",
        "it",
        "this",
        "that",
        "these",
        "those",
        "he",
        "she",
        "they",
        "we",
        "you",
        "user",
        "user's",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "yes",
        "no",
        "ok",
        "okay",
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank",
        "please",
        "sorry",
        "remember",
        "remind",
        "noted",
        "updated",
        "sure",
        "what",
        "when",
        "where",
        "who",
        "why",
        "how",
        "today",
        "tomorrow",
        "yesterday",
    ]
)


@dataclass(frozen=True)
class Leak:
    kind: str  # "number" | "quote" | "name"
    text: str


@dataclass(frozen=True)
class GuardVerdict:
    """What to send, and why it differs from the model's reply (if it does)."""

    text: str
    leaks: tuple[Leak, ...] = field(default_factory=tuple)
    withheld: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.leaks)


def _digits(text: str) -> set[str]:
    return {re.sub(r"\D", "", m.group()) for m in _DIGITS.finditer(text)}


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _shingles(words: Sequence[str], n: int = QUOTE_WORDS) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _names(text: str) -> set[str]:
    return {m.group() for m in _CAPITALISED.finditer(text) if m.group().casefold() not in _COMMON}


def find_leaks(reply: str, private: Iterable[str], public: Iterable[str] = ()) -> list[Leak]:
    """Evidence in ``reply`` of a ``private`` text that the ``public`` texts do not explain."""
    private = [p for p in private if p.strip()]
    if not private or not reply.strip():
        return []
    public_text = "\n".join(public)
    public_digits = _digits(public_text)
    public_words = set(_words(public_text))
    public_shingles = _shingles(_words(public_text))
    leaks: list[Leak] = []
    secret_digits = set().union(*(_digits(p) for p in private)) - public_digits
    for match in _DIGITS.finditer(reply):
        if re.sub(r"\D", "", match.group()) in secret_digits:
            leaks.append(Leak("number", match.group()))
    reply_shingles = _shingles(_words(reply))
    for text in private:
        shared = (_shingles(_words(text)) & reply_shingles) - public_shingles
        if shared:
            leaks.append(Leak("quote", " ".join(sorted(shared)[0])))
    secret_names = set().union(*(_names(p) for p in private))
    for name in sorted(secret_names):
        if name.casefold() in public_words:
            continue
        if re.search(rf"\b{re.escape(name)}\b", reply):
            leaks.append(Leak("name", name))
    return leaks


def _redact(reply: str, leaks: Sequence[Leak]) -> str:
    for leak in leaks:
        reply = re.sub(rf"\b{re.escape(leak.text)}\b", REDACTED, reply)
    return reply


def guard_group_reply(
    reply: str, private: Iterable[str], public: Iterable[str] = ()
) -> GuardVerdict:
    """The reply as it may be sent to a group: unchanged, redacted, or withheld."""
    leaks = find_leaks(reply, private, public)
    if not leaks:
        return GuardVerdict(reply)
    if any(leak.kind == "quote" for leak in leaks) or len(leaks) > MAX_REDACTIONS:
        return GuardVerdict(WITHHELD, tuple(leaks), withheld=True)
    return GuardVerdict(_redact(reply, leaks), tuple(leaks))
