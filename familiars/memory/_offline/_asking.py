"""Answers by meaning: the kept records a question asks about, found by slot and embedding.

"What's my kitten's name?" asks about a pet (the question model of :mod:`._meaning`), so the
person's live pet records compete, and the one whose sentence is nearest the question wins
("your cat is called Biscuit" over "your horse is called Star"). Only live records answer,
so a superseded fact is never said; when two live records of one slot compete equally, the
newer wins. "What do you know about me?" gets the newest few of every slot. A question that
asks about none of the person's facts, or too unsurely, gets nothing here and the rules
answer as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._kept import Kept, derived_of
from familiars.memory._offline._meaning import Understanding
from familiars.memory._offline._past import when_did
from familiars.memory._offline._polar import asked_thing, says_thing, stem
from familiars.memory._offline._whose import KIN, about_someone_else, fits_whose
from familiars.memory._people_graph import _REL_BARE, relation_of
from familiars.memory._records import MemoryRecord, is_live

#: The tags a record of each slot carries.
SLOT_TAGS = {
    "name": ("name", "nickname"),
    "job": ("job",),
    "workplace": ("work",),
    "home": ("home",),
    "pet": ("pet",),
    "family": ("family", "people"),  # a friend is kept as one of the person's people
    "like": ("likes", "stopped"),
    "dislike": ("dislikes",),
    "allergy": ("allergy", "diet"),
    "birthday": ("birthday",),
}
#: Slots that hold one value at a time: "am I a doctor?" is answered by the job kept ("you
#: work as a nurse"), where "do I have diabetes?" is not answered by another condition.
ONE_VALUE = frozenset({"name", "job", "workplace", "home", "birthday"})
MIN_PROBABILITY = 0.5
#: Records within this much of the best one's similarity are said too (up to MAX_LINES).
MARGIN = 0.08
MAX_LINES = 3
MAX_ABOUT_ME = 10
#: Slots that hold several at once: every one of them is said before older facts of other
#: kinds ("what do you know about me?" named the cat and left out both dogs).
MANY = ("pet", "family")
#: A slot asked about with none kept is answered by its neighbour's: "what's my job?" by
#: "you work at Greggs", "where do I work?" by "you work as a nurse".
_NEAR_SLOT = {"job": "workplace", "workplace": "job"}
#: Slots about the person themselves: a sure question about one with none kept is not
#: answered by a fact that merely shares its words ("what's my name?" never gets the dog's).
OWN_SLOTS = frozenset({"name"})
SURE = 0.8
#: Slots whose wh-question wants what is so, never what is not ("what do I like?"): the
#: tags a record must carry to answer one.
POSITIVE_TAGS = {"like": ("likes",)}
#: A question after every one of a slot that holds several ("what pets have I got?" named
#: the dog and left out the tortoise).
_ASKS_EVERY = re.compile(
    r"\b(?:pets|animals|kids|children|grandchildren|grandkids|cats|dogs|siblings|sisters|"
    r"brothers|daughters|sons|family)\b|\ball\s+(?:of\s+)?my\b",
    re.I,
)
_WH = re.compile(r"^(?:what|what's|whats|which|name)\b", re.I)
#: "do I like hiking?": a yes or no about one thing, answered by the record of that thing
#: (liked, disliked or given up), never by another like (s32 T3).
_DO_I_LIKE = re.compile(
    r"^(?:do|did)\s+i\s+(?:still\s+|really\s+|even\s+)?(?:like|love|enjoy|hate|dislike|mind|"
    r"prefer|adore|drink|eat)\s+(?P<x>.+?)\s*(?:any\s?more|still|now|these\s+days)?\s*\?*$",
    re.I,
)
_LIKING_TAGS = ("likes", "dislikes", "stopped")
#: What a health question asks for: medicines, or every health record.
_MEDS_ASKED = re.compile(
    r"\b(?:medications?|meds|medicines?|pills|tablets|prescriptions?|drugs|inhaler)\b", re.I
)
_HEALTH_ASKED = re.compile(
    r"\b(?:health|conditions?|illness(?:es)?|diagnos\w*|medical|medications?|meds|medicines?|"
    r"pills|tablets|prescriptions?)\b",
    re.I,
)
MAX_HEALTH = 6
#: A health question about someone else ("what meds does my mum take?", "Sam's health").
_RELATIVE_NAMED = re.compile(
    r"\b(?:my|our)\s+(?!own\b|health\b|medical\b|meds\b|medications?\b|"
    r"medicines?\b|pills\b|tablets\b|conditions?\b|prescriptions?\b)\w+|\b(?-i:[A-Z][a-z]+)'s\b",
    re.I,
)


#: Everyday words for a partner and idioms for earning a living, said the plain way before
#: a question's slot is read: the embedder knows "my wife" and "for a living" far better
#: than "the missus" or "to pay the bills".
_PARTNER_WORD = re.compile(
    r"\b(?:the|my|your|ur)\s+(?:missus|missis|wifey|hubby|other\s+half|better\s+half|"
    r"significant\s+other|old\s+man|old\s+lady|fella|feller|bloke)\b",
    re.I,
)
_LIVING = re.compile(
    r"\b(?:to\s+)?(?:pay\s+the\s+bills|earn\s+a\s+crust|bring\s+home\s+the\s+bacon|"
    r"put\s+food\s+on\s+the\s+table|make\s+ends\s+meet|keep\s+the\s+lights\s+on)\b",
    re.I,
)
_SPOUSE_OF = {"missus": "wife", "missis": "wife", "wifey": "wife", "hubby": "husband"}


def plain_question(question: str) -> str:
    """``question`` with a partner's everyday name and a living's idiom said plainly: "who's
    the missus?" -> "who's my wife?", "what do I do to pay the bills?" -> "what do I do for a
    living?"."""

    def partner(m: re.Match[str]) -> str:
        word = m.group(0).split(None, 1)[1].lower()
        return f"my {_SPOUSE_OF.get(word, 'partner')}"

    return _LIVING.sub("for a living", _PARTNER_WORD.sub(partner, question))


