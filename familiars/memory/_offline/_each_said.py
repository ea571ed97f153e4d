"""Each fact of a longer message in a clause of its own, read after the clause splitter.

A clause the splitter leaves whole may still hold two sayings: one relative after another
("my daughter Rosie is 7 and my husband's called Tom"), what is said of a member by a
pronoun right after their naming ("my husband's called Tom, he's a bus driver" -> "my
husband Tom is a bus driver", so it is kept with Tom), a job said as a bare noun after a dash
("I spend my days fixing teeth - dental hygienist in Leeds"), and a street address before the
town ("I live at 14 Marlow Road, Bristol": the town is the home, the address is kept with it).
"""

from __future__ import annotations

import re
from dataclasses import replace

from familiars.memory._offline._objects import FAMILY, JOBS, Fact, _words

#: "..., and my husband's called Tom": one more member, named by "'s called".
_AND_MY_MEMBER = re.compile(
    r",?\s+and\s+(?=my\s+[a-z]+(?:\s+[a-z]+)?'s\s+(?:called|named|name\s+is|an?\s|\d))", re.I
)
#: A member and their name: "my husband's called Tom", "my husband is called Tom", "my
#: husband Tom ...".
_MEMBER_NAMED = re.compile(
    r"^(?P<my>my|our)\s+(?P<rel>[a-z]+)(?:(?:'s|\s+is)\s+(?:called|named)\s+|\s+)"
    r"(?P<name>(?-i:[A-Z][\w'-]+))(?P<rest>.*)$",
    re.I,
)
#: What follows the naming, said of the member by a pronoun: ", he's a bus driver",
#: " and she works at Tesco".
_PRONOUN_SAYS = re.compile(
    r"^\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?P<pro>he|she)(?P<verb>'s|\s+is|\s+(?-i:[a-z]+s)\b)"
    r"(?P<said>.+)$",
    re.I,
)
_HE = frozenset(
    _words(
        "brother son husband dad father boyfriend uncle nephew grandson grandad grandpa",
        "grandfather stepdad stepson fiance partner",
    )
)
_SHE = frozenset(
    _words(
        "sister daughter wife mum mom mother girlfriend aunt niece granddaughter gran grandma",
        "granny grandmother stepmum stepdaughter fiancee partner",
    )
)
#: "... - dental hygienist in Leeds": a bare noun phrase after a dash.
_DASH_NOUN = re.compile(r"\s+[-–—]+\s+(?P<noun>[a-z][a-z -]{2,40}?)(?P<where>\s+(?:in|at)\s+.+)?$")
#: Someone other than the speaker, whom a bare job after a dash would be of.
_SOMEONE = re.compile(
    rf"\b(?:he|she|they|his|her|their|(?:my|our)\s+(?:\w+\s+)?(?:{'|'.join(sorted(FAMILY))}))\b",
    re.I,
)
#: "I live at 14 Marlow Road, Bristol": a numbered street, then the town.
_ADDRESS = re.compile(
    r"^(?P<lead>(?:i|we)\s+(?:now\s+)?live\s+)at\s+(?P<street>\d+[a-z]?\s+(?:(?-i:[A-Z])[\w'-]*\s+){1,3}"
    r"(?:road|rd|street|st|lane|ln|avenue|ave|drive|dr|close|way|crescent|place|terrace|grove|"
    r"gardens|court|hill|row|square|walk|park)\b\.?),?\s+(?P<town>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)"
    r"(?P<tail>\s+(?:with|now|these\s+days|since|for)\b.*)?$",
    re.I,
)


def each_said(group: list[str]) -> list[str]:
    """``group`` (one sentence's clauses) with every clause cut into the sayings it holds."""
    out: list[str] = []
    for clause in group:
        for part in _AND_MY_MEMBER.split(clause):
            out += _member_and_pronoun(part.strip()) or [_dash_job(_address_town(part.strip()))]
    return [c for c in out if c]


def _member_and_pronoun(clause: str) -> list[str] | None:
    """ "my husband's called Tom, he's a bus driver" -> "my husband's called Tom", "my husband
    Tom is a bus driver"; None when the clause is not a naming and a pronoun that fits."""
    named = _MEMBER_NAMED.match(clause)
    said = _PRONOUN_SAYS.match(named["rest"]) if named else None
    if named is None or said is None:
        return None
    rel, pro = named["rel"].lower(), said["pro"].lower()
    if rel not in (_HE if pro == "he" else _SHE):
        return None
    who = f"{named['my']} {named['rel']} {named['name']}"
    verb = said["verb"].strip()
    verb = " is" if verb in ("'s", "is") else f" {verb}"
    naming = clause[: len(clause) - len(named["rest"])]
    return [naming.strip(), f"{who}{verb}{said['said']}".strip()]


def _dash_job(clause: str) -> str:
    """ "I spend my days fixing teeth - dental hygienist in Leeds" -> "I'm a dental hygienist
    in Leeds" when what follows the dash is a bare known job (else the clause as said)."""
    m = _DASH_NOUN.search(clause)
    if m is None or not any(w in JOBS for w in m["noun"].lower().split()[-2:]):
        return clause
    if _SOMEONE.search(clause[: m.start()]):  # "my sister - nurse in Leeds" is hers
        return clause
    article = "an" if m["noun"][:1] in "aeiou" else "a"
    return f"I'm {article} {m['noun']}{m['where'] or ''}"


def _address_town(clause: str) -> str:
    """ "I live at 14 Marlow Road, Bristol" -> "I live in Bristol" (the address is put back
    on the home by :func:`with_address`)."""
    m = _ADDRESS.match(clause)
    return f"{m['lead']}in {m['town']}{m['tail'] or ''}" if m else clause


def with_address(facts: list[Fact], text: str) -> list[Fact]:
    """``facts`` with the home said with its street kept as said: "The user lives at 14
    Marlow Road, Bristol." (the home is still the town's)."""
    for said in re.split(r"(?<=[.!?;])\s+|\s+and\s+|,\s+(?=(?:i|we)\s)", text):
        m = _ADDRESS.match(said.strip(" .!"))
        if m is None:
            continue
        return [
            replace(f, content=f"The user lives at {m['street']}, {m['town']}.")
            if f.key == "home" and m["town"] in f.content
            else f
            for f in facts
        ]
    return facts
