"""Text as the group guard reads it (:mod:`familiars.bot._leak_guard`, issue 19).

- **one normal form**: :func:`nfkc` first (full-width and compatibility forms: "Ｗｈｉｓｋｅｒｓ",
  "４９２１"), then :func:`fold` per word: accents dropped (NFKD without combining marks) and
  case folded, so "ZOË", "Zoe" and "zoë" are one word;
- **tokens** (:func:`tokens`): runs of letters and digits of the NFKC text with their places,
  so what the guard finds can be redacted where it stands; a run of single letters spelled
  out ("W h i s k e r s", "w-h-i-s") is also read as the word it spells;
- **numbers in any form** (:func:`number_runs`): digits with any separators ("4 9 2 1",
  "49-21", "(555) 010-0199"), number words ("four nine two one", "forty-nine twenty-one",
  "four thousand nine hundred and twenty-one", "double five"), mixed ("49 twenty-one"), each
  run read as the digit string it says;
- **common words** (:data:`COMMON_RANK`): the frequency-ordered English words of
  ``data/common_words.txt`` (``scripts/make_common_words.py`` writes it from the bundled
  embedder's vocabulary); a word's rank is its line number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import snowballstemmer

from familiars.llm import text_cache

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def word_list(text: str) -> list[str]:
    """The words of a literal written as prose (long word lists read better that way)."""
    return text.split()


_STEMMER = snowballstemmer.stemmer("english")
_COMMON_FILE = Path(__file__).parent / "data" / "common_words.txt"

#: Function words and the writer's own wording ("The user's ..."): never evidence alone.
STOPWORDS = frozenset(
    word_list(
        """a an the and or but if of to in on at for with by from is are was were be been being
    do does did done have has had having i you he she it we they me him her them my your his
    its our their this that these those what which who whom whose when where why how not no
    so than too very can could would should will shall may might must just about as into
    over also there here then up down out s t d ll m re ve am let get got any some all one
    ones such only own same other more most much many each few both again once hey hi oh
    yeah yes ok okay wow really user users person people named called name like likes liked
    said says say tell told know knows think well sure now today tomorrow yesterday"""
    )
)


def _load_common() -> dict[str, int]:
    words = _COMMON_FILE.read_text(encoding="utf-8").split()
    return {w: rank for rank, w in enumerate(words, start=1)}


#: Common English word -> its frequency rank (1 is "the").
COMMON_RANK: dict[str, int] = _load_common()


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


@text_cache
@lru_cache(maxsize=50_000)
def fold(word: str) -> str:
    """One spelling for a word: compatibility forms, accents and case all folded."""
    decomposed = unicodedata.normalize("NFKD", nfkc(word))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@text_cache
@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """The folded word's stem ("whiskers" and "whisker" are one)."""
    return str(_STEMMER.stemWord(word))


def rank(word: str) -> int | None:
    """The folded word's frequency rank among common English words; None: not common."""
    return COMMON_RANK.get(word)


@dataclass(frozen=True)
class Token:
    """A word of the NFKC text: its folded form and where it stands."""

    word: str
    start: int
    end: int
    raw: str


