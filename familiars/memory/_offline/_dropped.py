"""Changes of life and plan by the value they name: "i quit starbucks, im doing deliveries
for doordash now", "me and priya broke up", "scratch the Lanzarote thing, we've decided on
Tenerife instead".

:mod:`._changes`, :mod:`._shifts` and :mod:`._misread` take back records of the slots they
know (likes, home, workplace, job, pets). A message that ends something often names only its
value, and the record that holds the value may be of any kind (a job kept as a state, a trip
kept as a plan, a partner kept as a relation). Here the ending is read by its verb ("quit",
"left", "broke up with", "scratch", "is off"), the live record is the one whose words hold
every word of the value named, and it is superseded (history kept):

- by what the message says instead: a fact the writer found in another clause takes its
  place; else the clause itself, said of the person ("The user is doing deliveries for
  doordash."); a plan whose place was named gets the new place in the same sentence;
- by nothing: the record says it is over ("no longer"; for a partner, that they broke up).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._clauses import _sentence_clauses
from familiars.memory._offline._objects import Fact, third_person, topic_key
from familiars.memory._offline._objects import _words as _word_list
from familiars.memory._offline._patterns import _third_singular
from familiars.memory._records import MemoryRecord, is_live
from familiars.memory._writer._schema import WriteOp, WriterEntry

_LEAD = r"(?:^|\b(?:actually|so|but|and|well|ok|okay|oh)\b[\s,]*)"
_TAIL_WORDS = (
    r"(?:\s+(?:last\s+\w+|yesterday|today|this\s+\w+|for\s+good|now|anymore|any\s+more|"
    r"after\s+all|in\s+the\s+end))+"
)
#: A breakup says "up" and nothing after it but when, or a clause of its own ("... broke up
#: last month so thats been rough": tester s39), a filler ("split up last month tbh"); "broke
#: up the fight" is none.
_UP = (
    rf"\s+up(?:{_TAIL_WORDS})?(?:\s+(?:tbh|tho|though|lol|lmao|haha|honestly|ngl|fr|smh)\b)*"
    r"(?:\s+(?:so|and|but|which|because|cos|and\s+now)\b.*)?$"
)
#: "me and", "me n", "me &".
_AND = r"\s+(?:and|n|&)\s+"
#: The relation said before the partner's name: "me and my gf Priya broke up".
_MY_REL = r"(?:my\s+(?:gf|bf|girlfriend|boyfriend|partner|husband|wife|hubby|fianc[eé]e?)\s+)?"
#: Two people no longer together: "are not together anymore", "aren't together now".
_APART = (
    r"\s+(?:are|'re|r|aren't|arent)\s+(?:not\s+|no\s+longer\s+)?together\s+"
    r"(?:any\s?more|now|no\s+more)|\s+(?:are|'re|r)\s+no\s+longer\s+together\b"
)
#: Two people who are over: "are done", "r done fr this time", "'re over" (never "done with
#: the dishes", "over at mine").
_DONE = (
    r"\s+(?:are|r|'re)\s+(?:so\s+|totally\s+|officially\s+)?(?:done|over|through|finished)\b"
    r"(?!\s+(?:with|by|at|in|the|to|there|here)\b)"
)
#: Endings that name what ended (``obj``), by the kind of record each may end: a job or the
#: person's home ("quit", "left"), a plan ("scratch", "is off"), a partner ("broke up").
_ENDS = [
    (kind, re.compile(p, re.I))
    for kind, p in (
        (
            "left",
            rf"(?:{_LEAD}(?:i|we)(?:\s+have|'ve|\s+just|\s+finally)*\s+|^)(?:quit|quitted|left|ditched|"
            r"packed\s+in|jacked\s+in|chucked\s+in|walked\s+out\s+of)\s+(?P<job>my\s+job\s+at\s+|"
            r"the\s+job\s+at\s+|my\s+job\s+with\s+|working\s+(?:at|for)\s+)?(?P<obj>.+)$",
        ),
        (
            "plan",
            rf"{_LEAD}(?:scratch|scrap|ditch|bin|nix|drop)\s+(?:the|that|our|my)\s+(?P<obj>.+?)"
            r"(?:\s+(?:thing|idea|plan|plans|trip|holiday|one|bit))?$",
        ),
        (
            "partner",
            rf"\b(?:me|i){_AND}{_MY_REL}(?P<rel>[A-Za-z][\w'-]+)\s+(?:have\s+|'ve\s+)?"
            rf"(?:broke|broken|split){_UP}",
        ),
        ("partner", rf"\b(?:me|i){_AND}{_MY_REL}(?P<rel>[A-Za-z][\w'-]+)(?:{_DONE}|{_APART})"),
        ("partner", rf"^{_MY_REL}(?P<rel>[A-Za-z][\w'-]+){_AND}(?:i|me)(?:{_DONE}|{_APART})"),
        (
            "partner",
            rf"(?:^|\b(?i:my)\s+\w+\s+)(?-i:(?P<rel>[A-Z][\w'-]+))\s+(?:just\s+)?dumped\s+me\b"
            r"|\bi\s+(?:just\s+|finally\s+)?(?:dumped|ended\s+(?:things|it)\s+with)\s+"
            rf"{_MY_REL}(?P<rel2>[A-Za-z][\w'-]+)",
        ),
        (  # said in passing: "since me and Marco broke up ive been ...", "ever since Abena
            # dumped me ..."; the clause goes on after the break-up
            "partner",
            rf"\bsince\s+(?:(?:me|i){_AND}{_MY_REL}(?P<rel>[A-Za-z][\w'-]+)|"
            r"(?-i:(?P<rel2>[A-Z][\w'-]+))\s+and\s+(?:i|me))\s+(?:have\s+|'ve\s+)?"
            r"(?:broke|broken|split)\s+up\b(?!\s+(?:with|the|a|an)\b)",
        ),
        (
            "partner",
            r"\bsince\s+(?:my\s+\w+\s+)?(?-i:(?P<rel>[A-Z][\w'-]+))\s+(?:just\s+)?dumped\s+me\b",
        ),
        (
            "partner",
            r"^(?P<rel>[A-Za-z][\w'-]+)\s+(?:is|'s)\s+(?:old\s+news|history|ancient\s+history|"
            r"out\s+of\s+the\s+picture)\b",
        ),
        (
            "partner",
            rf"(?-i:\b(?P<rel>[A-Z][\w'-]+))\s+and\s+(?:i|me)\s+(?:have\s+|'ve\s+)?"
            rf"(?:broke|broken|split){_UP}",
        ),
        (
            "partner",
            r"\b(?:i|we)(?:\s+have|'ve|\s+just)*\s+(?:broke|broken|split)\s+up\s+with\s+"
            r"(?:my\s+\w+\s+)?(?P<rel>[A-Za-z][\w'-]+)",
        ),
        (
            "plan",
            r"^(?:the\s+)?(?P<obj>[\w' -]+?)(?:\s+(?:thing|trip|plan|holiday))?\s+(?:is|'s)\s+"
            r"(?:off|cancell?ed)$",
        ),
    )
]
_TAIL = re.compile(rf"{_TAIL_WORDS}$", re.I)
#: Said of a day, "left" is a trip, not a move ("I left Leeds this morning").
_A_DAY = re.compile(r"\b(?:yesterday|today|tonight|this\s+(?:morning|afternoon|evening))\b", re.I)
#: "monday is off" is a day off, not a plan called off.
_WHEN_ONLY = re.compile(
    r"^(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tomorrow|tonight|the\s+weekend|"
    r"weekend|work|school|college|uni)$",
    re.I,
)
#: What each kind of ending may end, by the record's words and tags.
_PARTNER = re.compile(
    r"^The user's (?:partner|boyfriend|girlfriend|husband|wife|spouse|hubby|fianc[eé]e?)\b"
)
_JOB = re.compile(r"^The user (?:works|is working|has a job)\b")
_HOME = re.compile(r"^The user lives in\b")
_NOISE = frozenset(_word_list("a an the my our job work thing plan trip idea one on at in of to"))
#: What says a clause is an ending, not the new value.
_OVER = re.compile(r"n't\b|\b(?:not|no\s+longer|never|any\s?more|quit|left|broke|split)\b", re.I)
_NEW_LEAD = re.compile(
    r"^(?:(?:and|but|so|now|instead|actually|well)\s*,?\s+)*"
    r"(?:(?:we|i)(?:'ve|\s+have)?\s+(?:now\s+)?(?:decided\s+on|gone\s+for|chosen|picked|"
    r"booked|settled\s+on|going\s+for|going\s+with)\s+)?",
    re.I,
)
_NEW_TAIL = re.compile(r"(?:\s+(?:now|instead|these\s+days|nowadays|for\s+now))+$", re.I)
_PLACE = re.compile(r"(?-i:\b([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))")
_CALLED = re.compile(r"^The user's (?P<rel>[\w' -]+?) is called (?P<name>[\w' -]+?)\.$")
#: A partner's record and the name it gives: "The user's girlfriend is called Priya.".
_PARTNER_NAMED = re.compile(
    r"^The user's (?:partner|boyfriend|girlfriend|husband|wife|spouse|hubby|fianc[eé]e?)"
    r"(?: is called | )(?P<name>[A-Z][\w'-]+)"
)
#: "The user's partner Dev is a paramedic.": the person named right after the relation.
_NAMED_REL = re.compile(r"^The user's (?P<rel>[a-z]+) (?P<name>[A-Z][\w'-]+)\b")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w']+", text.lower()) if w not in _NOISE}


def _ending(clause: str) -> tuple[str, bool, frozenset[str]] | None:
    """(what ``clause`` says ended, whether a person was parted from, the kinds of record it
    may end: "partner", "job", "home", "plan"), or None. Each comma part is read: "his name
    is Marcus, Tom is history"."""
    for said in re.split(r"\s*[,;]\s*|\s+-+\s+|\s+[:;]-?[()DPp/|]", clause.strip(" .!,")):
        for kind, pattern in _ENDS:
            m = pattern.search(said)
            if m is None:
                continue
            rel = m.groupdict().get("rel") or m.groupdict().get("rel2")
            obj = _TAIL.sub("", rel or m.group("obj")).strip(" .!")
            if not obj or (kind == "plan" and _WHEN_ONLY.match(obj)):
                return None
            kinds = {kind}
            if kind == "left":
                home = not m.group("job") and not _A_DAY.search(m.group("obj"))
                kinds = {"job", "home"} if home else {"job"}
            return obj, rel is not None, frozenset(kinds)
    return None


