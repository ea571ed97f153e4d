"""A name said wrongly and put right: "my husband's name is Tim not Tom", "Actually my cat
is called Marmite, not Marmalade", "sorry, it's Tim not Tom", "I meant Tim".

The kept record that holds the wrong name is superseded by one with the right name (one
record, its history kept), instead of a second record beside it (tester s32 T2: the bot then
named two husbands). The wrong name is found in the person's live records, whatever the
slot (a relative, a pet, the person's own name); "I meant Tim" alone corrects the name the
newest such record holds, and only when that record was the last thing kept, minutes ago
(reviewer s33-2 #5: "oh I meant Lidl" renamed a sister kept weeks before). A message that
says "X, not Y" corrects only when it names (called, named, name is), apologises ("sorry",
"typo", "I meant X") or is no more than "it's X not Y" ("actually I like Jerry, not Tom"
renamed a husband, reviewer #6); and only a name the record holds as a name ("called Tom"),
never a place ("lives in Paris").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from familiars.memory._offline._clauses import CHANGE_OF_PLAN, SCRATCH_THAT
from familiars.memory._offline._kept import live_of
from familiars.memory._offline._objects import _words, topic_key
from familiars.memory._offline._superseding import superseding
from familiars.memory._records import MemoryRecord, is_live, parse_ts
from familiars.memory._text import content_words, stem
from familiars.memory._writer._schema import WriteOp

_NAME = r"[A-Za-z][\w'-]+"
#: "Tim not Tom", "Marmite, not Marmalade", "Tim rather than Tom".
_RIGHT_NOT_WRONG = re.compile(
    rf"\b(?P<new>{_NAME})\s*,?\s+(?:not|rather\s+than|instead\s+of)\s+(?P<old>{_NAME})\b", re.I
)
#: "not Tom, it's Tim", "not Tom but Tim".
_WRONG_THEN_RIGHT = re.compile(
    rf"\bnot\s+(?P<old>{_NAME})\s*[,;-]?\s*(?:it'?s|its|but|it\s+is)\s+(?P<new>{_NAME})\b", re.I
)
#: "not Sandra, Sandy": the whole message, both names with their capitals.
_NOT_WRONG_RIGHT = re.compile(
    r"^\W*not\s+(?P<old>[A-Z][\w'-]+)\s*[,;:–—-]\s*(?P<new>[A-Z][\w'-]+)[.!]*$"
)
#: "I meant Tim", "sorry, it's Tim": the whole message, the wrong name left unsaid; "it's"
#: needs an apology before it ("it's Friday" corrects nothing) and the name its capital.
_MEANT = re.compile(
    r"^(?:(?:no|nope|actually|oh|wait)[,!.:\s]+)*(?:"
    r"i\s+meant(?:\s+to\s+say)?\s+(?P<new>(?-i:[A-Z])[\w'-]+)"
    r"|(?:(?:sorry|oops|whoops|correction|my\s+bad|typo)[,!.:\s]+)+(?:i\s+meant\s+|i\s+mean\s+|"
    r"it'?s\s+|its\s+|it\s+is\s+)(?P<new2>(?-i:[A-Z])[\w'-]+)"
    r")[.!]*$",
    re.I,
)
_NOT_MEANT = frozenset(
    _words(
        "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday",
        "january february march april may june july august september october november december",
        "fine ok okay nothing everything fun late early time that this it well business yes",
        "no so both all none later earlier the a an you me him her them us what",
    )
)
#: What says a correction is meant: an apology, "wrong", "typo", or a naming ("called X not
#: Y"); "actually" and "it's" are not ("actually I like Jerry, not Tom").
_CORRECTING = re.compile(
    r"\b(?:sorry|oops|whoops|wrong|typo|mistake|my\s+bad|correction|misspelt|misspelled|"
    r"mistyped|auto-?correct\w*|spell-?check\w*|predictive\s+text|fat[\s-]+finger\w*|"
    r"called|named|name\s+is|name's)\b",
    re.I,
)
#: "I meant Tim, not Tom": "I meant" right before the right name.
_MEANT_BEFORE = re.compile(r"\bi\s+mean[t]?(?:\s+to\s+say)?[\s,:]*$", re.I)
#: "it's Tim not Tom", "no wait, not Jon, it's John": the whole message no more than the names
#: (and a laugh or a sorry after them: "it's Tim not Tom lol").
_ONLY_NAMES = re.compile(
    rf"^(?:(?:no|nope|actually|oh|wait|hang\s+on|hold\s+on)[,!.:;\s]+|{SCRATCH_THAT})*(?:"
    rf"(?:it'?s|its|it\s+is)\s+{_NAME}\s*,?\s+not\s+{_NAME}"
    rf"|not\s+{_NAME}\s*[,;-]?\s*(?:it'?s|its|it\s+is|but)\s+{_NAME})"
    r"(?:[\s,.!]+(?:lol|lmao|haha\w*|hah|oops|sorry|my\s+bad))*[\s.!]*$",
    re.I,
)
#: "my name's not Dele actually, everyone calls me Dayo": the name denied, then the one used.
_NAME_DENIED = re.compile(
    rf"\bmy\s+name(?:'s|s|\s+is)?\s*(?:not|n't|isn't|isnt|ain't)\s+(?P<old>{_NAME})\b.*?"
    r"\b(?:(?:call|calls|called)\s+me|i'?m|it'?s|its|it\s+is|go\s+by)\s+"
    r"(?P<new>(?-i:[A-Z])[\w-]*(?:'(?!s\b)[\w-]+)?)"
    r"(?=\s*(?:[,.!;?]|$|\s+(?:now|instead|please|actually|lol|haha|thanks|though)\b))",
    re.I,
)
#: The last thing kept, kept this long ago at most, is what "I meant Tim" can put right.
_JUST_SAID = timedelta(minutes=15)
_NOT_NAMES = frozenset(
    _words(
        "i a an the it its it's this that what who he she they we you me my our his her not no",
        "yes but and or so just really very sure i'm im is are was were am do does did can",
        "could will would should have has had wait hang hold oh ah sorry oops actually",
    )
)
#: A capitalised word of a record other than its first: a name it may hold.
_HELD_NAME = re.compile(r"(?<!^)\b[A-Z][\w'-]+")
#: A name a record holds as a name: "called Tom", "named Rex", "name is Sam", "called Lily and
#: Sam"; "lives in Paris" holds none.
_AS_NAME = re.compile(
    r"\b(?:called|named|name\s+is)\s+(?P<names>[A-Z][\w'-]+(?:(?:\s*,\s*|\s+and\s+)[A-Z][\w'-]+)*)"
)


def corrected_names(text: str) -> tuple[str, str | None] | None:
    """(right name, wrong name or None when unsaid) of a message that corrects a name."""
    said = text.strip()
    meant = _MEANT.match(said)
    if meant:
        new = meant.group("new") or meant.group("new2")
        return None if new.lower() in _NOT_MEANT else (_capital(new), None)
    denied = _NAME_DENIED.search(said)
    if denied and _a_name(denied["new"]) and denied["new"].lower() not in _NOT_NAMES | _NOT_MEANT:
        return _capital(denied["new"]), _capital(denied["old"])
    for pattern in (_WRONG_THEN_RIGHT, _RIGHT_NOT_WRONG, _NOT_WRONG_RIGHT):
        m = pattern.search(said)
        if m and (pattern is _NOT_WRONG_RIGHT or _corrects(said, m)):
            new, old = m.group("new"), m.group("old")
            if _not_names(said, m) or not _a_name(new) or new.lower() == old.lower():
                continue
            return _capital(new), _capital(old)
    return None


#: Nationalities that do not end like "Spanish" or "Chinese" ("I'm Italian" is no name).
_NATIONALITIES = frozenset(
    _words(
        "american canadian australian indian italian german french dutch greek russian",
        "mexican brazilian nigerian kenyan ghanaian korean thai pakistani bangladeshi",
        "filipino egyptian iranian iraqi syrian moroccan african european asian",
    )
)


def _a_name(word: str) -> bool:
    """Whether ``word`` can be the right name: not "OK", a nationality ("I'm Spanish") or
    letters in capitals ("it's OK"); "Will" with its capital can ("it's Will not Bill")."""
    low = word.lower()
    return not (
        low in {"ok", "okay", "fine", "here", "back"}
        or low.endswith(("ish", "ese"))
        or low in _NATIONALITIES
        or (word.isupper() and len(word) <= 3)
    )


def _not_names(said: str, m: re.Match[str]) -> bool:
    """Whether "new not old" holds a common word that is no name: "Will" with its capital
    mid-sentence in "it's Will not Bill" is a name (the record must still hold "Bill" as a
    name); "will" or a sentence's first word is not."""
    for part in ("new", "old"):
        word, at = m.group(part), m.start(part)
        if re.search(r"\b(?:my|your|his|her|our|their|the)\s*$", said[:at], re.I):
            return True  # "my name's not Dele": "name's" is the thing named, not a name
        if word.lower() not in _NOT_NAMES:
            continue
        before = said[:at].rstrip()
        if len(word) < 3 or not word[0].isupper() or not before or before[-1] in ".!?":
            return True
    return False


