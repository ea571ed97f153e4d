"""Everyday wordings said plainly, before the rules read a message (issue 23, s35).

People do not write as the rules' patterns do. Each rewrite here is one piece of general
grammar that turns a common way of saying a fact into the plain way the rules already read,
whatever the job, place, pastime or name in it:

- text-speak and learner's English: "fav"/"fave" -> "favourite", a "rn"/"atm" inside a
  clause dropped, "my hobby is X" -> "I enjoy X", "work as electrician" gets its article,
  "I am work as" -> "I work as", "working like a tester at X" -> "working as";
- a subject left out: "working as ...", "living in ...", "just turned 50", "switched to ...";
- a change of work said by its new doing: "(I) switched to driving trams" -> "I drive trams
  now" (a verb's base form from its -ing form, :func:`base_verb`);
- an opener that gives an age bare: "hiya! 67 and newly retired" -> "I'm 67 years old.
  I'm retired.", "72 years young";
- an employer said before the job: "I work at Barclays as a QA engineer now" -> "I work as
  a QA engineer at Barclays now";
- "me and my wife Priya moved to ..." -> "my wife Priya and I moved to ...";
- a list of one's children with their ages: "my kids are Tom, 7, and Ava, 4" -> "my kids
  are Tom and Ava".

Facts the rules had no pattern for are read here too: where one grew up
(:func:`match_hometown`), a worry about something of one's own life (:func:`match_worry`),
and a joke taken back by what it was about (:func:`joke_writes`: "the dragon was a joke";
"my degree was a joke" says the degree was bad and takes nothing back).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from familiars.memory._offline._birthdays import RELATIONS
from familiars.memory._offline._clauses import SOMEONE_ELSE
from familiars.memory._offline._objects import Fact, _words, third_person, topic_key
from familiars.memory._records import MemoryRecord, is_live
from familiars.memory._writer._schema import WriteOp, WriterEntry

#: A greeting before the first words ("hiya!", "hello there,", "morning all").
_OPENER = re.compile(
    r"^(?:(?:hi+|hey+a?|hello+|hiya|heya|yo|howdy|morning|evening|afternoon|"
    r"good\s+(?:morning|evening|afternoon)|g'?day|hallo|guten\s+tag|ok|okay|so)"
    r"(?:\s+(?:there|all|everyone|everybody))?\b[\s,!.]*)+",
    re.I,
)
_SENTENCE = re.compile(r"((?<=[.!?;])\s+|\s*\n+\s*)")


def _own_then(m: re.Match[str], subject: str) -> str:
    """ "not in leeds anymore, moved to york": the clause after one's own says "I" too; after
    one that names someone else ("I miss my brother, moved to Australia") it is theirs."""
    if SOMEONE_ELSE.search(m["own"]):
        return m.group(0)
    return f"{m['own']}, {subject} "


def _own_then_i(m: re.Match[str]) -> str:
    return _own_then(m, "I")


def _own_then_im(m: re.Match[str]) -> str:
    return _own_then(m, "I'm")


#: Words and word orders, each said the plain way: (pattern, replacement).
_WORDS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (re.compile(r"\bfave?\b(?=\s+[a-z])", re.I), "favourite"),
    (re.compile(r"\s+(?-i:rn|atm)(?=\s+\w)"), ""),
    (re.compile(r"^(?=favou?rite\s+[a-z])", re.I), "my "),
    (re.compile(r"^(?:my|our)\s+(?:main\s+|big\s+)?(?:hobby|hobbies)\s+(?:is|are)\s+", re.I),
     "I enjoy "),
    (re.compile(r"\b(?:i\s+am|i'm|im)\s+work\s+as\b", re.I), "I work as"),
    (re.compile(r"\b(work(?:ing)?)\s+like\s+(?=(?:an?\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:in|at|for)"
                r"\s+(?-i:[A-Z]))", re.I), r"\1 as "),
    (re.compile(r"\bchilds\b", re.I), "children"),
    # emphasis by saying a word again: "I love love love musicals", "really really like"
    (re.compile(r"\b(?-i:(love|really|realy|so|very|super|much))(?:\s+\1\b)+", re.I), r"\1"),
    # "not in leeds anymore, moved to york": the move is a clause of one's own
    (re.compile(r"^(?P<own>(?:i|i'm|im|i've|not|no\s+longer|left|we|we're|we've)\b[^,]*?\w),\s+"
                r"(?=(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+"
                r"(?:(?:up|down|over|back)\s+)?to\b)", re.I), _own_then_i),
    # "i quit my job at tesco, working at asda now"
    (re.compile(r"^(?P<own>(?:i|i'm|im|i've|not|no\s+longer|left|quit)\b[^,]*?\w),\s+"
                r"(?=(?:now\s+)?(?:working|living)\s+(?:at|for|as|in)\b)", re.I), _own_then_im),
    # likings said by idiom: "mad for crosswords", "proper into bouldering at the mo"
    (re.compile(r"^(?:i'?m\s+|im\s+)?(?:mad|crazy|nuts|potty)\s+(?:for|about)\s+(?=[a-z])", re.I),
     "I love "),
    (re.compile(r"^(?:i\s+)?can'?t\s+get\s+enough\s+of\s+(?=[a-z])", re.I), "I love "),
    (re.compile(r"\bproper\s+into\b", re.I), "really into"),
    (re.compile(r"\s+at\s+the\s+mo$", re.I), " now"),
    # "allergic 2 cats": a typed "2" for "to" after a word that takes "to"
    (re.compile(r"\b(allergic|moved|listening|used)\s+2\s+(?=[a-z])", re.I), r"\1 to "),
    # a reaction said of its cause: "penicillin brings me out in a rash", "cats give me hives"
    (re.compile(r"^(?!(?:the|this|that|these|those|it|my|our|your|his|her|their|stress|heat|"
                r"sweat|sun|cold)\b)(?P<x>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:brings?|gives?)\s+me\s+"
                r"(?:out\s+in\s+)?(?:a\s+rash|hives|a\s+reaction|an\s+allergic\s+reaction)\b.*$",
                re.I),
     r"I'm allergic to \g<x>"),
    (re.compile(r"\bremember\s+this\s*[:,-]\s*", re.I), "remember that "),
    (re.compile(r"\b(?:newly|recently|officially|finally)\s+retired\b", re.I), "retired"),
    (re.compile(r"^(?:me|myself)\s+(?:and|&)\s+(?P<np>(?:my|our)\s+[a-z]+(?:\s+(?-i:[A-Z])"
                r"[\w'-]+)?)\s+(?=(?:just\s+|have\s+|recently\s+)?[a-z]+(?:ed|ve)\b)", re.I),
     r"\g<np> and I "),
    (re.compile(r"^(?=(?:living|based)\s+in\s)", re.I), "I'm "),
    (re.compile(r"^(?=working\s+as\s)", re.I), "I'm "),
    (re.compile(r"^(?:i\s+)?(?P<t>(?:just\s+)?turned\s+\d{1,2}\b[^,;]*)[,;]\s*", re.I),
     r"I \g<t>. "),
    (re.compile(r"^(?=(?:just\s+)?turned\s+\d)", re.I), "I "),
    (re.compile(r"^(?P<said>.*\b(?:work|working|live|living)\b.*?)\s+since\s+(?:\d{4}|\d+\s+years|"
                r"(?:last\s+)?(?:january|february|march|april|may|june|july|august|september|"
                r"october|november|december|year|summer|spring|autumn|fall|winter))$", re.I),
     r"\g<said>"),
)  # fmt: skip
#: "work as electrician": the article a job is said with.
_NO_ARTICLE = re.compile(
    r"\b(work(?:ing)?\s+as)\s+(?!(?:an?|the|my|our|his|her|hard|much|long|little|well|fast|"
    r"quickly|often|usual|needed|part|if|though|such|far|soon|normal|before|per|one|many|best|"
    r"late|early|possible|required|always|ever|usual)\b)"
    r"(?=[a-z][\w-]*(?:\s+[a-z][\w-]*)?(?:\s+(?:in|at|for|with|now|since)\b|\s*[,.;!]|\s*$))",
    re.I,
)
#: "I work at Barclays as a QA engineer now": the employer said before the job.
_AT_THEN_AS = re.compile(
    r"\b(?P<verb>work(?:ing)?)\s+(?P<prep>at|for)\s+(?P<org>(?-i:[A-Z])[\w'&.-]*"
    r"(?:\s+(?-i:[A-Z])[\w'&.-]*)*)\s+as\s+(?!(?:well|usual|always|much|part|if|though|such|long|"
    r"far|soon|normal|before|per|needed|required|a\s+result|a\s+team|one)\b)"
    r"(?P<job>(?:an?\s+)?(?:(?!\s(?:and|but|so|because|though|while)\s)[\w -])+?)"
    r"(?P<tail>\s+(?:now|these\s+days|nowadays))?"
    # what the sentence goes on with after the job ("... and I love gardening") stays after it
    r"(?P<rest>(?:\s+(?:and|but|so|because|though|while)\s|\s*,).*)?$",
    re.I,
)
#: A change of work said by its new doing: "switched to driving trams".
_SWITCHED = re.compile(
    r"^(?:i\s+(?:have\s+|'ve\s+)?|i've\s+)?(?:just\s+|recently\s+|finally\s+)?"
    r"(?:switched|changed?|moved(?:\s+over)?)\s+(?:jobs?\s+|careers?\s+)?to\s+"
    r"(?P<g>[a-z]+ing|work)\s+(?P<what>[a-z][\w' -]*?)(?:\s+(?:now|instead|these\s+days))?$",
    re.I,
)
#: An age said bare at the start: "67 and newly retired", "72 years young", "34, nurse".
_AGE_FIRST = re.compile(
    r"^(?P<n>\d{1,2})(?:\s*(?P<unit>yo|y/o|years?\s+(?:old|young)|yrs?(?:\s+old)?))?"
    r"(?:\s*(?:,|\band\b|&|\+)\s*(?P<rest>.+))?$",
    re.I,
)
#: What may follow a bare age in an opener: what one is ("newly retired", "a mum of two",
#: "single", "from Leeds") or a clause of one's own ("and I live in Leeds"). Anything else
#: ("50, that's my score", "30 and 40 percent") leaves the number a number.
_SELF_AFTER_AGE = re.compile(
    r"^(?:an?|newly|recently|just|still|now|happily|semi|retired|single|married|divorced|"
    r"widowed|engaged|male|female|[mf]|from|living|based|studying|working|mum|mom|dad|mother|"
    r"father|grandma|grandad|granny|nan|student|unemployed|self[\s-]employed|at\s+uni|"
    r"i|i'm|im|i've|love|live|work|have|got|been)\b",
    re.I,
)
#: A clause after a bare number that says what one does next, not what one is: "ok 20,
#: i'll set the timer", "30, I've got to go", "45 and I'm still not done".
_NOT_WHAT_ONE_IS = re.compile(
    r"^(?:i['’]?(?:ll|d)\b|i\s+(?:will|would|need|must|should|can|gotta|have\s+to)\b|"
    r"i'?ve\s+(?:got\s+to|gotta)\b|(?:i'?m|i\s+am)\s+(?:still|not|done|going|off|late|so|just|"
    r"gonna|about)\b)",
    re.I,
)
#: An opener of only "ok"/"so": a number after it answers something ("ok 20"), no age.
_ONLY_OK = re.compile(r"^(?:(?:ok|okay|so)\b[\s,!.]*)+$", re.I)
_SAID_WITH_SUBJECT = re.compile(r"^(?:i|i'm|im|i've|love|live|work|have|got|been)\b", re.I)
#: "my kids are Tom, 7, and Ava, 4": a list of one's children with the age after each name.
_CHILDREN_ARE = re.compile(
    r"\b(?:my|our)\s+(?:kids|children|boys|girls|sons|daughters|twins|grandkids|"
    r"grandchildren)\s+are\b",
    re.I,
)
_NAME_AGED = re.compile(
    r"(?P<name>\b(?-i:[A-Z])[\w'-]+),\s*(?:aged\s+)?\d{1,2}(?:\s*(?:yo|years?\s+old))?"
    r"(?P<after>\s*,?\s*and\b|\s*,|\s*$)",
    re.I,
)


def base_verb(gerund: str) -> str:
    """The base form of an -ing form: "driving" -> "drive", "running" -> "run",
    "installing" -> "install", "teaching" -> "teach", "studying" -> "study"."""
    stem = gerund.lower()[:-3]
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    one_vowel = len(re.findall(r"[aeiou]+", stem)) == 1
    if (one_vowel and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", stem)) or stem in ("us",):
        return stem + "e"
    return stem


def _with_article(m: re.Match[str]) -> str:
    """ "work as electrician" -> "work as an electrician"."""
    vowel = m.string[m.end() : m.end() + 1].lower() in "aeio"
    return f"{m.group(1)} {'an' if vowel else 'a'} "


def _age_first(sentence: str) -> str:
    """ "hiya! 67 and newly retired, so ..." -> "I'm 67 years old. I'm newly retired. so ..."."""
    opener = _OPENER.match(sentence)
    m = _AGE_FIRST.match(_OPENER.sub("", sentence).strip())
    if m is None or not 12 <= int(m["n"]) <= 99:
        return sentence
    rest = (m["rest"] or "").strip()
    unit = m["unit"]
    if (rest and not _SELF_AFTER_AGE.match(rest)) or not (rest or unit):
        return sentence  # "50, that's my score"; a number alone is no age
    if not unit and (_NOT_WHAT_ONE_IS.match(rest) or (opener and _ONLY_OK.match(opener[0]))):
        return sentence  # "ok 20, i'll set the timer"
    cut = re.split(r"\s*[,;]\s*|\s+so\s+", rest, maxsplit=1)
    head, tail = cut[0], cut[1] if len(cut) > 1 else ""
    out = [f"I'm {m['n']} years old."]
    if head:
        out.append(head if _SAID_WITH_SUBJECT.match(head) else f"I'm {head}.")
    if tail:
        out.append(tail)
    return " ".join(out)


def _switched(sentence: str) -> str:
    m = _SWITCHED.match(sentence.strip(" .!"))
    if m is None:
        return sentence
    verb = m["g"] if m["g"].lower() == "work" else base_verb(m["g"])  # "I change to work in"
    return f"I {verb} {m['what']} now."


def _children_aged(sentence: str) -> str:
    if not _CHILDREN_ARE.search(sentence):
        return sentence

    def unaged(m: re.Match[str]) -> str:
        after = m["after"]
        return m["name"] + (" and" if "and" in after else after.rstrip())

    said = _NAME_AGED.sub(unaged, sentence)
    return re.sub(r"\s+and\s+and\b", " and", said)


def _at_then_as(sentence: str) -> str:
    """ "I work at Tesco as a shift manager and I love gardening." -> "I work as a shift
    manager at Tesco and I love gardening.": the employer goes after the job, and the rest of
    the sentence and its end mark stay (they were lost: "gardening at Tesco my cat ...")."""
    said = sentence.rstrip(" .!")
    m = _AT_THEN_AS.search(said)
    if m is None:
        return sentence
    job = m["job"] if re.match(r"an?\s", m["job"], re.I) else f"a {m['job']}"
    plain = f"{m['verb']} as {job} {m['prep']} {m['org']}{m['tail'] or ''}{m['rest'] or ''}"
    return said[: m.start()] + plain + sentence[len(said) :]


def everyday(text: str) -> str:
    """``text`` with each everyday wording said the plain way (see the module docstring)."""
    parts = _SENTENCE.split(text.strip())
    out: list[str] = []
    for number, sentence in enumerate(parts):
        if number % 2:  # the break between two sentences, kept as it was
            out.append(sentence)
            continue
        greeted = not "".join(_OPENER.sub("", p).strip(" .!") for p in parts[:number:2])
        said = _age_first(sentence) if greeted else sentence  # the first words said
        said = _switched(_OPENER.sub("", said) if _SWITCHED.match(_OPENER.sub("", said)) else said)
        for pattern, plain in _WORDS:
            said = pattern.sub(plain, said)
        said = _NO_ARTICLE.sub(_with_article, said)
        out.append(_at_then_as(_children_aged(said)))
    return "".join(out)


#: "I grew up in Cork", "born and raised in Ohio", "I was brought up in Leeds".
_GREW_UP = re.compile(
    r"^(?:i\s+|we\s+|we\s+both\s+)?(?:was\s+|were\s+)?(?:grew\s+up|raised|brought\s+up|born\s+and\s+(?:raised|bred)|"
    r"(?:i'm|i\s+am|im)\s+originally|originally)\s+"
    r"(?:in|on|near|from)\s+(?P<place>(?:the\s+)?[a-z][\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})"
    r"(?:\s+(?:as\s+a\s+kid|as\s+a\s+child|mostly|originally))?$"
    r"|^(?:i'm|i\s+am|im)\s+from\s+(?P<from>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})"
    r"\s+originally$",
    re.I,
)


#: Kinds of place said without a name: "I grew up in the countryside".
_PLACE_WORDS = frozenset(
    _words(
        "countryside country city suburbs suburb village town farm coast seaside mountains "
        "north south east west midlands highlands islands island valleys bush outback states "
        "projects sticks burbs capital"
    )
)


def match_hometown(clause: str) -> list[Fact]:
    """ "The user grew up in Cork." for "I grew up in Cork" (where one lives is another fact)."""
    m = _GREW_UP.match(clause.strip(" .!"))
    if m is None:
        return []
    place = m["place"] or m["from"]
    head = re.sub(r"^the\s+", "", place, flags=re.I)
    if head[:1].islower() and head.lower() not in _PLACE_WORDS:
        return []  # "I grew up in fear": a place is named with a capital or by a place word
    return [
        Fact("user", "profile", f"The user grew up in {place}.", ("hometown",), "hometown", 0.6)
    ]


#: "I'm worried about my mum's surgery next week": a worry about something of one's own life.
_WORRY = re.compile(
    r"^(?:i'm|i\s+am|im)\s+(?:really\s+|so\s+|a\s+bit\s+|quite\s+|very\s+|pretty\s+|kinda\s+|"
    r"kind\s+of\s+|a\s+little\s+|super\s+)?(?P<how>worried|anxious|nervous|stressed|scared|"
    r"worried\s+sick|stressing|freaking\s+out)\s+(?:about|for|over)\s+"
    r"(?P<what>(?:my|our)\s+[\w' -]+?)$",
    re.I,
)


def match_worry(clause: str) -> list[Fact]:
    """ "The user is worried about their mum's surgery next week." (a feeling)."""
    m = _WORRY.match(clause.strip(" .!"))
    if m is None:
        return []
    what = third_person(m["what"])
    topic = topic_key(re.sub(r"^(?:their|our)\s+", "", what))[:40] or "worry"
    content = f"The user is {m['how'].lower()} about {what}."
    tags = ("feeling", f"topic:{topic}")
    return [Fact("user", "knowledge", content, tags, f"feeling:{topic}", 0.55)]


#: A claim taken back in words that can only mean it was said in jest: "just kidding about
#: the dragon", "I was joking about my twin", "the dragon thing was a joke", "I don't really
#: have a dragon lol", "I didn't mean it about the degree".
_TAKEN_BACK = re.compile(
    r"\b(?:kidding|joking|jk|lying)\s+about\s+(?:the|that|my|our|having\s+an?|having)\s+"
    r"(?P<b>[\w' -]{2,30}?)(?:\s+(?:lol|haha|thing|bit))?[.!]*$"
    r"|\b(?:the|that|my|our)\s+(?P<a>[\w' -]{2,30}?)\s+(?:thing|bit|story|claim)\s+(?:was|is)\s+"
    r"(?:just\s+|only\s+)?a\s+joke\b"
    r"|\bi\s+(?:don'?t|do\s+not)\s+(?:really|actually)\s+have\s+(?:an?|the|any)\s+"
    r"(?P<c>[\w' -]{2,30}?)\s+(?:lol|haha\w*|lmao)[.!]*$"
    r"|\bdidn'?t\s+(?:really\s+)?mean\s+(?:it\s+about|what\s+i\s+said\s+about)\s+(?:the|that|my|our)\s+"
    r"(?P<d>[\w' -]{2,30}?)(?:\s+(?:lol|haha|thing|bit))?[.!]*$",
    re.I,
)
#: "the dragon was a joke", "... made up": said of a claim, it takes it back; said of a real
#: thing ("my degree was a joke", "my boss is a joke", "my marriage was a lie") it says the
#: thing was bad, so it takes back only what has no life outside the claim
#: (:func:`_only_a_claim`).
_WAS_A_JOKE = re.compile(
    r"\b(?:the|that|my|our)\s+(?P<a>[\w' -]{2,30}?)\s+(?:thing\s+)?(?:was|is)\s+"
    r"(?:just\s+|only\s+)?(?:a\s+joke|a\s+lie|made\s+up|not\s+real|not\s+true)\b",
    re.I,
)
#: What a person claims of themselves, and so may take back as a joke; "the meeting was a
#: joke" says a plan went badly, not that it was made up.
_CLAIMED = frozenset(["profile", "relation", "preference"])
_NOISE = frozenset(["the", "a", "an", "my", "our", "pet", "thing"])
#: Someone the person knows: a record of theirs is of a real person, not only a claim.
_PERSON_WORD = re.compile(rf"\b(?:{RELATIONS}|people|person)\b", re.I)


def _only_a_claim(rec: MemoryRecord) -> bool:
    """Whether ``rec`` is a claim with nothing in the world behind it that could go badly:
    not the person's profile (a degree, a job, a home), not a liking, not someone they know
    ("The user has a pet dragon." is one; "The user's boss is called Sam." is not)."""
    if rec.category != "relation":
        return False
    return not _PERSON_WORD.search(rec.content) and not {"people", "family"} & set(rec.tags)


def _the_one_said(
    said: str, existing: Sequence[MemoryRecord], *, claims_only: bool
) -> MemoryRecord | None:
    """The one live record of the person's own whose words hold every word of ``said``."""
    wanted = {w for w in re.findall(r"[\w']+", said.lower()) if w not in _NOISE}
    found = [
        r
        for r in existing
        if r.scope == "user"
        and is_live(r)
        and r.category in _CLAIMED
        and not r.open_loop
        and wanted
        and wanted <= set(re.findall(r"[\w']+", r.content.lower()))
        and (not claims_only or _only_a_claim(r))
    ]
    return found[0] if len(found) == 1 else None