def liking_asked(question: str, live: Sequence[MemoryRecord]) -> list[MemoryRecord] | None:
    """The newest like or dislike of the thing "do I like X?" names ([] when none is kept);
    None when ``question`` is not such a question."""
    m = _DO_I_LIKE.match(question.strip())
    if m is None:
        return None
    words = {stem(w) for w in re.findall(r"[\w'-]+", m.group("x")) if len(w) > 2}
    words -= {"the", "them", "that", "this", "doing", "going"}
    kept = [
        r
        for r in live
        if any(t in r.tags for t in _LIKING_TAGS)
        and words & {stem(w) for w in re.findall(r"[\w'-]+", r.content.removeprefix("The user"))}
    ]
    return sorted(kept, key=_when, reverse=True)[:1]


_AGE_ASKED = re.compile(
    r"^(?:how\s+old\s+am\s+i|what(?:'s|\s+is)\s+my\s+age|(?:do\s+you\s+know\s+)?my\s+age)\b", re.I
)


def health_asked(question: str, live: Sequence[MemoryRecord]) -> list[MemoryRecord] | None:
    """Every health record a question about one's health or medicines asks for (a list:
    "what health conditions do I have?" named one of two, s32 T18), and the age "how old am
    I?" asks for; None when it asks of neither."""
    if _AGE_ASKED.match(question.strip()):
        return sorted((r for r in live if "age" in r.tags), key=_when, reverse=True)[:1]
    if not _HEALTH_ASKED.search(question) or _RELATIVE_NAMED.search(question):
        return None
    wanted = "medication" if _MEDS_ASKED.search(question) else "allergy"
    kept = [r for r in live if wanted in r.tags and r.category == "profile"]
    if re.search(r"\bconditions?\b", question, re.I):  # a condition is not a medicine
        kept = [r for r in kept if "medication" not in r.tags]
    return sorted(kept, key=_when, reverse=True)[:MAX_HEALTH]


