"""The value of a clause whose slot is known by meaning (:mod:`._meaning`), by light syntax.

One reader per slot, each general rather than one pattern per phrasing: a *name* is the word
after "called"/"named"/"name is"/"I'm", or the capitalised word that is not the sentence's
first; a pet's or relative's *noun* is what follows "my"/"our"/"a" up to the name; a *job*
is the noun phrase after "I'm a"/"as a", or the verb phrase before "for a living"; a
*workplace* or *home* is what follows the last "at"/"for"/"in"; a liked or disliked *thing*
is the object after the verb of liking, whatever the verb ("adore", "can't get enough of").
The fact is then built by the rules' own constructors, so it reads and is keyed exactly as a
fact the rules found (same sentence, same tags, same key for updates).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from familiars.memory._offline._health_values import allergy_value
from familiars.memory._offline._liking_values import dislike_value, like_value
from familiars.memory._offline._objects import (
    _NOT_NAMES,
    Fact,
    _words,
    third_person,
)
from familiars.memory._offline._patterns import A_TIME, match_name, match_preference
from familiars.memory._offline._people import (
    FAMILY,
    JOBS,
    PETS,
    _alternation,
    _family,
    _job_fact,
    _more_names,
    _pet,
    _work_fact,
    apposed,
    living_fact,
)
from familiars.memory._offline._tidy import _SOMEONE_ELSE, at_home_dropped, plain, untimed

NounKind = Callable[[str], str] | None

#: A clause whose subject is a relative ("my sister gave up coffee", "my mum lives in Swansea"):
#: about them, not the person.
RELATIVE_SAYS = re.compile(
    rf"^(?:my|our)\s+(?:\w+\s+)?(?:{_alternation(FAMILY)})(?:'s)?\b(?!\s+and\s+i\b)", re.I
)
_CAP = r"[A-ZÀ-Þ][\w'À-ÿ-]*"
#: A clause whose subject is another person, said by name or pronoun with no "I" in it
#: ("Robin is allergic to peanuts", "Sam's a nurse", "Jo loves jazz", "she works at Tesco"):
#: the fact is theirs, never the speaker's. "London is home" and "Tesco is where I work" are not.
_OTHER_SUBJECT = re.compile(
    rf"^(?:(?i:he|she|they)\b|{_CAP}(?:\s+{_CAP})?(?:'s\b|\s+(?:is|was|has|had|works|worked|"
    r"lives|lived|loves|likes|hates|adores|enjoys|can't|cannot|gets|got|used)\b)"
    r"(?!\s+(?:where|home|my|our)\b))"
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|im|me|my|myself|mine|we|us|our)\b", re.I)
#: A name of one or two capitalised words ("Mr Pickles", "Sir Wiggles", "Sunny Boy").
_CAP2 = rf"{_CAP}(?:\s+(?!(?:I|And|But|The|Is|My|On|In|At|To)\b){_CAP})?"
_NAMED = re.compile(rf"\b(?:called|named|name\s+is|name's|names)\s+(?P<n>{_CAP2})")
_NAME_IS_MY = re.compile(
    rf"^(?P<n>{_CAP})(?:\s+is|'s)\s+(?:my|our)\s+(?P<noun>[\w\s-]+?)$"
    rf"|^(?P<n2>{_CAP})\s+is\s+the\s+(?P<noun2>[\w\s-]+?)\s+(?:i|we)\s+(?:just\s+|recently\s+)?"
    r"(?:adopted|got|have|rescued|own|bought|took\s+in)\b",
    re.I,
)
_MY_NOUN = re.compile(
    r"\b(?i:my|our|a|an|the|two|three)\s+(?P<noun>(?:[a-z-]+\s+){0,2}?[a-z-]+?)"
    r"(?:'s|(?<![su])s)?(?=\s*(?:,|\bis\b|\bcalled\b|\bnamed\b|'s\s+name|\s+[A-ZÀ-Þ]|$))"
)
#: The noun just before "called"/"named", whatever its case: "a wee Westie called Haggis",
#: "my African grey is called Captain".
_NOUN_CALLED = re.compile(
    r"\b(?i:my|our|a|an|the)\s+(?P<noun>(?:[\w-]+\s+){0,2}?[\w-]+?)(?:'s|(?<![su])s)?"
    r"\s+(?:is\s+|'s\s+)?(?:called|named)\b"
)
_SELF_NAME = re.compile(
    r"\b(?:i'?m|im|i\s+am|it'?s|this\s+is|call\s+me|go\s+by|name'?s?(?:\s+is)?)\s+"
    r"(?P<n>[a-zà-ÿ][\w'-]+)",
    re.I,
)
_NOT_SELF_NAMES = frozenset(
    [
        "my",
        "his",
        "her",
        "isn't",
        "is",
        "not",
        "was",
        "a",
        "an",
        "the",
        "going",
        "so",
        "very",
        "really",
        "just",
        "from",
        "in",
        "at",
        "on",
    ]
)
#: What follows "I'm" that is how one is, not who: "I'm off", "im back", "I'm fine".
_STATES = frozenset(
    _words(
        "off back home fine good ok okay done tired here sorry sure new ready busy still always "
        "now gonna about sick out into up down over afraid glad happy sad bored hungry late "
        "early free single married retired pregnant vegan vegetarian allergic old young alive "
        "well great awesome cool alright tall short british american english irish scottish"
    )
)
_NAME_HERE = re.compile(r"^(?:\W*\w+\W+)?(?P<n>[\w'-]+)\s+(?:here|speaking)\b", re.I)
_JOB = re.compile(
    r"\b(?:i'?m|im|i\s+am|as|work\s+as|i'?ve\s+been|i\s+have\s+been)\s+(?:an?|the)\s+(?P<job>[\w\s&-]+?)"
    r"(?=\s*(?:$|,|\bat\b|\bfor\b|\bin\b|\bwith\b|\bby\b|\bnow\b|\bsince\b))",
    re.I,
)
_BY_TRADE = re.compile(
    r"^(?P<job>[\w\s-]+?)\s+by\s+(?:trade|profession)\b|^(?P<job2>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+here$"
    r"|^(?:i'?m|im|i\s+am)\s+(?P<job3>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?=at\s|for\s)"
    r"|^(?P<job4>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}),?\s+(?:that'?s|thats)\s+me$",
    re.I,
)
#: A field or a service one works in: "I'm in nursing", "I work in sales", "I'm in the army".
_FIELD = re.compile(
    r"^(?:i'?m|im|i\s+am|i\s+work)\s+in\s+(?P<field>(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)$", re.I
)
_STUDYING = re.compile(
    r"^(?:i'?m|im|i\s+am)\s+(?:studying|reading|training\s+in)\s+(?P<what>[\w -]+)$", re.I
)
#: A job said by what one does: "I fix people's teeth for a living over in Bristol", "I teach
#: primary school kids". ``cue``: a word that says it is work; without one the clause's slot
#: must be sure (the model's probability at least :data:`SURE`).
_DOING = re.compile(
    r"^i\s+(?:now\s+|mostly\s+|basically\s+|just\s+|professionally\s+)?(?P<verb>[a-z]+)\s+"
    r"(?P<what>[\w' -]+?)(?P<cue>\s+(?:for\s+a\s+living|for\s+work|at\s+work|"
    r"all\s+day(?:\s+at\s+work)?|professionally|by\s+trade))?"
    r"(?:\s+(?:over\s+|up\s+|down\s+|out\s+)?in\s+"
    r"(?P<place>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)))?$",
    re.I,
)
#: Verbs that never say what one does for a living (nor those that leave it: "I quit the salon").
_NOT_WORK_VERBS = frozenset(
    _words(
        "am was have has had like love hate enjoy live lived work worked want need think feel "
        "felt got get go went going know knew wish hope just really also can can't could would "
        "will should might must don't didn't did miss missed no not never still longer "
        "used take took catch caught quit quits leave left lose lost resign resigned retire",
    )
)
#: The slot model's probability above which a job said by what one does needs no cue.
SURE = 0.7
#: Verbs that say a trade when done to things ("I mend bikes", "I install solar panels"),
#: unlike a pastime's ("I read books", "I paint"): with the job slot likely, no cue needed.
_TRADE_VERBS = frozenset(
    _words(
        "mend fix repair install fit service sell deliver lay wire plaster tile shoe groom "
        "manage audit inspect survey restore upholster valet weld"
    )
)
#: A place of work after what one does: "at a stables", "in a little shop", "for clients".
_WORK_CUE = re.compile(
    r"\b(?:at|in|on)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,2}?(?:stables?|shop|market|farm|yard|site|"
    r"depot|garage|workshop|factory|warehouse|kennels?|salon|clinic|surgery|hospital|school|"
    r"nursery|care\s+home|restaurant|cafe|café|pub|hotel|office|store|bakery|lab|plant|mill|"
    r"zoo|aquarium|wildlife\s+park|ward)\b"
    r"|\bfor\s+(?:clients|customers|people|a\s+(?:company|firm|living)|the\s+council)\b"
    r"|^i\s+(?:run|own|manage)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,2}?(?:cafe|café|shop|pub|bar|"
    r"restaurant|bakery|salon|business|company|firm|hotel|garage|farm|studio|store|kennels)\b",
    re.I,
)
#: What the verb before an employer says of the working, read by tense, aspect and mood:
#: a modal or future ("I'd love to", "I'll", "might"), an infinitive of purpose ("hoping to
#: work at", "trying to get into"), a past that is over ("worked", "was", "left", "used to")
#: or an activity other than working ("interviewing at", "applying to") is not where one
#: works now. "I work at Tesco, maybe for good": the verb is present, the hedge after it is
#: about the future and leaves the job as it is.
_IRREALIS = re.compile(
    r"\b(?:would|will|shall|might|may|could|should|must|gonna|wanna|going\s+to)\b|'d\b|'ll\b"
    r"|\bto\s+(?:\w+\s+)?(?:work|join|get|be|start|go|move)\b",
    re.I,
)
#: A past that began the working still true now: "I started at Lidl", "I've been at Lidl".
_INCEPTIVE = frozenset(
    _words("started began joined moved transferred switched been got hired employed based")
)
#: What one has at a place: a job there is one's work, anything else only happens there.
_HAVE_A = re.compile(
    r"\b(?:have|has|got|had|'ve)\s+(?:an?|the|my|some)\s+(?:\w+\s+)?(?P<what>\w+)\s*$", re.I
)
_ROLES = frozenset(_words("job role position post shift contract placement gig career"))
_PAST_IRREGULAR = frozenset(_words("was were left quit had went got did used"))


def _works_there_now(head: str) -> bool:
    """Whether ``head`` (the clause up to the employer's "at"/"for") says one works there
    now: its verbs are present (or a perfect or inceptive past), asserted, and of working."""
    if _IRREALIS.search(head):
        return False
    held = _HAVE_A.search(head)  # "I have an interview at Google": the interview is there
    if held and held.group("what").lower() not in _ROLES:
        return False
    words = re.findall(r"[a-z']+", head.lower())
    verbs = [w for w in words if w not in ("i", "i'm", "im", "i've", "ive", "a", "the", "my")]
    for word in verbs:
        if word in _INCEPTIVE:
            continue
        if word.endswith("ed") or word in _PAST_IRREGULAR:
            return False  # "I worked at", "I was at", "I left": over
        if word.endswith("ing") and word not in ("working", "being"):
            return False  # "interviewing at", "applying to": another doing than working
    return True


_ORG = re.compile(r"\b(?:at|for|by|with|is)\s+(?P<org>(?:the\s+)?[\w&'. -]+?)\s*(?:,.*)?$", re.I)
_PLACE = re.compile(
    r"\b(?:in|is|near|outside|from)\s+(?P<place>[A-ZÀ-Þ][\w'. -]*?)\s*(?:now|these\s+days|,.*)?$"
    r"|^(?P<first>[A-ZÀ-Þ][\w'-]*)\s+is\s+(?:where|home)",
)
_MOVED_TO = re.compile(
    r"\b(?:moved|moving|relocated|relocating|live)\b.*?\b(?:to|in)\s+"
    r"(?P<place>(?-i:[A-ZÀ-Þ][\w'.-]*(?:\s+[A-ZÀ-Þ][\w'.-]*)*))(?P<first>)",
    re.I,
)


#: "I take care of the elephants": one verb, said as "look after" (no "taker", no "carer").
_TAKE_CARE = re.compile(r"^(i\s+(?:\w+ly\s+|now\s+|just\s+)?)take\s+care\s+of\b", re.I)


def cared_for(text: str) -> str:
    """``text`` with "take care of" said as "look after" (the verb is not "take"), when a
    place of work is said."""
    if not _WORK_CUE.search(text):  # "I take care of the patients" says no work of its own
        return text
    return _TAKE_CARE.sub(r"\1look after", text)


def value_fact(
    slot: str, clause: str, *, noun_kind: Callable[[str], str] | None = None, sure: bool = False
) -> list[Fact]:
    """The facts of ``slot`` in ``clause`` (a job said by what one does keeps the town it
    names in its words, not as a home); [] when no value can be read. ``sure``: the slot
    model is sure of the slot."""
    text = plain(clause)
    if not text or (slot != "family" and RELATIVE_SAYS.match(text)):
        return []  # "my mum lives in Swansea", "my daughter has a hamster": the relative's
    if slot not in ("name", "pet", "family") and about_someone_else(text):
        return []
    if slot == "job":
        return _job_values(cared_for(untimed(text)), noun_kind, sure=sure)
    if slot == "pet":
        return _pet_values(text, noun_kind, sure=sure)
    if slot == "workplace":  # "I stack shelves at Tesco": the employer, and the job done there
        work = _workplace_value(text, noun_kind)
        return [f for f in (work, _job_done_at(text) if work else None) if f is not None]
    reader = _READERS.get(slot)
    if sure and noun_kind is not None and slot in ("pet", "family"):
        noun_kind = _deferring(noun_kind, slot)
    fact = reader(text, noun_kind) if reader is not None else None
    if fact is None and slot == "like" and sure and noun_kind is not None:
        fact = _pastime(text, noun_kind)
    return [fact] if fact is not None else []


_AMOUNT = re.compile(r"^(?:a\s+lot\s+of|lots\s+of|loads\s+of|a\s+fair\s+bit\s+of)\s+", re.I)


def _pastime(text: str, kind: Callable[[str], str]) -> Fact | None:
    """A liking said by doing, whatever the verb ("I read a lot of crime novels"), when the
    clause surely tells a liking and what is done reads as a pastime by its nearest labelled
    doings: "The user likes reading crime novels."."""
    m = _DOING.match(text)
    if m is None or _SOMEONE_ELSE.search(text) or m.group("cue"):
        return None
    verb = m.group("verb").lower()
    if verb in _NOT_WORK_VERBS or verb.endswith("ed") or _FOR_SOMEONE.search(m.group("what")):
        return None  # "I cook tea for the family most nights" is a chore, not a liking
    doing = gerund(verb, _AMOUNT.sub("", m.group("what")))
    return match_preference(f"I like {doing}") if kind(doing) == "pastime" else None


def known_job(
    clause: str, job_probability: float = 0.0, *, unsure: bool = False, kind: NounKind = None
) -> list[Fact]:
    """A job named by a word the rules' list knows ("barista here", "nurse, that's me"),
    read whatever the slot model says: the closed list makes it sure; and a trade said by
    its verb ("I install solar panels") when the job slot is at least a runner-up's
    (``job_probability`` >= ``MIN_RUNNER_UP``). ``unsure``: the model found the clause most
    likely no fact; then what is done must also read as work by its nearest labelled doings.
    A job noun no list knows ("I'm a postie these days") is read when the job slot is the
    likeliest and the noun reads as a job by its nearest labelled words."""
    text = cared_for(untimed(plain(clause)))
    if about_someone_else(text):
        return []
    # the list makes a job sure; a noun read as a job by meaning needs the job slot likeliest
    reads = kind if kind is not None and job_probability >= 0.4 and not unsure else None
    fact = _job_value(text, reads or (lambda noun: "other")) if text else None
    if fact is not None:
        return [fact]
    doing = _DOING.match(text) if job_probability >= 0.3 else None
    if doing is None:
        return []
    said = doing.group("verb").lower() in _TRADE_VERBS or bool(_WORK_CUE.search(text))
    # "I drive taxis in Leeds": driving taxis is nearest the labelled jobs, not the pastimes
    as_work = kind is not None and kind(gerund(doing["verb"], doing["what"])) == "job"
    if not (said or as_work) or (unsure and not as_work):
        return []
    employer = _named_employer(text)  # "I drive lorries for Eddie Stobart"
    if employer is not None:
        done = _job_done_at(text)
        return [employer, done] if done is not None else []
    return _job_values(text, None, sure=False, work=True)


def _named_employer(text: str) -> Fact | None:
    """The employer named with a capital after what one does "for"/"at"; None otherwise
    ("for a living", "at night" name none)."""
    m = _DONE_AT.match(text)
    org = _ORG.search(text) if m else None
    if org is None or not org.group("org")[:1].isupper():
        return None
    return _workplace_value(text, None)


#: A clause whose subject is someone of the speaker's named in apposition, then a verb: "my
#: bro Kieran works as a chef", "my fella Rohan is a paramedic" tell of Kieran and Rohan.
_NAMED_MINE_SAYS = re.compile(
    r"^(?i:my|our)\s+(?:(?!(?i:is|are|was|were|at|in|on|for|with|to|and|from|has|had)\b)"
    r"[\w-]+\s+){1,3}?(?P<n>[A-ZÀ-Þ][a-zà-ÿ-]+)\s+"
    r"(?P<rest>(?:is|are|was|has|had|just|can't|cannot|doesn't|does|[a-z]+[^s\W]s)\b.*)$"
)


def named_mine_says(clause: str) -> bool:
    """Whether ``clause`` tells of someone of the speaker's named in apposition ("my bro
    Kieran works as a chef", "my daughter Isla's a midwife")."""
    text = plain(clause)
    return bool(_NAMED_MINE_SAYS.match(apposed(text)))


#: "my bloke is called Gaz", "our moggy's name is Smudge": the speaker's own someone named;
#: whether a relative or a pet is the noun's to say, whatever the clause's slot.
_MINE_CALLED = re.compile(
    r"^(?i:my|our)\s+(?:[\w-]+\s+){0,2}?[\w-]+?(?:(?:'s|\s+is)\s+(?:called|named)|'s\s+name\s+is)"
    r"\s+[A-ZÀ-Þ]"
)


def named_mine(clause: str) -> bool:
    """Whether ``clause`` names someone of the speaker's: "my fella Rohan, he's a paramedic"
    (:func:`named_mine_says`), "my bloke is called Gaz"."""
    text = plain(clause)
    return bool(_MINE_CALLED.match(text)) or named_mine_says(clause)


#: Someone of the speaker's and their job, said with no name: "my fella's a joiner", "my
#: other half drives a taxi".
_MINE_IS_A = re.compile(
    r"^(?:my|our)\s+(?P<who>(?:[\w-]+\s+){0,2}?[\w-]+?)(?:'s|\s+is)\s+(?:now\s+)?"
    r"(?P<a>an?)\s+(?P<job>[\w&' -]+)$",
    re.I,
)
_MINE_DOES = re.compile(
    r"^(?:my|our)\s+(?P<who>(?:[\w-]+\s+)?[\w-]+?)\s+(?P<verb>[a-z]+s)\s+(?P<what>[\w' -]+)$", re.I
)


#: Words ending in "s" that are no verb: "my brother quit his job" has "his" after "quit".
_NOT_VERBS = frozenset(_words("his has was is does this its hers yes always as us thus"))


def relative_job(clause: str, kind: Callable[[str], str]) -> list[Fact]:
    """The job of someone of the speaker's, said with no name, when the noun reads as one's
    own relative and the job as work by their nearest labelled words: "my fella's a joiner"
    -> "The user's fella is a joiner.". "my husband is a big kid" names no job."""
    text = untimed(plain(clause))
    if _SOMEONE_ELSE.search(text):  # "my mate's a plumber": a friend, no relative
        return []
    m = _MINE_IS_A.match(text)
    if m is not None:
        who, job = m["who"].lower(), m["job"].strip()
        if _is_kind(who, "family", FAMILY, kind) and _is_kind(job, "job", JOBS, kind):
            return [_family(f"The user's {who} is {m['a'].lower()} {job}.", who)]
        return []
    m = _MINE_DOES.match(text)
    if m is None or not _is_kind(m["who"].lower(), "family", FAMILY, kind):
        return []
    verbs = m["verb"].lower()
    verb = verbs[:-2] if re.search(r"(?:ch|sh|ss|x|z)es$", verbs) else verbs[:-1]
    if verbs in _NOT_VERBS or verb in _NOT_WORK_VERBS or kind(gerund(verb, m["what"])) != "job":
        return []
    who = m["who"].lower()
    return [_family(f"The user's {who} {verbs} {m['what'].strip()}.", who)]


#: Where one is now, said without "live": "we're in Harrogate now", "I've been in Bath since
#: the summer". A word of lasting is needed: "I'm in Paris this week" is a trip.
_BEEN_IN = re.compile(
    r"^(?:i'?m|im|i\s+am|we'?re|we\s+are|(?:i|we)(?:'ve|\s+have)\s+been)\s+"
    r"(?:(?:now|still|happily|finally|all)\s+)?(?:(?:settled|based|living)\s+)?"
    r"(?:(?:out|over|up|down|back)\s+)?in\s+"
    r"(?P<place>(?-i:[A-ZÀ-Þ][\w'.-]*(?:\s+[A-ZÀ-Þ][\w'.-]*)*))\s+"
    r"(?:now|these\s+days|for\s+good|since\s+.+|for\s+(?:a\s+few|a\s+couple\s+of|\w+)\s+years)$",
    re.I,
)


def known_home(clause: str, home_probability: float) -> list[Fact]:
    """The home said by being somewhere for good (:data:`_BEEN_IN`), when the home slot is at
    least a runner-up's (``home_probability`` >= .3)."""
    if home_probability < 0.3:
        return []
    m = _BEEN_IN.match(plain(clause))
    home = match_place_or_home(m.group("place")) if m else None
    return [home] if home is not None else []


def about_someone_else(text: str) -> bool:
    """Whether ``text``'s subject is another person, named or "he"/"she", and the speaker is
    not in it: "Robin is allergic to peanuts" is Robin's allergy, never the speaker's; nor is
    "my bro Kieran works as a chef" the speaker's job."""
    if _NAMED_MINE_SAYS.match(apposed(text)):
        return True
    return bool(_OTHER_SUBJECT.match(text)) and not _FIRST_PERSON.search(text)


def _deferring(kind: Callable[[str], str], slot: str) -> Callable[[str], str]:
    """``kind``, where a noun nearest no labelled class ("westie", "African grey") takes the
    slot the whole clause is surely about."""
    return lambda noun: slot if (said := kind(noun)) == "other" else said


def _job_values(text: str, kind: NounKind, *, sure: bool, work: bool = False) -> list[Fact]:
    """A job by its name ("I'm a plumber"), else by what one does, with the town said.
    ``work``: the caller read what is done as work by meaning."""
    fact = _job_value(text, kind)
    if fact is not None:
        return [fact]
    field = _FIELD.match(text)
    if field and sure and not _SOMEONE_ELSE.search(text):
        what = field.group("field")
        return [Fact("user", "profile", f"The user works in {what}.", ("job",), "job")]
    study = _STUDYING.match(text)
    if study:
        what = study.group("what").strip()
        return [Fact("user", "profile", f"The user is studying {what}.", ("job",), "job")]
    m = _DOING.match(text)
    if m is None or _SOMEONE_ELSE.search(text):
        return []
    verb = m.group("verb").lower()
    said = work or m.group("cue") or verb in _TRADE_VERBS or _WORK_CUE.search(text)
    # sure of the slot, no word of work said: what is done must read as work, not a pastime
    # ("I read books": reading books is nearest the labelled pastimes)
    said = said or (sure and (kind is None or kind(gerund(verb, m.group("what"))) == "job"))
    if verb in _NOT_WORK_VERBS or verb.endswith("ed") or not said:
        return []
    if _FOR_ONES_OWN.search(m.group("what")):  # "I cook for my family" is not a living
        return []
    # the town said after what one does is where the work is, not a home ("I cut hair in a
    # salon in Hove"): it stays in the job's words
    where = f" in {m.group('place')}" if m.group("place") else ""
    return [living_fact(f"{verb} {m.group('what').strip()}{where}")]


def gerund(verb: str, what: str) -> str:
    """ "read", "books" -> "reading books": what one does, said as a noun phrase."""
    verb = verb.lower()
    if verb.endswith("ie"):
        stem = verb[:-2] + "y"
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        stem = verb[:-1]
    elif re.search(r"[^aeiou][aeiou][bdgmnpt]$", verb) and len(verb) <= 4:
        stem = verb + verb[-1]
    else:
        stem = verb
    return f"{stem}ing {what.strip()}".strip()


#: Done for someone of one's own: "I cook tea for the family" is a chore, not a pastime.
_FOR_SOMEONE = re.compile(
    r"\bfor\s+(?:the|my|our)\s+(?:family|kids|children|lot|household|husband|wife|partner)\b",
    re.I,
)
#: Done for or to one's own: "I walk my dog", "I cook for my family" is not work.
_FOR_ONES_OWN = re.compile(r"\b(?:my|our|myself|ourselves)\b", re.I)
#: "I stack shelves at Tesco": what one does at the employer the clause names.
_DONE_AT = re.compile(
    r"^i\s+(?:now\s+|mostly\s+|just\s+)?(?P<verb>[a-z]+)\s+(?P<what>[\w' -]+?)\s+(?:at|for)\s+\S",
    re.I,
)


def _job_done_at(text: str) -> Fact | None:
    m = _DONE_AT.match(text)
    if m is None or _FOR_ONES_OWN.search(m.group("what")):
        return None
    verb = m.group("verb").lower()
    if verb in _NOT_WORK_VERBS or verb.endswith("ed") or verb in ("work", "volunteer"):
        return None
    return living_fact(f"{verb} {m.group('what').strip()}")


#: "I'm Lena.", "I'm Ravi, 34": a whole clause naming oneself with a word written capitalised.
_CAPITALISED_SELF = re.compile(
    r"^(?i:i'?m|im|i\s+am)\s+(?P<n>[A-ZÀ-Þ][a-zà-ÿ'-]+)(?:\s*,?\s*\d{1,3})?$"
)
#: Capitalised words after "I'm" that say what one is, not who: nations, faiths.
_NOT_NAMED_SO = re.compile(
    r"(?:sh|ese|ian|ean|can|ic|i|ing|ed|ly|ful|less)$|^(?:German|Dutch|Greek|Thai|Swiss|French|Jewish|Muslim|"
    r"Hindu|Sikh|Buddhist|Catholic|Christian|Protestant|Mormon|Black|White|Asian|Latino|Latina)$"
)


def capitalised_name(clause: str) -> Fact | None:
    """The name in a clause that only names oneself, written with a capital ("I'm Lena.");
    None for a state ("I'm Fine"), a nation or a faith ("I'm Welsh")."""
    m = _CAPITALISED_SELF.match(plain(clause))
    if m is None:
        return None
    name = m.group("n")
    if name.lower() in _NOT_NAMES | _NOT_SELF_NAMES | _STATES or _NOT_NAMED_SO.search(name):
        return None
    return match_name(f"my name is {name}")


#: "her name is Meimei", "my sister's name's Jo": a name said of someone else, never the user's.
_OTHERS_NAME = re.compile(r"\b(?:her|his|their|its|your|[a-z]+'s)\s+name\b", re.I)
#: Verbs that follow "I am" in learners' English ("I am come from Chengdu"): never a name.
_VERBS_AFTER_I_AM = frozenset(_words("come go live work stay study have get do make move"))


def _name(text: str, kind: NounKind) -> Fact | None:
    if _OTHERS_NAME.search(text):  # the name is the sister's or the baby's, or nothing's
        return None
    m = _SELF_NAME.search(text) or _NAME_HERE.match(text)
    if m is None:
        return None
    name = m.group("n")
    if name.lower() in _NOT_NAMES | _NOT_SELF_NAMES | _STATES | _VERBS_AFTER_I_AM or len(name) < 2:
        return None
    if name.islower() and re.search(r"(?:ing|ed|ly|ful|less|ous|ive)$", name):
        return None  # "i'm knackered", "im exhausted": a state, not a name
    return match_name(f"my name is {name[0].upper()}{name[1:]}")


#: A name given by a pronoun that fit no one (:func:`._relatives.pronoun_named`): nobody's.
_BY_PRONOUN = re.compile(r"\b(?:her|his|their)\s+name\b", re.I)
#: A capital after "to"/"in"/"at" names a place or an employer ("my brother, moved to
#: Australia"), never the member's name.
_WHERE = "".join(rf"(?<!\b{w}\s)" for w in ("to", "in", "at", "from", "near", "for"))
_DONE_IN_NOUN = re.compile(r"\b(?:\w+ed|came|went|got|had)\b", re.I)
_A_VERB_IN_NOUN = re.compile(r"\b(?:is|are|was|were|am|be)$", re.I)


def _named_thing(text: str) -> tuple[str, str] | None:
    """(noun, Name) in "my beagle is called Ziggy", "Skye's my collie", "my parrot Rio"."""
    if _SOMEONE_ELSE.search(text.split(" my ", 1)[0] + " my" if " my " in text else ""):
        return None
    m = _NAME_IS_MY.match(text)
    if m and (m.group("n") or m.group("n2"))[0].isupper():
        return (m.group("noun") or m.group("noun2")).strip(), m.group("n") or m.group("n2")
    named = _NAMED.search(text)
    names = [named.group("n")] if named else re.findall(rf"(?<!^){_WHERE}\b{_CAP2}\b", text)
    names = [n for n in names if n.lower() not in _NOT_NAMES and n != "I"]
    noun = (_NOUN_CALLED.search(text) if named else None) or _MY_NOUN.search(text)
    if not names or noun is None or _A_VERB_IN_NOUN.search(noun.group("noun")):
        return None  # "my kids are Ruby and Finn": "kids are" is no noun
    if not named and noun.start() > text.find(names[0]):
        return None  # "my daughter's teacher Mrs Hale has a new baby": the baby is not Mrs Hale
    if named and _BY_PRONOUN.search(text) and _DONE_IN_NOUN.search(noun.group("noun")):
        return None  # "my son started school, her name is Amy": "son started school" is no noun
    return re.sub(r"\s+(?:too|also|as\s+well|now|again)$", "", noun.group("noun").strip()), names[0]


def _is_kind(noun: str, wanted: str, known: frozenset[str], kind: NounKind) -> bool:
    """Whether ``noun`` is a ``wanted`` (pet, family, job): sure when its last word is in
    the rules' list, else its nearest labelled words say (when ``kind`` is given)."""
    if _head(noun) in known or noun.split()[-1].lower() in known:
        return True
    # "wee Westie": the whole, else its last word ("westie") is nearest the labelled pets
    return kind is None or kind(noun) == wanted or kind(noun.split()[-1]) == wanted


def _head(noun: str) -> str:
    return noun.split()[-1].lower().rstrip("s") if noun else ""


#: "there's a cat called Mog in that book": a pet said to be there, with nothing making it
#: the speaker's ("in our house", "at mine") is not theirs; nor one in a story ("a horse
#: called Shadowfax in that book I'm reading": the "I" is the reader's, not an owner's).
_THERE_IS = re.compile(r"^there(?:'s|\s+is|\s+was|\s+are|\s+were)\b", re.I)
_OWNED = re.compile(r"\b(?:my|our|mine|ours|at\s+home|with\s+(?:me|us))\b", re.I)
_STORY = re.compile(
    r"\b(?:book|novel|film|movie|show|series|story|game|cartoon|song|poem|comic|play)s?\b", re.I
)


#: A pet of one's own said with no name: "we've got a lurcher", "I keep two ferrets".
_HAS_PET = re.compile(
    r"^(?:i|we)(?:'ve|\s+have)?(?:\s+just)?\s+(?:got|have|own|keep|adopted|rescued)\s+"
    r"(?P<what>(?P<count>(?:an?|one|two|three|four|\d+)\s+)?(?P<noun>(?:[\w-]+\s+){0,2}?[\w-]+?))"
    r"(?P<pl>s)?$",
    re.I,
)


def _pet_values(text: str, kind: NounKind, *, sure: bool) -> list[Fact]:
    """The speaker's pets in ``text``: each one named ("two guinea pigs, Salt and Pepper"),
    or the one said with no name ("we've got a lurcher in our house"), where the noun reads
    as a pet (the rules' list, else its nearest labelled words; when the slot is ``sure`` an
    unknown noun is taken as the pet the clause is about, but only when it is named)."""
    if _THERE_IS.match(text) and (not _OWNED.search(text) or _STORY.search(text)):
        return []
    text = at_home_dropped(text)
    named_kind = _deferring(kind, "pet") if sure and kind is not None else kind
    found = _named_of_kind(text, "pet", PETS, named_kind)
    if found is not None:
        start = text.find(found[1])
        names = _more_names(text, found[1], start + len(found[1])) if start >= 0 else [found[1]]
        return [_pet(f"The user has a {found[0]} called {name}.", name) for name in names]
    m = _HAS_PET.match(text)
    if m is None or not (m["count"] or m["pl"]):  # "I keep chickens", not "I keep going"
        return []
    if _SOMEONE_ELSE.search(text) or not _is_kind(m["noun"], "pet", PETS, kind):
        return []
    if kind is None and _head(m["noun"]) not in PETS:
        return []
    what = f"{m['what'].lower()}{m['pl'] or ''}"
    return [_pet(f"The user has {what}.", _head(m["noun"]))]


def _family_value(text: str, kind: NounKind) -> Fact | None:
    """ "my fella is called Rohan"; and what is said of the member named in apposition ("my
    fella Rohan, he's a paramedic" -> "The user's fella Rohan is a paramedic.")."""
    found = _named_of_kind(apposed(text), "family", FAMILY, kind)
    if found is None:
        return None
    says = _NAMED_MINE_SAYS.match(apposed(text))
    if says and says.group("n") == found[1]:
        rest = third_person(says.group("rest").strip(" .!"))
        return _family(f"The user's {found[0]} {found[1]} {rest}.", found[1])
    return _family(f"The user's {found[0]} is called {found[1]}.", found[1])


def _named_of_kind(
    text: str, wanted: str, known: frozenset[str], kind: NounKind
) -> tuple[str, str] | None:
    """(noun in lower case, Name) when ``text`` names the speaker's own ``wanted``."""
    found = None if _SOMEONE_ELSE.search(text) else _named_thing(text)
    if found is None or not _is_kind(found[0], wanted, known, kind):
        return None
    return found[0].lower(), found[1]


def _job_value(text: str, kind: NounKind) -> Fact | None:
    if _SOMEONE_ELSE.search(text):
        return None
    for pattern in (_JOB, _BY_TRADE):
        m = pattern.search(text)
        said = m and next((g for g in m.groups() if g), "")
        if m and said and 0 < len(said.split()) <= 4:
            job = said.strip()
            if not _is_kind(job, "job", JOBS, kind):
                return None
            article = "an" if job[:1].lower() in "aeiou" else "a"
            return _job_fact(article, job)
    return None


def _workplace_value(text: str, kind: NounKind) -> Fact | None:
    if _SOMEONE_ELSE.search(text):
        return None
    m = _ORG.search(text)
    if m is None or not _works_there_now(text[: m.start()]):
        return None
    org = re.sub(
        r"(?:\s+(?:now|these days|on weekends|remote(?:ly)?|(?:last|this|next)\s+\w+|"
        r"for\s+(?:years|ages|a\s+while|\w+\s+(?:years|months|weeks))|since\s+.+|\w+\s+ago))+$",
        "",
        m.group("org").strip(),
    )
    named = _NAMED.search(org)
    org = named.group("n") if named else org
    return _work_fact(org)


#: Verbs whose place is where one lives; after any other ("I mend bikes in a little shop in
#: Cardiff") the place says where the doing is, not the home.
_HOME_VERBS = frozenset(_words("live stay reside rent own have moved relocated settled am"))


#: What one is, then where: "I'm a sparkie up in Cairns" says where the work is, not a home.
_WHAT_ONE_IS_IN = re.compile(
    r"^(?:i'?m|im|i\s+am)\s+(?:an?|the)\s+[\w' -]+?\s+(?:(?:up|out|down|over)\s+)?in\s", re.I
)


def _home_value(text: str, kind: NounKind) -> Fact | None:
    if _SOMEONE_ELSE.search(text) or _WHAT_ONE_IS_IN.match(text):
        return None
    doing = _DOING.match(text)
    if doing is not None and doing.group("verb").lower() not in _HOME_VERBS:
        return None
    m = _MOVED_TO.search(text) or _PLACE.search(text)
    if m is None:
        return None
    place = (m.group("place") or m.group("first") or "").strip()
    if _said_in_passing(place):  # "this rain in Manchester is killing me": no move
        return None
    return match_place_or_home(place)


#: Small words inside a place's name: "Newcastle upon Tyne", "Isle of Man".
_IN_PLACE_NAMES = frozenset(_words("upon of de la le del sur"))


def _said_in_passing(place: str) -> bool:
    """Whether a "place" read after "in" runs on into the rest of the sentence: each word of
    a place's name is capitalised, but for a few small joining words."""
    return any(w[0].islower() and w not in _IN_PLACE_NAMES for w in place.split()[1:])


def match_place_or_home(place: str) -> Fact | None:
    if not place or place.lower() in _NOT_NAMES or A_TIME.match(place.strip()):
        return None
    return Fact("user", "profile", f"The user lives in {place}.", ("home",), "home", 0.7)


_READERS = {
    "name": _name,
    "family": _family_value,
    "job": _job_value,
    "workplace": _workplace_value,
    "home": _home_value,
    "like": like_value,
    "dislike": dislike_value,
    "allergy": allergy_value,
}
