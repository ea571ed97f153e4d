"""What a memory says of a person that their other messages may say again (pure): the
words a forget matches by, and the values a forgotten memory names.

- :func:`terms` - a text's distinctive words, stemmed, with the words of one slot made one
  word ("my address", "where I live" and "The user lives in Otley." all say ``<home>``).
- :func:`slots_of` - the slots a record fills (``<home>``, ``<work>``, ``<age>``).
- :func:`values_of` / :func:`mentions` - the values a record says (its names, numbers, or
  its other words together) and whether a message says one again: what the one Forgetter
  takes with a forgotten memory (``Forgetter.repeating``).
- :func:`small_name`, :data:`CALENDAR` - a word that can be a name written small, and the
  months and weekdays (capitalised, but no one's name).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

from familiars.memory._records import MemoryRecord
from familiars.memory._text import keyword_terms

_GENERIC = frozenset({"user", "they", "their", "remember", "said", "say", "told", "tell"})
#: What is left of a contraction once the apostrophe splits it ("I'm" -> "m", "don't" ->
#: "don"): the person says "I'm", the record "The user is", so these name nothing.
_CLITICS = frozenset({
    "m", "re", "ve", "ll", "d", "s", "t", "don", "doesn", "didn", "isn", "aren", "wasn",
    "weren", "won", "haven", "hasn", "hadn", "couldn", "shouldn", "wouldn",
})  # fmt: skip
#: Words that say the same of a fact: "I'm called Jonas" is "The user's name is Jonas."
_SAME = {"call": "name"}
#: The slots of a person a description names in its own words: each word of a slot stands
#: for the slot, so "my address" says what "The user lives in Otley." says.
_SLOT_WORDS = {
    "home": ("address", "home", "live", "reside", "residence"),
    "work": ("job", "work", "occupation", "career", "profession", "employ"),
    "age": ("age", "old"),
    "allergy": ("allergy", "allergies", "allergic"),  # "forget the allergy thing": tester s39
}  # fmt: skip
_SLOT = {
    term: f"<{slot}>"
    for slot, words in _SLOT_WORDS.items()
    for word in words
    for term in keyword_terms(word)
}
#: How the person feels about a thing, one term however said: "i hate mushrooms" is what
#: "The user doesn't like mushrooms." says (tester s36: the memory was kept as not about
#: it). Not a slot: it relates the person to what they named, so a forget of a feeling
#: needs the thing named ("forget that I love my job" is no forget of every like and the
#: job: review s36 item 3), or is about likes or dislikes alone (:func:`taste_asked`).
TASTE = "~taste"
_LIKE_WORDS = ("like", "love", "enjoy", "adore", "prefer", "favourite", "favorite", "fav", "fave")
_DISLIKE_WORDS = ("hate", "dislike", "loathe", "detest", "despise", "stand")
_TASTE_TERMS = frozenset(t for w in _LIKE_WORDS + _DISLIKE_WORDS for t in keyword_terms(w))

#: "I used to live in Headingley" says "lives"/"lived" (tester s35 U4: the tense hid it).
_USED_TO = re.compile(r"\bused\s+to\b", re.IGNORECASE)
#: The tags the writers give a record of each slot (``SLOT_TAGS`` of the offline answers).
_TAG_SLOTS = {
    "job": "<work>",
    "work": "<work>",
    "home": "<home>",
    "age": "<age>",
    "allergy": "<allergy>",
}


def is_slot(term: str) -> bool:
    """Whether ``term`` (of :func:`terms`) stands for a slot of a person ("<home>")."""
    return term.startswith("<")


def terms(text: str) -> set[str]:
    """The distinctive words of ``text``, stemmed, a slot's words as the slot."""
    found = {_SAME.get(t, t) for t in keyword_terms(_USED_TO.sub(" ", text))}
    return {TASTE if t in _TASTE_TERMS else _SLOT.get(t, t) for t in found - _GENERIC - _CLITICS}