def joke_writes(text: str, existing: Sequence[MemoryRecord]) -> list[WriteOp]:
    """The record a message takes back as a joke, by what the joke was about: the one live
    record of the person's own whose words hold every word named ("the dragon" -> "The user
    has a pet dragon."), said again as not true; [] when none or several hold them. "X was a
    joke" alone takes back only a claim (:func:`_only_a_claim`): "my degree was a joke"
    leaves the degree."""
    said = [(m["a"] or m["b"] or m["c"] or m["d"] or "", False) for m in _TAKEN_BACK.finditer(text)]
    said += [(m["a"], True) for m in _WAS_A_JOKE.finditer(text)]
    out: list[WriteOp] = []
    for what, claims_only in said:
        rec = _the_one_said(what, existing, claims_only=claims_only)
        if rec is None or any(w.entry.supersedes_id == rec.id for w in out):
            continue
        said_of = rec.content.strip().rstrip(".")
        entry = WriterEntry(
            content=f"Not true, said as a joke: {said_of[:1].lower()}{said_of[1:]}.",
            tags=["joke", *(t for t in rec.tags if t.startswith("topic:"))],
            salience=rec.salience,
            supersedes_id=rec.id,
            source_quote=[f"User message: '{text.strip()[:200]}'"],
        )
        out.append(WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry))
    return out


__all__ = ["base_verb", "everyday", "joke_writes", "match_hometown", "match_worry"]
