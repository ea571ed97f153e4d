"""Words, stems, sentences and dates: the text side of recall."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import lru_cache

import snowballstemmer

from familiars.llm import text_cache

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_STEMMER = snowballstemmer.stemmer("english")
#: Scripts written without spaces between words: Han (CJK ideographs), Hiragana, Katakana,
#: Hangul syllables, Thai, Lao, Khmer, Myanmar. A run of them is one "word" to ``_WORD``, so
#: ``words`` cuts it into overlapping character bigrams ("北京烤鸭" -> 北京 京烤 烤鸭), which
#: is what recall's BM25 indexes and searches (issue 24); a lone character stays itself.
#: SQLite's FTS5 ``records_fts`` (``unicode61``) keeps a run as one token, so the bigrams
#: go to a table of their own (``records_terms``, :func:`no_space_terms`).
_NO_SPACE = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\uff66-\uff9f]+"
)

#: Function words: they carry no topic, so keyword and word-level matching skip them.
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "having",
        "i",
        "you",
        "he",
        "she",
        "it",
        "we",
        "they",
        "me",
        "him",
        "her",
        "them",
        "my",
        "your",
        "his",
        "its",
        "our",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "not",
        "no",
        "so",
        "than",
        "too",
        "very",
        "can",
        "could",
        "would",
        "should",
        "will",
        "just",
        "about",
        "as",
        "into",
        "over",
        "also",
        "there",
        "here",
        "then",
        "up",
        "down",
        "out",
        "s",
        "t",
        "am",
        "im",
        "ive",
        "id",
        "ill",
        "youre",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "wasnt",
        "thats",
        "whats",
        "its",
        "let",
        "lets",
        "get",
        "got",
        "any",
        "some",
        "all",
        "one",
        "ones",
        "such",
        "only",
        "own",
        "same",
        "other",
        "more",
        "most",
        "much",
        "many",
        "each",
        "few",
        "both",
        "again",
        "further",
        "once",
        "hey",
        "hi",
        "oh",
        "yeah",
        "yes",
        "ok",
        "okay",
        "wow",
        "really",
    ]
)

MONTHS = [
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
]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits; punctuation splits); a run of a script
    without spaces becomes its character bigrams (:data:`_NO_SPACE`)."""
    found = _WORD.findall(text.lower())
    if not _NO_SPACE.search(text):
        return found
    return [part for word in found for part in _split_no_space(word)]


_UNIT = re.compile(_NO_SPACE.pattern[:-1] + "|" + "[^\\s" + _NO_SPACE.pattern[1:-2] + "]+")


def last_words(text: str, limit: int) -> str:
    """``text`` from its ``limit``-th last word on (whitespace words; each character of a
    script without spaces counts as one, as a model's tokenizer reads them)."""
    units = list(_UNIT.finditer(text))
    return text if len(units) <= limit else text[units[-limit].start() :]


def no_space_script(text: str) -> bool:
    """Whether ``text`` holds a script written without spaces (its words are bigrams)."""
    return _NO_SPACE.search(text) is not None


def no_space_terms(text: str) -> str:
    """The terms of ``text``'s no-space runs (their bigrams, as :func:`words` cuts them),
    space-separated; empty for text without such a script. SQLite's ``records_terms``
    indexes them, so the listing's keyword search and recall's BM25 read the same terms."""
    if not _NO_SPACE.search(text):
        return ""
    return " ".join(w for w in words(text) if _NO_SPACE.fullmatch(w))


def _split_no_space(word: str) -> list[str]:
    """``word`` with each no-space run as its bigrams, the rest (Latin, digits) as is."""
    out: list[str] = []
    at = 0
    for run in _NO_SPACE.finditer(word):
        if run.start() > at:
            out.append(word[at : run.start()])
        chars = run.group()
        out += [chars] if len(chars) < 3 else [chars[i : i + 2] for i in range(len(chars) - 1)]
        at = run.end()
    if at < len(word):
        out.append(word[at:])
    return out


def content_words(text: str) -> list[str]:
    """The words of ``text`` that are not stopwords, in order, repeats kept."""
    return [w for w in words(text) if w not in STOPWORDS]


def stem(word: str) -> str:
    """The word's English Snowball stem. A number is its own stem (the stemmer's rules only
    strip letters), and is not looked up: a workspace's numbers ("note 41532") would fill
    the cache and crowd the words out, and each would cost a pure-Python stemmer call."""
    if word.isdigit() and word.isascii():
        return word
    return _stem_word(word)


@text_cache
@lru_cache(maxsize=200_000)
def _stem_word(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def keyword_terms(text: str) -> list[str]:
    """Stemmed content words: what BM25 indexes and searches."""
    return [stem(w) for w in content_words(text)]


def sentences(text: str) -> list[str]:
    """Sentences of a message; a message without sentence ends is one sentence."""
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    return [p for p in parts if p and _WORD.search(p)]


def date_words(timestamp: float) -> str:
    """A timestamp as searchable words: weekday, day, month, year (UTC)."""
    when = datetime.fromtimestamp(timestamp, tz=UTC)
    return f"{_WEEKDAYS[when.weekday()]} {when.day} {MONTHS[when.month - 1]} {when.year}"
