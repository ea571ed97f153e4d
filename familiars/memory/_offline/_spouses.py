"""One partner at a time: "my wife Latoya", then "no no, my WIFE is Latisha"; "my gf is
Maya", then "my new boyfriend is Theo" or "I'm dating Kai now".

A relation record is keyed by the name it holds (``family:latoya``), so a second name for the
person's wife, husband or spouse was a second record beside the first, and "who is my wife?"
named two wives (tester s35 U2), and a new girlfriend left two girlfriends live (s39). A new
name for the one partner (wife, husband, spouse, partner, girlfriend, boyfriend, fiancé) takes
the live record's place (an update, the old name kept in its history); the same name again is
said already (a skip). A late, former or ex partner ("my late wife Joan", "my ex-boyfriend",
one broken up with) is a past one, never replaced by, nor replacing, the living one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._kept import live_of
from familiars.memory._people_graph import USER, edges_in
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp

#: The relations a person has one of at a time, read as one slot.
_SPOUSE = frozenset({"wife", "husband", "spouse", "partner", "girlfriend", "boyfriend", "fiance"})
_PARTNER_WORDS = r"(?:wife|husband|spouse|partner|girlfriend|boyfriend|fianc[eé]e?|gf|bf)"
#: A partner who is past: late, former, ex, first, dead, broken up with.
_PAST = re.compile(
    rf"\b(?:late|former|ex|first|previous|deceased|dead|old)\b[\s-]*{_PARTNER_WORDS}|"
    rf"\bex-?{_PARTNER_WORDS}|\b(?:divorced|widow(?:ed|er)?|died|passed|broken\s+up|"
    r"broke\s+up|split|separated|no\s+longer)\b",
    re.IGNORECASE,
)

_NEW_ONE = re.compile(rf"^(The user's )new\s+(?={_PARTNER_WORDS}\b)")


def _spouse_named(content: str, tags: Sequence[str]) -> str | None:
    """The name ``content`` gives the person's current spouse; None when it names none, a
    past one, or more than one person."""
    if "deceased" in tags or _PAST.search(content):
        return None
    said = [e for e in edges_in(content) if e.src == USER and e.via is None]
    if len(said) != 1 or said[0].rel not in _SPOUSE:
        return None
    return said[0].dst


def _rel(content: str) -> str:
    said = [e.rel for e in edges_in(content) if e.src == USER and e.via is None]
    return said[0] if said else ""


def one_spouse(writes: Sequence[WriteOp], existing: Sequence[MemoryRecord]) -> list[WriteOp]:
    """``writes`` with a new spouse's name superseding the live record of the old one, and a
    spouse named again as kept a skip. The person's records are read only when a write
    names a spouse: most messages name none, and reading each record's relations is most of
    what the offline writer costs a turn at a thousand records."""
    named = [_spouse_named(w.entry.content, w.entry.tags) for w in writes]
    if not any(
        w.op == "add" and w.scope == "user" and name is not None
        for w, name in zip(writes, named, strict=True)
    ):
        return list(writes)
    kept = [
        (rec, name)
        for rec in live_of(existing)
        if rec.scope == "user"
        if (name := _spouse_named(rec.content, rec.tags)) is not None
    ]
    if not kept:
        return list(writes)
    taken = {w.entry.supersedes_id for w in writes if w.entry.supersedes_id}
    out = []
    for write, name in zip(writes, named, strict=True):
        if write.op != "add" or write.scope != "user" or name is None:
            out.append(write)
            continue
        same = next((rec for rec, n in kept if n.lower() == name.lower()), None)
        # "Olu and I are together" says "partner" of the girlfriend kept: nothing new
        if same is not None and _rel(write.entry.content) in (_rel(same.content), "partner"):
            out.append(write.model_copy(update={"op": "skip"}))
            continue
        # "my wife Sam" after "my girlfriend Sam": the same one, now a wife
        old = same or next((rec for rec, _ in kept if rec.id not in taken), None)
        if old is not None and old.id in taken:
            old = None
        if old is None:
            out.append(write)
            continue
        taken.add(old.id)
        content = _NEW_ONE.sub(r"\1", write.entry.content)  # new no longer once kept
        entry = write.entry.model_copy(update={"supersedes_id": old.id, "content": content})
        out.append(write.model_copy(update={"op": "update", "entry": entry}))
    return out


__all__ = ["one_spouse"]
