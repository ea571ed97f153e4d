"""A value said wrongly and put right: "actually it's amoxicillin I'm allergic to, not
penicillin", "not penicillin, amoxicillin", "I meant amoxicillin".

:mod:`._corrections` puts right a name a record holds as a name ("called Tom"); the value of
any other slot (an allergy, a like, a job, an employer) is put right here, by structure: the
message says a right value X and a wrong one Y ("X ..., not Y", "not Y, X"), and a live
record holds Y as its value (its topic, or words of its content). That record is superseded
by itself with Y replaced by X (one record, its history kept), so the reply says "Updated:
... (was ...)". "I meant X" alone puts right the value of the record kept last, minutes ago.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from familiars.memory._offline._kept import live_of
from familiars.memory._offline._objects import _words, topic_key
from familiars.memory._offline._superseding import superseding
from familiars.memory._records import MemoryRecord, parse_ts
from familiars.memory._writer._schema import WriteOp

_VALUE = r"[\w'-]+(?:\s+[\w'-]+){0,3}?"
_OPEN = r"^\W*(?:(?:no|nope|actually|oh|wait|sorry|oops|whoops|hang\s+on|my\s+bad)[,!.:;\s]+)*"
#: What may follow the right value before "not": the slot said again ("I'm allergic to",
#: "that I like", "I work at"), a short clause whose subject is "I".
_SLOT_AGAIN = r"(?:\s+(?:that\s+|which\s+)?(?:i'?m|im|i\s+am|i)\s+[\w' ]{2,30}?)?"
#: What may come before the right value: "it's", or the slot said first ("I'm allergic to",
#: "I work at"), its words taken greedily so that the value is what is left before "not".
_SLOT_FIRST = r"(?:(?:it'?s|its|it\s+is)\s+|(?:i'?m|im|i\s+am|i)\s+(?:[\w']+\s+){0,3})?"
#: "it's X (I'm allergic to), not Y", "I'm allergic to X, not Y", "X, not Y", "X not Y".
_RIGHT_NOT_WRONG = re.compile(
    rf"{_OPEN}{_SLOT_FIRST}(?P<new>{_VALUE}){_SLOT_AGAIN}\s*,?\s+"
    rf"(?:not|rather\s+than|instead\s+of)\s+(?P<old>{_VALUE})[\s.!]*$",
    re.I,
)
#: "not Y, X", "not Y, it's X", "not Y but X".
_WRONG_THEN_RIGHT = re.compile(
    rf"{_OPEN}not\s+(?P<old>{_VALUE})\s*(?:[,;:–—-]\s*|\s+but\s+)(?:(?:it'?s|its|it\s+is)\s+)?"
    rf"(?P<new>{_VALUE}){_SLOT_AGAIN}[\s.!]*$",
    re.I,
)
#: "I meant X" (the wrong value left unsaid).
_MEANT = re.compile(rf"{_OPEN}i\s+meant(?:\s+to\s+say)?\s+(?P<new>{_VALUE})[\s.!]*$", re.I)
#: Words that are no value of a slot ("it's fine, not a problem").
_NO_VALUE = frozenset(
    _words(
        "a an the it that this me you him her them us so too really just fine ok okay sure well "
        "problem big deal joke worry bother yet now then there here",
    )
)
#: The slots whose value is put right here: the person's own (a relative or a pet is named,
#: and a name is put right by :mod:`._corrections`, or not at all: "I like Tom, not Jerry").
_SLOTS = ("profile", "preference")
_JUST_SAID = timedelta(minutes=15)


def value_correction_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord], *, now: datetime
) -> list[WriteOp]:
    """``writes`` with a value put right superseding the record that held the wrong one."""
    said = _said_values(text)
    if said is None:
        return list(writes)
    new, old = said
    rec = _wrong_record(old, existing, now)
    if rec is None:
        return list(writes)
    # another reader may have replaced the record already; the value put right in the
    # record's own words wins over it only when that reader said the same new value
    # ("no, it's Asda I work at, not Tesco" was kept as "works at Asda I work at")
    taking = [w for w in writes if w.entry.supersedes_id == rec.id]
    if any(not _mentions(w, new) for w in taking):
        return list(writes)
    wrong = old if old is not None else _value_of(rec)
    if wrong is None or not _holds(rec.content, wrong) or _holds(rec.content, new):
        return list(writes)
    right = _put_right(rec, wrong, new, text)
    if taking and all(_words_in(w) <= _words_in(right) for w in taking):
        return list(writes)  # the other reader said it as well ("lives in York")
    kept = [w for w in writes if w.op == "skip" or not _mentions(w, new, wrong)]
    return [*kept, right]


def _words_in(write: WriteOp) -> int:
    return len(write.entry.content.split())


def _said_values(text: str) -> tuple[str, str | None] | None:
    """(right value, wrong value or None when unsaid) of a message that puts a value right."""
    said = text.strip()
    for pattern in (_WRONG_THEN_RIGHT, _RIGHT_NOT_WRONG):
        m = pattern.match(said)
        if m and _a_value(m["new"]) and _a_value(m["old"]):
            return _bare(m["new"]), _bare(m["old"])
    meant = _MEANT.match(said)
    return (_bare(meant["new"]), None) if meant and _a_value(meant["new"]) else None


def _bare(value: str) -> str:
    """A value without its article: "a doctor" -> "doctor"."""
    return re.sub(r"^(?:an?|the)\s+", "", value.strip(), flags=re.I)


def _a_value(words: str) -> bool:
    return any(w.lower() not in _NO_VALUE for w in words.split())


def _holds(content: str, value: str) -> bool:
    return re.search(rf"\b{re.escape(value)}\b", content, re.I) is not None


def _wrong_record(
    old: str | None, existing: Sequence[MemoryRecord], now: datetime
) -> MemoryRecord | None:
    """The live record whose value is ``old`` (its topic first, then its words), newest
    first; with ``old`` unsaid, the record kept last, minutes before ``now``."""
    live = sorted(
        (r for r in live_of(existing) if r.category in _SLOTS and "name" not in r.tags),
        key=lambda r: (r.ts, r.id),
        reverse=True,
    )
    if old is None:
        last = live[0] if live else None
        kept = parse_ts(last.ts) if last else None
        recent = kept is not None and timedelta(0) <= now - kept <= _JUST_SAID
        return last if recent else None
    topic = f"topic:{topic_key(old)}"
    by_topic = [r for r in live if topic in r.tags]
    return next(iter(by_topic), None) or next((r for r in live if _holds(r.content, old)), None)


def _value_of(rec: MemoryRecord) -> str | None:
    """The value a record holds, by its topic ("topic:penicillin" -> "penicillin")."""
    topic = next((t[6:] for t in rec.tags if t.startswith("topic:")), None)
    if topic is None:
        return None
    words = topic.replace("-", " ")
    found = re.search(rf"\b{re.escape(words)}s?\b", rec.content, re.I)
    return found.group(0) if found else None


def _mentions(write: WriteOp, *values: str) -> bool:
    return any(_holds(write.entry.content, v) for v in values)


def _put_right(rec: MemoryRecord, wrong: str, new: str, text: str) -> WriteOp:
    held = re.search(rf"\b{re.escape(wrong)}\b", rec.content, flags=re.I)
    if held is not None and held.group(0)[:1].isupper():  # "Leeds" put right as "york"
        new = new[:1].upper() + new[1:]
    content = re.sub(rf"\b{re.escape(wrong)}\b", new, rec.content, flags=re.I)
    old_topic = f"topic:{topic_key(wrong)}"
    tags = [f"topic:{topic_key(new)}" if t == old_topic else t for t in rec.tags]
    return superseding(rec, content, text, tags)
