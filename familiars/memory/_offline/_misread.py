"""Facts a clause seems to give but does not: what the offline writer must not keep.

Read after the rules and the meaning model have found a clause's facts, so every reader's
slip is caught in one place (:func:`misread`):

- a clause about the familiar, not the person: "from now on your name is Bob", "I'll call
  you Bob" name the bot; the person's own name is not touched;
- a clause that says something is over ("I've stopped being vegetarian", "I don't have a
  dog anymore", "Biscuit passed away"): a fact that says it as current is the opposite of
  what was said; only a fact that says it is over ("no longer", "doesn't") is kept. The
  record it takes back is retired by :func:`~._changes.revise`, as a correction is;
- a workplace that is a time or a class: "I started my shift at seven today", "I started
  at Pilates last week" say when or what, not where one works.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._clauses import _sentence_clauses
from familiars.memory._offline._kept import live_of
from familiars.memory._offline._objects import Fact
from familiars.memory._offline._superseding import superseding
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp

#: The clause speaks of the familiar's name (it is the familiar that is named).
_FAMILIARS_NAME = re.compile(
    r"\b(?:your|ur)\s+(?:new\s+)?name\s+(?:is|will\s+be|shall\s+be|'s|should\s+be)\b"
    r"|\byou(?:'re|\s+are|\s+will\s+be|'ll\s+be)\s+(?:now\s+)?(?:called|named|known\s+as)\b"
    r"|\b(?:i'?ll|i\s+will|i'?m\s+going\s+to|i'?m\s+gonna|let\s+me|can\s+i|i\s+shall|we'?ll)"
    r"\s+call\s+you\b|\bcall\s+yourself\b|\bi\s+(?:name|christen|dub)\s+(?:you|thee)\b",
    re.IGNORECASE,
)
#: The clause says a state, a habit or a having is over.
_OVER = re.compile(
    r"\b(?:any\s?more|no\s+longer|not\s+any\s+longer)\b"
    r"|\b(?:stopped|quit|gave\s+up|given\s+up|give\s+up)\s+(?:being|having|owning)\b"
    r"|\bused\s+to\s+(?:be|have|own)\b"
    r"|\b(?:passed\s+away|passed\s+on|died|put\s+(?:down|to\s+sleep)|ran\s+away|was\s+rehomed)\b",
    re.IGNORECASE,
)
#: A fact that says the thing is over, or not so.
_SAYS_OVER = re.compile(
    r"\b(?:no\s+longer|doesn't|does\s+not|isn't|is\s+not|not|never|used\s+to|stopped|quit|"
    r"late|died)\b",
    re.IGNORECASE,
)
_WORK = re.compile(r"^The user works at (?P<org>.+?)\.?$")
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight|dawn|"
    "half\\s+past\\s+\\w+|quarter\\s+(?:past|to)\\s+\\w+"
)
#: An "employer" that is a time of day: "seven", "7am", "7:30", "half past six".
_A_TIME = re.compile(
    rf"^(?:about\s+|around\s+)?(?:\d{{1,2}}(?:[:.]\d{{2}})?\s*(?:am|pm|a\.m\.|p\.m\.)?|"
    rf"(?:{_NUMBER_WORDS})(?:\s+(?:o'?clock|thirty|fifteen|forty[-\s]five))?)"
    r"(?:\s+(?:o'?clock|sharp|today|tonight|this\s+\w+|last\s+\w+|yesterday|in\s+the\s+\w+))*$",
    re.IGNORECASE,
)
#: What one starts at that is a class or a pastime, not an employer.
_A_CLASS = re.compile(
    r"^(?:the\s+|a\s+|my\s+)?(?:pilates|yoga|zumba|spin|crossfit|gym|swimming|karate|judo|"
    r"boxing|dance|dancing|ballet|salsa|choir|book\s+club|evening\s+class(?:es)?|night\s+school|"
    r"class(?:es)?|lessons?|classes|course|the\s+gym|aerobics|kickboxing|tai\s+chi|running\s+club|"
    r"parkrun|bootcamp|boot\s+camp)\b",
    re.IGNORECASE,
)
#: A clause whose "at" says when the working (or a shift) began, not where.
_SHIFT_AT = re.compile(
    r"\b(?:started|start|began|begin|finished|finish|ended|end|clocked\s+(?:in|on|off|out))\s+"
    r"(?:my\s+|the\s+|a\s+)?(?:(?:early|late|night|day|long|double)\s+)?"
    r"(?:shift|work|day|rota|stint|round)\b",
    re.IGNORECASE,
)


def about_the_familiar(clause: str) -> bool:
    """Whether ``clause`` names the familiar ("your name is Bob", "I'll call you Bob")."""
    return _FAMILIARS_NAME.search(clause) is not None


def says_over(clause: str) -> bool:
    """Whether ``clause`` says something of the person is over ("I don't have a dog
    anymore", "I've stopped being vegetarian", "Biscuit passed away")."""
    return _OVER.search(clause) is not None


def not_an_employer(org: str, clause: str) -> bool:
    """Whether the workplace ``org`` read from ``clause`` is a time ("seven today"), a class
    ("Pilates last week") or the "at" of a shift's start ("I started my shift at ...")."""
    org = org.strip(" .,!")
    return bool(_A_TIME.match(org) or _A_CLASS.match(org) or _SHIFT_AT.search(clause))


def misread(fact: Fact, clause: str) -> bool:
    """Whether ``fact``, read from ``clause``, says what the clause does not (see above)."""
    if fact.scope == "user" and fact.key == "name" and about_the_familiar(clause):
        return True
    if fact.open_loop is None and says_over(clause) and not _SAYS_OVER.search(fact.content):
        return True
    work = _WORK.match(fact.content) if fact.key == "work" else None
    return work is not None and not_an_employer(work.group("org"), clause)


_IS = re.compile(r"^The user is (?P<what>[\w' -]+?)\.$")
#: A name, and what the record says of them after it ("Mr Darcy, who is a Maine Coon").
_CALLED = re.compile(
    r"^The user's (?P<who>[\w' -]+?) is called (?P<name>[\w' -]+?)(?:,\s+[^.]+)?\.$"
    r"|^The user has an? (?P<who2>[\w' -]+?) (?:called|named) (?P<name2>[\w' -]+?)"
    r"(?:,\s+[^.]+)?\.$"
)
_DIED = re.compile(r"\b(?:passed\s+away|passed\s+on|died|put\s+(?:down|to\s+sleep))\b", re.I)
#: The person as the one speaking before what ended ("I've stopped being ...").
_I = re.compile(r"\bi\b|\bi'|\bwe\b|\bwe'", re.I)
#: Someone else's before it ("my mum used to be a nurse", "Emma's cat died").
_SOMEONE_ELSES = re.compile(r"\b(?:my|his|her|their|our|your)\s+[\w-]+|\w's\b", re.I)
_NOT_HAVING = re.compile(
    r"\b(?:(?:don't|dont|do\s+not|no\s+longer)\s+(?:have|own)|haven't\s+got|have\s+no)\b"
    r"|\b(?:stopped|quit|gave\s+up)\s+(?:having|owning)\b|\bused\s+to\s+(?:have|own)\b",
    re.I,
)


def _ended_content(rec_content: str, clause: str) -> str | None:
    """What a kept record says once ``clause`` has said it is over; None when the clause
    does not speak of it: "The user is vegetarian." after "I've stopped being vegetarian" is
    "The user is no longer vegetarian."; "The user's dog is called Biscuit." after "I don't
    have a dog anymore" or "Biscuit passed away" is that the dog is no longer theirs (it died)."""
    state = _IS.match(rec_content)
    if state is not None:
        what = re.escape(state.group("what"))
        said = rf"\b(?:being|not|no\s+longer|n't\s+be|used\s+to\s+be)\s+(?:an?\s+)?{what}\b"
        m = re.search(said, clause, re.I)
        if m is not None and _said_of_me(clause[: m.start()]):
            return f"The user is no longer {state.group('what')}."
        return None
    called = _CALLED.match(rec_content)
    if called is None:
        return None
    who = called.group("who") or called.group("who2")
    name = called.group("name") or called.group("name2")
    # Who it is must come first, as the one it happened to: "Biscuit passed away", "my dog
    # died"; never "Emma's cat died" or "my neighbour's dog died, it was called Biscuit".
    subject = (
        rf"\b(?:{re.escape(name)}|(?:my|our)\s+(?:\w+\s+)?{re.escape(who.split()[-1])})\b(?!'s)"
    )
    died = _DIED.search(clause)
    if died is not None and re.search(subject, clause[: died.start()], re.I):
        return f"The user no longer has their {who} {name} (it died)."
    gone = _NOT_HAVING.search(clause)
    kind = rf"\b(?:an?|my|our)\s+{re.escape(who.split()[-1])}\b|\b{re.escape(name)}\b"
    if gone is not None and _said_of_me(clause[: gone.start()]) and re.search(kind, clause, re.I):
        return f"The user no longer has their {who} {name}."
    return None


def _said_of_me(before: str) -> bool:
    """Whether what comes before the words that say it ended makes it the person's own."""
    return _I.search(before) is not None and _SOMEONE_ELSES.search(before) is None


def ended_writes(text: str, existing: Sequence[MemoryRecord], taken: set[str]) -> list[WriteOp]:
    """Updates retiring the live records ``text`` says are over (see :func:`_ended_content`);
    a record whose id is in ``taken`` is already retired by another write of the turn."""
    out: list[WriteOp] = []
    clauses = [c for _, group in _sentence_clauses(text) for c in group]
    over = [c for c in clauses if says_over(c) or _DIED.search(c)]
    for rec in live_of(existing) if over else []:
        if rec.id in taken or rec.scope != "user":
            continue
        ended = [c for c in (_ended_content(rec.content.strip(), cl) for cl in over) if c]
        if not ended:  # a death said in one clause is the word kept ("no dog now. he died")
            continue
        content = next((c for c in ended if c.endswith("(it died).")), ended[0])
        out.append(superseding(rec, content, text))
        taken.add(rec.id)
    return out
