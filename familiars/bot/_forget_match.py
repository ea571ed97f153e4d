"""What a description in a forget matches (pure): "forget that I live in Denver", "forget my
address", "forget craig".

- :func:`terms` - a text's distinctive words, with the words of one slot made one word: a
  description names what it means ("my address", "where I live", "my job", "my age") and
  the record says it another way ("The user lives in Otley.", "works as", "years old":
  tester s35 U3 was told "I found nothing of yours" while the home was live).
- :func:`says` - whether a text says a description (:data:`MATCH_SHARE` of its terms).
- :func:`names_in`, :func:`name_asked`, :func:`names_said` - the names records give
  someone, the names a request names, and whether a text says one as a name (in any case:
  "craig" is Craig, tester s35 U6; never the word "may" for May).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from familiars.memory import MemoryRecord, keyword_terms

#: "forget that Oskar is obsessed with trains" names a record when this share of its
#: distinctive words is in it (all of them up to three words: a record about the parrot does
#: not match because it names Oskar too).
MATCH_SHARE = 0.75
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
_DISLIKE_ASKED = re.compile(
    r"\b(?:(?:hate|dislike|loathe|detest|despise)[sd]?|can'?t\s+stand|"
    r"don'?t\s+(?:like|enjoy|love))\b",
    re.IGNORECASE,
)
#: A record of something the person dislikes, likes, or a wish (neither: "would like to").
_DISLIKE_SAID = re.compile(
    r"\b(?:hates?|dislikes?|loathes?|detests?|despises?|can'?t\s+stand|cannot\s+stand|"
    r"(?:does\s*n[o']?t|do\s*n[o']?t|does\s+not|do\s+not)\s+(?:like|enjoy|love))\b",
    re.IGNORECASE,
)
_WISH_SAID = re.compile(r"\b(?:would|'d|wants?\s+to)\s+(?:like|love|enjoy)\b", re.IGNORECASE)
_LIKE_SAID = re.compile(
    r"\b(?:likes?|loves?|enjoys?|adores?|prefers?|favou?rite|fav|fave|into)\b", re.IGNORECASE
)
#: "I used to live in Headingley" says "lives"/"lived" (tester s35 U4: the tense hid it).
_USED_TO = re.compile(r"\bused\s+to\b", re.IGNORECASE)
#: "my old job", "my previous address", "where I used to live": what a newer record of the
#: slot replaced (tester s36: "/forget my old job" read "old" as the age and found nothing).
_PAST = re.compile(
    r"\b(?P<own>my|the)\s+(?:old|previous|former|prior|last)\s+(?=\w)|\bused\s+to\b",
    re.IGNORECASE,
)
#: A record that says itself that it is past ("The user used to work as a nurse.").
PAST_SAID = re.compile(
    r"\b(?:used\s+to|formerly|previously|no\s+longer|not\s+any\s?more)\b", re.IGNORECASE
)
#: The tags the writers give a record of each slot (``SLOT_TAGS`` of the offline answers).
_TAG_SLOTS = {
    "job": "<work>",
    "work": "<work>",
    "home": "<home>",
    "age": "<age>",
}


def is_slot(term: str) -> bool:
    """Whether ``term`` (of :func:`terms`) stands for a slot of a person ("<home>")."""
    return term.startswith("<")


def terms(text: str) -> set[str]:
    """The distinctive words of ``text``, stemmed, a slot's words as the slot."""
    found = {_SAME.get(t, t) for t in keyword_terms(_USED_TO.sub(" ", text))}
    return {TASTE if t in _TASTE_TERMS else _SLOT.get(t, t) for t in found - _GENERIC - _CLITICS}


def taste_asked(what: str) -> str:
    """What a description that names only a feeling asks for: "dislikes" ("what I hate",
    "what I don't like") or "likes" ("what I like", "my favourites")."""
    return "dislikes" if _DISLIKE_ASKED.search(what) else "likes"


