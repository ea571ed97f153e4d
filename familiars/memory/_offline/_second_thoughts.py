"""A value taken back in the message that says it: "my fav food is pizza. actually nah, its
sushi", "my favourite colour is red, actually no, it's green".

The writer reads each clause alone, so the first value is kept and the second, said only as
"it's sushi", names nothing. The second is what the person settled on: the fact written from
the first takes it in the first's place (content and topic), and nothing says the first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._objects import topic_key
from familiars.memory._writer._schema import WriteOp

#: "actually nah, its sushi", "wait no it's green", "no actually, it's blur".
_SECOND = re.compile(
    r"\b(?:actually|wait|no)\W+(?:(?:nah|no|nope|actually|wait)\W+)*"
    r"(?:it's|its|it\s+is|it\s+was)\s+(?!(?:so|really|very|too|great|good|amazing|the\s+best|"
    r"lovely|nice|fine|delicious|gorgeous|mint|class|fire|goated)\b)(?P<new>[\w' -]+?)"
    r"\s*(?:\b(?:actually|tbh|lol|haha|instead|really)\b\W*)*[.!]*\s*$",
    re.IGNORECASE,
)
#: A fact that says one value: "The user's favourite food is pizza."
_VALUE = re.compile(r"^(?P<head>The user(?:'s [\w' -]+? is| likes| loves)) (?P<old>[\w' -]+)\.$")


def second_thoughts(text: str, writes: Sequence[WriteOp]) -> list[WriteOp]:
    """``writes`` with the one fact of a value taken back later in ``text`` saying the
    value settled on (see the module docstring); as they are otherwise."""
    m = _SECOND.search(text)
    if m is None:
        return list(writes)
    before = text[: m.start()].lower()
    said = [
        (w, v)
        for w in writes
        if w.op in ("add", "update")
        and (v := _VALUE.match(w.entry.content.strip())) is not None
        and v.group("old").lower() in before
    ]
    if len(said) != 1:
        return list(writes)
    write, value = said[0]
    new, old = m.group("new").strip(), value.group("old")
    write.entry.content = f"{value.group('head')} {new}."
    write.entry.tags = [
        f"topic:{topic_key(new)}" if t == f"topic:{topic_key(old)}" else t for t in write.entry.tags
    ]
    return list(writes)


__all__ = ["second_thoughts"]