#: The person's own slot said as the writers say it: "The user lives in Crewe.", "The
#: user's address is ...", "The user works as ...", "The user is 34 (years old)." Only
#: these fill a slot when no tag says which: a reminder "to book Toby's train home" fills
#: none (review s36 item 6).
_SUBJECT = (
    r"^\s*(?:the\s+user|you)(?:'s|r)?\s+(?:(?:now|currently|still|also|used\s+to|no\s+longer)\s+)?"
)
_SLOT_SAID = {
    "<home>": re.compile(
        _SUBJECT + r"(?:lives?|lived|living|resides?|moved|(?:home|address|residence)\b)",
        re.IGNORECASE,
    ),
    "<work>": re.compile(
        _SUBJECT + r"(?:works?|worked|working|is\s+employed|(?:job|occupation|career|"
        r"profession|employer)\b|is\s+an?\s+\w+(?:\s+\w+)?\s+by\s+profession)",
        re.IGNORECASE,
    ),
    "<allergy>": re.compile(_SUBJECT + r"(?:is|are)\s+(?:\w+\s+)?allergic\b", re.IGNORECASE),
    "<age>": re.compile(
        _SUBJECT + r"(?:(?:is|are|was|turned|turns)\s+\d+(?:\s+years?\s+old)?\b|age\b)",
        re.IGNORECASE,
    ),
}


def slots_of(rec: MemoryRecord) -> set[str]:
    """The slots a record fills (:func:`is_slot` terms): by the tags a writer gave it, else
    by what it says of the person ("The user lives in Crewe." fills ``<home>``; "The user
    works from home as an accountant." ``<work>`` only; a reminder that says "home" none)."""
    tagged = {_TAG_SLOTS[t] for t in rec.tags if t in _TAG_SLOTS}
    if tagged:
        return tagged
    said = {slot for slot, pattern in _SLOT_SAID.items() if pattern.search(rec.content)}
    return said if len(said) == 1 else set()


#: What the writers say beside a value that is not the value ("now lives in", "34 years old").
_VALUE_FILLER = frozenset(
    keyword_terms("now currently still also moved move recently years year old no longer")
)
#: A run of capitalised words, with the house number before it: a name as a record writes
#: it ("Leeds", "New York", "12 Park Road"). A number is a value only inside its phrase.
_NAME_RUN = re.compile(r"(?:\b\d+[A-Za-z]?\s+)?\b[A-Z][\w'-]*(?:[ -][A-Z][\w'-]*)*")
#: The frequency-ordered English words of the bundled embedder's vocabulary (the group
#: guard's list, ``scripts/make_common_words.py``): a word's rank is its line number.
_WORDS_FILE = Path(__file__).resolve().parent.parent / "bot" / "data" / "common_words.txt"
#: Words at least this common are everyday English ("English" 347, "London" 364, "Mr"
#: 624): alone they stand for a memory only beside its slot's words ("I live in London").
#: Rarer ones are names ("Denver" 4792, "Leeds" 5050, "Python" 13952).
COMMON_RANK = 3000
#: Titles: a name's, never one alone ("Mr" of "Mr. Whiskers").
_TITLES = frozenset({"mr", "mrs", "ms", "mx", "miss", "dr", "prof", "sir", "st", "rev"})


@lru_cache(maxsize=1)
def _ranks() -> dict[str, int]:
    words = _WORDS_FILE.read_text(encoding="utf-8").split()
    return {w: rank for rank, w in enumerate(words, start=1)}


def word_rank(word: str) -> int | None:
    """The word's frequency rank among English words (1 is "the"); None when it is none."""
    return _ranks().get(word.lower())


def common(word: str) -> bool:
    """Whether ``word`` is everyday English (a stop word, or of the first
    :data:`COMMON_RANK` words): alone it names nothing of a person."""
    rank = word_rank(word)
    return not keyword_terms(word) or (rank is not None and rank <= COMMON_RANK)


def values_of(content: str, *, numbers: bool = True) -> list[str]:
    """What a record says of the person that another message of theirs may say again: each
    name in it ("Leeds", "New York", "12 Park Road"; not its first word, a title, "I'm", a
    month or a weekday) and, with ``numbers`` (a slot's record: an age, not a reminder's "at
    10"), each number not in a name ("34"); with none, its other words together ("dental
    hygienist"), when they are two or more (a lone word such as "flat" is too common to
    stand for the record). How a message must say each: :func:`mentions`."""
    names = [
        name
        for m in _NAME_RUN.finditer(content)
        if (name := _name_value(_past_first_word(content, m)))
    ]
    bare = _NAME_RUN.sub(" ", content)
    numbers_in = re.findall(r"(?<![\w.])\d{2,}(?!\w|[.,:]\d)", bare) if numbers else []
    if names or numbers_in:
        return [*dict.fromkeys([*names, *numbers_in])]
    words = [
        w
        for w in re.findall(r"[\w'-]+", content)
        if (t := terms(w))
        and not (t & (_GENERIC | _VALUE_FILLER) or any(map(is_slot, t)))
        and TASTE not in t
    ]
    return [" ".join(words)] if len(words) >= 2 else []


