"""Where someone the person knows lives or works, said without their name (F8): "my brother
lives in Hull", "my mum works at Tesco", "our son moved to Leeds". With a name ("my sister
Ana lives in York") the people rules read it; without one the learned reading took the place
for a name ("your brother lives in is called Hull"), and "where does my brother live?" then
had nothing right to answer with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from familiars.memory._offline._birthdays import RELATIONS, relation_kind
from familiars.memory._offline._objects import Fact, _words, topic_key
from familiars.memory._records import MemoryRecord, is_live, parse_ts

_PLACE_OF = re.compile(
    r"^(?:my|our)\s+(?P<mod>(?:older|elder|younger|little|big|baby|best|eldest|youngest|old)\s+)?"
    rf"(?P<rel>{RELATIONS})\s+(?P<verb>lives|works|is\s+living|is\s+working|moved|has\s+moved)"
    r"\s+(?P<prep>in|at|to|for|near)\s+(?P<place>(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*){0,3})"
    r"(?:\s+(?:now|these\s+days|nowadays))?\s*[.!]*$",
    re.IGNORECASE,
)


def match_relative_place(clause: str) -> Fact | None:
    """ "The user's brother lives in Hull." for "my brother lives in Hull"; None else, and
    None for someone outside the family ("my colleague works at Google"): their life, not
    the person's, as a friend's dog is."""
    m = _PLACE_OF.match(clause.strip())
    if m is None or relation_kind(m.group("rel")) != "family":
        return None
    rel = ((m.group("mod") or "") + m.group("rel")).lower()
    verb = re.sub(r"\s+", " ", m.group("verb").lower())
    content = f"The user's {rel} {verb} {m.group('prep').lower()} {m.group('place')}."
    topic = topic_key(m.group("rel"))
    kind = relation_kind(m.group("rel"))
    return Fact("user", "relation", content, (kind, f"topic:{topic}"), f"{kind}:{topic}:place", 0.7)


def one_record_per_someone(facts: list[Fact]) -> list[Fact]:
    """``facts`` without a liking of someone named in another of them (F21): "I really love
    my dog Biscuit" was noted twice, as "The user likes their dog Biscuit." beside "The
    user's dog is called Biscuit."; the naming record is the one kept."""
    named = {
        tag.removeprefix("topic:")
        for f in facts
        if "likes" not in f.tags
        for tag in f.tags
        if tag.startswith("topic:")
    }
    return [
        f
        for f in facts
        if "likes" not in f.tags
        or not any(f.key.startswith("topic:") and f.key.endswith("-" + n) for n in named)
    ]


_HE = frozenset(
    _words(
        "brother son husband dad father boyfriend uncle nephew grandson grandad grandpa",
        "grandfather stepdad stepson fiance",
    )
)
_SHE = frozenset(
    _words(
        "sister daughter wife mum mom mother girlfriend aunt niece granddaughter gran grandma",
        "granny grandmother stepmum stepdaughter fiancee",
    )
)
#: A sentence or a line that opens with a member and their name: "my brother Dan lives ...".
_NAMED_MEMBER = re.compile(
    r"^\W*(?P<who>(?:my|our)\s+(?P<rel>[a-z]+)\s+(?-i:[A-Z][a-zà-ÿ'-]+))\b", re.I
)
#: The next one, opening with "he" or "she": "and he has a greyhound called Pixie".
_PRONOUN_OPENS = re.compile(r"^\W*(?:(?:and|also|plus)\s+)?(?P<pro>he|she)(?:'s|\s+)\S", re.I)


def pronouns_joined(text: str) -> str:
    """``text`` with a line or sentence that opens with "he"/"she" right after one that named
    a member joined to it by "and", as if said in one ("my brother Dan lives in Leeds\nand he
    has a greyhound called Pixie" -> "... Leeds and he has ..."), so that what is said of
    the member is kept with them; only the pronoun that fits the member is joined."""
    parts = re.split(r"((?<=[.!?])\s+|\s*\n+\s*)", text)
    for n in range(2, len(parts), 2):
        named = _NAMED_MEMBER.match(parts[n - 2])
        m = _PRONOUN_OPENS.match(parts[n])
        if named is None or m is None:
            continue
        rel, pro = named.group("rel").lower(), m.group("pro").lower()
        if (pro == "he" and rel in _HE) or (pro == "she" and rel in _SHE):
            parts[n - 2] = parts[n - 2].rstrip(" .!")
            parts[n - 1] = " and "
            parts[n] = parts[n][m.start("pro") :]
    return "".join(parts)


