"""Offline recognisers for who the person is and who is around them: jobs and workplaces,
pets and their names, family members and what is said of them, and nicknames.

Each recogniser takes one clause (already cut by ``offline_writer``, questions and reported
speech already dropped) and returns :class:`Fact` s; :func:`people_facts` runs them all.
Vocabularies are closed lists on purpose: "I'm a nurse" is a job, "I'm a night owl" is not,
and a missed job costs less than a wrong one.
"""

from __future__ import annotations

import logging
import re

from familiars.memory._offline._objects import FAMILY, JOBS, Fact, _words, third_person, topic_key
from familiars.memory._offline._patterns import _MOVED_AS_A_CHILD, _clean_place, _third_singular
from familiars.memory._offline._relations import relation_facts

logger = logging.getLogger(__name__)

#: Where a person may work, said without a name ("I work in a hospital").
WORKPLACES = frozenset(
    _words(
        "hospital school bank shop store office factory warehouse restaurant lab laboratory "
        "bakery cafe café hotel library pharmacy clinic university college bar pub garage "
        "supermarket startup charity museum gallery studio salon kitchen nursery prison "
        "airport home"
    )
)
PETS = frozenset(
    _words(
        "dog cat puppy pup kitten hamster rabbit bunny parrot budgie goldfish fish tortoise "
        "turtle snake lizard gecko horse pony ferret chinchilla hedgehog "
        "retriever labrador beagle poodle spaniel terrier collie husky corgi "
        "dachshund pug bulldog greyhound whippet shepherd schnauzer labradoodle cockapoo "
        "coon siamese persian tabby ragdoll bengal iguana axolotl pig"
    )
)
_PLURAL = {"children": "child", "kids": "kid", "grandkids": "grandkid", "parents": "parent"}
#: A name, and a second capitalised word when there is one ("our cat Sunny Boy"), read case
#: by case even in a pattern that ignores case; "O'Brien" keeps its apostrophe, "my son
#: Richard's children" names Richard (a possessive).
_NAME = (
    r"(?P<name>[A-Z](?:[a-zà-ÿ0-9-]|'(?!s\b))+(?-i:\s+(?!(?:I|And|But|The|Is|So|On|In|At|To|My|"
    r"We|He|She|It|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r"[a-z]*\b)[A-Z](?:[a-zà-ÿ0-9-]|'(?!s\b))+)?)"
)
_NAME2 = _NAME.replace("<name>", "<name2>")
_NOT_A_NAME = frozenset(_words("I Is And But The A So Just Was Has Who Which That"))
_COUNT = r"(?:a|an|one|two|three|four|five|six|\d+)"