def taste_of(rec: MemoryRecord) -> str:
    """ "likes", "dislikes" or "" (neither: a wish such as "would like to visit Japan", or
    no feeling): by the tags a writer gave the record, else by its words."""
    for tag in ("dislikes", "likes"):
        if tag in rec.tags:
            return tag
    if _DISLIKE_SAID.search(rec.content):
        return "dislikes"
    if _WISH_SAID.search(rec.content) or not _LIKE_SAID.search(rec.content):
        return ""
    return "likes"


def past_asked(what: str) -> tuple[str, bool]:
    """``what`` without the words that ask for a replaced value, and whether it had them:
    "my old job" -> ("my job", True)."""
    said = _PAST.sub(lambda m: f"{m['own']} " if m["own"] else " ", what)
    return " ".join(said.split()), said != what


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
#: A run of capitalised words: a name as a record writes it ("Leeds", "New York").
_NAME_RUN = re.compile(r"\b[A-Z][\w'-]*(?:[ -][A-Z][\w'-]*)*")


def values_of(content: str, *, numbers: bool = True) -> list[str]:
    """What a record says of the person that another message of theirs may say again: each
    name in it ("Leeds", "New York"; not its first word, "I", a month or a weekday) and,
    with ``numbers`` (a slot's record: an age, not a reminder's "at 10"), each number
    ("34"); with none, its other words together ("dental hygienist"), when they are two or
    more (a lone word such as "flat" is too common to stand for the record)."""
    names = [
        name
        for m in _NAME_RUN.finditer(content)
        if (name := _past_first_word(content, m)) and name not in _CALENDAR | {"I"}
    ]
    numbers_in = re.findall(r"(?<![\w.])\d{2,}(?!\w|[.,:]\d)", content) if numbers else []
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


def _past_first_word(text: str, m: re.Match[str]) -> str:
    """A run of capitalised words without a sentence's first word ("Call Dr Patel" -> "Dr
    Patel", "The" -> "")."""
    if m.start() > 0 and text[: m.start()].rstrip()[-1:] not in ".!?":
        return m.group()
    return m.group().partition(" ")[2]


def mentions(value: str, text: str) -> bool:
    """Whether ``text`` says ``value`` (of :func:`values_of`): a name as a name, a number as
    a number, other words all of them."""
    if value.isdigit():
        return re.search(rf"(?<![\w.]){value}(?!\w|[.,:]\d)", text) is not None
    if _NAME_RUN.fullmatch(value):  # in any case, unless written small it is a word ("may")
        flags = re.IGNORECASE if all(map(_small_name, value.split())) else 0
        return re.search(rf"(?<![\w'-]){re.escape(value)}(?![\w-])", text, flags) is not None
    want = terms(value)
    return bool(want) and want <= terms(text)


def says(want: set[str], text: str) -> bool:
    """Whether ``text`` has :data:`MATCH_SHARE` of ``want`` (:func:`terms`)."""
    if not want:
        return False
    have = terms(text)
    return len(want & have) >= max(1, math.ceil(MATCH_SHARE * len(want)))


