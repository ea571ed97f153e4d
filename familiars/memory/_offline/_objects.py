"""What a clause is about: the :class:`Fact` it yields, and the objects and topics in it.

:class:`Fact` is one thing a clause says before it becomes a write; :func:`third_person`
turns "my" into "their"; :func:`_trimmed_object` / :func:`_clean_object` cut the object of
"I like ..." to a thing; :func:`topic_key` names the topic a fact is keyed on.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass

from familiars.llm import text_cache
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import OpenLoop

logger = logging.getLogger(__name__)


def _words(*chunks: str) -> list[str]:
    return " ".join(chunks).split()


#: The last word of a job title ("pediatric nurse", "software engineer").
JOBS = frozenset(
    _words(
        "nurse doctor surgeon dentist hygienist pharmacist paramedic midwife physio "
        "physiotherapist therapist psychologist psychiatrist vet veterinarian teacher lecturer "
        "professor tutor student researcher scientist engineer developer programmer designer "
        "architect accountant lawyer solicitor barrister paralegal attorney judge chef cook "
        "baker barista waiter waitress bartender cashier clerk receptionist manager director "
        "consultant analyst administrator assistant secretary intern apprentice electrician "
        "plumber carpenter builder mechanic technician driver pilot firefighter officer "
        "soldier police policeman policewoman journalist writer author editor photographer "
        "artist musician actor actress dancer farmer gardener cleaner librarian translator "
        "salesperson sales banker broker economist marketer recruiter carer caregiver "
        "housekeeper hairdresser barber beautician tailor welder miner fisherman postman "
        "courier porter security guard coach trainer instructor entrepreneur founder ceo "
        "cto freelancer contractor surveyor optician radiographer sonographer dietitian "
        "nutritionist counsellor counselor social worker priest vicar pastor rabbi imam "
        "butcher florist jeweller realtor"
    )
)
#: Words for a relative: "my mum", "my stepdad", "my nan".
FAMILY = frozenset(
    _words(
        "mum mom mother mam dad father sister brother son daughter wife husband partner "
        "girlfriend boyfriend fiance fiancé fiancee fiancée grandmother grandma gran granny "
        "nan nana grandfather grandpa grandad granddad aunt auntie uncle cousin niece nephew "
        "stepmum stepmom stepdad stepfather stepmother stepson stepdaughter stepbrother "
        "stepsister twin kid kids child children baby parents parent grandson granddaughter "
        "grandkids grandchildren"
    )
)


#: What starts a state, not a thing: "it's all gone a bit dull", "it's all a bit much".
NO_THING = (
    r"(?:gone|got|been|become|getting|going|a\s+bit|quite|rather|too|so|very|over|"
    r"(?-i:[a-z]{3,}ed))\b"
)

_NOT_NAMES = frozenset(
    _words(
        "later back when if tomorrow tonight today maybe please now sometime soon again "
        "anytime anything not a an the that this it crazy whatever what you me sir madam "
        "ok okay there here first then up out after before once any and or but so "
        "because lol haha on in at for to from with by of about into onto under near"
    )
)
_BAD_OBJECT_START = frozenset(
    _words(
        "it that this these those how what when where why who which you your him her "
        "them us me way if whatever everything anything nothing something"
    )
)
#: "I like the way ...", "I love the idea": "the" and one of these is not a thing one likes.
_VAGUE_AFTER_THE = frozenset(
    _words(
        "way idea fact thought feeling moment sound look smell time point one ones other same "
        "last first next part thing things"
    )
)
#: Where a long object may be cut to its head ("pumpernickel bread | from the Elm street bakery").
_OBJECT_HEAD_END = re.compile(r"\s+(?:from|at|near|in|on|with|by|for|during|when)\s+", re.I)
#: Objects up to this many words are kept whole; longer ones are cut to their head.
MAX_OBJECT_WORDS = 8
MAX_HEAD_WORDS = 5
_OBJECT_TRIM = re.compile(
    r"\s+(?:a lot|so much|very much|too|as well|anymore|any more|these days|now|either|"
    r"more and more|lately|really|most)$",
    re.IGNORECASE,
)
_OBJECT_CUT = re.compile(
    r"\s+(?:but|because|since|although|though|and i|so|when|if|as)\s+|,|\s+-\s+"
)
_ARTICLE = re.compile(r"^(?:a|an|the|some|my)\s+", re.IGNORECASE)
#: "jazz, tea and cats": a list of short things, kept whole (the comma is not a clause's end).
_ITEM = r"[\w'-]+(?:\s+[\w'-]+){0,2}"
_LIST = re.compile(rf"^(?:{_ITEM},\s*)+{_ITEM},?\s+and\s+{_ITEM}$", re.IGNORECASE)
_CLAUSE_WORD = re.compile(r"\b(?:i|but|because|since|although|though|so|when|if|as)\b", re.I)


@dataclass(frozen=True)
class Fact:
    """One thing a clause says, before it becomes a write."""

    scope: str
    category: str
    content: str
    tags: tuple[str, ...]
    #: Facts with the same key are the same fact (maybe with a new value).
    key: str
    salience: float = 0.6
    polarity: str = ""
    quote: str = ""
    ttl: dict | None = None
    open_loop: OpenLoop | None = None


_NOT_PREFERENCES = re.compile(
    r"^to\s+(?:think|say|believe|know|imagine|hope|pretend|assume|mention|add|point|be\s+called)\b",
    re.I,
)
_PERSON_SWAP = {"my": "their", "me": "them", "myself": "themselves", "i": "they", "mine": "theirs"}


_I_WITH_VERB = (
    (re.compile(r"\b[Ii]'m\b|\b[Ii] am\b"), "they are"),
    (re.compile(r"\b[Ii] was\b"), "they were"),
    (re.compile(r"\b[Ii]'(ve|ll|d)\b"), r"they'\1"),
)


def verb_3rd(verb: str) -> str:
    """ "fix" -> "fixes", "teach" -> "teaches", "carry" -> "carries", "make" -> "makes"."""
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb.lower()):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb.lower()):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str) -> str:
    """ "call my mom" -> "call their mom": a memory speaks of the user, not as them."""
    for pattern, repl in _I_WITH_VERB:
        text = pattern.sub(repl, text)
    return re.sub(
        r"\b(my|me|myself|mine|I|i)\b(?!\.\w)",
        lambda m: _PERSON_SWAP[m.group(1).lower()],
        text,
    )


#: A comment run on after the object: "maths its so boring", "sprouts they're gross".
#: A comment on the thing after it, not part of it: "mushrooms they r so gross", "olives cos
#: they're slimy".
_COMMENT_AFTER = re.compile(
    r"\s+(?:its|it'?s|it\s+(?:is|was)|they'?re|theyre|they\s+(?:are|r|were)|cos|coz|cuz)(?:\s+.*)?$",
    re.I,
)


#: "very much", "so much" said before the thing liked, as a learner may order it.
_INTENSIFIER_FIRST = re.compile(r"^(?:very|so|really)\s+much\s+", re.I)
#: A word of candour at either edge of an object says how it is said, never what it is
#: ("my fav band is actually fontaines dc", "allergic to peanuts tbh": tester s39).
_FILLER = r"(?:actually|honestly|tbh|tbf|to\s+be\s+honest|basically|literally|genuinely)"
_FILLER_EDGE = re.compile(rf"^{_FILLER}\b[\s,]*|[\s,]+{_FILLER}$", re.I)


def _trimmed_object(obj: str) -> str | None:
    """The object of "I like ...", cut at the first clause word and trimmed of "a lot",
    "anymore"...; a long object is cut to its head ("pumpernickel bread from the little bakery
    on the corner of Elm street" -> "pumpernickel bread"); None when it is not a thing."""
    whole = obj.strip(" .!?")
    listed = bool(_LIST.match(whole)) and not _CLAUSE_WORD.search(whole)
    obj = whole if listed else _OBJECT_CUT.split(obj, maxsplit=1)[0].strip(" .!?")
    obj = _COMMENT_AFTER.sub("", obj)
    obj = _INTENSIFIER_FIRST.sub("", obj)  # "I like very much tea": said before the thing
    for _ in range(3):
        obj = _FILLER_EDGE.sub("", _OBJECT_TRIM.sub("", obj)).strip()
    words = obj.split()
    if len(words) > MAX_OBJECT_WORDS and not listed:
        head = _OBJECT_HEAD_END.split(obj, maxsplit=1)[0].strip()
        obj = head if 0 < len(head.split()) <= MAX_HEAD_WORDS else ""
        words = obj.split()
    if not words or words[0].lower().rstrip(",") in _BAD_OBJECT_START:
        return None
    if words[0].lower() == "the" and (len(words) == 1 or words[1].lower() in _VAGUE_AFTER_THE):
        return None
    if _NOT_PREFERENCES.match(obj):
        return None
    return obj


def _clean_object(obj: str) -> str | None:
    trimmed = _trimmed_object(obj)
    return None if trimmed is None else third_person(trimmed)


def topic_key(obj: str) -> str:
    """The topic an object is about: its head ("pumpernickel bread from the Elm street
    bakery" -> ``pumpernickel-bread``), lower case, no article, plurals made singular."""
    base = _ARTICLE.sub("", obj.lower()).strip()
    if len(base.split()) > 3:
        base = _OBJECT_HEAD_END.split(base, maxsplit=1)[0].strip() or base
    base = re.sub(r"^to\s+", "", base)
    words = [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in re.findall(r"[\w'+-]+", base)
    ]
    return "-".join(words)[:58] or "thing"


_SMALL_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "and",
        "at",
        "in",
        "on",
        "for",
        "to",
        "de",
        "la",
        "le",
        "du",
        "von",
        "van",
    ]
)


