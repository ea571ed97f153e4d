"""Cutting a message into sentences and clauses, the offline writer's first step.

:func:`sentences` cuts at sentence ends; :func:`_split_sentence` cuts a sentence into clauses
(quoted speech kept whole, a left-out "I" given back), :mod:`._each_said` what a clause still holds;
:func:`_sentence_clauses` drops what only imagines; :func:`_is_question` finds a question.
"""

from __future__ import annotations

import logging
import re

from familiars.memory._offline._each_said import each_said
from familiars.memory._offline._objects import FAMILY, JOBS, _words

logger = logging.getLogger(__name__)


#: "scratch that, we're going to Tenerife" reaches the writer only as a correction (a
#: forget request is no turn): the words before the break tell nothing (review s33-2 item 9).
SCRATCH_THAT = r"(?:scratch|forget)\s+that\s*[,.;:!–—-]+\s*"
#: "change of plan, we're going to Lisbon in June": a plan taken back, what holds said after.
CHANGE_OF_PLAN = (
    r"(?:(?:a\s+)?change\s+of\s+plans?|(?:the\s+|our\s+|my\s+)?plans?\s+(?:have\s+|has\s+)?changed|"
    r"new\s+plan)\s*[,.;:!–—-]+\s*"
)
#: A greeting said before the message ("morning!", "evening all", "hiya,"): set off by a
#: mark or said to everyone, so "morning runs are the best" keeps its first word.
_GREETING = (
    r"(?:(?:good\s+)?(?:morning|afternoon|evening)|hiya|heya|yo|howdy)"
    r"(?:(?:\s+(?:all|everyone|folks|guys|there|y'all))?[,!.]+|\s+(?:all|everyone|folks|guys|"
    r"there|y'all)\b[,!.]?)\s+"
)
_FILLERS = re.compile(
    r"^(?:(?:well|so|oh|hi|hey|hello|ok|okay|yes|yeah|yep|also|and|but|actually|btw|by the way|"
    r"anyway|just so you know|fyi|honestly|fun fact|oh and|now|these days|nowadays|wait|"
    r"the\s+thing\s+(?:about\s+me\s+)?is|thing\s+is|the\s+truth\s+is|truth\s+be\s+told|"
    r"basically|i\s+mean(?=,)|to\s+be\s+honest|ngl|tbh|lowkey|highkey|not\s+gonna\s+lie|"
    r"oops|whoops|my\s+bad)[,!.]?\s+"
    rf"|{_GREETING}|{SCRATCH_THAT}|{CHANGE_OF_PLAN})+",
    re.IGNORECASE,
)
#: Said after a clause, telling nothing: "I'm vegetarian btw", "... horse hair of all things".
_TRAILING = re.compile(
    r"(?:[\s,]+(?:btw|fyi|lol|lmao|haha+|tbh|tbf|ngl|imo|rn|atm|fr|x+|by the way|just so you know|"
    r"of all things|of all people|if you can believe it|believe it or not|funnily enough|"
    # plain words in lower case only: "I like the song Though" keeps its title
    r"(?-i:though|tho|anyway|anyways|to be honest|to be fair|honestly|frankly|in fact|"
    r"unfortunately|sadly|luckily|thankfully|apparently|obviously))[.!]*)+$",
    re.I,
)
_I = r"(?:i|i'm|im|i've|i'd|i'll)"
#: "... and we have a tabby called Biscuit": a new clause of the speaker's household.
_WE = r"(?:we're|we've|we\s+(?:have|live|got|moved|own|also|now|both|just))"
#: Verbs that may follow "and"/"but" with the subject "I" left out ("I work at Acme and live in
#: Leeds"). Lower case only, so "Peace and Love Festival" stays one object; a verb must be
#: followed by something ("I like peace and love" stays one object).
_SUBJECTLESS_VERB = (
    r"(?-i:(?:also\s+|now\s+|really\s+|still\s+|just\s+)?(?:live|work|like|love|enjoy|adore|hate|"
    r"dislike|detest|drink|prefer|moved|reside|don't|do not|can't stand|am)\b)"
)
_CLAUSE_SPLIT = re.compile(
    rf",?\s+(?:and|but|so|because|since|although|though|while|whereas)\s+(?={_I}\b|{_WE}\s)"
    r"|,\s+(?:and|but)\s+|\s+but\s+"
    # "my wife is called Priya and we have two kids": a new saying of the household's
    r"|,?\s+(?:and|but|so)\s+(?=we(?:'ve|\s+have|\s+got)\b)"
    rf"|,\s+(?=(?:(?:now|and\s+now|but\s+now|these\s+days)\s+)?(?:{_I}|my)\s)"
    # "we're not in Bristol anymore, we moved to Bath"
    rf"|,\s+(?={_WE}\s)"
    r"|,?\s+and\s+(?=my\s+[\w' -]{1,30}?\s+(?:is|are|was|were)\b)"
    rf"|,?\s+(?:and|but)\s+(?={_SUBJECTLESS_VERB}\s+\S)"
    # "grew up in whitby, live in york now": a verb of where one is, with its preposition
    r"|,\s+(?=(?-i:(?:now\s+|also\s+|still\s+)?(?:live|work|moved|grew\s+up)\s+(?:in|at|for|to|from)\b))"
    r"|,\s+(?=(?:do|don't|did|are|aren't|have|haven't|what about|how about|and)\s+you\b)"
    # "I'm a solicitor, been at the same firm ...", "at the hospital where I'm a midwife"
    r"|,\s+(?=been\s)|\s+where\s+(?=(?:i'm|im|i\s+am|i\s+work)\s)"
    r"|,\s+(?=[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:now|instead)$)"
    r"|,\s+(?=(?:(?:now|these\s+days|nowadays)\s+)?it'?s\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?(?:\s+now)?$)"
    # "Mia here - I look after horses": a dash before a new saying of one's own
    r"|\s+[-–—]+\s+(?=(?:i|i'm|im|i've|we|we're|my|our|just)\b)",
    re.IGNORECASE,
)
_SUBJECTLESS = re.compile(rf"^{_SUBJECTLESS_VERB}")
_HAS_SUBJECT_I = re.compile(rf"^{_I}\s", re.IGNORECASE)
#: Sentence ends: after . ! ? ; and a space, or at a line break; not after "Mr." or "a.m.".
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s*\n+\s*")
_ABBREVIATION = re.compile(
    r"\b(?:mr|mrs|ms|dr|st|prof|jr|sr|vs|etc|e\.g|i\.e|a\.m|p\.m|approx|mt|no)\.$", re.IGNORECASE
)
#: Words in single quotes, two or more ("he goes 'my name is Bond'"), not an apostrophe
#: ("rock 'n' roll", "the dogs' beds"): quoted speech too.
_SINGLE_QUOTED = r"(?<![\w'])'[^'\n]*\s[^'\n]*'(?![\w'])"
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|' + _SINGLE_QUOTED)
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
    r"could|would|will|should|shall|may|might|have|has|am|which|"
    # typed as texted: "wat am i allergic to again", "wots my cats name"
    r"wat|wot|wats|wots|whos|wheres|hows|whens)\b(?!['’]t\b|n['’]t\b)",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"[\"“”]|" + _SINGLE_QUOTED + r"|\b(?:said|says|told me|asked|wrote)\b", re.IGNORECASE
)


