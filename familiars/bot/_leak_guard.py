"""The last check before anything goes out to a group (issues 12 and 19).

A text bound for a group is compared with the private notes (user-scope records) of every
person the familiar knows in that chat, the speaker's and everyone else's. What the group
itself said (the message, the visible branch, the members' names) is public and never
counts. The text is read in one normal form (:mod:`familiars.bot._guard_text`: width,
accents and case folded) and five kinds of evidence are looked for:

- **numbers** in any form (digits with any separators, spaced, split, in words): a private
  number of three or more digits said in the text, or four or more of a long one ("ending in
  0199"); a two-digit one only next to its owner's name ("Alice is forty-two");
- **identifiers**: e-mail addresses, URLs, @handles and tokens mixing letters and digits,
  matched with separators and "at"/"dot" ignored ("alice at example dot com");
- **rare words and names**: a word of a private note that is not a common English word, or
  a name in it (capitalised inside a sentence), spelled however ("Ｗｈｉｓｋｅｒｓ", "W h i s
  k e r s", "whis kers");
- **owner's words**: a less common word of a note ("pregnant", "mortgage") said within a
  few words of its owner's name, or anywhere in a reply to a message that names them ("what
  is Ana allergic to?" -> "She's allergic to peanuts": the reply is about Ana);
- **quotes**: three content words in a row (stemmed) shared with a private note.

:class:`Secrets` is what one person's notes give (built once and cached by the caller,
:mod:`familiars.bot._outbound`); :func:`guard_text` redacts what it finds (``[private]``) or
withholds the whole text when a quote or an identifier leaks or there are more than
:data:`MAX_REDACTIONS` spans: a reply with holes in every line says as much as the original.
It is pure; :func:`guard_group_reply` is the same for plain lists of texts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from familiars.bot._guard_text import (
    STOPWORDS,
    Token,
    fold,
    nfkc,
    number_runs,
    rank,
    stem,
    tokens,
    word_list,
)

REDACTED = "[private]"
WITHHELD = (
    "I'd rather not share that here: it's something I only talk about in private. "
    "Ask me in a direct message."
)
MAX_REDACTIONS = 2
#: Content words in a row that make a quote.
QUOTE_WORDS = 3
#: Common words ranked past this are "less common": evidence next to their owner's name.
OWNER_RANK = 3000
#: Capitalised words ranked within this are everyday words, not names ("London" is one).
NAME_RANK = 1500
#: How near (in words) an owner's name and their word must stand.
OWNER_WINDOW = 12
#: Two number runs at most this many characters apart are read together.
PAIR_GAP = 40
#: Identifier fillers a paraphrase puts in ("alice at example dot com").
_FILLERS = frozenset(word_list("at dot dash hyphen underscore plus slash http https www mailto"))
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
_URL = re.compile(r"(?:https?://|www\.)\S+|\b[\w-]+(?:\.[\w-]+)*\.[a-z]{2,6}/\S*", re.UNICODE)
_HANDLE = re.compile(r"(?<![\w.])@[\w.]{3,}", re.UNICODE)
_MIXED = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[^\W_]+(?:[-_][^\W_]+)*\b", re.UNICODE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n\"“(]\s*)$")
#: Capitalised by convention, never a name.
_CALENDAR = frozenset(
    word_list(
        """monday tuesday wednesday thursday friday saturday sunday january february march
        april may june july august september october november december christmas easter"""
    )
)
#: "The user's wifi password is ...": the words naming what the value is (the label) say
#: nothing about the person; the value after "is" does.
_LABEL = re.compile(
    r"^\W*(?:the user'?s?|my|his|her|their)\s+(?P<label>[^.,;:]*?)\s+(?:is|are|was)\s", re.I
)
#: A note that says what its owner is called ("The user's name is Ana", "The user goes by
#: Ana"): that name is theirs as their display name is (a relative's "is called" is not).
_OWN_NAME = re.compile(
    r"(?i:\bthe user(?:'s)?\s+(?:(?:(?:full|first|real|nick)\s*)?name\s+is|goes\s+by|"
    r"is\s+called|is\s+named|prefers\s+to\s+be\s+called))\s+"
    r"(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
)


@dataclass(frozen=True)
class Leak:
    kind: str  # "number" | "identifier" | "word" | "owner" | "quote"
    text: str
    start: int = 0
    end: int = 0


@dataclass(frozen=True)
class GuardVerdict:
    """What to send, and why it differs from the text given (if it does)."""

    text: str
    leaks: tuple[Leak, ...] = field(default_factory=tuple)
    withheld: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.leaks)


@dataclass(frozen=True)
class OwnerWords:
    """What counts only next to its owner's name: less common words, two-digit numbers."""

    names: frozenset[str]
    words: frozenset[str]
    numbers: frozenset[str]


