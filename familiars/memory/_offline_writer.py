"""The rule-based writer used when no language model is configured.

It splits the person's own message into sentences and each sentence into clauses ("My name is
Alice and I love hiking" is two clauses; "salt and pepper crisps" stays one object), runs every
pattern on every clause, and keeps only what simple patterns can say for sure: a name ("my name
is", "call me"), likes and dislikes, allergies and diets, birthdays and other dates, where
someone lives or works, things the person asks to be remembered ("remember that my locker code
is 4471"), and reminders ("remind me to X tomorrow at 9"), which become an ``event`` with an
absolute TTL and an open loop of kind ``reminder`` due in the person's time zone. Questions,
hypotheticals, reported speech and clauses about other people are left alone: a missed fact
costs less than a wrong one.

Each fact gets a canonical sentence and a topic tag (``topic:coffee``, ``name``, ``home``...),
so that the same fact told in other words is the same record, and a changed fact ("I don't
like coffee anymore") supersedes the record it contradicts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.memory._records import MemoryRecord, is_live
from familiars.memory._writer import OpenLoop, WriteOp, WriterEntry, WriterOutput

logger = logging.getLogger(__name__)


def _words(*chunks: str) -> list[str]:
    return " ".join(chunks).split()


DEFAULT_REMINDER_HOUR = 9
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
    r"could|would|will|should|shall|may|might|have|has|am|which)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(r"[\"“”]|\b(?:said|says|told me|asked|wrote)\b", re.IGNORECASE)
_NOT_NAMES = frozenset(
    _words(
        "later back when if tomorrow tonight today maybe please now sometime soon again "
        "anytime anything not a an the that this it crazy whatever what you me sir madam "
        "ok okay there here first then up out after before once any and or but so "
        "because lol haha"
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


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        logger.warning("unknown time zone %r; using UTC", name)
        return ZoneInfo("UTC")


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
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=(?:remember|note|keep\s+in\s+mind)\b)",
    re.IGNORECASE,
)


def _is_question(clause: str, raw_text: str) -> bool:
    return clause.endswith("?") or bool(_QUESTION_START.match(clause))


def _as_request(clause: str) -> str:
    """ "can you remember that my locker code is 4471?" asks to keep a fact, not a question."""
    m = _POLITE_REQUEST.match(clause)
    return clause[m.end() :].rstrip("?").strip() if m else clause


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


def third_person(text: str) -> str:
    """ "call my mom" -> "call their mom": a memory speaks of the user, not as them."""
    for pattern, repl in _I_WITH_VERB:
        text = pattern.sub(repl, text)
    return re.sub(
        r"\b(my|me|myself|mine|I|i)\b(?!\.\w)",
        lambda m: _PERSON_SWAP[m.group(1).lower()],
        text,
    )


def _trimmed_object(obj: str) -> str | None:
    """The object of "I like ...", cut at the first clause word and trimmed of "a lot",
    "anymore"...; a long object is cut to its head ("pumpernickel bread from the little bakery
    on the corner of Elm street" -> "pumpernickel bread"); None when it is not a thing."""
    obj = _OBJECT_CUT.split(obj, maxsplit=1)[0].strip(" .!?")
    for _ in range(3):
        obj = _OBJECT_TRIM.sub("", obj).strip()
    words = obj.split()
    if len(words) > MAX_OBJECT_WORDS:
        head = _OBJECT_HEAD_END.split(obj, maxsplit=1)[0].strip()
        obj = head if 0 < len(head.split()) <= MAX_HEAD_WORDS else ""
        words = obj.split()
    if not words or words[0].lower() in _BAD_OBJECT_START:
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


def _titled(place: str) -> str:
    return place if any(c.isupper() for c in place) else place.title()


# --------------------------------------------------------------------------- patterns

_NAME = re.compile(
    r"^(?:my name is|my name's|my names|i'm called|i am called|people call me|you can call me|"
    r"please call me|call me|name's)\s+(?P<name>[^\s,.!?]+(?:\s+[^\s,.!?]+)?)(?P<rest>.*)$",
    re.IGNORECASE,
)
_LIKE = re.compile(
    r"^i\s+(?:really\s+|truly\s+|absolutely\s+|just\s+|do\s+|also\s+|still\s+)*"
    r"(?:like|love|enjoy|adore)\s+(?P<obj>.+)$"
    r"|^i'?m\s+(?:really\s+|a\s+big\s+|a\s+huge\s+|such\s+a\s+|totally\s+)?(?:into|a fan of|fan of)"
    r"\s+(?P<obj2>.+)$"
    r"|^(?P<obj3>[\w' -]{2,40}?)\s+is\s+my\s+(?:absolute\s+)?(?:favou?rite)(?:\s+\w+)?$",
    re.IGNORECASE,
)
_DISLIKE = re.compile(
    r"^i\s+(?:really\s+|just\s+)?(?:don't|dont|do not|no longer|don’t)\s+(?:really\s+)?"
    r"(?:like|love|enjoy)\s+(?P<obj>.+)$"
    r"|^i\s+(?:really\s+)?(?:hate|dislike|detest|can't stand|cannot stand|can’t stand)\s+"
    r"(?P<obj2>.+)$"
    r"|^i'?m\s+(?:not|no longer)\s+(?:really\s+)?(?:a fan of|into)\s+(?P<obj3>.+)$",
    re.IGNORECASE,
)
_DRINK = re.compile(
    r"^i\s+(?:now\s+|mostly\s+|usually\s+|only\s+)?(?P<verb>drink|prefer)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"^my\s+(?:absolute\s+)?favou?rite\s+(?P<what>[\w ]{2,30}?)\s+is\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_LIVES = re.compile(
    r"^(?:i\s+(?:now\s+)?(?:live|reside)|i'?m\s+(?:now\s+)?(?:living|based)|i\s+(?:just\s+)?moved)"
    r"\s+(?:in|to)\s+(?P<place>.+)$",
    re.IGNORECASE,
)
_WORKS_AT = re.compile(
    r"^i\s+(?:now\s+)?work\s+(?:at|for)\s+(?P<org>.+)$|^i'?m\s+working\s+(?:at|for)\s+(?P<org2>.+)$",
    re.IGNORECASE,
)
_WORKS_AS = re.compile(r"^i\s+(?:now\s+)?work\s+as\s+(?P<job>an?\s+.+)$", re.IGNORECASE)
_BIRTHDAY = re.compile(
    r"^(?:my\s+birthday\s+is|my\s+birthday's|my\s+bday\s+is|i\s+was\s+born\s+on|"
    r"i\s+was\s+born)\s+(?:on\s+)?(?P<date>.+)$",
    re.IGNORECASE,
)
_DATED = re.compile(
    r"^my\s+(?P<what>[a-z][\w ]{1,30}?)\s+is\s+(?P<date>(?:on|this|next|tomorrow|today|in)\b.+)$",
    re.IGNORECASE,
)
_REMIND = re.compile(r"\bremind\s+me\s+(?P<rest>.+)$", re.IGNORECASE)
_TASK_START = re.compile(r"^(?:to|that|about)\s+", re.IGNORECASE)
_WHEN_WORDS = re.compile(
    r"\b(?:at|on|in|by|tomorrow|tonight|today|this|next|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)\b",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"^i\s+(?:already\s+|just\s+|finally\s+)?(?P<rest>(?:\w+ed|did|done|bought|paid|sent|wrote|"
    r"made|took|went|got|gave|rang|sold|spoke|met|read)\b.*)$",
    re.IGNORECASE,
)


_ALLERGY = re.compile(
    r"^(?:i'?m|i am|im)\s+(?:also\s+|very\s+|really\s+|severely\s+|quite\s+|mildly\s+|"
    r"super\s+|deathly\s+|highly\s+)*allergic\s+to\s+(?P<obj>.+)$"
    r"|^i\s+(?:also\s+)?have\s+(?:an?\s+|a\s+severe\s+|a\s+mild\s+)?allergy\s+to\s+"
    r"(?P<obj2>.+)$"
    r"|^i\s+(?:also\s+)?have\s+(?:an?\s+|a\s+severe\s+|a\s+mild\s+)?"
    r"(?P<obj3>[\w-]+(?:\s+[\w-]+)?)\s+allergy$",
    re.IGNORECASE,
)
_DIETS = {
    "vegetarian": "vegetarian",
    "vegan": "vegan",
    "pescatarian": "pescatarian",
    "pescetarian": "pescatarian",
    "lactose intolerant": "lactose intolerant",
    "gluten intolerant": "gluten intolerant",
    "coeliac": "coeliac",
    "celiac": "coeliac",
    "diabetic": "diabetic",
    "teetotal": "teetotal",
}
_DIET = re.compile(
    r"^(?:i'?m|i am|im)\s+(?:now\s+|also\s+|still\s+)?(?:an?\s+)?(?:strict\s+)?"
    r"(?P<diet>" + "|".join(_DIETS) + r")(?:\s+now)?$",
    re.IGNORECASE,
)
#: "remember that X", "note that X", "don't forget that X": X is worth keeping as it is said.
_NOTE = re.compile(
    r"^(?:please\s+|pls\s+|also\s+|and\s+|oh\s+)*(?:(?:do\s+)?remember|note|keep\s+in\s+mind|"
    r"don't\s+forget|dont\s+forget|do\s+not\s+forget|never\s+forget|make\s+a\s+note|"
    r"take\s+note|for\s+the\s+record)(?P<mark>\s+that\b|\s*:|\s*,)?\s+(?P<body>.+)$",
    re.IGNORECASE,
)
_NOTE_FIRST_PERSON = re.compile(rf"^(?:{_I}|my)\s", re.IGNORECASE)
_NOTE_BAD_START = frozenset(
    _words(
        "you your we us our it to how what when where why who which if whether time day night "
        "moment one song place guy girl thing me this these those"
    )
)
_NOTE_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|won't|can|can't|cannot|doesn't|isn't|aren't|"
    r"needs|likes|loves|hates|lives|works|goes|'s|'re)\b",
    re.IGNORECASE,
)
_MY_THING_IS = re.compile(
    r"^my\s+(?P<what>[\w' -]{1,40}?)\s+(?:is|are|was|were|'s)\s+\S", re.IGNORECASE
)
MAX_NOTE_WORDS = 30
_KEEP_VERB = frozenset(
    _words(
        "will would can could should must might may did had was shall never always also usually "
        "often still just really sometimes already only"
    )
)
_ADVERBS = frozenset(
    _words("never always also usually often still just really sometimes already only")
)
_IRREGULAR = {"have": "has", "do": "does", "don't": "doesn't", "am": "is", "go": "goes"}


def _third_singular(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _KEEP_VERB or low.endswith("ed") or low.endswith("n't"):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _about_the_user(body: str) -> str:
    """ "my locker code is 4471" -> "The user's locker code is 4471."; "I go to the gym on
    Mondays" -> "The user goes to the gym on Mondays."."""
    body = body.strip(" .!,")
    m = re.match(r"^my\s+", body, re.IGNORECASE)
    if m:
        return "The user's " + third_person(body[m.end() :]) + "."
    for pattern, subject in (
        (r"^(?:i'm|im|i am)\s+", "The user is "),
        (r"^i've\s+", "The user has "),
        (r"^i'll\s+", "The user will "),
        (r"^i'd\s+", "The user would "),
    ):
        m = re.match(pattern, body, re.IGNORECASE)
        if m:
            return subject + third_person(body[m.end() :]) + "."
    m = re.match(r"^i\s+(?:(?P<adv>\w+)\s+)?(?P<verb>[\w']+)\b", body, re.IGNORECASE)
    if m:
        adv, verb = m.group("adv"), m.group("verb")
        if adv and adv.lower() not in _ADVERBS:
            verb, adv = adv, None
            rest = body[m.start("adv") + len(verb) :]
        else:
            rest = body[m.end() :]
        words = (adv + " " if adv else "") + _third_singular(verb)
        return f"The user {words}{third_person(rest)}."
    text = third_person(body)
    return text[0].upper() + text[1:] + "."


_RELATIVE_DAY = re.compile(r"\b(?:today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)


def _absolute_days(text: str, *, now: datetime, tz: ZoneInfo) -> str:
    """ "tomorrow" in a kept note means the day it was said of, not a day that moves."""
    today = now.astimezone(tz).date()
    shift = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}

    def absolute(m: re.Match[str]) -> str:
        word = m.group(0).lower()
        day = today + timedelta(days=shift[word])
        when = f"on {day:%A} {day.day} {day:%B %Y}"
        return f"{when} in the evening" if word == "tonight" else when

    return _RELATIVE_DAY.sub(absolute, text)


def note_body(clause: str) -> str | None:
    """What a "remember that ..." clause asks to keep, or None."""
    m = _NOTE.match(clause)
    if not m:
        return None
    body = m.group("body").strip(" .!,")
    if not m.group("mark") and not _NOTE_FIRST_PERSON.match(body):
        return None  # "remember to buy milk", "don't forget the keys"
    return body


#: Secrets are not kept as notes, even when asked: memory is read back into prompts.
_SECRET = re.compile(
    r"\b(?:password|passwd|passcode|passphrase|pin|pin code|cvv|cvc|api key|token|secret|"
    r"seed phrase|recovery phrase|social security|ssn|card number|account number|iban)s?\b",
    re.IGNORECASE,
)


def match_note(body: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    """A user knowledge fact for what the person asked to be remembered."""
    words = body.split()
    if not 3 <= len(words) <= MAX_NOTE_WORDS or words[0].lower() in _NOTE_BAD_START:
        return None
    if _SECRET.search(body):
        logger.info("offline writer: not keeping a note that names a secret")
        return None
    if not (_NOTE_FIRST_PERSON.match(body) or _NOTE_VERB.search(body)):
        return None  # "remember that time we went to Paris"
    content = _about_the_user(_absolute_days(body, now=now, tz=tz))
    thing = _MY_THING_IS.match(body)
    key = topic_key(thing.group("what") if thing else content)
    return Fact("user", "knowledge", content, ("note", f"topic:{key}"), f"note:{key}", 0.75)


def match_health(clause: str) -> Fact | None:
    m = _ALLERGY.match(clause)
    if m:
        obj = _trimmed_object(m.group("obj") or m.group("obj2") or m.group("obj3") or "")
        if obj is None:
            return None
        key = topic_key(obj)
        return Fact(
            "user",
            "profile",
            f"The user is allergic to {obj}.",
            ("allergy", f"topic:{key}"),
            f"allergy:{key}",
            0.85,
        )
    m = _DIET.match(clause)
    if m:
        diet = _DIETS[re.sub(r"\s+", " ", m.group("diet").lower())]
        key = topic_key(diet)
        return Fact(
            "user", "profile", f"The user is {diet}.", ("diet", f"topic:{key}"), f"diet:{key}", 0.8
        )
    return None


_GREETING_NAME = re.compile(
    r"^(?i:(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening))"
    r"(?:\s+there)?[,!.]?\s+(?:i'm|i am|im|this is|it's)\s+)(?P<name>[A-Z][a-z'-]+)"
    r"(?=$|[,.!]|\s+(?i:and|but|from|here)\b)"
)
_NOT_GREETING_NAMES = frozenset(
    _words(
        "back new here fine good ok okay sorry home tired bored sad happy ready done just so "
        "not also still dr mr mrs ms prof sir catholic christian muslim jewish hindu buddhist "
        "american canadian australian mexican brazilian indian italian german russian korean "
        "african european asian russian norwegian belgian austrian hungarian egyptian"
    )
)


def match_greeting_name(sentence: str) -> Fact | None:
    """ "Hi, I'm Bob": after a greeting, "I'm" and a capitalised word is a name ("I'm Tired"
    without a greeting, or "Hi, I'm English", is not)."""
    m = _GREETING_NAME.match(sentence.strip())
    if not m:
        return None
    name = m.group("name")
    low = name.lower()
    if low in _NOT_GREETING_NAMES or low in _NOT_NAMES or low.endswith(("ish", "ese", "ch")):
        return None
    return Fact("user", "profile", f"The user's name is {name}.", ("name",), "name", 0.9)


def match_name(clause: str) -> Fact | None:
    m = _NAME.match(clause)
    if not m:
        return None
    words = m.group("name").split()
    if words[0].lower() in _NOT_NAMES or not words[0][0].isalpha():
        return None
    rest = m.group("rest").strip().lower()
    if (
        clause.lower().startswith("call me")
        and rest
        and not rest.startswith(("please", "from now on", "instead"))
    ):
        return None
    if len(words) == 2 and (words[1].lower() in _NOT_NAMES or not words[1][0].isupper()):
        words = words[:1]
    name = " ".join(w if w[0].isupper() else w.capitalize() for w in words)
    return Fact("user", "profile", f"The user's name is {name}.", ("name",), "name", 0.9)


def match_preference(clause: str) -> Fact | None:
    m = _DISLIKE.match(clause)
    if m:
        obj = _clean_object(m.group("obj") or m.group("obj2") or m.group("obj3"))
        if obj is None:
            return None
        return _pref(f"The user doesn't like {obj}.", obj, "dislikes")
    m = _FAVOURITE.match(clause)
    if m:
        obj = _clean_object(m.group("obj"))
        what = m.group("what").strip().lower()
        if obj is None:
            return None
        fact = _pref(f"The user's favourite {what} is {obj}.", obj, "likes")
        return Fact(**{**fact.__dict__, "key": f"favourite-{topic_key(what)}"})
    m = _LIKE.match(clause)
    if m:
        obj = _clean_object(m.group("obj") or m.group("obj2") or m.group("obj3"))
        if obj is None:
            return None
        if m.group("obj3") and obj[1:] == obj[1:].lower():
            obj = obj[0].lower() + obj[1:]
        return _pref(f"The user likes {obj}.", obj, "likes")
    m = _DRINK.match(clause)
    if m:
        obj = _clean_object(m.group("obj"))
        if obj is None:
            return None
        verb = "drinks" if m.group("verb").lower() == "drink" else "prefers"
        return _pref(f"The user {verb} {obj}.", obj, "likes")
    return None


def _pref(content: str, obj: str, polarity: str) -> Fact:
    key = topic_key(obj)
    return Fact(
        "user",
        "preference",
        content,
        (polarity, f"topic:{key}"),
        f"topic:{key}",
        0.6,
        polarity=polarity,
    )


def match_place_or_work(clause: str) -> Fact | None:
    m = _LIVES.match(clause)
    if m:
        place = _clean_place(m.group("place"))
        if place:
            return Fact("user", "profile", f"The user lives in {place}.", ("home",), "home", 0.7)
    m = _WORKS_AS.match(clause)
    if m:
        job = _clean_job(m.group("job"))
        if job:
            return Fact(
                "user", "profile", f"The user works as {job.lower()}.", ("job",), "job", 0.7
            )
    m = _WORKS_AT.match(clause)
    if m:
        org = _clean_place(m.group("org") or m.group("org2"))
        if org:
            return Fact("user", "profile", f"The user works at {org}.", ("work",), "work", 0.7)
    return None


def _clean_job(text: str) -> str | None:
    text = _OBJECT_CUT.split(text, maxsplit=1)[0].strip(" .!?")
    words = text.split()
    return text if 2 <= len(words) <= 5 else None


_NOT_PLACES = frozenset(
    _words(
        "a an fear hope denial peace harmony sin poverty luxury comfort night nights home "
        "weekends weekend times myself ourselves it this that here there moment present "
        "past future dreams reality"
    )
)


def _clean_place(text: str) -> str | None:
    text = _OBJECT_CUT.split(text, maxsplit=1)[0].strip(" .!?")
    text = re.sub(r"\s+(?:now|these days|at the moment|currently)$", "", text, flags=re.I)
    words = text.split()
    first = words[0].lower() if words else ""
    if not words or len(words) > 5 or (first in _BAD_OBJECT_START and first != "the"):
        return None
    key = words[1].lower() if first == "the" and len(words) > 1 else first
    if key in _NOT_PLACES:
        return None
    return _titled(text)


# --------------------------------------------------------------------------- dates and times

_HAS_CLOCK = re.compile(
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|"
    r"\b(?:at|by)\s+\d{1,2}\b|\bmorning\b|\bevening\b|\bafternoon\b|\btonight\b|\bnight\b",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"^in\s+(?:\d+|an?|one|two|three|few|half)\b", re.IGNORECASE)


def _normalise_when(text: str) -> str:
    text = text.strip().strip(".!?").strip()
    text = re.sub(r"\bnoon\b", "12:00", text, flags=re.I)
    text = re.sub(r"\bmidnight\b", "00:00", text, flags=re.I)
    text = re.sub(r"\bnext\s+(?=(?:mon|tue|wed|thu|fri|sat|sun))", "", text, flags=re.I)
    text = re.sub(r"\b(at|by)\s+(\d{1,2})(?!\d|:|\s*[ap]\.?m)", r"\1 \2:00", text, flags=re.I)
    text = re.sub(r"^(?:at|on|by)\s+", "", text.strip(), flags=re.I)
    return text.strip()


_CLOCK_ONLY = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE)


def _clock_only(phrase: str) -> time | None:
    """A bare clock time ("9pm", "21:30", "12:00"): dateparser puts these on odd days."""
    m = _CLOCK_ONLY.match(phrase.strip())
    if not m:
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    half = (m.group(3) or "").lower().replace(".", "")
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def parse_when(text: str, *, now: datetime, tz: ZoneInfo) -> datetime | None:
    """An aware datetime in ``tz`` for a phrase like "tomorrow at 9am", "in 2 hours", "on
    Friday" (no clock time: 09:00), or None when the phrase is not a time."""
    import dateparser

    phrase = _normalise_when(text)
    if not phrase or not re.search(r"\d|[a-z]{3,}", phrase, re.I):
        return None
    local_now = now.astimezone(tz)
    if re.search(r"\b(?:every|each|daily|weekly)\b", phrase, re.I):
        return None  # a repeating reminder is not one due time
    clock = _clock_only(phrase)
    if clock is not None:
        when = datetime.combine(local_now.date(), clock, tzinfo=tz)
        bare_hour = re.fullmatch(r"\d{1,2}(?::\d{2})?", phrase.strip()) is not None
        if when <= local_now and bare_hour and clock.hour < 12:
            # "at 5" said at 14:00 means 17:00: the next time a clock shows it.
            later = when + timedelta(hours=12)
            if later > local_now:
                return later
        return when if when > local_now else when + timedelta(days=1)
    settings = {
        "TIMEZONE": str(tz),
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
    }
    parsed = dateparser.parse(phrase, languages=["en"], settings=settings)  # type: ignore[arg-type]
    if parsed is None:
        return None
    when = parsed.astimezone(tz)
    if not _HAS_CLOCK.search(text) and not _RELATIVE.match(phrase):
        when = datetime.combine(when.date(), time(DEFAULT_REMINDER_HOUR), tzinfo=tz)
    if when <= local_now and not _RELATIVE.match(phrase):
        when += timedelta(days=1)
    return when if when > local_now else None


def parse_day(text: str, *, now: datetime, tz: ZoneInfo, need_day: bool = True) -> datetime | None:
    import dateparser

    phrase = re.sub(r"^(?:on|the)\s+", "", text.strip().strip(".!?"), flags=re.I)
    if not re.search(
        r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|tomorrow|today|mon|"
        r"tue|wed|thu|fri|sat|sun",
        phrase,
        re.I,
    ):
        return None
    settings = {
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": now.astimezone(tz).replace(tzinfo=None),
    }
    if need_day:
        settings["REQUIRE_PARTS"] = ["day"]
    return dateparser.parse(phrase, languages=["en"], settings=settings)  # type: ignore[arg-type]


def match_birthday(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    m = _BIRTHDAY.match(clause)
    if not m:
        return None
    raw = m.group("date")
    if re.match(r"^(?:in|at)\s+[A-Za-z]", raw) and not re.search(r"\d", raw):
        return None  # "I was born in Spain" is a place, not a date
    day = parse_day(raw, now=now, tz=tz)
    if day is None:
        return None
    year = re.search(r"\b(19|20)\d{2}\b", raw)
    when = f"{day:%B} {day.day}" + (f", {year.group(0)}" if year else "")
    return Fact(
        "user", "profile", f"The user's birthday is on {when}.", ("birthday",), "birthday", 0.8
    )


def match_dated_event(clause: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    m = _DATED.match(clause)
    if not m or m.group("what").lower().strip() in ("birthday", "bday", "name"):
        return None
    day = parse_day(m.group("date"), now=now, tz=tz, need_day=False)
    if day is None:
        return None
    what = m.group("what").strip().lower()
    content = f"The user's {what} is on {day:%A} {day.day} {day:%B %Y}."
    return Fact(
        "user",
        "event",
        content,
        ("date", f"topic:{topic_key(what)}"),
        f"event:{topic_key(what)}",
        0.7,
    )


def match_reminder(
    clause: str, *, now: datetime, tz: ZoneInfo, grace_s: float, dialogue_id: str | None
) -> Fact | None:
    m = _REMIND.search(clause)
    if not m:
        return None
    before = clause[: m.start()].strip(" ,")
    split = _split_task_and_time(m.group("rest"), before, now=now, tz=tz)
    if split is None:
        return None
    task, due = split
    scope = "dialogue" if dialogue_id else "user"
    expires = (due + timedelta(seconds=grace_s)).astimezone(ZoneInfo("UTC"))
    content = f"Remind the user to {task} on {due:%A} {due.day} {due:%B %Y} at {due:%H:%M} ({tz})."
    return Fact(
        scope,
        "event",
        content,
        ("reminder", f"topic:{topic_key(task)}"),
        f"reminder:{topic_key(task)}:{due.isoformat()}",
        0.8,
        ttl={"kind": "absolute", "expires_at": expires.isoformat(timespec="seconds")},
        open_loop=OpenLoop(kind="reminder", due=due.isoformat(timespec="seconds")),
    )


def _split_task_and_time(
    rest: str, before: str, *, now: datetime, tz: ZoneInfo
) -> tuple[str, datetime] | None:
    rest = rest.strip().strip(".!")
    # "remind me tomorrow at 9 to call mom"
    lead = re.match(r"^(?P<when>.+?)\s+(?:to|that|about)\s+(?P<task>.+)$", rest, re.IGNORECASE)
    if lead and not _TASK_START.match(rest):
        due = parse_when(lead.group("when"), now=now, tz=tz)
        if due is not None:
            return _task(lead.group("task")), due
    if not _TASK_START.match(rest):
        return None
    body = _TASK_START.sub("", rest, count=1)
    # "remind me to turn on the lights at 9pm": the leftmost split whose tail is a time.
    for m in _WHEN_WORDS.finditer(body):
        if m.start() == 0:
            continue
        task, when = body[: m.start()].strip(" ,"), body[m.start() :]
        due = parse_when(when, now=now, tz=tz)
        if due is not None and task:
            return _task(task), due
    # "tomorrow at 9, remind me to call mom"
    if before:
        due = parse_when(before, now=now, tz=tz)
        if due is not None:
            return _task(body), due
    return None


def _task(text: str) -> str:
    return third_person(text.strip(" ,.!"))


# --------------------------------------------------------------------------- the writer


def _clause_facts(
    clause: str, *, now: datetime, tz: ZoneInfo, grace_s: float, dialogue_id: str | None
) -> list[Fact]:
    """Every pattern run on one clause. A reminder is the whole clause: its task ("to tell
    mom I love jazz") says nothing about the person."""
    reminder = match_reminder(clause, now=now, tz=tz, grace_s=grace_s, dialogue_id=dialogue_id)
    if reminder is not None:
        return [reminder]
    found = (
        match_name(clause),
        match_birthday(clause, now=now, tz=tz),
        match_health(clause),
        match_preference(clause),
        match_place_or_work(clause),
        match_dated_event(clause, now=now, tz=tz),
    )
    from familiars.memory._offline_facts_people import people_facts
    from familiars.memory._offline_plans import match_plan

    more = [*people_facts(clause), *match_plan(clause, now=now, tz=tz)]
    return [f for f in found if f is not None] + more


def facts_in(
    text: str,
    *,
    now: datetime,
    timezone: str = "UTC",
    dialogue_id: str | None = None,
    reminder_grace_s: float = 6 * 3600.0,
) -> list[Fact]:
    """Every fact the patterns find in ``text``, in the order said; when one fact is said twice
    ("I like tea. Actually I don't like tea") the later saying wins."""
    tz = zone(timezone)
    found: dict[tuple[str, str, str], Fact] = {}
    for sentence, group in _sentence_clauses(text):
        greeting = match_greeting_name(sentence)
        if greeting is not None:
            found[("user", "profile", "name")] = Fact(
                **{**greeting.__dict__, "quote": sentence.strip()[:200]}
            )
        noting = False
        for said_clause in group:
            clause = _as_request(said_clause)
            if _is_question(clause, text) or _REPORTED.search(clause):
                noting = False
                continue
            body = note_body(clause)
            noting = noting or body is not None
            said = body or clause
            facts = _clause_facts(
                said, now=now, tz=tz, grace_s=reminder_grace_s, dialogue_id=dialogue_id
            )
            if body:  # "remember that I have a dentist appointment tomorrow" is a note
                facts = [f for f in facts if "plan" not in f.tags]
            if not facts and (body or (noting and _MY_THING_IS.match(said))):
                note = match_note(said, now=now, tz=tz)
                facts = [note] if note is not None else []
            for fact in facts:
                key = (fact.scope, fact.category, fact.key)
                found.pop(key, None)
                found[key] = Fact(**{**fact.__dict__, "quote": said_clause})
    return list(found.values())


def _fact_key(rec: MemoryRecord) -> str | None:
    tags = set(rec.tags)
    topics = [t for t in rec.tags if t.startswith("topic:")]
    for kind in ("allergy", "diet"):
        if kind in tags and rec.category == "profile" and topics:
            return f"{kind}:{topics[0][6:]}"
    for key in ("name", "home", "work", "job", "birthday"):
        if key in tags and rec.category == "profile":
            return key
    if rec.category == "knowledge" and "note" in tags and topics:
        return "note:" + topics[0][6:]
    if rec.category == "preference" and topics:
        fav = re.match(r"The user's favourite (.+?) is ", rec.content)
        return f"favourite-{topic_key(fav.group(1))}" if fav else topics[0]
    if rec.category == "event" and "date" in tags and topics:
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


def _head_alias(key: str) -> str | None:
    """``topic:pumpernickel-bread`` -> ``topic:pumpernickel``; None when there is none."""
    if not key.startswith("topic:"):
        return None
    parts = key[6:].split("-")
    if len(parts) < 2 or parts[-1] not in _GENERIC_HEADS:
        return None
    return "topic:" + "-".join(parts[:-1])


def _same_topic(
    fact: Fact, by_key: dict[tuple[str, str, str], MemoryRecord]
) -> MemoryRecord | None:
    """A live preference about the same topic under a longer or shorter name."""
    if fact.category != "preference":
        return None
    for (scope, category, key), rec in by_key.items():
        if (scope, category) != (fact.scope, fact.category):
            continue
        if _head_alias(key) == fact.key or _head_alias(fact.key) == key:
            return rec
    return None


def _polarity(rec: MemoryRecord) -> str:
    return "dislikes" if "dislikes" in rec.tags else "likes" if "likes" in rec.tags else ""


def to_writes(facts: Sequence[Fact], existing: Sequence[MemoryRecord]) -> WriterOutput:
    """Writes for ``facts``: ``skip`` when a live record already says it, ``update`` (with
    ``supersedes_id``) when a live record holds another value of the same fact, else ``add``.
    A preference about the same topic under another name ("I hate pumpernickel" against
    "likes pumpernickel bread") supersedes it when the polarity turned, else is skipped."""
    by_key: dict[tuple[str, str, str], MemoryRecord] = {}
    for rec in existing:
        key = _fact_key(rec)
        if key is not None and is_live(rec):
            by_key[(rec.scope, rec.category, key)] = rec
    writes: list[WriteOp] = []
    for fact in facts:
        entry = WriterEntry(
            content=fact.content,
            tags=list(fact.tags),
            salience=fact.salience,
            ttl=fact.ttl,
            epistemic_status="asserted",
            source_quote=[f"User message: '{fact.quote}'"] if fact.quote else [],
            open_loop=fact.open_loop,
        )
        old = by_key.get((fact.scope, fact.category, fact.key))
        if old is None:
            alias = _same_topic(fact, by_key)
            if alias is not None and _polarity(alias) == fact.polarity:
                writes.append(
                    WriteOp(op="skip", scope=fact.scope, category=fact.category, entry=entry)
                )
                continue
            old = alias
        if old is not None and old.content.strip() == fact.content:
            writes.append(WriteOp(op="skip", scope=fact.scope, category=fact.category, entry=entry))
            continue
        if old is not None:
            entry.supersedes_id = old.id
            writes.append(
                WriteOp(op="update", scope=fact.scope, category=fact.category, entry=entry)
            )
        else:
            writes.append(WriteOp(op="add", scope=fact.scope, category=fact.category, entry=entry))
    return WriterOutput(writes=writes)


def closed_loops(text: str, open_records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Open reminders/promises a message says are done ("I called my mom")."""
    closed = []
    for clause in clauses(text):
        m = _DONE.match(clause)
        if not m or _is_question(clause, text):
            continue
        said = {w[:4] for w in re.findall(r"\w+", m.group("rest").lower()) if len(w) > 2}
        for rec in open_records:
            loop = rec.open_loop
            if not loop or loop.get("status") != "open" or rec in closed:
                continue
            task = re.search(r"Remind the user to (.+?) on \w+day ", rec.content)
            words = re.findall(r"\w+", (task.group(1) if task else rec.content).lower())
            wanted = {w[:4] for w in words if len(w) > 2 and w not in ("their", "the", "and")}
            if wanted and len(wanted & said) >= max(1, len(wanted) - 1):
                closed.append(rec)
    return closed


def offline_writes(
    text: str,
    *,
    existing: Sequence[MemoryRecord],
    now: datetime,
    timezone: str = "UTC",
    dialogue_id: str | None = None,
    reminder_grace_s: float = 6 * 3600.0,
) -> WriterOutput:
    """The whole offline writer: facts, then closed loops, as one WriterOutput."""
    facts = facts_in(
        text,
        now=now,
        timezone=timezone,
        dialogue_id=dialogue_id,
        reminder_grace_s=reminder_grace_s,
    )
    from familiars.memory._offline_changes import revise

    output = to_writes(revise(facts, text, existing), existing)
    for rec in closed_loops(text, [r for r in existing if r.open_loop]):
        loop = OpenLoop(**{**(rec.open_loop or {}), "status": "done"})
        entry = WriterEntry(
            content=rec.content,
            tags=rec.tags,
            salience=rec.salience,
            ttl=rec.ttl,
            supersedes_id=rec.id,
            open_loop=loop,
            source_quote=[f"User message: '{text.strip()[:200]}'"],
        )
        output.writes.append(
            WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry)
        )
    return output
