"""The patterns that turn one clause into a :class:`Fact`: a name (also after a greeting),
likes and dislikes, allergies and diets, where someone lives or works, and notes the
person asks to be kept ("remember that my locker code is 4471"; secrets never kept).
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from familiars.memory._offline._clauses import _I
from familiars.memory._offline._dates import _absolute_days
from familiars.memory._offline._objects import (
    _BAD_OBJECT_START,
    _NOT_NAMES,
    _OBJECT_CUT,
    Fact,
    _clean_object,
    _titled,
    _trimmed_object,
    _words,
    third_person,
    topic_key,
    verb_3rd,
)

logger = logging.getLogger(__name__)


_NAME = re.compile(
    r"^(?:my name is|my name's|my names|i'm called|i am called|people call me|you can call me|"
    r"please call me|call me|name's)\s+(?P<name>[^\s,.!?]+(?:\s+[^\s,.!?]+)?)(?P<rest>.*)$",
    re.IGNORECASE,
)
_LIKE = re.compile(
    r"^i\s+(?:really\s+|truly\s+|absolutely\s+|just\s+|do\s+|also\s+|still\s+)*"
    r"(?:like|love|enjoy|adore)\s+(?P<obj>.+)$"
    r"|^(?:i'?m|im|i\s+am)\s+(?:(?:really|very|so|quite|rather|ever\s+so|lowkey|kinda|totally|"
    r"a\s+big|a\s+huge|such\s+a)\s+)*(?:into|a fan of|fan of|fond of|obsessed with)"
    r"\s+(?P<obj2>.+)$"
    r"|^(?P<obj3>[\w' -]{2,40}?)\s+is\s+my\s+(?:absolute\s+)?(?:favou?rite)(?:\s+\w+)?$"
    # "I've always loved gardening": a liking held for long (a plain "I loved it" is past)
    r"|^i(?:'ve|\s+have)\s+(?:always|long)\s+(?:loved|liked|enjoyed|adored)\s+(?P<obj4>.+)$",
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
#: Likings said by idiom, which no sentence embedding reads right ("opera's not my cup of
#: tea" sits nearer the likes): the idiom says the polarity, the rest of the clause the thing.
#: ``after``: the thing follows the idiom ("I'm mad for a good curry"); ``before``: the
#: thing is the subject ("football leaves me cold"). The degree words between are free.
_DEG = r"(?:(?:so|really|absolutely|totally|just|quite|a\s+bit|proper|well|pretty|utterly)\s+)*"
_IDIOM_LIKE_AFTER = re.compile(
    rf"^(?:i'?m|im|i\s+am)\s+{_DEG}(?:mad|nuts|wild|crazy|potty|daft|bonkers|gaga|dotty)\s+"
    r"(?:for|about|on)\s+(?P<obj>.+)$"
    rf"|^(?:i'?m|im|i\s+am)\s+{_DEG}(?:partial|addicted)\s+to\s+(?P<obj2>.+)$"
    rf"|^i\s+(?:can'?t|cannot|can\s+never)\s+get\s+enough\s+of\s+(?P<obj3>.+)$"
    rf"|^(?:i'?ve|i\s+have)\s+(?:got\s+)?a\s+(?:soft\s+spot|weakness|thing)\s+for\s+(?P<obj4>.+)$"
    r"|^(?:nothing|you\s+can'?t)\s+beats?\s+(?P<obj5>.+)$",
    re.IGNORECASE,
)
_IS = r"(?:'s|'re|\s+is|\s+are)"
_ISNT = r"(?:'s\s+not|'re\s+not|\s+is\s+not|\s+are\s+not|\s+isn'?t|\s+aren'?t)"
_IDIOM_LIKE_BEFORE = re.compile(
    rf"^(?P<obj>[\w' -]{{2,40}}?){_IS}\s+{_DEG}(?:(?:right\s+)?up\s+my\s+(?:street|alley)|"
    r"my\s+cup\s+of\s+tea|my\s+jam|my\s+bag|my\s+happy\s+place|my\s+guilty\s+pleasure)$"
    rf"|^(?P<obj2>[\w' -]{{2,40}}?)\s+(?:does|do)\s+it\s+for\s+me$",
    re.IGNORECASE,
)
_IDIOM_DISLIKE_AFTER = re.compile(
    rf"^(?:i\s+)?(?:can'?t|cannot)\s+{_DEG}(?:be\s+doing\s+with|be\s+arsed\s+with|abide|stomach|"
    r"be\s+bothered\s+with)\s+(?P<obj>.+)$"
    rf"|^(?:(?:i'?m|im|i\s+am)\s+)?(?:not|no)\s+{_DEG}(?:big\s+on|keen\s+on|fussed\s+(?:about|on)|"
    r"one\s+for|much\s+of\s+a\s+fan\s+of|a\s+(?:big\s+|huge\s+)?fan\s+of|fan\s+of)\s+(?P<obj2>.+)$"
    r"|^(?:i\s+)?(?:could\s+do\s+without|(?:have|'ve\s+got)\s+no\s+time\s+for|"
    r"never\s+(?:been|was)\s+(?:a\s+)?(?:fan\s+of|into))\s+(?P<obj3>.+)$",
    re.IGNORECASE,
)
_IDIOM_DISLIKE_BEFORE = re.compile(
    rf"^(?P<obj>[\w' -]{{2,40}}?)(?:{_ISNT}\s+{_DEG}(?:my\s+cup\s+of\s+tea|my\s+thing|my\s+scene|"
    r"my\s+bag|for\s+me|my\s+jam)"
    r"|\s+(?:leaves?|leave)\s+me\s+cold|\s+(?:does|do)\s+nothing\s+for\s+me"
    r"|\s+(?:doesn'?t|don'?t)\s+do\s+(?:it|anything)\s+for\s+me"
    r"|\s+(?:bores?|bore)\s+me(?:\s+(?:stiff|silly|to\s+tears|to\s+death))?"
    r"|\s+(?:turns?|turn)\s+my\s+stomach|\s+(?:gets?|get)\s+on\s+my\s+nerves"
    r"|\s+(?:does|do)\s+my\s+head\s+in|\s+(?:gives?|give)\s+me\s+the\s+ick)$",
    re.IGNORECASE,
)
#: Subjects that name no thing: "that does nothing for me" says nothing kept.
_NO_THING = re.compile(
    r"^(?:it|that|this|he|she|they|you|him|her|them|which|what|everything|nothing|anything|"
    r"something|"
    r"my\s+(?:mum|mom|dad|sister|brother|wife|husband|partner|boss|friend|kids?))$",
    re.IGNORECASE,
)


_IDIOM_TAIL = re.compile(r"\s+(?:now|these\s+days|anymore|any\s+more|either|tbh|to\s+be\s+honest)$")


def match_idiom(clause: str) -> Fact | None:
    """A liking or disliking said by idiom (:data:`_IDIOM_LIKE_AFTER` and the others)."""
    for pattern, polarity in (
        (_IDIOM_DISLIKE_AFTER, "dislikes"),
        (_IDIOM_DISLIKE_BEFORE, "dislikes"),
        (_IDIOM_LIKE_AFTER, "likes"),
        (_IDIOM_LIKE_BEFORE, "likes"),
    ):
        m = pattern.match(clause.strip(" .!"))
        said = next((g for g in m.groups() if g), "") if m else ""
        said = _IDIOM_TAIL.sub("", said)
        if not said or _NO_THING.match(said.strip()):
            continue
        obj = _clean_object(said)
        if obj is None:
            return None
        if polarity == "dislikes":
            return _pref(f"The user doesn't like {obj}.", obj, "dislikes")
        return _pref(f"The user likes {obj}.", obj, "likes")
    return None


_DRINK = re.compile(
    r"^i\s+(?:now\s+|mostly\s+|usually\s+|only\s+)?(?P<verb>drink|prefer)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"^my\s+(?:absolute\s+)?favou?rite\s+(?P<what>[\w ]{2,30}?)\s+is\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_LIVES = re.compile(
    r"^(?:i\s+(?:now\s+|still\s+)?(?:live|reside)|i'?m\s+(?:now\s+)?(?:living|based)|i\s+(?:just\s+)?moved)"
    r"\s+(?:in|to)\s+(?P<place>.+)$",
    re.IGNORECASE,
)
#: A move said with an age or childhood ("when I was 5", "as a kid", "aged 7"): not where the
#: person lives now.
_MOVED_AS_A_CHILD = re.compile(
    r"\b(?:when\s+(?:i|we)\s+(?:was|were)\b|as\s+an?\s+(?:kid|child|baby|teenager|toddler)\b"
    r"|aged\s+\d|at\s+(?:the\s+)?age\s+(?:of\s+)?\d)",
    re.IGNORECASE,
)
_WORKS_AT = re.compile(
    r"^i\s+(?:now\s+)?work\s+(?:at|for)\s+(?P<org>.+)$|^i'?m\s+working\s+(?:at|for)\s+(?P<org2>.+)$",
    re.IGNORECASE,
)
_WORKS_AS = re.compile(r"^i\s+(?:now\s+)?work\s+as\s+(?P<job>an?\s+.+)$", re.IGNORECASE)


_ALLERGY = re.compile(
    r"^(?:i'?m|i am|im)\s+(?:also\s+|very\s+|really\s+|severely\s+|quite\s+|mildly\s+|"
    r"super\s+|deathly\s+|highly\s+)*allergic\s+(?:to|of)\s+(?P<obj>.+)$"
    r"|^i\s+(?:also\s+)?have\s+(?:an?\s+)?(?:(?:severe|serious|mild|bad|nasty|slight|deadly|"
    r"life[- ]threatening|terrible)\s+)*allergy\s+(?:to|of)\s+"
    r"(?P<obj2>.+)$"
    r"|^i\s+(?:also\s+)?have\s+(?:an?\s+|a\s+severe\s+|a\s+mild\s+)?"
    r"(?P<obj3>[\w-]+(?:\s+[\w-]+)?)\s+allergy$",
    re.IGNORECASE,
)
#: What no one is allergic to but in a joke: "I'm allergic to mondays lol", "allergic to
#: work", "allergic to effort".
_NO_ALLERGEN = re.compile(
    r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|mornings?|weekdays?|work|working|"
    r"people|humans|effort|exercise|adulting|responsibilit(?:y|ies)|commitment|homework|"
    r"housework|chores|small\s+talk|maths?|meetings?|deadlines?|being\s+\w+|early\s+starts?)$",
    re.I,
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
    return verb_3rd(verb)


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


#: A note said as a label and its value, no verb: "bike lock code 8812", "locker no. 14".
_LABEL_VALUE = re.compile(
    r"^(?P<what>[a-z][\w' -]{1,40}?)\s*[:=]?\s+(?P<value>[\w-]*\d[\w./-]*)$", re.IGNORECASE
)


def match_note(body: str, *, now: datetime, tz: ZoneInfo) -> Fact | None:
    """A user knowledge fact for what the person asked to be remembered; a label and its
    value ("bike lock code 8812") is read as "my bike lock code is 8812"."""
    label = _LABEL_VALUE.match(body)
    if label and not _NOTE_VERB.search(body) and not _NOTE_FIRST_PERSON.match(body):
        body = f"my {label.group('what')} is {label.group('value')}"
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
        if obj is None or _NO_ALLERGEN.match(obj):
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
#: "hiya, Callum here": after a greeting, a capitalised word and "here" names the speaker.
_GREETING_HERE = re.compile(
    r"^(?i:(?:hi|hello|hey|hiya|howdy|yo|(?:good\s+)?(?:morning|afternoon|evening))"
    r"(?:\s+(?:there|all|everyone))?[,!.]?\s+)(?P<name>[A-Z][a-z'-]+)\s+(?i:here|speaking)\b"
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
    m = _GREETING_NAME.match(sentence.strip()) or _GREETING_HERE.match(sentence.strip())
    if not m:
        return None
    name = m.group("name")
    low = name.lower()
    if low in _NOT_GREETING_NAMES or low in _NOT_NAMES or low.endswith(("ish", "ese", "ch")):
        return None
    return Fact("user", "profile", f"The user's name is {name}.", ("name",), "name", 0.9)


#: "call me crazy, but ...": what one is called in an idiom, not a name.
_CALL_ME_IDIOM = frozenset(
    _words(
        "crazy mad old old-fashioned paranoid biased cynical lazy naive silly stupid weird",
        "picky sentimental stubborn nosy sad boring a an the what whatever anything",
    )
)


def match_name(clause: str) -> Fact | None:
    m = _NAME.match(clause)
    if not m:
        return None
    words = m.group("name").split()
    if words[0].lower() in _NOT_NAMES or not words[0][0].isalpha():
        return None
    rest = m.group("rest").strip().lower()
    calling = re.match(r"^(?:(?:you\s+can|please)\s+)?call\s+me\b", clause, re.I) is not None
    if calling and words[0].lower() in _CALL_ME_IDIOM:
        return None  # "call me old fashioned, but ...", "call me crazy": no name
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


#: A time of day disliked is how the days feel ("the evenings are the worst"), not a taste.
_A_TIME_OF_DAY = re.compile(
    r"^(?:the\s+)?(?:mornings?|afternoons?|evenings?|nights?|night\s*times?|bedtimes?)$", re.I
)


def match_preference(clause: str) -> Fact | None:
    m = _DISLIKE.match(clause)
    if m:
        obj = _clean_object(m.group("obj") or m.group("obj2") or m.group("obj3"))
        if obj is None or _A_TIME_OF_DAY.match(obj):  # "the evenings are the worst": grief
            return None
        return _pref(f"The user doesn't like {obj}.", obj, "dislikes")
    m = _FAVOURITE.match(clause)
    if m:  # "is now green", "is still tea": the favourite said to hold, not part of it
        obj = _clean_object(re.sub(r"^(?:now|still|really|probably)\s+", "", m.group("obj")))
        what = m.group("what").strip().lower()
        if obj is None:
            return None
        fact = _pref(f"The user's favourite {what} is {obj}.", obj, "likes")
        return Fact(**{**fact.__dict__, "key": f"favourite-{topic_key(what)}"})
    m = _LIKE.match(clause)
    if m:
        obj = m.group("obj") or m.group("obj2") or m.group("obj3") or m.group("obj4")
        obj = _clean_object(re.sub(r"\s+and\s+of\s+", " and ", obj))  # "fond of X and of Y"
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
    return match_idiom(clause)


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
    m = None if _MOVED_AS_A_CHILD.search(clause) else _LIVES.match(clause)
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


#: When a move was, said after the place: "to Harrogate in the summer", "three years ago".
_WHEN_TAIL = re.compile(
    r"\s+(?:(?:in|during|over)\s+(?:the\s+)?(?:summer|spring|autumn|fall|winter|holidays|\d{4})"
    r"|(?:last|this|next)\s+\w+|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|"
    r"couple\s+of|\d+)\s+(?:\w+\s+)?(?:years?|months?|weeks?|days?)\s+ago|since\s+.+|"
    r"recently|lately|back\s+then)\b.*$",
    re.I,
)


#: The region or country after a town, ending the clause: "Melbourne, Florida", "Leeds, UK",
#: "Manchester, New Hampshire" (kept: the town alone may be another country's).
_TOWN_REGION = re.compile(
    r"^(?P<town>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}),\s+(?P<region>(?-i:[A-Z][\w.'-]*)"
    r"(?:\s+(?-i:[A-Z][\w.'-]*)){0,2})\s*[.!]*$"
)


#: A time read where a place was looked for: "I moved in last week", "moved in recently".
A_TIME = re.compile(
    r"^(?:(?:last|this|next|past)\s+(?:week|month|year|weekend|night|spring|summer|autumn|fall|"
    r"winter|\w+day)|yesterday|today|recently|lately|.*\bago)$",
    re.I,
)


def _clean_place(text: str) -> str | None:
    region = _TOWN_REGION.match(text.strip())
    text = _OBJECT_CUT.split(text, maxsplit=1)[0].strip(" .!?")
    if region is not None and text == region["town"]:
        text = f"{region['town']}, {region['region']}"
    text = re.split(r"\s+not\s+", text, maxsplit=1, flags=re.I)[0]  # "Leeds not Leicester"
    text = re.sub(r"\s+(?:now|these days|at the moment|currently)$", "", text, flags=re.I)
    text = _WHEN_TAIL.sub("", text)
    words = text.split()
    first = words[0].lower() if words else ""
    if not words or len(words) > 5 or (first in _BAD_OBJECT_START and first != "the"):
        return None
    key = words[1].lower() if first == "the" and len(words) > 1 else first
    if key in _NOT_PLACES or A_TIME.match(text):
        return None
    return _titled(text)