def _titled(place: str) -> str:
    """A place said in lower case as a name: "the children's hospital" -> "the Children's
    Hospital" (``str.title`` made it "The Children'S Hospital"); one typed with capitals as
    typed."""
    if any(c.isupper() for c in place):
        return place
    return " ".join(w if w in _SMALL_WORDS else w[:1].upper() + w[1:] for w in place.split(" "))


#: The kinds of inner-life fact (:mod:`._states`), as tags; such a record is keyed ``kind:topic``.
MEANING_KINDS: tuple[str, ...] = ("state", "feeling", "goal", "value", "cause")


def _fact_key(rec: MemoryRecord) -> str | None:
    return _key_of(rec.content, rec.category, tuple(rec.tags))


# Every turn keys all of the person's records (twice): worked out once per record text.
@text_cache
@functools.lru_cache(maxsize=65536)
def _key_of(content: str, category: str, all_tags: tuple[str, ...]) -> str | None:
    tags = set(all_tags)
    topics = [t for t in all_tags if t.startswith("topic:")]
    for kind in ("allergy", "diet"):
        if kind in tags and category == "profile" and topics:
            return f"{kind}:{topics[0][6:]}"
    for key in ("name", "home", "work", "job", "birthday", "age"):
        if key in tags and category == "profile":
            return key
    for kind in MEANING_KINDS:
        if kind in tags and category in ("knowledge", "profile") and topics:
            return f"{kind}:{topics[0][6:]}"
    if category == "knowledge" and "note" in tags and topics:
        return "note:" + topics[0][6:]
    if category == "preference" and topics:
        fav = re.match(r"The user's favourite (.+?) is ", content)
        return f"favourite-{topic_key(fav.group(1))}" if fav else topics[0]
    if category == "event" and "date" in tags and topics:
        return "event:" + topics[0][6:]
    return None


#: Words that only say what kind of thing a topic is: "pumpernickel bread" is pumpernickel,
#: "jazz music" is jazz, "horror movies" are horror (but "coffee cake" is not coffee).
_GENERIC_HEADS = frozenset(
    _words(
        "bread music food foods cuisine movie film show tv book novel game drink dish dishe "
        "cooking song series genre sport"
    )
)