#: "her name is Meimei", "his name's Kai": a name said of someone by a pronoun.
_PRONOUN_NAME = re.compile(r"\b(?P<pro>her|his)\s+name(?=\s+is\b|'s\b)", re.I)
#: A member the message names: "my daughter", or one the person says they have ("I have a
#: son", "i got a little brother"): "a son" alone may be anyone's ("my friend has a son").
#: A member someone else has: "my friend has a son", "my sister's got a daughter".
_THEIR_MEMBER = re.compile(
    r"\b(?!(?:i|we)\b)[\w']+\s+(?:has|had|'s\s+got|has\s+got)\s+an?\s+"
    r"(?:(?:little|older|elder|younger|big|baby|new|teenage|twin|grown[\s-]up)\s+)?(?P<rel>[a-z]+)\b",
    re.I,
)
_MY_MEMBER = re.compile(
    r"\b(?:my|(?:i|we)\s+(?:have|had|got|'ve\s+got)(?:\s+got)?\s+an?|i've\s+got\s+an?)\s+"
    r"(?:(?:little|older|elder|younger|big|baby|new|teenage|twin|grown[\s-]up)\s+)?(?P<rel>[a-z]+)\b",
    re.I,
)

#: A member said new at the head of a sentence, the person's own: "ok new gf, her name's
#: Sofia", "new boyfriend! his name is Marcus".
_NEW_MEMBER = re.compile(
    r"(?:^|[.!?]\s+)(?:(?:ok|okay|so|and|well|guess\s+what)\W+)?(?:(?:i\s+)?(?:got|have)\s+a\s+)?"
    r"new\s+(?P<rel>[a-z]+)\b",
    re.I,
)
#: Short words for a partner, said in full.
_IN_FULL = {"gf": "girlfriend", "bf": "boyfriend"}


def pronoun_named(text: str) -> str:
    """``text`` with "her name is"/"his name is" said as the name of the one member of the
    message before it that the pronoun fits ("My daughter is born yesterday!! Her name is
    Meimei" -> "... my daughter's name is Meimei"); as it is when no member or more than
    one fits (then the name is nobody's: never the user's)."""
    m = _PRONOUN_NAME.search(text)
    if m is None:
        return text
    fits = _HE if m.group("pro").lower() == "his" else _SHE
    before = text[: m.start()]
    said = {
        _IN_FULL.get(rel, rel)
        for r in (*_MY_MEMBER.finditer(before), *_NEW_MEMBER.finditer(before))
        if (rel := r.group("rel").lower())
    }
    theirs = {r.group("rel").lower() for r in _THEIR_MEMBER.finditer(before)}
    members = said & fits
    if len(members) != 1 or theirs & fits:  # "my sister has a daughter. her name is Isla"
        return text
    return f"{text[: m.start()]}my {members.pop()}'s name{text[m.end() :]}"


#: How long after "I have a son" a message's "his name is Kai" is still about the son:
#: the next message, said at once ("my colleague is annoying" leaves no record, so a
#: "his name is Dave" ten minutes on would have named the son).
NAMED_AFTER = timedelta(minutes=3)
_HAS_UNNAMED = re.compile(
    r"^The user has an?\s+(?:(?:little|older|elder|younger|big|baby|new|teenage|twin|"
    r"grown[\s-]up)\s+)?(?P<rel>[a-z]+)\.$"
)


def pronoun_named_before(text: str, existing: Sequence[MemoryRecord], now: datetime) -> str:
    """``text`` with "his name is Kai" said as the name of the member the message before it
    said one has ("I have a son", kept as "The user has a son."): only when ``text`` names
    no member itself, the person's newest record is that one, it was kept within
    :data:`NAMED_AFTER`, and the pronoun fits it. Else ``text`` as it is."""
    m = _PRONOUN_NAME.search(text)
    if m is None or _MY_MEMBER.search(text) or _THEIR_MEMBER.search(text):
        return text
    own = [r for r in existing if r.scope == "user" and is_live(r) and parse_ts(r.ts)]
    if not own:
        return text
    newest = max(own, key=lambda r: parse_ts(r.ts) or now)
    said = _HAS_UNNAMED.match(newest.content.strip())
    when = parse_ts(newest.ts)
    if said is None or when is None or not timedelta(0) <= now - when <= NAMED_AFTER:
        return text
    rel = said.group("rel").lower()
    if rel not in (_HE if m.group("pro").lower() == "his" else _SHE):
        return text
    return f"{text[: m.start()]}my {rel}'s name{text[m.end() :]}"