def _alternation(words: frozenset[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_JOB_WORD = rf"(?:{_alternation(JOBS)})"
#: "a ginger tom named Marmalade": pet words that are also names ("Tom"), so in lower case
#: only and never among PETS (which a name is checked against).
_PET_LOWER = r"(?-i:tom|tomcat|tom\s+cat|moggy|moggie|mouser|pooch|mutt)"
_PET_WORD = rf"(?:{_alternation(PETS)}|{_PET_LOWER})"
_FAMILY_WORD = rf"(?:{_alternation(FAMILY)})"
_MOD = r"(?:[\w-]+\s+){0,3}?"
#: A pet's modifiers never cross "and": "a cat and a rabbit called Tom and Jerry" is two pets.
_PET_MOD = r"(?:(?!(?:and|or|with)\b)[\w-]+\s+){0,3}?"
#: How a name follows what it names: "called Fudge", ", Fudge", ", she's called Fudge",
#: ", named her Fudge", ", his name is Fudge".
_NAMING = (
    r"(?:\s*,?\s*(?:called|named)\s+|,?\s+(?:(?:and\s+)?(?:she|he|it|they)(?:'s|\s+is|\s+are)\s+"
    r"(?:called|named)|(?:and\s+)?(?:i\s+|we\s+)?(?:named|called)\s+(?:her|him|it|them)|"
    r"(?:and\s+)?(?:her|his|its)\s+name(?:'s|\s+is|s))\s+"
    r"|,\s+(?-i:(?=[A-Z][\w'-]*(?:$|\s*[,.!]|\s+and\s+[A-Z]))))"
)


def _is_name(word: str | None) -> bool:
    return bool(word) and word[0].isupper() and word not in _NOT_A_NAME  # type: ignore[index]


# --------------------------------------------------------------------------- jobs

_IM_A_JOB = re.compile(
    r"^(?:by\s+day\s+)?(?:i'?m|i\s+am|im)\s+(?:now\s+|currently\s+|still\s+|actually\s+)?"
    rf"(?:(?:working|employed)\s+(?:as|like)\s+(?:(?P<bare>)(?=(?-i:[a-z]))(?!an?\s))?)?"
    rf"(?:(?(bare)|(?P<article>an?)\s+))(?P<job>{_MOD}{_JOB_WORD})s?"
    r"(?:\s+(?:at|for|with)\s+(?P<org>.+?))?"
    # where the job is done, no employer: "on the Overground", "in the hospital"
    r"(?:\s+(?:on|in)\s+(?:the|an?)\s+[\w'-]+(?:\s+[\w'-]+)?)?(?:\s+(?:now|these days|in \w+))?$",
    re.IGNORECASE,
)
_WORK_AS_AT = re.compile(
    rf"^i\s+(?:now\s+)?work\s+as\s+(?P<article>an?)\s+(?P<job>{_MOD}{_JOB_WORD})"
    r"\s+(?:at|for|with)\s+(?P<org>.+)$",
    re.IGNORECASE,
)
_WORK_AT_AS = re.compile(
    rf"^i\s+work\s+(?:at|for)\s+.+?\s+as\s+(?P<article>an?)\s+(?P<job>{_MOD}{_JOB_WORD})$",
    re.IGNORECASE,
)
_MY_JOB = re.compile(
    r"^my\s+job\s+is\s+(?:being\s+)?(?:(?P<article>an?)\s+)?(?P<job>[\w -]{3,40})$", re.I
)
_FOR_A_LIVING = re.compile(
    r"^(?:for\s+a\s+living\s+i\s+(?P<a>.+)|i\s+(?P<b>.+?)\s+for\s+a\s+living)"
    r"(?:\s+(?:over\s+|up\s+|down\s+|out\s+)?in\s+(?P<place>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)))?"
    # where the work is done, not a home: "I fix boilers for a living round Bolton"
    r"(?:\s+(?:a)?round\s+(?:here|(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)))?$",
    re.I,
)
_TEACH_AT = re.compile(r"^i\s+(?:now\s+)?teach\s+(?:\w+\s+)?at\s+(?P<org>.+)$", re.I)
_RETRAINED = re.compile(
    rf"^i\s+(?:retrained|trained|qualified)\s+as\s+(?P<article>an?)\s+(?P<job>{_MOD}{_JOB_WORD})$",
    re.I,
)


def _job_fact(article: str | None, job: str) -> Fact:
    job = re.sub(r"\s+", " ", job.strip()).lower()
    article = article or ("an" if job[:1] in "aeiou" else "a")  # "working like engineer"
    if job.split()[0] in ("retired", "former", "ex") or job.endswith("student"):
        content = f"The user is {article} {job}."
    else:
        content = f"The user works as {article} {job}."
    return Fact("user", "profile", content, ("job",), "job", 0.7)


def _work_fact(org: str | None) -> Fact | None:
    place = _clean_place(org) if org else None
    if not place:
        return None
    return Fact("user", "profile", f"The user works at {place}.", ("work",), "work", 0.7)


def _agent_noun(verb: str) -> str | None:
    """The job named after what one does, when the rules know it: "teach" -> "teacher",
    "bake" -> "baker", "drive" -> "driver"; None for "mend" (no "mender" in :data:`JOBS`)."""
    verb = verb.lower()
    for noun in (f"{verb}er", f"{verb}r", f"{verb}{verb[-1:]}er"):
        if noun in JOBS:
            return noun
    return None


def living_fact(what: str) -> Fact:
    """ "fix teeth" (of "I fix teeth for a living") -> "The user fixes teeth for a living.":
    the verb takes the third person, the rest stays as said; a verb whose doer is a known
    job names it ("teach kids" -> "The user works as a teacher: teaches kids for a living.")."""
    verb, _, rest = third_person(what.strip()).partition(" ")
    doing = f"{_third_singular(verb)} {rest} for a living".replace("  ", " ")
    agent = _agent_noun(verb)
    content = f"The user works as a {agent}: {doing}." if agent else f"The user {doing}."
    return Fact("user", "profile", content, ("job",), "job", 0.7)


#: Work said by what one does now: "I'm freelancing now", "I went freelance", "I'm
#: self-employed" (s32 T14). Verbs of a job only: "I'm driving now" is a moment, not a job.
_DOING_WORK = {
    "freelancing": "freelancer",
    "freelance": "freelancer",
    "self-employed": "self-employed",
    "self employed": "self-employed",
    "contracting": "contractor",
    "consulting": "consultant",
    "tutoring": "tutor",
    "lecturing": "lecturer",
    "temping": "temp",
    "childminding": "childminder",
    "nannying": "nanny",
    "teaching": "teacher",
}
_DOING = re.compile(
    r"^(?:i'?m|im|i\s+am|i'?ve\s+gone|(?:i\s+)?went|i\s+have\s+gone)\s+(?:now\s+|just\s+|fully\s+)?"
    rf"(?P<v>{'|'.join(_DOING_WORK)})(?:\s+(?:now|these\s+days|full[- ]time|part[- ]time|"
    r"instead|in\s+\w+|last\s+\w+|this\s+\w+|\w+\s+ago))*$",
    re.IGNORECASE,
)
#: "I'm retired now", "retired now" (after "I was a postman for 30 years"), "I retired last
#: year after forty years as a bus driver": the person is retired, and what they were.
_RETIRED = re.compile(
    r"^(?:(?:i'?m|im|i\s+am|i'?ve|i\s+have)\s+(?:now\s+|happily\s+|fully\s+|been\s+)?"
    r"retired|i\s+(?:finally\s+|just\s+)?retired|(?P<bare>retired)(?=\s+(?:now|these\s+days)$))"
    r"(?:\s+(?:now|these\s+days|early|last\s+\w+|this\s+\w+|in\s+\d{4}|\w+\s+years?\s+ago))*"
    r"(?P<was>\s+(?:after|from)\s+(?:(?:\w+\s+){1,3}(?:as|in)\s+)?(?:(?:an?|the|my)\s+)?"
    r"[\w-]+(?:\s+[\w-]+)?)?"
    r"(?:\s+(?:now|these\s+days|in\s+\d{4}|last\s+\w+|\w+\s+years?\s+ago))?$",
    re.IGNORECASE,
)
#: "I'm studying comp sci at UCLA", "I study law at Leeds": a course, not a revision night
#: ("I'm studying for my exams", "studying hard tonight").
_STUDIES = re.compile(
    r"^(?:i'?m|im|i\s+am)\s+(?:currently\s+|now\s+)?studying\s+(?P<what>(?!(?:for|hard|tonight|late|"
    r"all|at|with|now|again|today|this|the|my|a|an|to)\b)[\w'-]+(?:\s+(?!at\b|in\b)[\w'-]+){0,2})"
    r"(?:\s+(?:at|in)\s+(?P<org>(?-i:[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)))?(?:\s+now)?$",
    re.IGNORECASE,
)
#: "I'm 34", "I'm 34 years old", "I am 29 yrs old".
_AGE = re.compile(
    r"^(?:i'?m|im|i\s+am)\s+(?:now\s+|just\s+turned\s+)?(?P<n>\d{1,2})"
    r"(?:\s*(?:years?\s+old|yrs?(?:\s+old)?|y/?o))?(?:\s+now)?$"
    r"|^i\s+(?:just\s+)?turned\s+(?P<n2>\d{1,2})(?:\s+(?:today|yesterday|last\s+\w+|this\s+\w+))?$",
    re.IGNORECASE,
)


def match_age(clause: str) -> list[Fact]:
    """ "I'm 34 years old", "I'm 34", "I just turned 40" (s32 T14: an age was never kept)."""
    m = _AGE.match(clause.strip())
    if m is None:
        return []
    age = m.group("n") or m.group("n2")
    return [Fact("user", "profile", f"The user is {age} years old.", ("age",), "age", 0.7)]


def match_job(clause: str) -> list[Fact]:
    """ "I'm a nurse", "I work as a nurse at St. Mary's", "I'm a cashier at Tesco"."""
    m = _STUDIES.match(clause.strip(" .!"))
    if m:
        at = f" at {m.group('org')}" if m.group("org") else ""
        content = f"The user studies {m.group('what')}{at}."  # beside the job, not instead
        return [Fact("user", "profile", content, ("study",), "study", 0.7)]
    m = _RETIRED.match(clause.strip(" .!"))
    if m:
        was = f" ({third_person(m.group('was').strip())})" if m.group("was") else ""
        return [Fact("user", "profile", f"The user is retired{was}.", ("job",), "job", 0.7)]
    m = _DOING.match(clause)
    if m:
        doer = _DOING_WORK[m.group("v").lower()]
        if doer == "self-employed":
            return [Fact("user", "profile", "The user is self-employed.", ("job",), "job", 0.7)]
        return [_job_fact(None, doer)]
    for pattern in (_WORK_AS_AT, _IM_A_JOB, _WORK_AT_AS, _RETRAINED):
        m = pattern.match(clause)
        if m:
            groups = m.groupdict()
            facts = [_job_fact(m.group("article"), m.group("job"))]
            work = _work_fact(groups.get("org"))
            return facts + ([work] if work else [])
    m = _MY_JOB.match(clause)
    if m and len(m.group("job").split()) <= 4:
        return [_job_fact(m.group("article"), m.group("job"))]
    m = _FOR_A_LIVING.match(clause)
    if m:
        where = f" in {m.group('place')}" if m.group("place") else ""  # the work's, no home
        return [living_fact(f"{m.group('a') or m.group('b')}{where}")]
    m = _TEACH_AT.match(clause)
    if m:
        work = _work_fact(m.group("org"))
        job = Fact("user", "profile", "The user works as a teacher.", ("job",), "job", 0.7)
        return [job] + ([work] if work else [])
    return []


# --------------------------------------------------------------------------- workplaces

_NEW_JOB_AT = re.compile(
    r"^i\s+(?:just\s+|recently\s+)?(?:got|landed|have|started|accepted|took)\s+(?:a\s+)?"
    r"(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s+(?P<org>.+)$"
    r"|^i\s+(?:just\s+|recently\s+)?(?:started|began)\s+(?:working\s+)?at\s+(?P<org2>.+)$"
    r"|^i'?m\s+employed\s+by\s+(?P<org3>.+)$"
    r"|^i\s+(?:just\s+)?got\s+hired\s+(?:by|at)\s+(?P<org4>.+)$"
    r"|^i'?ve\s+been\s+working\s+(?:at|for)\s+(?P<org5>.+?)(?:\s+for\s+.+)?$"
    r"|^i\s+work\s+in\s+.+?\s+at\s+(?P<org6>[A-Z].+)$",
    re.IGNORECASE,
)
_WORK_IN_PLACE = re.compile(
    rf"^i\s+(?:now\s+)?work\s+in\s+(?:an?|the)\s+(?P<org>(?:[\w-]+\s+)?(?:{_alternation(WORKPLACES)}))"
    r"(?:\s+(?:now|these\s+days|instead))?$",
    re.IGNORECASE,
)
_TIME_TAIL = re.compile(r"\s+(?:last|this|next)\s+\w+$|\s+(?:yesterday|today)$", re.I)


def match_workplace(clause: str) -> list[Fact]:
    """ "I just got a job at Deloitte", "I'm employed by the council", "I work in a hospital"."""
    m = _NEW_JOB_AT.match(clause)
    if m:
        org = next(g for g in m.groups() if g)
        work = _work_fact(_TIME_TAIL.sub("", org))
        return [work] if work else []
    m = _WORK_IN_PLACE.match(clause)
    if m:
        return [
            Fact(
                "user", "profile", f"The user works in a {m.group('org')}.", ("work",), "work", 0.7
            )
        ]
    return []


# --------------------------------------------------------------------------- pets

_HAVE = (
    r"(?:i|we)(?:\s+(?:also|now|still|both|already))?(?:\s+have|'ve\s+got|\s+have\s+got|\s+got|\s+own|\s+just\s+got|"
    r"\s+just\s+adopted|\s+adopted|\s+rescued)"
)
_PET_NAMED = re.compile(
    rf"(?:and\s+)?(?P<what>{_COUNT}\s+{_PET_MOD}{_PET_WORD})(?P<plural>s|es)?\b"
    rf"(?:\s*,?\s*(?:called|named)\s+{_NAME})?",
    re.IGNORECASE,
)
#: One more name of the same pets: "two cats, Pixel and Mochi", "called Pixel and Mochi".
#: The next name of a list, a fond or size word allowed before it ("Marcus, Jaylen and little
#: Nia", "and baby Rosie").
_ANOTHER_NAME = re.compile(
    r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?:(?-i:little|baby|wee|big|young|lil|tiny)\s+)?"
    rf"{_NAME}\b(?!\s+\w+s\b)"
)
#: The same with the name required, tried first: "a tabby cat named Marmalade" is a cat
#: named Marmalade, not a tabby; "a ferret, Bandit" names the ferret.
#: When the pet came, said between it and its name: "a staffie pup last month, she's called
#: Biscuit", "a new kitten yesterday, named her Luna", "a greyhound in the spring, ...".
_WHEN_GOT = (
    r"(?:\s+(?:last\s+\w+|this\s+\w+|yesterday|today|recently|in\s+(?:the\s+)?\w+|"
    r"(?:a|an|one|two|three|\d+|a\s+few|a\s+couple\s+of)\s+\w+\s+ago)(?=,))?"
)
#: What the pet is, said between it and its name: "one cat, she is a siamese, her name is Luna".
_DESCRIBED = r"(?:,?\s+(?:she|he|it)(?:'s|\s+is)\s+an?\s+[\w-]+(?:\s+[\w-]+)?(?=,))?"
_PET_WITH_NAME = re.compile(
    rf"(?:and\s+)?(?P<what>{_COUNT}\s+{_PET_MOD}{_PET_WORD})(?P<plural>s|es)?\b{_WHEN_GOT}{_DESCRIBED}"
    rf"{_NAMING}(?-i:{_NAME})\b",
    re.IGNORECASE,
)
_HAVE_START = re.compile(rf"^{_HAVE}\s+", re.IGNORECASE)
_MY_PET_IS_NAMED = re.compile(
    rf"^(?:my|our)\s+(?P<pet>{_PET_WORD})(?:'s\s+name\s+is|(?:\s+is|'s)\s+called|(?:\s+is|'s)\s+named|"
    rf"\s+goes\s+by)\s+{_NAME}",
    re.IGNORECASE,
)
_MY_PET_NAME = re.compile(
    rf"^(?:my|our)\s+(?:[\w-]+\s+)?(?P<pet>{_PET_WORD})\s+{_NAME}\b(?P<rest>.*)$",
    re.IGNORECASE,
)


def _pet(content: str, name_or_kind: str) -> Fact:
    key = topic_key(name_or_kind)
    return Fact("user", "relation", content, ("pet", f"topic:{key}"), f"pet:{key}", 0.75)


def match_pets(clause: str) -> list[Fact]:
    """ "I have a golden retriever called Biscuit", "My dog's name is Biscuit", "our dog Rufus
    is a beagle"; one fact per pet named."""
    m = _MY_PET_IS_NAMED.match(clause)
    if m and _is_name(m.group("name")):
        pet, name = m.group("pet").lower(), m.group("name")
        return [_pet(f"The user has a {pet} called {name}.", name)]
    m = _MY_PET_NAME.match(clause)
    if m and _is_name(m.group("name")) and m.group("name").lower() not in PETS:
        pet, name = m.group("pet").lower(), m.group("name")
        rest = third_person(m.group("rest").strip(" .!"))
        tail = f", who {rest}" if re.match(r"^(?:is|was|has|loves|likes)\b", rest) else ""
        return [_pet(f"The user has a {pet} called {name}{tail}.", name)]
    start = _HAVE_START.match(clause)
    if not start:
        return []
    said: list[tuple[str, str, list[str]]] = []  # what, plural, names: each pet said
    pos = start.end()
    while (pm := _PET_WITH_NAME.match(clause, pos) or _PET_NAMED.match(clause, pos)) is not None:
        names, pos = _pet_names(clause, pm)
        pos += len(clause[pos:]) - len(clause[pos:].lstrip(" ,"))
        what = re.sub(r"^and\s+|\s+", " ", pm.group("what")).strip()
        said.append((what, pm.group("plural") or "", names))
    return [
        fact for what, plural, names in _names_shared(said) for fact in _pets(what, plural, names)
    ]


def _names_shared(said: list[tuple[str, str, list[str]]]) -> list[tuple[str, str, list[str]]]:
    """ "a cat and a rabbit called Tom and Jerry": the names said after the last of a list
    go one each to the pets of the list, in order, when there are as many."""
    if len(said) < 2 or any(names or plural for _, plural, names in said[:-1]):
        return said
    what, plural, names = said[-1]
    if plural or len(names) != len(said):
        return said
    return [(w, "", [name]) for (w, _, _), name in zip(said, names, strict=True)]


def _pets(what: str, plural: str, names: list[str]) -> list[Fact]:
    if not names:
        return [_pet(f"The user has {what}{plural}.", what.split()[-1])]
    if len(names) > 1 or plural:  # "two cats called Pixel and Mochi"
        kind = what.split(maxsplit=1)[1]
        what = f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
    return [_pet(f"The user has {what} called {name}.", name) for name in names]


def _more_names(clause: str, first: str, pos: int) -> list[str]:
    """``first`` and the names said after it ("Arjun and Maya", "Arjun, Maya and Leo")."""
    names = [first]
    while (more := _ANOTHER_NAME.match(clause, pos)) and _is_name(more.group("name")):
        if more.group("name").lower() in PETS or more.group("name").lower() in _COUNT:
            break
        names.append(more.group("name"))
        pos = more.end()
    return names


def _pet_names(clause: str, pm: re.Match[str]) -> tuple[list[str], int]:
    """The names given to the pets `pm` found ("called Pixel", ", Pixel and Mochi") and where
    the clause goes on after them."""
    names = [pm.group("name")] if _is_name(pm.group("name")) else []
    pos = pm.end() if names or not pm.group("name") else pm.start("name") - 1
    while (more := _ANOTHER_NAME.match(clause, pos)) and _is_name(more.group("name")):
        if more.group("name").lower() in PETS or more.group("name").lower() in _COUNT:
            break
        names.append(more.group("name"))
        pos = more.end()
    return names, pos


# --------------------------------------------------------------------------- family

_MEMBER_NAMED_SAYS = re.compile(
    rf"^my\s+(?P<rel>{_FAMILY_WORD})\s+{_NAME}\s+(?P<rest>(?:is|'s|was|has|just|can't|cannot|"
    r"doesn't|does|(?-i:[a-z]+[^s\W]s))\b.*)$",
    re.IGNORECASE,
)
#: "my daughter Jess's car broke down": the car is Jess's, nothing said of Jess ("Jess's a
#: nurse" is "is").
_WHOSE_THING = re.compile(
    r"\b(?-i:[A-Z])[\w-]*'s\s+[a-z]+\s+(?:is|was|has|had|broke|died|got|went|fell|came|ran|"
    r"\w+ed)\b",
    re.I,
)
_MEMBER_IS_NAMED = re.compile(
    rf"^my\s+(?P<rel>{_FAMILY_WORD})(?:'s\s+name\s+is|(?:\s+is|'s)\s+called|(?:\s+is|'s)\s+named|"
    rf"\s+goes\s+by)\s+{_NAME}",
    re.IGNORECASE,
)
_MEMBER_IS = re.compile(
    rf"^my\s+(?P<rel>{_FAMILY_WORD})\s+is\s+(?P<what>(?:an?\s+{_MOD}{_JOB_WORD}|vegetarian|vegan|"
    r"allergic\s+to\s+[\w -]+|pregnant|\d+|\w+\s+years\s+old))$",
    re.IGNORECASE,
)
_HAVE_MEMBERS = re.compile(
    rf"^(?:i|we)(?:\s+have|'ve\s+got|\s+have\s+got)\s+(?P<what>{_COUNT}\s+(?:(?:younger|older|"
    rf"little|big|baby|twin|grown-up|grown|step)\s+)*(?P<rel>{_FAMILY_WORD}|boys|girls)(?:s)?)"
    rf"(?:\s*,?\s*(?:called|named)\s+{_NAME}|\s*,\s*(?-i:{_NAME2}))?",
    re.IGNORECASE,
)
#: Members counted and named in a list, with or without "I have": "twin boys, Arlo and Finn",
#: "I've got three kids: Maya, Leo and Rosie", "we have a boy and a girl, Jack and Poppy",
#: "got 3 kids" (the count alone only with the verb).
_KID_WORD = r"(?:boy|girl|son|daughter|kid|child|brother|sister)"
_MEMBERS_LISTED = re.compile(
    rf"^(?P<have>(?:i|we)?(?:\s*have|'ve\s+got|\s*have\s+got|\s*got)\s+)?"
    rf"(?P<what>(?:(?P<count>{_COUNT}|twin)\s+)(?:(?:younger|older|little|big|baby|twin|"
    rf"grown-up|grown|step)\s+)*(?P<rel>{_FAMILY_WORD}|boys|girls|{_KID_WORD}s?)"
    rf"(?:\s+and\s+(?:a|an|one|two|three|\d+)\s+{_KID_WORD}s?)?)"
    rf"(?:\s*[,:]\s*(?-i:{_NAME2})|\s*$)",
    re.IGNORECASE,
)
#: "my brothers are called Tom and Ben": more than one member, named together.
_MEMBERS_ARE_NAMED = re.compile(
    rf"^(?:my|our)\s+(?P<what>(?:(?:younger|older|little|big|twin|two|three)\s+)*"
    rf"(?P<rel>{_FAMILY_WORD}|{_KID_WORD}s))\s+are\s+(?:called|named)\s+(?-i:{_NAME2})",
    re.IGNORECASE,
)
_MARRIED_TO = re.compile(
    rf"^i'?m\s+(?:married|engaged)\s+to\s+(?:an?\s+(?:guy|man|woman|girl|lady)\s+"
    rf"(?:called|named)\s+)?{_NAME}",
    re.IGNORECASE,
)
_PARENT_OF = re.compile(
    r"^i'?m\s+an?\s+(?:proud\s+)?(?P<rel>mum|mom|mother|dad|father|parent)\s+of\s+(?P<what>.+)$",
    re.IGNORECASE,
)
_MEMBER_IN_PASSING = re.compile(rf"\bmy\s+(?P<rel>{_FAMILY_WORD})\s+(?-i:{_NAME})\b", re.IGNORECASE)


def _family(content: str, who: str) -> Fact:
    key = topic_key(who)
    return Fact("user", "relation", content, ("family", f"topic:{key}"), f"family:{key}", 0.75)


#: A word of a noun phrase: not a verb or a preposition ("my office is at Google's ...").
_NOUN_WORD = r"(?:(?!(?:is|are|was|were|at|in|on|for|with|to|and|from|has|had)\b)[\w-]+)"
#: A named member set off before what is said of them: "my boyfriend Luca, he's an
#: electrician", "my daughter Isla's a midwife", "my husband, Tom, drives trains", "my partner
#: Sam - she's a dentist": the name in apposition, then a pronoun or a clitic "'s" for "is".
_APPOSED = re.compile(
    rf"^(?P<head>my\s+(?:{_NOUN_WORD}\s+){{0,2}}?{_NOUN_WORD}),?\s+(?P<name>(?-i:[A-Z][a-zà-ÿ-]+))"
    r"(?:(?P<clitic>'s)\s+|\s*[,–—-]+\s*(?:(?:he|she|they)(?P<is>'s|\s+is|\s+are|'re)?\s+)?"
    r"|\s+(?:he|she|they)(?P<is2>'s|\s+is|\s+are|'re)\s+)(?P<rest>(?-i:[a-z]).*)$",
    re.IGNORECASE,
)


def apposed(clause: str) -> str:
    """``clause`` with a member named in apposition said plainly: "my boyfriend Luca, he's an
    electrician" -> "my boyfriend Luca is an electrician" (any other clause as it is)."""
    m = _APPOSED.match(clause.strip())
    if m is None or m.group("name") in _NOT_A_NAME:
        return clause
    verb = m.group("clitic") or m.group("is") or m.group("is2") or ""
    verb = "are" if verb.strip() in ("are", "'re") else "is" if verb else ""
    return " ".join(w for w in (m.group("head"), m.group("name"), verb, m.group("rest")) if w)


def _have_members(clause: str, m: re.Match[str]) -> Fact:
    """ "I have two kids", "we have two kids, Arjun and Maya" (every name kept, in one
    record: the names answer "what are my kids' names?" together)."""
    first = m.group("name") or m.group("name2")
    what, names = m.group("what"), _more_names(clause, first, m.end()) if _is_name(first) else []
    rel = _PLURAL.get(m.group("rel").lower(), m.group("rel").lower().rstrip("s"))
    if not names:
        return _family(f"The user has {what}.", rel)
    said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return _family(f"The user has {what} called {said}.", names[0] if len(names) == 1 else rel)


def _listed_members(clause: str) -> Fact | None:
    """ "twin boys, Arlo and Finn", "we have a boy and a girl, Jack and Poppy", "my brothers
    are called Tom and Ben", "got 3 kids": one record, every name in it. Without a verb two
    names at least are needed ("two kids, Sam" may be anyone's)."""
    m = _MEMBERS_ARE_NAMED.match(clause) or _MEMBERS_LISTED.match(clause)
    if m is None:
        return None
    first = m.group("name2")
    names = _more_names(clause, first, m.end()) if _is_name(first) else []
    if first and not names:
        return None
    if m.re is _MEMBERS_LISTED and not m.group("have") and len(names) < 2:
        return None
    what = re.sub(r"\s+", " ", m.group("what"))
    if m.re is _MEMBERS_ARE_NAMED:
        said = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
        return _family(f"The user's {what.lower()} are called {said}.", m.group("rel"))
    rel = _PLURAL.get(m.group("rel").lower(), m.group("rel").lower().rstrip("s"))
    if not names:
        return _family(f"The user has {what}.", rel)
    said = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
    return _family(f"The user has {what} called {said}.", rel)


#: "my kids are Ruby and Finn, twins": every name of a list, in one record.
_MEMBERS_ARE = re.compile(
    r"^(?:my|our)\s+(?P<rel>kids|children|sons|daughters|boys|girls|twins|grandkids|"
    r"grandchildren|sisters|brothers)\s+are\s+(?P<names>(?-i:[A-Z][a-zà-ÿ'-]+)"
    r"(?:\s*,\s*(?-i:[A-Z][a-zà-ÿ'-]+))*\s*,?\s+(?:and|&)\s+(?-i:[A-Z][a-zà-ÿ'-]+))"
    r"(?P<twins>\s*,?\s*(?:the\s+)?twins)?\W*$",
    re.IGNORECASE,
)


def _members_are(clause: str) -> Fact | None:
    m = _MEMBERS_ARE.match(clause.strip())
    names = re.split(r"\s*,\s*|\s*,?\s+(?:and|&)\s+", m.group("names")) if m else []
    if m is None or not all(_is_name(n) for n in names):
        return None
    rel, twins = m.group("rel").lower(), " (twins)" if m.group("twins") else ""
    said = f"{', '.join(names[:-1])} and {names[-1]}"
    return _family(f"The user's {rel} are {said}{twins}.", _PLURAL.get(rel, rel.rstrip("s")))


def match_family(clause: str) -> list[Fact]:
    """ "My sister Emma is vegetarian", "my husband is called Tom", "I have two kids", and a
    named member said in passing ("... with my husband Tom")."""
    if (members := _members_are(clause)) is not None:
        return [members]
    whose = _WHOSE_THING.search(clause)
    clause = clause if whose else apposed(clause)
    m = None if whose else _MEMBER_NAMED_SAYS.match(clause)
    if m and _is_name(m.group("name")):
        rel, name = m.group("rel").lower(), m.group("name")
        rest = third_person(m.group("rest").strip(" .!"))
        return [_family(f"The user's {rel} {name} {rest}.", name)]
    m = _MEMBER_IS_NAMED.match(clause)
    if m and _is_name(m.group("name")):
        rel, name = m.group("rel").lower(), m.group("name")
        return [_family(f"The user's {rel} is called {name}.", name)]
    m = _MEMBER_IS.match(clause)
    if m:
        rel = m.group("rel").lower()
        return [_family(f"The user's {rel} is {m.group('what')}.", rel)]
    listed = _listed_members(clause)
    if listed is not None:
        return [listed]
    m = _HAVE_MEMBERS.match(clause)
    if m:
        return [_have_members(clause, m)]
    m = _MARRIED_TO.match(clause)
    if m and _is_name(m.group("name")):
        name = m.group("name")
        return [_family(f"The user is married to {name}.", name)]
    m = _PARENT_OF.match(clause)
    if m:
        rel = m.group("rel").lower()
        return [_family(f"The user is a {rel} of {third_person(m.group('what'))}.", "children")]
    return [
        _family(
            f"The user's {p.group('rel').lower()} is called {p.group('name')}.", p.group("name")
        )
        for p in _MEMBER_IN_PASSING.finditer(clause)
        if _is_name(p.group("name"))
    ]


# --------------------------------------------------------------------------- nicknames

_CALL_ME = re.compile(
    rf"^(?:(?:actually|so|just|please|from\s+now\s+on,?)\s+)*(?:you\s+can\s+|please\s+|just\s+)*"
    rf"call\s+me\s+(?:just\s+)?{_NAME}(?:\s*,?\s*(?:from\s+now\s+on|please|instead|thanks|"
    r"everyone\s+does|for\s+short))*$"
    rf"|^(?:i\s+(?:usually\s+|mostly\s+|just\s+)?go\s+by|i\s+prefer\s+to\s+be\s+called|"
    rf"i'd\s+(?:rather|prefer)\s+you\s+call(?:ed)?\s+me|i\s+prefer\s+being\s+called)\s+{_NAME2}"
    r"(?:\s+(?:instead|please|now))?$",
    re.IGNORECASE,
)
_THEY_CALL_ME = re.compile(
    rf"^(?:(?:my\s+(?:friends|mates|family|colleagues|coworkers|pals|parents|kids))|everyone|"
    rf"everybody|most\s+people|friends)\s+(?:just\s+|usually\s+|all\s+)?calls?\s+me\s+{_NAME}$"
    rf"|^my\s+nickname\s+is\s+{_NAME2}$",
    re.IGNORECASE,
)
_NOT_NICKNAMES = frozenset(
    _words(
        "later back tomorrow maybe when if now sometime soon",
        # "call me crazy, but ...": an idiom, no name
        "crazy mad old old-fashioned paranoid biased cynical lazy naive silly stupid weird",
        "picky sentimental stubborn nosy boring",
    )
)


def match_nickname(clause: str) -> list[Fact]:
    """ "Call me Ali from now on" (how the bot should call them) and "my friends call me Bee"
    (a nickname others use)."""
    m = _CALL_ME.match(clause)
    name = (m.group("name") or m.group("name2")) if m else ""
    if m and name.lower() not in _NOT_NICKNAMES:
        return [Fact("user", "profile", f"The user's name is {name}.", ("name",), "name", 0.9)]
    m = _THEY_CALL_ME.match(clause)
    name = (m.group("name") or m.group("name2")) if m else ""
    if m and name.lower() not in _NOT_NICKNAMES:
        content = f"The user's nickname is {name}."
        return [Fact("user", "profile", content, ("nickname",), "nickname", 0.8)]
    return []


_HOME = re.compile(
    r"^(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?(?:moved|relocated)"
    r"(?:\s+(?:over|up|down|out|back|house))?\s+(?:from\s+.+?\s+)?to\s+(?P<place>.+?)(?:\s+(?:the\s+)?(?:last|past|this)\s+\w+|\s+\w+\s+ago)?"
    # the reason or company after the place, whoever's it is: "for Priya's job", "to be near mum"
    r"(?:\s+(?:after|because|for|when|once|to|so|as|since|with)\b.*)?$"
    r"|^we\s+(?:now\s+)?live\s+in\s+(?:the\s+\w+\s+of\s+)?(?P<place2>.+)$"
    r"|^i\s+live\s+(?:just\s+)?(?:outside|near)\s+(?P<place3>.+)$"
    r"|^i'?ve\s+(?:been\s+)?liv(?:ed|ing)\s+in\s+(?P<place4>.+?)\s+for\s+.+$",
    re.IGNORECASE,
)


def match_home(clause: str) -> list[Fact]:
    """ "I moved from Leeds to Bristol", "we live in Leeds", "I live near Munich"."""
    if _MOVED_AS_A_CHILD.search(clause):
        return []
    m = _HOME.match(clause)
    place = _clean_place(next((g for g in m.groups() if g), "")) if m else None
    if not place:
        return []
    near = " near" if m and m.group("place3") else " in"
    return [Fact("user", "profile", f"The user lives{near} {place}.", ("home",), "home", 0.7)]


def people_facts(clause: str) -> list[Fact]:
    """Every recogniser of this module on one clause, and the relations between people
    (:mod:`._relations`) the others do not already say."""
    found = [
        *match_nickname(clause),
        *match_job(clause),
        *match_age(clause),
        *match_workplace(clause),
        *match_pets(clause),
        *match_family(clause),
        *match_home(clause),
    ]
    return [*found, *relation_facts(clause, found)]