#: Contractions typed without their apostrophe ("cant eat shellfish", "dont like olives"):
#: given it back, so every rule reads them as the contraction.
_BARE_CONTRACTION = re.compile(
    r"\b(can|don|doesn|didn|isn|aren|wasn|haven|hasn|couldn|wouldn|shouldn)t\b"
    r"|\b(?P<i>[Ii])(?P<v>ve|ll)\b"
    # "hes called Spike", "shes a nurse", "theyre twins"
    r"|\b(?P<p>(?-i:[Hh]e|[Ss]he|[Tt]hey))(?P<c>(?-i:s|re))\b(?<!\bhere)(?<!\bshere)",
)


#: Text-speak "u" for "you" ("can u remind me"): a lone lower-case u between words.
_TYPED_YOU = re.compile(r"(?<![\w'-])u(?![\w'-])")


def _apostrophes(text: str) -> str:
    def given(m: re.Match[str]) -> str:
        if m.group("p"):
            pronoun, ending = m.group("p"), m.group("c")
            if (pronoun.lower(), ending) not in (("he", "s"), ("she", "s"), ("they", "re")):
                return m.group(0)
            return f"{pronoun}'{ending}"
        if m.group("i"):
            return f"{m.group('i')}'{m.group('v')}"
        stem = m.group(1)
        return "can't" if stem.lower() == "can" else f"{stem[:-1]}n't"

    return _TYPED_YOU.sub("you", _BARE_CONTRACTION.sub(given, text))