def _name_value(name: str) -> str:
    """A name run as a value: its possessive dropped ("Bob's" -> "Bob"); "" for a run that
    names nothing alone (a title, "I'm", "I", a month, a weekday, a word of two letters)."""
    name = re.sub(r"'s$", "", name.strip())
    if " " in name or "-" in name:
        return name
    if "'" in name or len(name) <= 2 or name in CALENDAR or name.lower() in _TITLES:
        return ""
    return name


def _past_first_word(text: str, m: re.Match[str]) -> str:
    """A run of capitalised words without a sentence's first word ("Call Dr Patel" -> "Dr
    Patel", "The" -> "")."""
    before = text[: m.start()].rstrip()
    if m.start() > 0 and (before[-1:] not in ".!?" or _after_title(before)):
        return m.group()
    if m.group()[:1].isdigit():
        return m.group()
    return m.group().partition(" ")[2]


def _after_title(before: str) -> bool:
    """Whether ``before`` ends in a title's full stop ("Mr."): no sentence ends there."""
    last = before.rstrip(".").rsplit(None, 1)[-1:] or [""]
    return before.endswith(".") and last[0].lower() in _TITLES


def needs_slot(value: str) -> bool:
    """Whether ``value`` alone is no evidence: a bare number ("34") or one everyday word
    ("English", "London"); a message says it only beside the slot's words (:func:`mentions`)."""
    return value.isdigit() or (" " not in value and common(value))


def mentions(value: str, text: str, slots: Collection[str] = ()) -> bool:
    """Whether ``text`` says ``value`` (of :func:`values_of`) in its own words: as the whole
    phrase, with word edges ("12 Park Road", "dental hygienist"); in any case only when no
    word of it is an English word (a name such as "Otley"; "Python" is the language only as
    a name, "english homework" no preference). A bare number or an everyday word counts
    only beside one of ``slots`` (the record's: "I'm 34 years old", "I live in London"),
    never alone ("see you at 12", "the 34 bus", "my english homework")."""
    if value.lower() not in text.lower():  # cheap first: most messages say none of it
        return False
    if needs_slot(value) and not (set(slots) & terms(text)):
        return False
    if value.isdigit():
        return re.search(rf"(?<![\w.]){value}(?!\w|[.,:]\d)", text) is not None
    words = value.split()
    flags = re.IGNORECASE if all(word_rank(w) is None and small_name(w) for w in words) else 0
    if not _NAME_RUN.fullmatch(value):
        flags = re.IGNORECASE  # a record's own words ("dental hygienist"), said as a phrase
    phrase = r"[\s-]+".join(map(re.escape, words))
    return re.search(rf"(?<![\w'-]){phrase}(?![\w-])", text, flags) is not None


#: Names that are words too: written small they are the word ("will", "may", "rose").
_WORD_NAMES = frozenset({
    "may", "june", "april", "august", "will", "rose", "grace", "hope", "joy", "faith", "mark",
    "bill", "frank", "pat", "sue", "amber", "ruby", "jack", "summer", "dawn", "rich", "art",
    "bob", "sky", "river", "lily", "holly", "ivy", "iris", "daisy", "rob", "jay", "don",
})  # fmt: skip
CALENDAR = frozenset(
    {"January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December", "Monday", "Tuesday", "Wednesday", "Thursday",
     "Friday", "Saturday", "Sunday"}
)  # fmt: skip


def small_name(word: str) -> bool:
    """Whether ``word`` written small can be a name: not a word every sentence uses."""
    low = word.lower()
    return bool(keyword_terms(low)) and low not in _WORD_NAMES and not low.endswith("ly")


__all__ = [
    "CALENDAR",
    "COMMON_RANK",
    "common",
    "needs_slot",
    "word_rank",
    "TASTE",
    "is_slot",
    "mentions",
    "slots_of",
    "small_name",
    "terms",
    "values_of",
]
