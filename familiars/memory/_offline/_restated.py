"""A value said again in place of a kept one, read against the record it replaces.

Three everyday forms that no fact rule reads on its own (a person-test, s36):

- "scratch that, its dosa" right after "my fav food is paneer tikka": a short restatement
  after "scratch that" is the new value of the slot of the record just kept ("The user's
  favourite food is dosa.");
- "sorry, I was wrong, she lives in Graz, not Vienna": "B, not A" where a live record holds A
  puts B in A's place in that record, whoever the record is about;
- "My mother lives in Graz." after "My mother lives in Vienna.": the same statement about the
  same relative with another value replaces the old one instead of standing beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from familiars.memory._offline._clauses import SCRATCH_THAT
from familiars.memory._offline._corrections import _kept_within
from familiars.memory._offline._kept import live_of
from familiars.memory._offline._objects import _words, topic_key
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp, WriterEntry

#: "scratch that, its dosa", "forget that - make it blue", "scratch that, I meant Leeds".
_RESTATED = re.compile(
    rf"^\s*(?:(?:oh|ok|okay|no|wait|actually|sorry)[,!.\s]+)*{SCRATCH_THAT}"
    r"(?:(?:it'?s|its|it\s+is|make\s+(?:that|it)|i\s+mean[t]?|i\s+said|no|actually)\s+)*"
    r"(?P<value>[\w&'-]+(?:\s+[\w&'-]+){0,2})[\s.!]*$",
    re.I,
)
#: "she lives in Graz, not Vienna", "he's in Derby not Leeds": B, then A taken back.
_B_NOT_A = re.compile(
    r"\b(?P<b>(?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+))?)\s*,?\s+not\s+(?:in\s+|at\s+)?"
    r"(?P<a>(?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+))?)\b(?!\s+(?:anymore|any\s+more))",
    re.I,
)
#: A record's statement and its value: "The user's mother lives in | Vienna".
_STATEMENT = re.compile(
    r"^(?P<said>The user's [\w' -]+?\s(?:lives\s+in|works\s+(?:at|in|as\s+an?)|is\s+called|"
    r"is\s+named|is\s+from|moved\s+to|is)\s)(?P<value>.+?)\.?$"
)
#: "my brother lives in York too": a second value beside the first, no replacement.
_ALSO = re.compile(r"\b(?:too|also|as\s+well|both|another|other|each)\b", re.I)
#: Words a "scratch that" restatement is not: no value of a slot.
_NOT_VALUES = frozenset(
    _words("that this it all everything nothing none what yes no ok okay fine whatever nevermind")
)


def restated_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord], *, now: datetime
) -> list[WriteOp]:
    """``writes`` with each of the three restatements made an update of the record it
    replaces (see the module's docstring); the writes as they were when none is said."""
    live = live_of(existing)
    if not live:
        return list(writes)
    taken = {w.entry.supersedes_id for w in writes if w.entry.supersedes_id}
    out = list(writes) if _ALSO.search(text) else [_same_statement(w, live, taken) for w in writes]
    if any(w.op != "skip" for w in out):
        return out
    new = _scratched_value(text, live, now) or _swapped_value(text, live, taken)
    return [*out, new] if new is not None else out


def _scratched_value(text: str, live: Sequence[MemoryRecord], now: datetime) -> WriteOp | None:
    m = _RESTATED.match(text)
    if m is None or m["value"].lower() in _NOT_VALUES:
        return None
    recent = [r for r in live if _kept_within(r, now) and _said_value(r.content)]
    if not recent:
        return None
    rec = max(recent, key=lambda r: (r.ts, r.id))
    return _with_value(rec, m["value"], text)


def _swapped_value(text: str, live: Sequence[MemoryRecord], taken: set[str]) -> WriteOp | None:
    m = _B_NOT_A.search(text)
    if m is None or m["a"].lower() == m["b"].lower():
        return None
    old = re.compile(rf"\b{re.escape(m['a'])}\b\.?$", re.I)
    holding = [r for r in live if r.id not in taken and old.search(r.content)]
    if len(holding) != 1 or not _says_it_of(text, holding[0]):
        return None
    return _with_value(holding[0], m["b"], text)


def _says_it_of(text: str, rec: MemoryRecord) -> bool:
    """Whether the message says the record's own statement ("she lives in ...": "lives in"):
    "I went to York, not Leeds" or "sorry, Rome not Paris" takes back no one's home."""
    said = _said_value(rec.content)
    verb = re.match(r"\w+", said["said"].split()[-2] if said else "")
    if verb is None or verb.group() in ("is", "user's", "user"):
        return False
    return re.search(rf"\b{verb.group()[:4]}", text, re.I) is not None


def _same_statement(write: WriteOp, live: Sequence[MemoryRecord], taken: set[str]) -> WriteOp:
    """An added relative's fact that says again what a live record says of the same relative
    with another value, as the update of that record."""
    said = _STATEMENT.match(write.entry.content)
    if write.op != "add" or write.category != "relation" or said is None:
        return write
    for rec in live:
        old = _STATEMENT.match(rec.content)
        if (
            rec.category == "relation"
            and rec.id not in taken
            and old is not None
            and old["said"].lower() == said["said"].lower()
            and old["value"].lower() != said["value"].lower()
        ):
            entry = write.entry.model_copy(update={"supersedes_id": rec.id})
            taken.add(rec.id)
            return write.model_copy(update={"op": "update", "entry": entry})
    return write


#: The user's own statements whose value a restatement may replace.
_OWN_STATEMENT = re.compile(
    r"^(?P<said>The user (?:likes|loves|lives in|works at|works as an?)\s)(?P<value>.+?)\.?$"
)


def _said_value(content: str) -> re.Match[str] | None:
    return _STATEMENT.match(content) or _OWN_STATEMENT.match(content)


def _with_value(rec: MemoryRecord, value: str, text: str) -> WriteOp | None:
    """``rec`` said again with ``value`` in place of its own value."""
    said = _said_value(rec.content)
    if said is None:
        return None
    if value.islower() and said["value"][:1].isupper():  # typed in lower case: a name
        value = value.title()
    old_key = topic_key(said["value"])
    tags = [f"topic:{topic_key(value)}" if t == f"topic:{old_key}" else t for t in rec.tags]
    entry = WriterEntry(
        content=f"{said['said']}{value}.",
        tags=tags,
        salience=rec.salience,
        epistemic_status="asserted",
        supersedes_id=rec.id,
        source_quote=[f"User message: '{text.strip()[:200]}'"],
    )
    return WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry)