def _own_live(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The person's own live records (kept with a read that stays the same: ``Kept``)."""
    return derived_of(
        records, "own live", lambda kept: Kept(r for r in kept if r.scope == "user" and is_live(r))
    )


def answer_records(
    question: str, records: Sequence[MemoryRecord], understanding: Understanding
) -> list[MemoryRecord]:
    """The records that answer ``question``, best first; [] when it asks about none."""
    if not understanding.has("answers"):
        return []
    live = _own_live(records)
    done = derived_of(
        records, "own past", lambda _: sorted((r for r in live if "past" in r.tags), key=_when)
    )
    said = when_did(question, [r.content for r in done])  # "When did I see them?"
    if said:
        return [r for r in done if r.content in said]
    asked_of = liking_asked(question, live)
    if asked_of is None:
        asked_of = health_asked(question, live)
    if asked_of is not None:
        return asked_of
    question = plain_question(question)
    asked, probability = understanding.asked(question)
    if asked == "none" or probability < MIN_PROBABILITY:
        return []
    if asked == "all":
        return about_me(live)
    tags = SLOT_TAGS.get(asked, ())
    mine = [r for r in live if any(t in r.tags for t in tags)]
    named = named_others(question, live)
    if named:  # "what does Theo do?" asks about Theo: never the person's own job
        mine = [r for r in mine if any(_says(r.content, n) for n in named)]
    if asked == "family":
        mine = _of_the_relative_asked(question, mine)
    own = " ".join(r.content for r in live if "name" in r.tags or "nickname" in r.tags)
    if asked != "family":  # a relative is someone else's by nature: "who do I live with?"
        mine = [r for r in mine if fits_whose(question, r.content, own)]  # F8: not another's
    if not mine and asked in _NEAR_SLOT:  # "what's my job?" with only an employer kept
        mine = [r for r in live if any(t in r.tags for t in SLOT_TAGS[_NEAR_SLOT[asked]])]
    thing = asked_thing(question) if asked not in ONE_VALUE else None
    if thing is not None:  # "do I have diabetes?": a record that says it, or none
        mine = [r for r in mine if says_thing(r.content, thing)]
    if not mine:
        return []
    sims = (
        understanding.vectors([r.content.lower() for r in mine])
        @ understanding.vectors([question.lower()])[0]
    )
    ranked = sorted(
        zip(mine, (float(s) for s in sims), strict=True),
        key=lambda p: (round(p[1], 2), _when(p[0])),
        reverse=True,
    )
    if asked in MANY and _ASKS_EVERY.search(question):  # "what pets have I got": each one
        return [r for r, _ in ranked][:MAX_ABOUT_ME]
    best = ranked[0][1]
    return [r for r, s in ranked if s >= best - MARGIN][:MAX_LINES]


def about_me(live: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """ "What do you know about me?": what is pinned, then the newest record of every slot
    (a kind of record without a slot is its own), then every other pet and relative, then
    the rest, newest first, up to MAX_ABOUT_ME (the newest six alone left out the person's
    name once six facts were newer, pinned or not)."""
    ordered = sorted(live, key=lambda r: (r.pinned, _when(r)), reverse=True)
    firsts: list[MemoryRecord] = []
    seen: set[str] = set()
    for rec in ordered:
        slot = next((s for s, tags in SLOT_TAGS.items() if set(tags) & set(rec.tags)), None)
        slot = slot or f"category:{rec.category}"
        if rec.pinned or slot not in seen:
            firsts.append(rec)
        seen.add(slot)
    # the person's own first (F4: "what do you know about me?" led with the brother's city)
    firsts.sort(key=lambda r: not r.pinned and about_someone_else(r.content))
    circle = [r for r in ordered if r not in firsts and any(t in r.tags for t in MANY)]
    rest = [r for r in ordered if r not in firsts and r not in circle]
    return (firsts + circle + rest)[:MAX_ABOUT_ME]


def asks_unknown(
    question: str, records: Sequence[MemoryRecord], understanding: Understanding
) -> bool:
    """``question`` surely asks about one of the person's own slots and none is kept."""
    if not understanding.has("answers"):
        return False
    live = _own_live(records)
    asked_of = liking_asked(question, live)
    if asked_of is None:
        asked_of = health_asked(question, live)
    if asked_of is not None:
        return not asked_of
    asked, probability = understanding.asked(plain_question(question))
    if named_others(question, records):
        return False  # about someone else: the person's own slots say nothing of it
    relative = asked == "family" and bool(_relatives(question.replace("'s", "")))
    if probability < SURE or not (asked in OWN_SLOTS or _asks_what(asked, question) or relative):
        return False
    if asked == "family" and _relatives(question.replace("'s", "")):
        kept = [
            r for r in records
            if r.scope == "user" and is_live(r) and set(SLOT_TAGS["family"]) & set(r.tags)
        ]  # fmt: skip
        return not _of_the_relative_asked(question, kept)
    tags = SLOT_TAGS[asked] if asked in OWN_SLOTS else POSITIVE_TAGS[asked]
    return not any(
        r.scope == "user" and is_live(r) and any(t in r.tags for t in tags) for r in records
    )


#: Everyday words for one's partner that the people graph does not know as a relation: "what
#: does my partner do?" is answered by "your fella Rohan is a paramedic", and the other way.
_PARTNER_SAID = (
    r"(?:fella|feller|fellow|other\s+half|better\s+half|significant\s+other|bf|gf|bloke|"
    r"man|lady|old\s+man|missus|missis|wifey|hubby|beau|sweetheart|husband|wife|partner|"
    r"spouse|boyfriend|girlfriend|fianc[eé]e?)"
)
_PARTNER_ASKED = re.compile(rf"\bmy\s+(?:\w+\s+)?{_PARTNER_SAID}\b", re.I)
_PARTNER_KEPT = re.compile(rf"\b(?:user's\s+|user\s+has\s+(?:an?\s+)?){_PARTNER_SAID}\b", re.I)
_MY_RELATIVE = re.compile(rf"\bmy\s+(?:\w+\s+)?({_REL_BARE})s?\b", re.I)


def _relatives(text: str) -> set[str]:
    out: set[str] = set()
    for m in _MY_RELATIVE.finditer(text):
        rel = relation_of(m.group(1).split()[-1])  # "my husbands name" asks of the husband
        out |= KIN.get(rel, {rel})
    if _PARTNER_ASKED.search(text):
        out |= KIN["partner"]
    return out


#: A capitalised word after a question's first word: a name ("what does Theo do?").
_CAPITALISED = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b")
_NOT_NAMES = frozenset(
    {
        "I",
        "Mr",
        "Mrs",
        "Ms",
        "Dr",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    }
)


def _own_names(records: Sequence[MemoryRecord]) -> str:
    return " ".join(r.content for r in records if "name" in r.tags or "nickname" in r.tags)


def named_others(question: str, records: Sequence[MemoryRecord]) -> list[str]:
    """The names ``question`` asks about that are not the person's own (from their name
    records): "what does Theo do for work?" names Theo. A place kept in a record of theirs
    counts too, so "do I still live in Leeds?" is answered by the record that says Leeds."""
    own = derived_of(records, "own names", _own_names)
    names = [m.group(0) for m in _CAPITALISED.finditer(question.strip())]
    return [
        n
        for n in dict.fromkeys(names)
        if n not in _NOT_NAMES and n.removesuffix("s") not in _NOT_NAMES and not _says(own, n)
    ]


def _says(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text, re.I) is not None


def _of_the_relative_asked(question: str, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """ "what's my mum's name?" is answered by a record of the mother or by none: a daughter
    is not a mother. A question that names no relative keeps every record."""
    asked = _relatives(question.replace("'s", ""))
    if not asked:
        return list(records)
    said = re.compile(rf"\b(?:user's\s+|user\s+has\s+(?:\w+\s+)?){_REL_BARE}\b", re.I)
    return [
        r
        for r in records
        if asked & {relation_of(m.group(0).split()[-1]) for m in said.finditer(r.content)}
        or (asked & KIN["partner"] and _PARTNER_KEPT.search(r.content))
    ]


def _asks_what(asked: str, question: str) -> bool:
    """ "what do I like?" asks for what is liked: with no like kept, a dislike ("You don't
    like bouldering") is not its answer. "do I like sushi?" may be answered "no"."""
    return asked in POSITIVE_TAGS and bool(_WH.match(question.strip()))


def _when(rec: MemoryRecord) -> tuple[str, str]:
    return rec.ts, rec.id
