"""Yes-or-no questions about one thing: "do I have diabetes?" asks whether the person has
diabetes, so a record that does not say it is no answer, however near its kind ("you take
sertraline for your low mood" answered it: tester s38). The kinds of record the answers by
meaning already tell apart ("do I have a pet?", "am I married?") are no such thing: any
record of that kind answers them."""

from __future__ import annotations

import re

from familiars.memory._offline._objects import _words

#: "do I have ...", "am I ...", "is my ...", "have I got ...".
_POLAR = re.compile(
    r"^(?:do|does|did|am|is|are|was|were|have|has)\s+(?:i|my|me)\b(?P<rest>.*)$", re.I
)
#: Words that ask, point or count, and the kinds of record the slots already name.
_NOT_THE_THING = frozenset(
    _words(
        "i me my mine a an the any some anything something got get have has had do does did am",
        "is are was were be been being still now currently really ever at all in on of to for",
        "with much many lot lots kind sort type more anymore there here yet too also else",
        "please you know remember think about high low right good bad ok okay fine sure able",
        "allowed supposed going free busy due off out up",
        "pet pets animal animals dog dogs cat cats puppy kitten job jobs work working works",
        "career employed employer kid kids child children son sons daughter daughters baby",
        "family sibling siblings brother brothers sister sisters husband wife partner boyfriend",
        "girlfriend spouse married single parent parents mum mom dad mother father grandchild",
        "grandchildren grandkids name called named home live living house allergy allergies",
        "allergic diet intolerant birthday born old age like likes love loves hate hates enjoy",
        "friend friends",
    )
)


def stem(word: str) -> str:
    """A word's first five letters, lower case: "diabetic" meets "diabetes", "hiking" "hike"
    does not (the one rough stem the answers by meaning compare words by)."""
    return word.lower()[:5]


def asked_thing(question: str) -> frozenset[str] | None:
    """The stems of what a yes-or-no question asks the person has or is ("diabetes"), or
    None when it is not such a question or names only a kind of record ("do I have a dog?")."""
    m = _POLAR.match(question.strip().rstrip("?!. "))
    if m is None:
        return None
    words = {w.lower() for w in re.findall(r"[A-Za-z][\w'-]*", m["rest"])} - _NOT_THE_THING
    return frozenset(stem(w) for w in words if len(w) > 2) or None


def says_thing(content: str, thing: frozenset[str]) -> bool:
    """Whether ``content`` names one of ``thing``'s words."""
    return bool(thing & {stem(w) for w in re.findall(r"[A-Za-z][\w'-]*", content)})