#: How people type on a phone (tester T23): "im", a lone "i", "wots", "my dogs name".
_CASUAL = (
    (re.compile(r"(?<![\w'-])(?-i:im)(?=\s+[a-z0-9])"), "I'm"),
    (re.compile(r"(?<![\w'-])(?-i:i)(?=\s|'|$)"), "I"),
    (re.compile(r"\b(?:wots|wot|whats)\b", re.I), "what's"),
    # "obsessed w crochet", "live w my bf": "w" or "w/" for "with"
    (re.compile(r"(?<![\w'-])(?-i:w)/?(?=\s+[a-z])"), "with"),
    # "my mum jess n my stepdad rob": "n" for "and"
    (re.compile(r"(?<=\w)\s+(?-i:n)\s+(?=[a-z])"), " and "),
    # "my dogs name", "my dogs called rex": the possessive or "is" lost its apostrophe
    (
        re.compile(r"\b(?P<my>my|our)\s+(?P<n>[a-z]+[^s\W])s\s+(?=(?:name|called|named)\b)", re.I),
        r"\g<my> \g<n>'s ",
    ),
    # "we've upped sticks to Scarborough", "ups sticks": the idiom is a move
    (re.compile(r"\b(?:upped|ups|up)\s+sticks\b", re.I), "moved"),
)
#: The words after a naming cue that are no name ("I got called in", "named after him").
_NOT_LOWER_NAMES = frozenset(
    _words(
        "a an the in out up off back away for to by on at it me him her them us you that this",
        "something so after because as and or but his my our their your its of from with over",
        "into about round around home again too very just really now then yet still names",
    )
)
#: A naming cue and the lower-case name(s) after it: "called salt and pepper".
_LOWER_NAMED = re.compile(
    r"\b(?P<cue>(?:called|named|name\s+is|name's|names\s+are|names\s+is)\s+)"
    r"(?P<names>[a-z][a-z'-]+(?:(?:\s*,\s*|\s+and\s+)[a-z][a-z'-]+)*)",
)
#: A capital letter not at a sentence's start and not the word "I": the person types names
#: in capitals, so a lower-case word is no name.
_INNER_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)\b(?!I\b|I')[A-Z]")


#: A relative named at the start of a sentence without "my" ("hubby's name is craig",
#: "Mum's a nurse"): the "my" a casual typist leaves out, given back.
_BARE_KIN = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<kin>(?:hubby|husband|wife|wifey|missus|mum|mom|mam|dad|nan|gran|"
    r"grandad|grandma|sister|brother|sis|bro|son|daughter|partner|boyfriend|girlfriend|bf|gf|"
    r"fiance|fiancee))(?='s\b|\s+is\b|\s+was\b)",
    re.I,
)


def casual(text: str) -> str:
    """``text`` as if typed with care: "im" and a lone "i" as "I'm" and "I", "wots" as
    "what's", "my dogs name" as "my dog's name", and, in a message typed all in lower case,
    the names after "called", "named" or "name is" capitalised ("called salt and pepper" ->
    "called Salt and Pepper"), so every rule reads a casual message as a careful one."""
    for pattern, said in _CASUAL:
        text = pattern.sub(said, text)
    text = _BARE_KIN.sub(lambda m: f"my {m.group('kin')}", text)
    if _INNER_CAPITAL.search(text.strip()):
        return text

    def named(m: re.Match[str]) -> str:
        parts = re.split(r"(\s*,\s*|\s+and\s+)", m.group("names"))
        said: list[str] = []
        for number, part in enumerate(parts):
            if number % 2 == 0 and part.lower() in _NOT_LOWER_NAMES:
                if number == 0:
                    return m.group(0)
                said = said[:-1] + parts[number - 1 :]  # "called rex and my cat": Rex only
                break
            said.append(part.capitalize() if number % 2 == 0 else part)
        return m.group("cue") + "".join(said)

    return _LOWER_KIN_NAMED.sub(_kin_named, _LOWER_NAMED.sub(named, text))


#: A relative named in a list or after "with", typed in lower case: "w my mum jess and my
#: stepdad rob" (never a relative that does something: "my mum cooks" is no name).
_LOWER_KIN_NAMED = re.compile(
    rf"(?P<kin>(?:\bwith|\band|&|,)\s+(?:my|our)\s+(?:{'|'.join(sorted(FAMILY))}))\s+"
    r"(?P<name>[a-z][a-z'-]+)(?=\s*(?:$|,|\band\b|&|[.!]))"
)
_NOT_KIN_NAMES = frozenset(_words("today tonight yesterday tomorrow lol haha x xx too though tho"))


def _kin_named(m: re.Match[str]) -> str:
    name = m.group("name")
    if name in _NOT_LOWER_NAMES or name in _NOT_KIN_NAMES or name in FAMILY:
        return m.group(0)
    if re.search(
        r"^\w{3,}(?<!fr)(?<!dr)(?<!m)ed$|^\w{3,}ing$", name
    ):  # "my sister helped": a doing
        return m.group(0)
    return f"{m.group('kin')} {name.capitalize()}"


#: Pictographs (with their joiners, skin tones and variation selectors) end what was said
#: before them: "evening all 👋 Priyanka, 31" is a greeting, then an introduction.
_PICTOGRAPH = "\u2600-\u27bf\U0001f000-\U0001faff"
_EMOJI = re.compile(rf"\s*[{_PICTOGRAPH}][{_PICTOGRAPH}\u200d\ufe0f\s]*")


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends (. ! ? ; and line breaks), abbreviations kept whole;
    a contraction typed without its apostrophe ("cant") gets it back, and a typed "u" is
    read as "you"."""
    text = _apostrophes(text.replace("’", "'").replace("‘", "'"))
    text = _EMOJI.sub(lambda m: ". " if m.end() < len(m.string) else "", text)
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if "\n" not in m.group(0) and _ABBREVIATION.search(text[start : m.start()]):
            continue
        out.append(text[start : m.start()])
        start = m.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


#: A clause that starts with its verb, the "I" left out ("used to love running"): given back.
_BARE_VERB = re.compile(
    r"^(?-i:(?:now\s+|also\s+|really\s+|still\s+)?(?:used\s+to|love|hate|like|adore|enjoy|"
    r"prefer|drink|work|live|moved|relocated|can't\s+stand|just\s+got|got|have|grew\s+up)\b)"
)
_BARE_BE = re.compile(
    r"^(?-i:(?:now\s+|also\s+|really\s+)?(?:into|allergic\s+to|based\s+in|obsessed\s+with|"
    r"a\s+(?:big|huge)\s+fan\s+of|not\s+into|off|going\s+to)\b)"
)
#: "... but now it's tango" after "I used to love salsa": the new value, same verb.
_USED_TO = re.compile(r"^I\s+used\s+to\s+(?P<verb>love|like|enjoy|adore|do|play|drink|eat)\b")
#: A clause that gives something up: the bare noun after it ("..., tango now") is the new one.
_TAKEN_BACK = re.compile(
    r"\b(?:not|no\s+longer|any\s?more|quit|stopped|gave\s+up|used\s+to|out|over|done\s+with)\b"
    r"|n't\b",
    re.I,
)
_HAVE = re.compile(
    r"^(?:i|we)(?:\s+(?:also|now|still|both|already|just))?"
    r"(?:\s+have(?:\s+got)?|'ve\s+(?:also\s+)?got|\s+got|\s+own)\b",
    re.I,
)
#: "a daughter called Lily and a son called Sam": the next named one of a list, which
#: becomes its own clause with the verb of the one before ("I have a son called Sam").
_NEXT_NAMED = re.compile(
    r",?\s+and\s+(?=(?:a|an|one|two|three|four|\d+|our|my)\s+(?:[\w-]+\s+){0,2}?[\w-]+"
    r"(?:,\s+(?-i:[A-Z])|\s+(?:called|named)\s+))",
    re.I,
)
_NAMING_SAID = re.compile(
    r"\b(?:called|named)\s+\w|,\s+(?-i:[A-Z])|\b(?:my|our)\s+[\w-]+\s+(?-i:[A-Z])", re.I
)
#: "I live in Leeds with my husband Tom": where one lives, then who with.
_LIVE_WITH = re.compile(
    r"^(?P<home>(?:i|we)\s+(?:now\s+|still\s+)?live\s+in\s+.+?)\s+with\s+(?P<who>(?:my|our)\s+.+)$",
    re.I,
)


#: "I drive buses and have a greyhound": a second verb with its object, sharing the "I" of
#: the clause it follows. Any lower-case word may be the verb when an object's determiner
#: follows it; what cannot be a verb (a quantity, a preposition, a pronoun) is left.
_AND_VERB_OBJECT = re.compile(
    r"\s+and\s+(?:also\s+|then\s+|now\s+)?(?P<v>(?-i:[a-z]+))\s+"
    r"(?=(?:a|an|the|my|our|some|two|three|four|five|\d+)\s)(?!(?:a|the)\s+(?:lot|bit|little|"
    r"same|most|rest)\b)",
    re.I,
)
_NOT_A_VERB = frozenset(
    _words(
        "all both also then with in on at for of to from into about by me him her them us it",
        "you not so just only even especially maybe more less plus a an the my our some",
    )
)
_SUBJECT_I = re.compile(r"^(?:i|i'm|im|i've|i\s+am)\s", re.I)


def _shared_i(part: str) -> list[str]:
    """``part`` cut before a second verb that shares its "I": "I'm 45 and have a dog" ->
    "I'm 45", "I have a dog". A part whose subject is not "I" stays whole ("my husband
    drives buses and has a dog" is his)."""
    if not _SUBJECT_I.match(part):
        return [part]
    for m in _AND_VERB_OBJECT.finditer(part):
        if m.group("v").lower() not in _NOT_A_VERB:
            return [part[: m.start()], *_shared_i(f"I {part[m.start('v') :]}")]
    return [part]


def _coordinated(part: str) -> list[str]:
    """``part`` cut where a list names one more ("a daughter called Lily and a son called
    Sam") and where who one lives with follows where ("I live in Leeds with my husband
    Tom"). A list whose first ones are unnamed ("a cat and a rabbit called Tom and Jerry")
    stays whole: the names belong to all of it."""
    live = _LIVE_WITH.match(part)
    if live:
        return [live.group("home"), *_coordinated(live.group("who"))]
    out, start = [], 0
    for m in _NEXT_NAMED.finditer(part):
        if _NAMING_SAID.search(part[start : m.start()]):
            out.append(part[start : m.start()])
            start = m.end()
    return [*out, part[start:]]


#: "our two kids, Lily and Sam" said after "with": the household has them.
_OUR_COUNTED = re.compile(r"^(?:my|our)\s+(?=(?:two|three|four|five|\d+)\s+\w)", re.I)
#: "Lily who is 7 and Sam who is 4": the age of each named one, said after the name.
_WHO_IS_AGED = re.compile(r"\s*,?\s+(?:who\s+is|who's|aged)\s+\d{1,2}\b(?:\s+years?\s+old)?", re.I)
#: A bare counted noun ("two goldfish", "a hamster"): more of what the clause before has.
_COUNTED = re.compile(r"^(?:a|an|one|two|three|four|five|six|some|\d+)\s+[a-z][\w-]*", re.I)
_NOW_IT = re.compile(r"^(?:now|these\s+days|nowadays)\s+(?:it'?s\s+|it\s+is\s+)?(?P<y>.+)$", re.I)
#: "Chloe, my daughter, is six": the name said before the relation it is.
_APPOSITIVE = re.compile(
    r"^(?P<n>(?-i:[A-Z][\w'-]+)),\s+(?P<np>(?:my|our)\s+(?:[\w-]+\s+){0,2}?[\w-]+),\s*", re.I
)
#: "I'm Dana, a 34 year old paramedic", "I'm 45, a plumber": a name or an age, then what the
#: person is.
_NAME_THEN_WHAT = re.compile(
    r"^(?P<i>i'?m|im|i\s+am)\s+(?P<n>(?-i:[A-Z][\w'-]+)|\d{1,2}),\s+(?=an?\s)", re.I
)
_AGE = re.compile(r"\b(?:\d{1,3}|twenty|thirty|forty|fifty|sixty)[- ]years?[- ]old\s+(?=\w)", re.I)
#: "... paramedic living in Denver" (but not "for a living in Oslo").
#: "I'm 33 and a dad of 2": the age, then what one is.
_AGE_AND_A = re.compile(r"^(?:i'?m|i\s+am)\s+\d{1,2}\s+and\s+(?=an?\s)", re.I)
_PARTICIPLE = re.compile(r"(?<!\ba)\s+(?=(?:living|based)\s+(?:in|near|outside)\s)", re.I)
#: Someone other than the speaker named in a clause ("I miss my brother", "so proud of her"):
#: a clause with no subject after it goes on with their story, not the speaker's; "with my
#: boyfriend" leaves the story the speaker's.
SOMEONE_ELSE = re.compile(
    r"(?<!\bwith\s)\b(?:(?:my|our)\s+(?:[a-z]+\s+)?(?:"
    + "|".join(
        _words(
            "mum mom mother mam dad father sister brother son daughter wife husband partner "
            "girlfriend boyfriend fiance fiancee grandma grandmother gran granny nan nana grandad "
            "grandpa grandfather aunt auntie uncle cousin niece nephew twin kid kids child "
            "children baby parents grandson granddaughter friend boss colleague coworker "
            "neighbour neighbor flatmate roommate housemate mate teacher"
        )
    )
    + r")|he|she|him|her|they|them)\b",
    re.I,
)


def _participle_cut(m: re.Match[str]) -> str:
    """ "I'm a paramedic living in Denver": where one lives is a clause of one's own; after
    someone else ("my sister, living in Paris now") it is theirs, left as said."""
    return ", and " if SOMEONE_ELSE.search(m.string[: m.start()]) else ", and I'm "


_THEIR_STORY = re.compile(r"^(?:living|based|working|moved)\b", re.I)
_TERSE_PART = re.compile(r"^[\w'-]+(?:\s+[\w'-]+){0,2}$")


def _subject_given(part: str, before: list[str]) -> str:
    """``part`` with the subject it left out given back: "I" before a verb ("used to love
    running"), "I'm" before "into"; "now it's tango" after "I used to love salsa" says
    "I love tango now"."""
    used = _USED_TO.match(before[-1]) if before else None
    now = _NOW_IT.match(part)
    if (
        used
        and now
        and not re.match(
            r"^(?:i|i'm|im|we|he|she|they)\b|^" + _BARE_BE.pattern[1:], now.group("y"), re.I
        )
    ):
        return f"I {used.group('verb')} {now.group('y')} now"
    it_is = re.match(
        r"^(?:it'?s|it\s+is)\s+(?:(?:all|mostly|more)\s+(?:about\s+)?)?"
        r"(?P<y>[a-z][\w-]*(?:\s+[\w-]+){0,2}?)(?:\s+all\s+the\s+way)?(?:\s+now)?$",
        part,
        re.I,
    )
    if before and it_is and _TAKEN_BACK.search(before[-1]) and "name" not in before[-1].lower():
        return f"I'm into {it_is.group('y')} now"
    bare_new = re.match(
        r"^(?P<y>[a-z][\w-]*(?:\s+[\w-]+){0,2}?)\s+(?:now|instead|these\s+days)$", part
    )
    if before and bare_new and _TAKEN_BACK.search(before[-1]):
        return f"I'm into {bare_new.group('y')} now"
    if before and SOMEONE_ELSE.search(before[-1]) and _THEIR_STORY.match(part):
        return part  # "my sister is a nurse, based in Leeds": the sister's, not the speaker's
    if now and _BARE_BE.match(now.group("y")):
        part = now.group("y") + " now"
    if _BARE_BE.match(part):
        return "I'm " + part
    if _OUR_COUNTED.match(part):
        return _OUR_COUNTED.sub("we have ", part)
    have = _HAVE.match(before[-1]) if before else None
    if have and _COUNTED.match(part):  # "I have a terrier, his name is Bo, and two goldfish"
        return f"{have.group(0)} {part}"
    if _BARE_VERB.match(part) and (not before or not _HAS_SUBJECT_I.match(part)):
        return "I " + part
    return part


#: A part of a short introduction that says what one is and where: "nurse from Leeds",
#: "software developer at a small startup in Bristol".
_WHAT_THEN_WHERE = re.compile(
    r"^(?P<what>(?:an?\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?:\s+(?P<at>at|for|with)\s+(?P<org>.+?))?"
    r"(?:\s+(?P<by>from|in|based\s+in|living\s+in|out\s+of)\s+(?P<place>(?-i:[A-Z][\w'-]*)(?:\s+(?-i:[A-Z][\w'-]*))?))?$",
    re.I,
)
#: A student's part with the town: "at uni in leeds doing history", "studying law in bristol".
_AT_UNI_PART = re.compile(
    r"^(?:(?:at|in)\s+(?:uni|university|college)(?:\s+in\s+(?P<p1>[a-z][\w'-]*))?\s*)?"
    r"(?:(?:doing|studying|reading)\s+(?P<what>(?!(?:an?|the)\s)[a-z][\w' -]*?))?"
    r"(?:\s+(?:at\s+(?:uni|university|college)\s+)?in\s+(?P<p2>[a-z][\w'-]*))?$",
    re.I,
)
_NOT_A_TOWN = frozenset(_words("bed class school uni college town secret peace public private"))
_STUDYING_PART = re.compile(r"^(?:studying|doing\s+a\s+degree\s+in)\s+[\w' -]+$", re.I)
#: An age said alone or with its unit: "34", "34 years old", "34yo".
_AGE_ALONE = re.compile(r"^(?P<n>\d{1,2})(?:\s*(?:years?\s+old|yrs?(?:\s+old)?|y/?o))?$", re.I)
#: "I'm Raj, 34, software developer at a startup in Bristol": a name, then short parts.
_NAME_THEN_PARTS = re.compile(
    r"^(?P<i>i'?m|im|i\s+am)\s+(?P<n>(?-i:[A-Z][\w'-]+))\s*,\s*(?P<rest>.+)$", re.I
)


def _intro_part(part: str, *, bare: bool = False) -> list[str]:
    """One part of a short introduction as clauses: an age ("34" -> "I'm 34 years old"),
    what one is and where ("nurse from Leeds" -> "I'm a nurse", "I live in Leeds"); [] when
    the part is neither."""
    part = part.strip(" .!")
    age = _AGE_ALONE.match(part)
    if age:
        return [f"I'm {age.group('n')} years old"]
    at_uni = _AT_UNI_PART.match(part)
    place = at_uni.group("p1") or at_uni.group("p2") if at_uni else None
    if at_uni and place and place.lower() not in _NOT_A_TOWN:  # "at uni in leeds doing history"
        what = at_uni.group("what")
        return [*([f"I'm studying {what}"] if what else []), f"I live in {place}"]
    study = _STUDYING_PART.match(part)
    if study:  # "studying comp sci at UCLA"
        return [f"I'm {part}"]
    m = _WHAT_THEN_WHERE.match(part)
    if m is None or not (m.group("org") or m.group("place") or (bare and part.islower())):
        return []
    what = m.group("what")
    said = what if re.match(r"^an?\s", what, re.I) else _a(what.lower())
    at = f" {m.group('at')} {m.group('org')}" if m.group("org") else ""
    where = m.group("place")
    if where and m.group("by").lower() == "in":  # the work's town, not a home
        return [f"I'm {said}{at} in {where}"]
    return [f"I'm {said}{at}", *([f"I live in {where}"] if where else [])]


#: The same typed in lower case ("im jay, 19, studying comp sci"): the age said right after
#: the word is what makes it a name.
_LOWER_NAME_THEN_AGE = re.compile(
    r"^(?P<i>i'?m|im|i\s+am)\s+(?P<n>(?-i:[a-z][a-z'-]+))\s*,\s*(?P<rest>\d{1,2}\b.*)$", re.I
)
#: Words after "I'm" that describe, whatever follows: "I'm tired, 34 hours awake".
_NOT_LOWER_INTRO = frozenset(
    _words(
        "tired done back home here fine good ok okay sorry so not just also still only nearly",
        "almost about over under literally actually basically single married divorced",
        "vegan vegetarian veggie pescatarian bi trans queer lesbian straight sober autistic",
    )
)


#: What follows a lower-case "im" and is no given name: a state, a feeling, a place, a
#: faith or nationality, a word of time ("im gay, 25", "im in. 2" renamed the user: review
#: s34 F10). A list of what names are not, so that "im jay, 19" and "im olive. 41" still
#: introduce someone (every given name is a common word somewhere: jay, olive, mo, sam).
_NOT_A_NAME = frozenset(
    _words(
        "gay in out up down off on away free clean awake asleep alive ready sure new old young",
        "late early busy bored sick ill broke skint pregnant retired unemployed homeless alone",
        "lonely happy sad angry mad scared afraid hungry thirsty cold hot warm drunk high stoned",
        "wasted sleepy exhausted stressed anxious depressed better worse well great cool alright",
        "safe lost stuck gutted chuffed buzzing dead deaf blind disabled diabetic epileptic",
        "asthmatic allergic christian muslim jewish hindu sikh catholic atheist british english",
        "irish scottish welsh american canadian australian french german spanish italian polish",
        "indian chinese japanese korean nigerian a an the gonna going trying nearly around at",
        "with from into outside inside there where now always never cheap poor rich tall short",
        "fat thin big small bad wrong right honest serious kidding joking shy quiet loud",
    )
)


def _lower_name(word: str) -> bool:
    """ "im priya, 25": a lower-case word is a name unless it says a state, a feeling or
    another thing that follows "im" (:data:`_NOT_A_NAME`, :data:`_NOT_LOWER_INTRO`) or ends
    like a describing word."""
    low = word.lower()
    if low in _NOT_A_NAME or low in _NOT_LOWER_INTRO:
        return False
    return not _DESCRIBING_END.search(word)  # "knackered", "shattered", "skint-ish"


#: Endings of describing words, not of given names: "knackered", "fuming", "hopeless".
_DESCRIBING_END = re.compile(r"(?:ed|ing|ful|ous|ish|less|able|ible)$", re.IGNORECASE)
#: The ages a speaker plausibly gives of themselves ("im free, 6" is not an age).
_SPEAKER_AGES = range(5, 111)


def _introduced(sentence: str) -> list[str] | None:
    """ "I'm Raj, 34, software developer at a small startup in Bristol": the name, then each
    part said as a clause (:func:`_intro_part`); None when a part is not one of those."""
    m = _NAME_THEN_PARTS.match(sentence.strip())
    name = m.group("n") if m else ""
    if m is None:
        m = _LOWER_NAME_THEN_AGE.match(sentence.strip())
        if m is None or not _lower_name(m.group("n")):
            return None
        age = re.match(r"\d+", m.group("rest"))
        if age is None or int(age.group()) not in _SPEAKER_AGES:
            return None
        name = m.group("n").capitalize()
    parts = [p.strip() for p in m.group("rest").split(",") if p.strip()]
    said = [_intro_part(p, bare=True) for p in parts]
    if not parts or not all(said) or not any(_AGE_ALONE.match(p) for p in parts):
        return None
    return [f"my name is {name}", *(c for each in said for c in each)]


#: "Dot here, 52, I run a bakery", "im jay, 16, live in melbourne": a name and a bare age said
#: first, then anything; the two are peeled off and the rest read as any other clause.
_NAME_AGE_OPENER = re.compile(
    r"^(?:(?:yo|hi|hey|hiya|heya|hello|sup|oi)[,!]?\s+)?(?:(?P<here>[A-Za-z][\w'-]+)\s+(?:here|speaking)|(?:i'?m|im|i\s+am)\s+(?P<n>[A-Za-z][\w'-]+))"
    r"\s*,\s*(?P<age>\d{1,3})(?:\s*(?:years?\s+old|yrs?(?:\s+old)?|y/?o))?\s*(?:,\s*(?P<rest>.*))?$",
    re.I,
)


#: Words before "here" that are no name: "back here, 2 days".
_NOT_OPENER_NAMES = frozenset(_words("me us you it that this who everyone everybody all"))


def _name_age_opener(sentence: str) -> tuple[list[str], str] | None:
    """The name and age of a "Dot here, 52, ..." opener as clauses, and what is said after
    them; None when the sentence does not open so, or the word is no name or the number no
    plausible age of the speaker."""
    m = _NAME_AGE_OPENER.match(sentence.strip())
    if m is None or int(m.group("age")) not in _SPEAKER_AGES:
        return None
    name = m.group("here") or m.group("n")
    if not _lower_name(name) or name.lower() in _NOT_OPENER_NAMES:
        return None
    return [f"my name is {name[:1].upper()}{name[1:]}", f"I'm {m.group('age')} years old"], (
        m.group("rest") or ""
    ).strip()


_CAPITALISED_PART = re.compile(r"^(?-i:[A-Z][\w'-]+)$")


def _terse(sentence: str) -> list[str] | None:
    """ "Dana here, paramedic, Denver based", "Priyanka, 31, accountant, Birmingham": a list
    of short parts said about oneself, each made a clause ("I'm a paramedic", "I'm based in
    Denver"); None when the sentence is not one (fewer than three parts, a long part, or no
    name in it). The name is the one part with a capital, or the first when a part without
    one says it is no list of names ("Milo, Luna, Coco"); a later capitalised part is a job
    the list knows or the town."""
    parts = [p.strip() for p in sentence.split(",") if p.strip()]
    if len(parts) < 3 or not all(_TERSE_PART.match(p) for p in parts):
        return None
    named = [p for p in parts if re.match(r"^(?-i:[A-Z][\w'-]+)(?:\s+(?:here|speaking))?$", p)]
    plain = any(p.isdigit() or p[:1].islower() or p.lower() in JOBS for p in parts)
    if len(named) != 1 and not (named and named[0] == parts[0] and plain):
        return None
    if any(re.match(r"^(?:my|our|is|are|was|and|or)\b", p, re.I) for p in parts):
        return None
    return [c for number, part in enumerate(parts) for c in _terse_part(part, number, named[0])]


def _terse_part(part: str, number: int, name: str) -> list[str]:
    """One part of a terse list as clauses (see :func:`_terse`)."""
    based = re.match(r"^(?P<p>(?-i:[A-Z][\w'-]*))[- ]based$", part, re.I)
    if part.isdigit() or _intro_part(part):
        return _intro_part(part)
    if based:
        return [f"I'm based in {based.group('p')}"]
    if _CAPITALISED_PART.match(part) and (number == 0 or part == name):
        return [f"I'm {part}"]
    if _CAPITALISED_PART.match(part):
        return [f"I'm {_a(part.lower())}" if part.lower() in JOBS else f"I live in {part}"]
    if re.match(r"^[a-z][\w-]*(?:\s+[a-z][\w-]*)?$", part) and len(part.split()) <= 2:
        return [f"I'm {_a(part)}"]
    return [part]


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


#: A sentence of one or two words: "Yo. Marcus. Welder. Sheffield." is one terse list.
_SHORT_SENTENCE = re.compile(r"^[\w'-]+(?:\s+[\w'-]+)?[.!]?$")


def _terse_runs(said: list[str]) -> list[str]:
    """Three or more short sentences in a row, greetings left out, as one comma list."""
    out: list[str] = []
    run: list[tuple[str, str]] = []  # (as said, greeting left out)
    for sentence in [*said, ""]:
        bare = _FILLERS.sub("", sentence + " ").strip().rstrip(".!")
        if sentence and (not bare or _SHORT_SENTENCE.match(bare)):
            run.append((sentence, bare))
            continue
        kept = [b for _, b in run if b]
        out += [", ".join(kept)] if len(kept) >= 3 else [s for s, _ in run]
        run = []
        if sentence:
            out.append(sentence)
    return out


def _split_sentence(sentence: str) -> list[str]:
    """One sentence's clauses; quoted speech is never cut, and a clause that leaves out its
    subject ("... and live in Leeds") gets back the "I" of the clause before it."""
    quotes: list[str] = []

    def hide(m: re.Match[str]) -> str:
        quotes.append(m.group(0))
        return f"\x00{len(quotes) - 1}\x00"

    masked = _QUOTED.sub(hide, _FILLERS.sub("", sentence.strip()))
    masked = _APPOSITIVE.sub(lambda m: f"{m.group('np')} {m.group('n')} ", masked)
    masked = _NAME_THEN_WHAT.sub(lambda m: f"{m.group('i')} {m.group('n')}, and I'm ", masked)
    masked = _PARTICIPLE.sub(_participle_cut, _AGE.sub("", masked))
    masked = _AGE_AND_A.sub(lambda m: f"{m.group(0).split(' and ')[0]}, and I'm ", masked)
    masked = _WHO_IS_AGED.sub("", masked)
    out: list[str] = []
    for said in _CLAUSE_SPLIT.split(masked):
        said = re.sub(r"\x00(\d+)\x00", lambda m: quotes[int(m.group(1))], said)
        said = _FILLERS.sub("", said.strip().strip(".!;,").strip()).strip()
        said = _TRAILING.sub("", said)
        terse = _introduced(said) or _terse(said)
        if terse is not None:
            out += terse
            continue
        opener = _name_age_opener(said)
        if opener is not None:
            out += opener[0]
            said = opener[1]
        for each in _coordinated(said):
            for shared in _shared_i(each.strip()):
                out += _subjects_given(shared.strip(), out)
    return out


def _subjects_given(part: str, out: list[str]) -> list[str]:
    """``part`` as a clause (see :func:`_subject_given`); [] when it is empty."""
    if not part:
        return []
    if out and SOMEONE_ELSE.search(out[-1]) and _THEIR_STORY.match(part):
        return [part]  # "I miss my brother, moved to Australia": his move, not the speaker's
    if out and _SUBJECTLESS.match(part) and _HAS_SUBJECT_I.match(out[-1]):
        return ["I " + part]
    return [_subject_given(part, out)]


_ALLERGIC_BARE = re.compile(r"^(?:i'?m|im|i\s+am)\s+(?:\w+\s+)?allergic$", re.I)
#: What the other clause names as the cause: "peanuts make me ill", "I can't take penicillin".
_CAUSE_NAMED = re.compile(
    r"^(?:i\s+)?(?:can't|cannot|can\s+not|don't|mustn't)\s+(?:take|have|eat|drink|touch|be\s+near)\s+"
    r"(?P<a>[\w -]+?)$"
    r"|^(?P<b>[\w-]+(?:\s+[\w-]+)?)\s+(?:make|makes|give|gives|gave|made|bring|brings)\s+me\b"
    r"|^(?:i\s+)?(?:(?:must|have\s+to|need\s+to|should|always|really)\s+)*(?:avoid|steer\s+clear\s+of|"
    r"stay\s+away\s+from|keep\s+away\s+from)\s+(?P<c>[\w -]+?)$",
    re.I,
)
#: An allergy said of a pronoun: "..., as I have a severe allergy to them".
_ALLERGY_TO_PRONOUN = re.compile(
    r"\b(?:allergic|allergy)\s+(?:to|of)\s+(?:them|it|those|these)\b", re.I
)


def _allergy_named(group: list[str]) -> list[str]:
    """ "peanuts make me ill, I'm allergic": the bare "I'm allergic" gets what the other
    clause names ("I'm allergic to peanuts"), and so does an allergy to "them" ("I must avoid
    peanuts, as I have a severe allergy to them")."""
    for number, clause in enumerate(group):
        pronoun = _ALLERGY_TO_PRONOUN.search(clause)
        if not (pronoun or _ALLERGIC_BARE.match(clause)):
            continue
        parts = re.split(r"\s*,\s*", clause[: pronoun.start()]) if pronoun else []
        for other in [*group[:number], *group[number + 1 :], *parts]:
            m = _CAUSE_NAMED.match(other.strip())
            if m:
                group = [*group]
                what = (m.group("a") or m.group("c") or m.group("b").lower()).strip()
                group[number] = f"I'm allergic to {what}" if pronoun else f"{clause} to {what}"
                break
    return group


def _age_joined(said: list[str]) -> list[str]:
    """ "im priya. 41": an age said alone right after "I'm <word>" is one introduction
    ("I'm priya, 41"), when the word can be a name (not "im in. 2") and the number an age."""
    out: list[str] = []
    for sentence in said:
        bare = sentence.strip(" .!")
        named = (
            re.fullmatch(r"(?:i'?m|im|i\s+am)\s+(?P<n>\w+)[.!]?", out[-1], re.I) if out else None
        )
        if (
            named
            and re.fullmatch(r"\d{1,2}", bare)
            and int(bare) in _SPEAKER_AGES
            and (named.group("n")[:1].isupper() or _lower_name(named.group("n")))
        ):
            out[-1] = f"{out[-1].rstrip('.!')}, {bare}"
        else:
            out.append(sentence)
    return out


#: A message the person takes back as a joke: "jk", "just kidding", "I'm only joking" (not
#: "no kidding" or "I'm not joking", which say it is meant).
_JOKED = re.compile(
    r"(?<![\w/])(?:jk|j/k)(?![\w/])|\b(?:just|only)\s+(?:kidding|joking)\b"
    r"|\bi'?m\s+(?:just\s+|only\s+)?(?:kidding|joking)\b(?!\s+aside)",
    re.IGNORECASE,
)


def _sentence_clauses(text: str) -> list[tuple[str, list[str]]]:
    """Each sentence that states something, with its clauses: a sentence that only imagines
    is dropped, and so is the condition of an "if ..., ..." sentence."""
    out: list[tuple[str, list[str]]] = []
    if _JOKED.search(text):  # "my cat is called Tiddles lol jk I don't have a cat"
        return out
    for sentence in _terse_runs(_age_joined(sentences(casual(text)))):
        bare = _FILLERS.sub("", sentence)
        if _HYPOTHETICAL.match(bare):
            continue
        if _CONDITION.match(bare):
            masked = _QUOTED.sub("", bare)
            if "," not in masked:
                continue
            sentence = masked.split(",", 1)[1].strip()
        out.append((sentence, each_said(_allergy_named(_split_sentence(sentence)))))
    return out


def clauses(text: str) -> list[str]:
    return [c for _, group in _sentence_clauses(text) for c in group]


_POLITE_REQUEST = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"(?=(?:remember|note|keep\s+in\s+mind|set\s+(?:me\s+)?an?\s+reminder|"
    r"remind\s+me\s+(?!(?:what|who|where|when|how|which|why|whether|if|of)\b))\b)",
    re.IGNORECASE,
)


def _is_question(clause: str, raw_text: str) -> bool:
    return clause.endswith("?") or bool(_QUESTION_START.match(clause))


def _as_request(clause: str) -> str:
    """ "can you remember that my locker code is 4471?" asks to keep a fact, not a question
    (and "could you remind me ..." asks for a reminder)."""
    m = _POLITE_REQUEST.match(clause)
    return clause[m.end() :].rstrip("?").strip() if m else clause