def tokens(text: str) -> list[Token]:
    """The words of ``text`` (already NFKC), with spelled-out letter runs joined."""
    found = [Token(fold(m.group()), m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    return _join_spelled(found, text)


def _join_spelled(found: list[Token], text: str) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(found):
        j = i
        while (
            j + 1 < len(found)
            and len(found[j].word) == 1
            and len(found[j + 1].word) == 1
            and found[j].word.isalpha() == found[j + 1].word.isalpha()
            and _near(text, found[j], found[j + 1])
        ):
            j += 1
        if j - i >= 2 and found[i].word.isalpha():
            word = "".join(t.word for t in found[i : j + 1])
            raw = text[found[i].start : found[j].end]
            out.append(Token(word, found[i].start, found[j].end, raw))
            i = j + 1
            continue
        out.append(found[i])
        i += 1
    return out


def _near(text: str, a: Token, b: Token) -> bool:
    """Two tokens separated by at most a few spaces or punctuation marks, on one line."""
    gap = text[a.end : b.start]
    return len(gap) <= 3 and "\n" not in gap and not any(c.isalnum() for c in gap)


# ---------------------------------------------------------------------------- numbers

_UNITS = {
    w: i for i, w in enumerate(word_list("zero one two three four five six seven eight nine"))
} | {"oh": 0, "nought": 0, "nil": 0}
_TEENS = {
    w: i + 10
    for i, w in enumerate(
        word_list("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen")
    )
}
_TENS = {
    w: (i + 2) * 10
    for i, w in enumerate(word_list("twenty thirty forty fifty sixty seventy eighty ninety"))
}
_SCALES = {"thousand": 1000, "million": 1_000_000}
_REPEATS = {"double": 2, "triple": 3}
_ORDINAL_DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_THOUSANDS = re.compile(r"^(\d+)k$")  # "87k"
NUMBER_WORDS = frozenset([*_UNITS, *_TEENS, *_TENS, *_SCALES, *_REPEATS, "hundred", "and"])


@dataclass(frozen=True)
class NumberRun:
    """Adjacent number tokens read as one digit string, and where they stand."""

    digits: str
    start: int
    end: int


def _is_number(token: Token) -> bool:
    word = token.word
    if word.isdigit() or _ORDINAL_DIGITS.match(word) or _THOUSANDS.match(word):
        return True
    return word in NUMBER_WORDS and word not in ("and", "oh", "nil")


def _continues(prev: Token, nxt: Token) -> bool:
    """Whether ``nxt`` goes on the number ``prev`` is part of ("four hundred and six")."""
    if _is_number(nxt) or nxt.word in ("oh", "nil"):
        return True
    return nxt.word == "and" and (prev.word == "hundred" or prev.word in _SCALES)


def number_runs(found: Sequence[Token], text: str) -> Iterator[NumberRun]:
    """Each run of adjacent number tokens, read as the digits it says."""
    i = 0
    while i < len(found):
        if not _is_number(found[i]):
            i += 1
            continue
        j = i
        while (
            j + 1 < len(found)
            and _near(text, found[j], found[j + 1])
            and _continues(found[j], found[j + 1])
        ):
            j += 1
        while j > i and found[j].word in ("and", "double", "triple"):
            j -= 1
        digits = read_digits([t.word for t in found[i : j + 1]])
        if digits:
            yield NumberRun(digits, found[i].start, found[j].end)
        i = j + 1


class _Reader:
    """Number words in order -> digit chunks: "forty nine" is 49, "four nine" is 4 then 9,
    "nineteen ninety" 19 then 90, "four thousand nine hundred twenty one" 4921."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.base = 0
        self.part: int | None = None
        self.last = ""
        self.repeat = 1

    def flush(self) -> None:
        if self.part is not None or self.base:
            self.chunks.append(str(self.base + (self.part or 0)))
        self.base, self.part, self.last = 0, None, ""

    def add(self, word: str) -> None:
        if word in _REPEATS:
            self.flush()
            self.repeat = _REPEATS[word]
        elif word.isdigit() or _ORDINAL_DIGITS.match(word) or _THOUSANDS.match(word):
            self.flush()
            digits = re.sub(r"\D", "", word) + ("000" if word.endswith("k") else "")
            self.chunks.append(digits * self.repeat)
            self.repeat = 1
        elif word == "hundred":
            self.part = (self.part or 1) * 100
            self.last = "hundred"
        elif word in _SCALES:
            self.base += (self.part or 1) * _SCALES[word]
            self.part, self.last = None, "scale"
        elif word in _TENS or word in _TEENS or word in _UNITS:
            self._small(word)

    def _small(self, word: str) -> None:
        kind = "tens" if word in _TENS else "teen" if word in _TEENS else "unit"
        value = _TENS.get(word, _TEENS.get(word, _UNITS.get(word, 0)))
        if self.repeat > 1:
            self.flush()
            self.chunks.append(str(value) * self.repeat)
            self.repeat = 1
            return
        joins = self.last in ("hundred", "scale") or (self.last == "tens" and kind == "unit")
        if self.part is None and self.base == 0 or not joins:
            self.flush()
            self.part = value
        else:
            self.part = (self.part or 0) + value
        self.last = kind


def read_digits(words: Sequence[str]) -> str:
    """The digit string a run of number words and digits says ("" when none)."""
    reader = _Reader()
    for word in words:
        reader.add(word)  # "and" adds nothing: "four hundred and six" is 406
    reader.flush()
    return "".join(reader.chunks)