@dataclass(frozen=True)
class Secrets:
    """The evidence private notes give: built once per person, merged per chat."""

    numbers: frozenset[str] = frozenset()
    identifiers: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    quotes: frozenset[tuple[str, ...]] = frozenset()
    owners: tuple[OwnerWords, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.numbers or self.identifiers or self.words or self.quotes or self.owners)

    @staticmethod
    def merge(many: Iterable[Secrets]) -> Secrets:
        parts = list(many)
        return Secrets(
            numbers=frozenset().union(*(s.numbers for s in parts)),
            identifiers=frozenset().union(*(s.identifiers for s in parts)),
            words=frozenset().union(*(s.words for s in parts)),
            quotes=frozenset().union(*(s.quotes for s in parts)),
            owners=tuple(o for s in parts for o in s.owners),
        )


# ---------------------------------------------------------------------------- private side


def secrets_of(texts: Iterable[str], names: Iterable[str] = ()) -> Secrets:
    """The evidence of one person's private ``texts``; ``names`` are what the person is
    called (their display name), for the words that count only next to it."""
    numbers: set[str] = set()
    identifiers: set[str] = set()
    words: set[str] = set()
    quotes: set[tuple[str, ...]] = set()
    owner_words: set[str] = set()
    owner_numbers: set[str] = set()
    texts = list(texts)
    for raw in texts:
        text = nfkc(raw)
        found = tokens(text)
        for run in number_runs(found, text):
            (numbers if len(run.digits) >= 3 else owner_numbers).add(run.digits)
        identifiers |= _identifiers(text)
        rare, less_common = _note_words(found, text)
        words |= rare
        owner_words |= less_common
        quotes |= _shingles(found)
    owner_numbers = {n for n in owner_numbers if len(n) == 2}
    texts_names = [m["name"] for raw in texts for m in _OWN_NAME.finditer(nfkc(raw))]
    every_name = [*names, *texts_names]
    name_words = frozenset(
        t.word for name in every_name for t in tokens(nfkc(name)) if len(t.word) > 1
    )
    owners: tuple[OwnerWords, ...] = ()
    if name_words and (owner_words or owner_numbers):
        owners = (OwnerWords(name_words, frozenset(owner_words), frozenset(owner_numbers)),)
    return Secrets(
        frozenset(numbers), frozenset(identifiers), frozenset(words), frozenset(quotes), owners
    )


def _squash(text: str) -> str:
    return "".join(c for c in fold(text) if c.isalnum())


def _identifiers(text: str) -> set[str]:
    """E-mail addresses (and their local part when it is more than a plain name), URLs,
    handles and mixed letter-digit tokens, as letters and digits only."""
    out: set[str] = set()
    for m in _EMAIL.finditer(text):
        out.add(_squash(m.group()))
        local = m.group().split("@", 1)[0]
        if len(_squash(local)) >= 8 or re.search(r"[\d._+-]", local):
            out.add(_squash(local))
    for m in _URL.finditer(text):
        out.add(_squash(re.sub(r"^(?:https?://)?(?:www\.)?", "", m.group().rstrip(".,;)"))))
    for pattern in (_HANDLE, _MIXED):
        out |= {_squash(m.group()) for m in pattern.finditer(text)}
    return {s for s in out if len(s) >= 4 and not s.isdigit()}


def _note_words(found: Sequence[Token], text: str) -> tuple[set[str], set[str]]:
    """(stems of rare words and names, stems of less common words) of one note."""
    rare: set[str] = set()
    less_common: set[str] = set()
    label = _LABEL.match(text)
    label_end = label.end("label") if label else -1
    for tok in found:
        word = tok.word
        if len(word) < 3 or not word.isalpha() or word in STOPWORDS:
            continue
        where = rank(word)
        if where is None or (_is_name(tok, text) and where > NAME_RANK):
            rare.add(stem(word))
        elif where > OWNER_RANK and tok.end > label_end:
            less_common.add(stem(word))
    return rare, less_common