def _of_kind(rec: MemoryRecord, kinds: frozenset[str]) -> bool:
    """Whether ``rec`` is a record of one of ``kinds`` (see :func:`_ending`)."""
    content, tags = rec.content.strip(), set(rec.tags)
    return (
        ("partner" in kinds and rec.category == "relation" and bool(_PARTNER.match(content)))
        or ("job" in kinds and rec.category == "profile" and bool(tags & {"job", "work"}))
        or ("job" in kinds and rec.category == "profile" and bool(_JOB.match(content)))
        or ("home" in kinds and ("home" in tags or bool(_HOME.match(content))))
        or ("plan" in kinds and ("plan" in tags or rec.category == "event"))
    )


def _record_of(
    obj: str, kinds: frozenset[str], existing: Sequence[MemoryRecord], taken: set[str]
) -> MemoryRecord | None:
    """The one live record of the person's own, of ``kinds``, whose words hold every word of
    ``obj``; None when there is none, when several are (which one is meant is not known), or
    when it was already changed this turn."""
    wanted = _words(obj)
    if not wanted:
        return None
    found = [
        r
        for r in existing
        if r.scope == "user"
        and is_live(r)
        and not r.open_loop
        and _of_kind(r, kinds)
        and wanted <= _words(r.content.replace("'s ", " "))
    ]
    if len(found) != 1 or found[0].id in taken:
        return None
    return found[0]