def _corrects(said: str, m: re.Match[str]) -> bool:
    return bool(
        _CORRECTING.search(said)
        or _MEANT_BEFORE.search(said[: m.start()])
        or _ONLY_NAMES.match(said)
    )


def _capital(name: str) -> str:
    return name[:1].upper() + name[1:]


def _says(content: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", content) is not None


def _named_records(existing: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Live records of people, pets and the person's name, newest first."""
    kept = [
        r
        for r in existing
        if is_live(r) and r.category in ("relation", "profile") and _HELD_NAME.search(r.content)
    ]
    return sorted(kept, key=lambda r: (r.ts, r.id), reverse=True)


def _names_held(content: str) -> list[str]:
    return [n for m in _AS_NAME.finditer(content) for n in re.findall(r"[A-Z][\w'-]+", m["names"])]


def _just_said(rec: MemoryRecord, existing: Sequence[MemoryRecord], now: datetime) -> bool:
    """``rec`` is the last thing kept, minutes before ``now`` ("I meant Tim" puts it right)."""
    kept = parse_ts(rec.ts)
    newest = max((r for r in existing if is_live(r)), key=lambda r: (r.ts, r.id))
    return newest.id == rec.id and kept is not None and timedelta(0) <= now - kept <= _JUST_SAID


def _wrong_record(
    old: str | None, existing: Sequence[MemoryRecord], now: datetime
) -> tuple[MemoryRecord, str] | None:
    for rec in _named_records(existing):
        names = _names_held(rec.content)
        if old is not None and old in names:
            return rec, old
        if old is None:
            right = len(names) == 1 and _just_said(rec, existing, now)
            return (rec, names[0]) if right else None
    return None


def correction_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord], *, now: datetime
) -> list[WriteOp]:
    """``writes`` with a corrected name superseding the record that held the wrong one: the
    write that says the right name becomes its update, or, when the message said no more
    than the names ("sorry, it's Tim not Tom"), the old record with the name put right."""
    names = corrected_names(text)
    if names is None:
        return list(writes)
    new, old = names
    found = _wrong_record(old, existing, now)
    if found is None and old is not None and not _SELF_NAMED.search(text):
        # "it's Latisha not Latoya" with no Latoya kept names no one: not the user Latisha
        return [w for w in writes if not _names_the_user(w, new)]
    if found is None:
        return list(writes)
    rec, wrong = found
    out = []
    done = False
    for write in writes:
        if (
            not done
            and write.op == "add"
            and write.category == rec.category
            and _says(write.entry.content, new)
        ):
            entry = write.entry.model_copy(update={"supersedes_id": rec.id})
            out.append(write.model_copy(update={"op": "update", "entry": entry}))
            done = True
        elif write.op == "skip" or not (
            _says(write.entry.content, wrong) or _says(write.entry.content, new)
        ):  # "sorry, it's John not Jon" names no one new ("your name is John")
            out.append(write)
    if done:
        return out
    content = re.sub(rf"\b{re.escape(wrong)}\b", new, rec.content)
    tags = [f"topic:{topic_key(new)}" if t == f"topic:{topic_key(wrong)}" else t for t in rec.tags]
    return [*out, superseding(rec, content, text, tags)]