def _is_name(tok: Token, text: str) -> bool:
    """Capitalised (not all capitals) and not the first word of a sentence."""
    raw = tok.raw
    if tok.word in _CALENDAR or not (raw[:1].isupper() and any(c.islower() for c in raw[1:])):
        return False
    return not _SENTENCE_START.search(text[max(0, tok.start - 3) : tok.start])


def _content(found: Sequence[Token]) -> list[str]:
    return [stem(t.word) for t in found if t.word not in STOPWORDS and len(t.word) > 1]


def _shingles(found: Sequence[Token]) -> set[tuple[str, ...]]:
    words = _content(found)
    return {tuple(words[i : i + QUOTE_WORDS]) for i in range(len(words) - QUOTE_WORDS + 1)}


# ---------------------------------------------------------------------------- the text side


@dataclass(frozen=True)
class _Read:
    """A text as the guard reads it: tokens, number runs, stems, quotes."""

    text: str
    found: list[Token]
    runs: list[tuple[str, int, int]]
    stems: list[str]
    quotes: set[tuple[str, ...]]

    @staticmethod
    def of(text: str) -> _Read:
        found = tokens(text)
        runs = [(r.digits, r.start, r.end) for r in number_runs(found, text)]
        return _Read(text, found, runs, [stem(t.word) for t in found], _shingles(found))


def find_leaks(
    text: str, secrets: Secrets, public: Iterable[str] = (), answering: str = ""
) -> list[Leak]:
    """Evidence in ``text`` (NFKC) of a private note that the ``public`` texts do not explain;
    ``answering`` is the message ``text`` replies to (one of the public texts): an owner it
    names is who the reply is about."""
    if secrets.empty or not text.strip():
        return []
    said = _Read.of(text)
    about = {t.word for t in tokens(nfkc(answering))} if answering else set()
    if not _evidence(said, _Read.of(""), secrets, about):
        return []  # the usual case: the public side need not be read at all
    return _evidence(said, _Read.of(nfkc("\n".join(public))), secrets, about)


def _evidence(said: _Read, heard: _Read, secrets: Secrets, about: set[str]) -> list[Leak]:
    leaks = _numbers(said, heard, secrets.numbers)
    leaks += _identifier_leaks(said, heard, secrets.identifiers)
    leaks += _word_leaks(said, heard, secrets.words)
    leaks += _owner_leaks(said, heard, secrets.owners, about)
    shared = (said.quotes & secrets.quotes) - heard.quotes
    leaks += [Leak("quote", " ".join(q)) for q in sorted(shared)[:1]]
    return leaks


def _numbers(said: _Read, heard: _Read, secret: frozenset[str]) -> list[Leak]:
    """Runs that say a private number (or four digits or more of a long one); two runs close
    together count as one ("it starts with 49 and ends with 21")."""
    public = [digits for digits, _, _ in heard.runs]
    leaks = []
    runs = said.runs
    pairs = [
        (a[0] + b[0], a[1], b[2])
        for a, b in zip(runs, runs[1:], strict=False)
        if b[1] - a[2] <= PAIR_GAP
    ]
    for digits, start, end in runs + pairs:
        if len(digits) < 3 or any(digits in p for p in public):
            continue
        if any(s in digits or (len(digits) >= 4 and len(s) >= 6 and digits in s) for s in secret):
            leaks.append(Leak("number", said.text[start:end], start, end))
    return leaks


def _identifier_leaks(said: _Read, heard: _Read, secret: frozenset[str]) -> list[Leak]:
    found = _joined(said, secret) if secret else []
    if not found:
        return []
    public = {m for m, _, _ in _joined(heard, secret)}
    return [
        Leak("identifier", said.text[start:end], start, end)
        for match, start, end in found
        if match not in public
    ]