NAME = r"[A-Z][\w'-]+"
_RELATIONS = (
    r"sister|brother|mother|mum|mom|father|dad|son|daughter|wife|husband|partner|"
    r"boyfriend|girlfriend|fiancée?|friend|cousin|aunt|uncle|niece|nephew|grandma|grandpa|"
    r"grandmother|grandfather|granddaughter|grandson|boss|colleague|neighbou?r|flatmate|"
    r"roommate|dog|cat|parrot|horse|sparky|plumber|builder|doctor|vet|kid|child|baby"
)
#: "The user's sister is called Emma.", "named Emma", "The user's sister May lives in Leeds."
_CALLED = re.compile(
    rf"\b(?:is|are)\s+called\s+(?P<name>{NAME})|\b(?:named|called)\s+(?P<n2>{NAME})|"
    rf"\b(?:{_RELATIONS})\s+(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+)?(?P<n3>{NAME})"
)
#: "The user's husband craig is an electrician.": a name written small, known by the verb
#: after it.
_CALLED_SMALL = re.compile(
    rf"\b(?:{_RELATIONS})\s+(?P<name>[a-z][\w'-]+)\s+(?:is|was|works|lives|has|had)\b",
    re.IGNORECASE,
)
#: Names that are words too: written small they are the word ("will", "may", "rose").
_WORD_NAMES = frozenset({
    "may", "june", "april", "august", "will", "rose", "grace", "hope", "joy", "faith", "mark",
    "bill", "frank", "pat", "sue", "amber", "ruby", "jack", "summer", "dawn", "rich", "art",
    "bob", "sky", "river", "lily", "holly", "ivy", "iris", "daisy", "rob", "jay", "don",
})  # fmt: skip
#: Before a name, these make it a time ("in May", "since Monday", "by Friday"), as does a
#: number after it ("May 3"); a month or weekday also after "of", "next", "every" ...
_TIME_BEFORE = re.compile(r"\b(?:in|since|until|till|by|during)\s*$", re.IGNORECASE)
_WHEN_BEFORE = re.compile(
    r"(?:\b(?:of|last|next|this|every|early|late|mid|on)|\d(?:st|nd|rd|th)?)[\s-]*$",
    re.IGNORECASE,
)
_CALENDAR = frozenset(
    {"January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December", "Monday", "Tuesday", "Wednesday", "Thursday",
     "Friday", "Saturday", "Sunday"}
)  # fmt: skip
#: After a name at the start of a sentence, these say it is a word ("May I ask ...?").
_NOT_AFTER_NAME = re.compile(r"\s+(?:I|we|you|he|she|they|it|be|not|have|well)\b")


def _small_name(word: str) -> bool:
    """Whether ``word`` written small can be a name: not a word every sentence uses."""
    low = word.lower()
    return bool(keyword_terms(low)) and low not in _WORD_NAMES and not low.endswith("ly")


def names_in(records: Iterable[MemoryRecord]) -> set[str]:
    """The names the ``records`` give someone ("The user's sister is called Emma.", "The
    user's sister May lives in Leeds.", "The user's husband craig is ..."), capitalised."""
    return names_in_texts(r.content for r in records)


def names_in_texts(texts: Iterable[str]) -> set[str]:
    """The names :func:`names_in` finds, in any texts (the person's messages too)."""
    found: set[str] = set()
    for text in texts:
        found |= {m["name"] or m["n2"] or m["n3"] for m in _CALLED.finditer(text)}
        found |= {
            m["name"].capitalize() for m in _CALLED_SMALL.finditer(text) if _small_name(m["name"])
        }
    return found


def name_asked(what: str, known: set[str]) -> set[str]:
    """The name(s) a request to forget names: "May" (written as a name), or "may" when a
    memory gives someone that name; empty for a description ("my sister", "work")."""
    words = what.split()
    if words and all(re.fullmatch(NAME, w) for w in words):
        return set(words)
    by_word = {n.lower(): n for n in known}
    if words and all(w.lower() in by_word for w in words):
        return {by_word[w.lower()] for w in words}
    return set()


def names_said(names: set[str], text: str) -> bool:
    """Whether ``text`` says one of ``names`` as a name: capitalised at the start of a
    sentence not followed by a word that makes it a verb ("May I ..."), or elsewhere in any
    case unless it is then a word ("will", "may"); not as a time ("in May", "May 3", "since
    Friday": review s33 item 3)."""
    for name in names:
        small = _small_name(name)
        for m in re.finditer(rf"(?<![\w'-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
            if m.group() != name and not (small and m.group() == m.group().lower()):
                continue  # "MAY", or "may" for May
            before = text[: m.start()].rstrip(" \"'“‘(")
            starts = not before or before[-1] in ".!?:\n"
            if starts and _NOT_AFTER_NAME.match(text, m.end()):
                continue
            if _TIME_BEFORE.search(before) or re.match(r"\s*,?\s*\d", text[m.end() :]):
                continue  # "in May", "May 3": the month
            if name in _CALENDAR and _WHEN_BEFORE.search(before):
                continue  # "the 3rd of May", "next Friday"
            return True
    return False
