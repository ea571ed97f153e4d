"""What a description in a forget matches (pure): "forget that I live in Denver", "forget my
address", "forget craig".

- ``terms`` (:mod:`familiars.memory`) - a text's distinctive words, with the words of one
  slot made one word: a description names what it means ("my address", "where I live", "my
  job", "my age") and the record says it another way ("The user lives in Otley.", "works
  as", "years old": tester s35 U3 was told "I found nothing of yours" while the home was
  live).
- :func:`says` - whether a text says a description (:data:`MATCH_SHARE` of its terms).
- :func:`names_in`, :func:`name_asked`, :func:`names_said` - the names records give
  someone, the names a request names, and whether a text says one as a name (in any case:
  "craig" is Craig, tester s35 U6; never the word "may" for May).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable

from familiars.memory import (
    CALENDAR,
    TASTE,
    MemoryRecord,
    is_slot,
    small_name,
    terms,
)

#: "forget that Oskar is obsessed with trains" names a record when this share of its
#: distinctive words is in it (all of them up to three words: a record about the parrot does
#: not match because it names Oskar too).
MATCH_SHARE = 0.75
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


def says(want: set[str], text: str) -> bool:
    """Whether ``text`` has :data:`MATCH_SHARE` of ``want`` (:func:`terms`)."""
    return has_share(want, terms(text)) if want else False


def has_share(want: set[str], have: set[str]) -> bool:
    """Whether ``have`` holds :data:`MATCH_SHARE` of ``want`` (at least one)."""
    return len(want & have) >= max(1, math.ceil(MATCH_SHARE * len(want)))


#: The words a person uses for what a writer tags a record as: "my tablets", "my blood
#: pressure medicine" ask about "The user takes amlodipine 5mg every morning." (tagged
#: ``medication``) although it says none of them (tester s39: "I found nothing of yours").
_TAG_WORDS = {
    "medication": frozenset(
        terms("medicine medicines medication medications meds tablets pills prescription")
    ),
}


def tag_terms(rec: MemoryRecord) -> set[str]:
    """The words :data:`_TAG_WORDS` gives the record's tags (none for most records)."""
    return {t for tag in rec.tags for t in _TAG_WORDS.get(tag, ())}


def told_with(
    want: set[str],
    said: Iterable[tuple[str, str]],
    records: Iterable[MemoryRecord],
    sources: Callable[[MemoryRecord], Iterable[str]],
) -> list[MemoryRecord]:
    """The ``records`` whose message (of ``said``: turn key, text; ``sources``: a record's
    turn keys) and own words say ``want`` together, each a part the other lacks: "my blood
    pressure medicine" of "The user takes amlodipine 5mg every morning." (a medication)
    noted from "The doctor says my blood pressure is too high, I'm on amlodipine ..."
    (tester s39). A record that only shares what its message says is no more about it than
    the message's other records."""
    named = {t for t in want if not is_slot(t) and t != TASTE}
    told = {k: terms(t) & named for k, t in said}
    out = []
    for rec in records:
        own = (terms(rec.content) | tag_terms(rec)) & named
        if own and any(
            (part := told.get(key)) and own - part and has_share(want, part | own)
            for key in sources(rec)
        ):
            out.append(rec)
    return out


def record_says(want: set[str], rec: MemoryRecord) -> bool:
    """Whether ``rec`` says ``want``: its words (:func:`says`), or with its tags' words, one
    of which is asked for ("my tablets" of a medication)."""
    if says(want, rec.content):
        return True
    tagged = tag_terms(rec)
    return bool(want & tagged) and has_share(want, terms(rec.content) | tagged)


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
#: Before a name, these make it a time ("in May", "since Monday", "by Friday"), as does a
#: number after it ("May 3"); a month or weekday also after "of", "next", "every" ...
_TIME_BEFORE = re.compile(r"\b(?:in|since|until|till|by|during)\s*$", re.IGNORECASE)
_WHEN_BEFORE = re.compile(
    r"(?:\b(?:of|last|next|this|every|early|late|mid|on)|\d(?:st|nd|rd|th)?)[\s-]*$",
    re.IGNORECASE,
)
#: After a name at the start of a sentence, these say it is a word ("May I ask ...?").
_NOT_AFTER_NAME = re.compile(r"\s+(?:I|we|you|he|she|they|it|be|not|have|well)\b")


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
            m["name"].capitalize() for m in _CALLED_SMALL.finditer(text) if small_name(m["name"])
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
        small = small_name(name)
        for m in re.finditer(rf"(?<![\w'-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
            if m.group() != name and not (small and m.group() == m.group().lower()):
                continue  # "MAY", or "may" for May
            before = text[: m.start()].rstrip(" \"'“‘(")
            starts = not before or before[-1] in ".!?:\n"
            if starts and _NOT_AFTER_NAME.match(text, m.end()):
                continue
            if _TIME_BEFORE.search(before) or re.match(r"\s*,?\s*\d", text[m.end() :]):
                continue  # "in May", "May 3": the month
            if name in CALENDAR and _WHEN_BEFORE.search(before):
                continue  # "the 3rd of May", "next Friday"
            return True
    return False