#: The person naming themself: "my name is Beatriz, not Beatrice" corrects their own.
_SELF_NAMED = re.compile(r"\b(?:my\s+name|name'?s|i'?m|im|i\s+am|call\s+me)\b", re.I)


def _names_the_user(write: WriteOp, name: str) -> bool:
    return (
        write.category == "profile"
        and "name" in write.entry.tags
        and _says(write.entry.content, name)
    )


#: "scratch that, we're going to Tenerife in May": the message takes back what was just said
#: and says what holds instead (the forget road passes such a message on to the writer);
#: "change of plan, ..." / "plans changed: ..." take back a plan the same way.
_SCRATCHED = re.compile(
    rf"^\s*(?:(?:oh|ok|okay|no|wait|actually|sorry)[,!.\s]+)*"
    rf"(?:{SCRATCH_THAT}|(?P<change>{CHANGE_OF_PLAN}))\S",
    re.I,
)
#: The day or month a plan's content names, as the plan reader adds it: "(June 2027)".
_PLAN_WHEN = re.compile(r"\((?P<when>[^()]*\b\d{4})\)\.?$")


def scratched_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord], *, now: datetime
) -> list[WriteOp]:
    """``writes`` with the first new fact of a "scratch that, ..." message superseding the
    record it takes back (:func:`_taken_back`), so "we're going to Lanzarote in May" then
    "scratch that, we're going to Tenerife in May" leaves one plan, Tenerife, with Lanzarote
    in its history (lead's s33 tmux session: both stayed live and "where am I going on
    holiday?" named both). Only a fact of the same kind (a plan for a plan, a pet for a pet:
    a tag beside the topic) takes the place: "forget that, my husband is called Tim" after
    "my cat is called Pip" replaces no cat."""
    said = _SCRATCHED.match(text)
    if not said:  # most messages: the records are not read
        return list(writes)
    live = live_of(existing)
    if not live:
        return list(writes)
    out = list(writes)
    for n, write in enumerate(out):
        if write.op != "add":
            continue
        old = _taken_back(write, live, now, any_age=bool(said["change"]))
        if old is not None:
            entry = write.entry.model_copy(update={"supersedes_id": old.id})
            out[n] = write.model_copy(update={"op": "update", "entry": entry})
            break
    return out