def _as_said(clause: str) -> str | None:
    """ "im doing deliveries for doordash now" -> "The user is doing deliveries for doordash."."""
    said = re.split(r"\s*[,;]\s*|\s+-+\s+", clause.strip(" .!,"))[0]  # ", van from 4am"
    said = _NEW_TAIL.sub("", _NEW_LEAD.sub("", said)).strip()
    said = re.sub(r"^im\b", "i'm", said, flags=re.I)
    if not re.match(r"^(?:i|i'm|i've|i\s+am)\b", said, re.I):
        return None
    they = third_person(said)
    m = re.match(r"^they\s+(?:are|'re)\s+(.+)$", they) or re.match(r"^they've\s+(.+)$", they)
    if m is not None:
        verb = "is" if they.startswith("they are") or "'re" in they[:8] else "has"
        return f"The user {verb} {m.group(1)}."
    m = re.match(r"^they\s+(\w+)\s+(.+)$", they)
    return f"The user {_third_singular(m.group(1))} {m.group(2)}." if m else None


def _over(rec: MemoryRecord, parted: bool) -> str:
    """What ``rec`` says once it is over, said of the person."""
    content = rec.content.strip()
    called = _CALLED.match(content) or _NAMED_REL.match(content)
    if parted and called is not None:
        name, rel = called.group("name"), called.group("rel")
        return f"The user and {name} have broken up; {name} is no longer their {rel}."
    m = re.match(r"^The user is (.+)$", content)
    if m is not None:
        return f"The user is no longer {m.group(1)}"
    m = re.match(r"^The user (\w+) (.+)$", content)
    return f"The user no longer {m.group(1)} {m.group(2)}" if m else f"No longer so: {content}"