#: What the person said after "scratch that", when it is a value only: "its dosa", "gin".
_BARE_VALUE = re.compile(
    r"^\s*(?:(?:it'?s|its|it\s+is|make\s+(?:that|it)|i\s+mean[t]?|i\s+said)\s+)+"
    r"(?P<value>[\w&'-]+(?:\s+[\w&'-]+){0,2})[\s.!]*$"
    r"|^\s*(?P<alone>(?!(?:i|we|my|me|you|it|he|she|they)\b)[\w&'-]+(?:\s+[\w&'-]+)?)[\s.!]*$",
    re.I,
)
#: The user's statement in the person's own words: "The user's" -> "my", "lives" -> "live".
_FIRST_PERSON = (
    (re.compile(r"^The user's "), "my "),
    (re.compile(r"^The user (likes|loves|lives|works)\b"), lambda m: f"I {m[1][:-1]}"),
)


def restated_instead(instead: str, records: Sequence[MemoryRecord]) -> str:
    """What was said after "scratch that", as a whole statement when it is a bare value and
    the last of ``records`` (what the "scratch that" takes back) says which slot it fills:
    "its dosa" against "The user's favourite food is paneer tikka." -> "my favourite food is
    dosa" (a person-test: the forget asked, "its dosa" was then read alone and kept nothing).
    ``instead`` as it was otherwise."""
    m = _BARE_VALUE.match(instead)
    value = (m["value"] or m["alone"]) if m else ""
    if not value or value.lower() in _NOT_VALUES or not records:
        return instead
    said = _said_value(records[-1].content)
    if said is None:
        return instead
    out = f"{said['said']}{value}"
    for pattern, first in _FIRST_PERSON:
        out = pattern.sub(first, out)
    return instead if out.startswith("The user") else out