def _joined(read: _Read, secret: frozenset[str]) -> list[tuple[str, int, int]]:
    """Runs of adjacent tokens (fillers skipped) whose letters and digits make a secret."""
    longest = max(len(s) for s in secret)
    found = [t for t in read.found if t.word not in _FILLERS]
    out = []
    i = 0
    while i < len(found):
        joined, hit = "", None
        for j in range(i, len(found)):
            joined += found[j].word  # folded tokens are letters and digits already
            if len(joined) > longest:
                break
            if joined in secret:
                hit = (joined, found[i].start, found[j].end, j)
        if hit is None:
            i += 1
            continue
        out.append(hit[:3])
        i = hit[3] + 1
    return out


def _word_leaks(said: _Read, heard: _Read, secret: frozenset[str]) -> list[Leak]:
    public = set(heard.stems)
    leaks = []
    for tok, word_stem in zip(said.found, said.stems, strict=True):
        if word_stem in secret and word_stem not in public:
            leaks.append(Leak("word", tok.raw, tok.start, tok.end))
    public_pairs: set[str] | None = None
    for a, b in zip(said.found, said.found[1:], strict=False):
        joined = a.word + b.word
        if len(joined) < 6 or stem(joined) not in secret or stem(joined) in public:
            continue
        if public_pairs is None:
            public_pairs = set(_pairs(heard.found))
        if joined not in public_pairs:
            leaks.append(Leak("word", said.text[a.start : b.end], a.start, b.end))
    return leaks


def _pairs(found: Sequence[Token]) -> list[str]:
    return [a.word + b.word for a, b in zip(found, found[1:], strict=False)]


def _owner_leaks(
    said: _Read, heard: _Read, owners: Sequence[OwnerWords], about: set[str]
) -> list[Leak]:
    """Less common words (and two-digit numbers) of a note near its owner's name, or
    anywhere when the message answered names the owner (``about``)."""
    public = set(heard.stems) | {d for d, _, _ in heard.runs}
    leaks = []
    for owner in owners:
        asked_about = not owner.names.isdisjoint(about)
        named = [i for i, t in enumerate(said.found) if t.word in owner.names]
        for i, tok in enumerate(said.found):
            if not asked_about and not any(abs(i - n) <= OWNER_WINDOW for n in named):
                continue
            key = said.stems[i]
            if key in owner.words and key not in public:
                leaks.append(Leak("owner", tok.raw, tok.start, tok.end))
        for digits, start, end in said.runs:
            near = asked_about or any(abs(said.found[n].start - start) < 80 for n in named)
            if near and digits in owner.numbers and digits not in public:
                leaks.append(Leak("owner", said.text[start:end], start, end))
    return _unique(leaks)


def _unique(leaks: list[Leak]) -> list[Leak]:
    seen: dict[tuple[int, int], Leak] = {}
    for leak in leaks:
        seen.setdefault((leak.start, leak.end), leak)
    return list(seen.values())


# ---------------------------------------------------------------------------- the verdict


def guard_text(
    text: str, secrets: Secrets, public: Iterable[str] = (), answering: str = ""
) -> GuardVerdict:
    """``text`` as it may go out to a group: unchanged, redacted, or withheld (``answering``:
    the message it replies to, see :func:`find_leaks`)."""
    normal = nfkc(text)
    leaks = find_leaks(normal, secrets, public, answering)
    if not leaks:
        return GuardVerdict(text)
    spans = _unique(leaks)
    whole = any(leak.kind in ("quote", "identifier") or leak.end <= leak.start for leak in leaks)
    if whole or len(spans) > MAX_REDACTIONS:
        return GuardVerdict(WITHHELD, tuple(leaks), withheld=True)
    return GuardVerdict(_redact(normal, spans), tuple(leaks))


def _redact(text: str, spans: Sequence[Leak]) -> str:
    cut = len(text) + 1
    for leak in sorted(spans, key=lambda x: (x.start, x.end), reverse=True):
        end = min(leak.end, cut)  # spans that overlap are cut as one
        text = text[: leak.start] + REDACTED + text[end:]
        cut = leak.start
    return text


def guard_group_reply(
    reply: str,
    private: Iterable[str],
    public: Iterable[str] = (),
    names: Iterable[str] = (),
    answering: str = "",
) -> GuardVerdict:
    """:func:`guard_text` against the ``private`` texts of one person called ``names``."""
    return guard_text(reply, secrets_of(private, names), public, answering)