def _plan_when(content: str) -> str:
    found = _PLAN_WHEN.search(content)
    return found["when"] if found else ""


def _taken_back(
    write: WriteOp, live: Sequence[MemoryRecord], now: datetime, *, any_age: bool
) -> MemoryRecord | None:
    """The live record of the write's kind that a "scratch that" takes back: one kept
    minutes ago, though more was kept since (s36: "Rome in June", a like, then "scratch
    that, Lisbon in June" left Rome live), for a plan the one for the same day or month
    first; "change of plan" takes back the plan for that day or month however long ago it
    was said (a "scratch that" weeks later is about something else)."""
    same = [r for r in live if r.category == write.category and _kinds(write, r)]
    recent = [r for r in same if _kept_within(r, now)]
    plan = "plan" in write.entry.tags
    if plan and any_age:
        # A change of plan replaces a plan of its kind only (a trip a trip: s36, "change of
        # plan, Lisbon in June" took a months-old "new job in June" and left Rome live);
        # with none, both stay.
        recent = same = [r for r in same if _same_plan(write.entry.content, r.content)]
    when = _plan_when(write.entry.content)
    if plan and when:
        timed = [r for r in (same if any_age else recent) if _plan_when(r.content) == when]
        if timed:
            return max(timed, key=lambda r: (r.ts, r.id))
    return max(recent, key=lambda r: (r.ts, r.id)) if recent else None


#: Words of plans that say a journey: "going to Rome" and "flying to Lisbon" are one kind.
_TRIP = frozenset(
    stem(w)
    for w in re.findall(
        r"\w+",
        "go going travel travelling traveling fly flying visit visiting trip holiday "
        "vacation drive driving head heading off away",
    )
)
_NOT_KIND = frozenset({"user", "now", "next", "this", "week", "month", "year", "day"})


def _plan_words(content: str) -> set[str]:
    """A plan's own words as stems, journeys as "<trip>": not its day or month."""
    said = _PLAN_WHEN.sub("", content)
    found = set()
    for word in content_words(said):
        if word.isdigit() or word in _NOT_KIND or word in _MONTHS_AND_DAYS:
            continue
        found.add("<trip>" if stem(word) in _TRIP else stem(word))
    return found


def _same_plan(new: str, old: str) -> bool:
    """Whether two plans are of one kind: they share a word of what is planned."""
    return bool(_plan_words(new) & _plan_words(old))


_MONTHS_AND_DAYS = frozenset(
    re.findall(
        r"\w+",
        "january february march april may june july august september october november "
        "december monday tuesday wednesday thursday friday saturday sunday weekend tomorrow",
    )
)


def _kept_within(rec: MemoryRecord, now: datetime) -> bool:
    kept = parse_ts(rec.ts)
    return kept is not None and timedelta(0) <= now - kept <= _JUST_SAID


def _kinds(write: WriteOp, rec: MemoryRecord) -> bool:
    """Whether the write and the record share a kind tag ("plan", "pet", "home"; not a topic)."""
    kinds = {t for t in rec.tags if not t.startswith("topic:")}
    return bool(kinds & {t for t in write.entry.tags if not t.startswith("topic:")})