def _new_content(
    rec: MemoryRecord, obj: str, others: Sequence[str]
) -> tuple[str, tuple[str, ...]] | None:
    """The record that takes ``rec``'s place, from the clauses ``others`` of the message, and
    its tags: a named place swapped in the plan's own sentence, else a clause said of the
    person."""
    for clause in others:
        if _OVER.search(clause):
            continue
        places = [p for p in _PLACE.findall(clause) if p not in ("I", "I'm", "Actually")]
        if obj[:1].isupper() and places and obj in rec.content:
            new = places[-1]
            tags = tuple(t for t in rec.tags if t != f"topic:{topic_key(obj)}")
            return rec.content.replace(obj, new), (*tags, f"topic:{topic_key(new)}")
        said = _as_said(clause)
        if said is not None:
            tags = tuple(t for t in rec.tags if not t.startswith("topic:"))
            return said, (*tags, f"topic:{topic_key(said.split(' ', 3)[-1][:40])}")
    return None


def dropped_writes(
    text: str, existing: Sequence[MemoryRecord], writes: list[WriteOp], taken: set[str]
) -> list[WriteOp]:
    """The updates for what ``text`` says ended (see the module docstring). ``writes`` are
    the turn's other writes: an ``add`` from another clause is made to take the ended
    record's place; ``taken``: records already retired this turn (grows)."""
    out: list[WriteOp] = []
    # a sentence too, as the clauses may part its subject ("Tom and I are done")
    clauses = [c for s, group in _sentence_clauses(text) for c in (*group, s)]
    for clause in clauses:
        ended = _ending(clause)
        rec = _record_of(ended[0], ended[2], existing, taken) if ended else None
        if ended is None or rec is None:
            continue
        taken.add(rec.id)
        quote = [f"User message: '{text.strip()[:200]}'"]
        added = [w for w in writes if w.op == "add" and w.category == rec.category != "event"]
        if added and not ended[1]:
            added[0].op, added[0].entry.supersedes_id = "update", rec.id
            continue
        # "scratch the Lanzarote thing, we've decided on Tenerife instead" is one clause
        rest = [p for p in re.split(r"\s*[,;]\s*|\s+-+\s+", clause)[1:] if p]
        others = [*rest, *(c for c in clauses if c is not clause)]
        new = None if ended[1] else _new_content(rec, ended[0], others)
        content, tags = new if new else (_over(rec, ended[1]).rstrip(".") + ".", tuple(rec.tags))
        entry = WriterEntry(
            content=content,
            tags=list(dict.fromkeys([*tags, *(["ended"] if new is None else [])])),
            salience=rec.salience,
            epistemic_status="asserted",
            supersedes_id=rec.id,
            source_quote=quote,
        )
        out.append(WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry))
    return out


def parted_from(text: str) -> set[str]:
    """The names of the partners ``text`` says the person broke up with, lower case: a
    partner named with the break-up is no partner now ("me and my gf Priya broke up last
    month" kept "The user's girlfriend is called Priya.": tester s39)."""
    clauses = [c for s, group in _sentence_clauses(text) for c in (*group, s)]
    return {e[0].lower() for c in clauses if (e := _ending(c)) is not None and e[1]}


def together_only(facts: Sequence[Fact], text: str) -> list[Fact]:
    """``facts`` less a partner's record that names one ``text`` says they parted from."""
    parted = parted_from(text) if facts else set()
    return [
        f
        for f in facts
        if not (
            parted
            and f.category == "relation"
            and (m := _PARTNER_NAMED.match(f.content)) is not None
            and m["name"].lower() in parted
        )
    ]


__all__ = ["dropped_writes", "parted_from", "together_only"]
