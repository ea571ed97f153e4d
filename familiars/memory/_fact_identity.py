"""Is a new memory text the same fact as an old one, or a different fact that reads alike?

Cosine alone cannot tell "Likes red wine." from "Likes white wine." (one word apart, high
cosine). :func:`same_fact` keeps cosine as the first gate and then compares the two texts
word by word, with rules a person can check:

1. ``cosine < threshold``: not the same (nothing else is looked at);
2. one text negates and the other does not ("likes" / "doesn't like", "smokes" / "quit
   smoking"): a contradiction, not the same;
3. both name a slot (:func:`slot_of`: where one lives, works, pets, ...) and the slots differ;
4. any content word in one text and not the other, after dropping function words, folding
   inflections (Snowball stemmer) and synonyms ("loves" = "likes", "kids" = "children",
   "two" = "2"), is a distinguishing word ("table" tennis, "white" wine, "sister" /
   "brother"): not the same;
5. otherwise the same fact in other words.

Everything here is pure: text in, :class:`FactMatch` out. The word lists are small on
purpose; a missing synonym costs a duplicate record, a missing distinction costs a fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from familiars.llm import text_cache

__all__ = ["FactMatch", "fact_terms", "same_fact", "slot_of"]

_STEMMER = snowballstemmer.stemmer("english")


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_TOKEN = re.compile(r"[a-z0-9]+")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")

#: Contractions and multi-word phrases rewritten before tokenising (regex -> replacement).
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\bcan'?t stand\b", "dislike"),
    (r"\b(?:can'?t|cannot)\b", "can not"),
    (r"\bwon'?t\b", "will not"),
    (r"n't\b", " not"),
    (r"'s\b", ""),
    (r"'(?:m|re|ve|ll|d)\b", ""),
    (r"\bno longer\b", "not"),
    (r"\bgave up\b|\bgive up\b|\bgiving up\b", "quit"),
    (r"\bis into\b|\bare into\b|\bbig fan of\b|\bfan of\b", "like"),
    (r"\bwould rather\b", "prefer"),
    (r"\bwould like to\b", "want to"),
    (r"\bgrew up\b|\bgrow up\b|\bgrowing up\b", "raised"),
    (r"\byears? old\b", ""),
    (r"\ba year ago\b", "last year"),
    (r"\bfrom home\b", "remotely"),
    (r"\bworks? as\b|\bworking as\b", ""),
    (r"\bsci-fi\b", "science fiction"),
    (r"\bvideogames?\b", "video games"),
    (r"\ba lot of\b|\blots of\b|\ba lot\b", ""),
)

#: Words that carry no fact of their own: pronouns, articles, auxiliaries, naming and
#: hedging words, and light verbs ("has a coffee" = "drinks coffee").
_FUNCTION_WORDS = _word_set(
    """
    a an the and or but if of to in on at for with by from as into over than then also
    is are was were be been being am do does did done doing have has had having
    i me my mine you your he him his she her hers it its we us our they them their
    user users this that these those there here who whom which what
    can could would should will shall may might must just so too very really much
    some any one ones own only same both each such again now anymore still
    about around approximately roughly usually generally normally typically
    every each lot lots currently
    called named name names nicknamed
    go goes going went gone visit visits visited visiting come comes came
    get gets got getting take takes took taking use uses used using own owns owned owning
    drink drinks drank drinking eat eats ate eating
    practise practises practised practising practice practices practiced practicing
    """
)

#: Negation markers: a text holding any of them says the opposite of one holding none.
_NEGATIONS = _word_set("not no never without quit quits quitting stopped stop stops nobody none")

#: Verbs that negate and mean "like": "dislikes jazz" = "does not like jazz".
_NEGATIVE_LIKE = _word_set(
    "dislike dislikes disliked hate hates hated detest detests loathe loathes avoid avoids"
)

#: Synonym groups; every word maps to the group's first word (compared after stemming).
_SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("like", "love", "loves", "enjoy", "enjoys", "adore", "adores", "fond", "keen"),
    ("kid", "kids", "child", "children"),
    ("mother", "mom", "mum", "mommy", "mummy"),
    ("father", "dad", "daddy"),
    ("grandmother", "grandma", "gran", "granny", "nan"),
    ("grandfather", "grandpa", "granddad"),
    ("young", "younger", "little"),
    ("old", "older", "elder"),
    ("flat", "apartment"),
    ("bike", "bicycle"),
    ("movie", "film"),
    ("colour", "color"),
    ("favourite", "favorite", "fave"),
    ("math", "maths", "mathematics"),
    ("study", "studies", "studying", "learn", "learns", "learning"),
    ("live", "lives", "living", "reside", "resides", "based"),
    ("move", "moved", "relocate", "relocated"),
    ("raised", "raise", "brought"),
    ("work", "works", "employed", "employ", "job"),
    ("afraid", "scared", "fear", "frightened", "terrified"),
    ("allergic", "allergy", "allergies"),
    ("start", "started", "begin", "began", "begun"),
    ("finish", "finished", "complete", "completed"),
    ("near", "close"),
    ("food", "cuisine"),
    ("coriander", "cilantro"),
    ("remote", "remotely"),
    ("2", "two"),
    ("3", "three"),
    ("4", "four"),
    ("5", "five"),
    ("6", "six"),
    ("7", "seven"),
    ("8", "eight"),
    ("9", "nine"),
    ("10", "ten"),
    ("1", "first"),
)

_COLOURS = _word_set(
    "red white black blue green yellow grey gray silver pink purple orange brown blonde "
    "gold dark light"
)
_RELATIVES = _word_set(
    "sister brother mother father son daughter aunt uncle cousin niece nephew wife husband "
    "partner grandmother grandfather twin ex law friend boss coworker colleague neighbour "
    "neighbor"
)
_PETS = _word_set("dog cat puppy kitten rabbit hamster parrot goldfish fish bird horse snake")
_TIMES = _word_set(
    "morning afternoon evening night weekend weekday monday tuesday wednesday thursday "
    "friday saturday sunday summer winter spring autumn fall daily weekly"
)

#: Slot keywords, checked in order; the first slot with a word in the text wins.
_SLOTS: tuple[tuple[str, frozenset[str]], ...] = (
    ("age", frozenset({"age", "aged", "turned", "birthday"})),
    ("pet", _PETS | {"pet", "pets"}),
    ("residence", frozenset({"live", "reside", "based", "move", "relocate"})),
    ("work", frozenset({"work", "employed", "job", "boss", "career", "unemployed"})),
    ("diet", frozenset({"vegetarian", "vegan", "meat", "allergic", "allergy"})),
)


@dataclass(frozen=True)
class FactMatch:
    """The verdict, with a reason a person can read ("distinct (colour): red | white")."""

    same: bool
    reason: str


@dataclass(frozen=True)
class _Reading:
    terms: frozenset[str]
    negative: bool
    surface: dict[str, str]  # term -> a word of the text it came from (for reasons)


@text_cache
@lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in _SYNONYM_GROUPS:
        head = _stem(group[0])
        for word in group:
            table[word] = head
            table[_stem(word)] = head
    return table


def _normalise(text: str) -> str:
    out = text.casefold().replace("\u2019", "'")
    for pattern, replacement in _PHRASES:
        out = re.sub(pattern, replacement, out)
    return _ORDINAL.sub(r"\1", out)


def _term(word: str) -> str:
    synonyms = _synonyms()
    if word in synonyms:
        return synonyms[word]
    return synonyms.get(_stem(word), _stem(word))


@text_cache
@lru_cache(maxsize=4096)
def _read(text: str) -> _Reading:
    negative = False
    surface: dict[str, str] = {}
    for word in _TOKEN.findall(_normalise(text)):
        if word in _NEGATIONS:
            negative = True
            continue
        if word in _NEGATIVE_LIKE:
            negative, word = True, "like"
        if word in _FUNCTION_WORDS:
            continue
        surface.setdefault(_term(word), word)
    return _Reading(frozenset(surface), negative, surface)


def fact_terms(text: str) -> frozenset[str]:
    """The content terms of ``text`` that :func:`same_fact` compares (stemmed, synonyms
    folded, function words and negations left out)."""
    return _read(text).terms


def slot_of(text: str) -> str | None:
    """The slot a memory text fills ("residence", "work", "pet", "age", "diet"), or None."""
    terms = _read(text).terms
    words = set(_read(text).surface.values())
    for slot, keys in _SLOTS:
        if terms & {_term(k) for k in keys} or words & keys:
            return slot
    return None


def _capitalised(word: str, original: str) -> bool:
    """``word`` written with a capital inside ``original`` (not as its first word): a name."""
    tokens = re.findall(r"[^\W_]+", original)
    return any(t.casefold() == word and t[:1].isupper() for t in tokens[1:])


def _kind_of(word: str, original: str) -> str:
    """Why a word distinguishes two facts, for the reason text."""
    if word.isdigit():
        return "number"
    if word in _COLOURS:
        return "colour"
    if word in _RELATIVES:
        return "person"
    if word in _PETS:
        return "pet"
    if word in _TIMES:
        return "time"
    if _capitalised(word, original):
        return "name or place"
    return "word"


def _distinction(old: str, new: str, a: _Reading, b: _Reading) -> str | None:
    only_old = sorted(a.surface[t] for t in a.terms - b.terms)
    only_new = sorted(b.surface[t] for t in b.terms - a.terms)
    if not only_old and not only_new:
        return None
    kinds = {_kind_of(w, old) for w in only_old} | {_kind_of(w, new) for w in only_new}
    named = sorted(kinds - {"word"}) or ["word"]
    return (
        f"distinct ({', '.join(named)}): {' '.join(only_old) or '-'} | {' '.join(only_new) or '-'}"
    )


def same_fact(old: str, new: str, cosine: float, *, threshold: float = 0.85) -> FactMatch:
    """Merge ``new`` into ``old`` only when they are close by cosine AND say the same thing
    about the same slot with no word that tells them apart (see the module docstring)."""
    if cosine < threshold:
        return FactMatch(False, f"cosine {cosine:.3f} below {threshold:.3f}")
    a, b = _read(old), _read(new)
    if a.negative != b.negative:
        return FactMatch(False, "contradiction: one text negates, the other does not")
    slot_a, slot_b = slot_of(old), slot_of(new)
    if slot_a is not None and slot_b is not None and slot_a != slot_b:
        return FactMatch(False, f"different slot: {slot_a} | {slot_b}")
    distinction = _distinction(old, new, a, b)
    if distinction is not None:
        return FactMatch(False, distinction)
    return FactMatch(True, f"same fact in other words (cosine {cosine:.3f})")
