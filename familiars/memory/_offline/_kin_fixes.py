"""A relative's value said wrongly and put right: "Jess is a paramedic not a midwife", "my
brother Tom's a joiner, not an electrician".

:mod:`._value_fixes` puts right the person's own values and never a relative's (a name
there is no value: "I like Tom, not Jerry"). Here the subject names the relative: a live
relation record that names them and holds the wrong value is superseded by itself with the
wrong value replaced by the right one, and any new record the same words made of them
("The user's brother is called Tom's.") is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._kept import live_of
from familiars.memory._offline._superseding import superseding
from familiars.memory._offline._value_fixes import _a_value, _bare, _holds
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp

_VALUE = r"[\w'-]+(?:\s+[\w'-]+){0,3}?"
_OPEN = r"^\W*(?:(?:no|nope|actually|oh|wait|sorry|oops|whoops|my\s+bad)[,!.:;\s]+)*"
_KIN_RIGHT_NOT_WRONG = re.compile(
    rf"{_OPEN}(?:(?i:my|our)\s+[\w-]+\s+)?(?P<who>[A-Z][a-z]+)(?:'s|\s+(?i:is|works\s+(?:as|at|in)|"
    rf"lives\s+in))\s+(?P<new>{_VALUE})\s*,?\s+(?i:not)\s+(?P<old>{_VALUE})[\s.!]*$"
)


def kin_correction_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord]
) -> list[WriteOp]:
    """``writes`` with a relative's value put right superseding the record that held the
    wrong one."""
    m = _KIN_RIGHT_NOT_WRONG.match(text.strip())
    if not m or not (_a_value(m["new"]) and _a_value(m["old"])):
        return list(writes)
    who, new, old = m["who"], _bare(m["new"]), _bare(m["old"])
    rec = next(
        (
            r
            for r in live_of(existing)
            if r.category == "relation" and _holds(r.content, who) and _holds(r.content, old)
        ),
        None,
    )
    if rec is None or any(w.entry.supersedes_id == rec.id for w in writes):
        return list(writes)
    content = re.sub(rf"\b{re.escape(old)}\b", new, rec.content, flags=re.I)
    content = re.sub(r"\ban(?=\s+[^aeiouAEIOU\s])", "a", content)
    content = re.sub(r"\ba(?=\s+[aeiouAEIOU])", "an", content)
    kept = [w for w in writes if w.category != "relation" or not _holds(w.entry.content, who)]
    return [*kept, superseding(rec, content, text, list(rec.tags))]
