"""Changes of mind said by the slot, not the value: "i dont hate maths anymore", "so I'm not
on nights anymore, I'm on earlies", "i quit lol", "single now".

:mod:`._dropped` retires a record by the value an ending names ("i quit starbucks", "me and
priya broke up"). Here the ending names what was said of the person ("not on nights
anymore": the record that says "nights") or no value at all ("i quit": the one live job;
"single now": the one live partner). The record is superseded, history kept, by what another
clause says instead ("I'm on earlies": "The user is on earlies.") or by its "no longer".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._dropped import _PARTNER, _new_content, _of_kind, _over, _words
from familiars.memory._offline._kept import live_of
from familiars.memory._offline._superseding import superseding
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp

_LEAD = r"^(?:(?:tbh|honestly|so|but|and|well|ok|okay|actually|jk|lol|ngl|yeah)\W+)*"
#: "i dont hate maths anymore", "I'm not on nights any more", "not working nights anymore".
_NOT_ANYMORE = re.compile(
    rf"{_LEAD}(?:(?:i|im|i'm|i\s+am)\s+)?(?:do\s+not|don't|dont|am\s+not|not|no\s+longer)\s+"
    r"(?:(?P<verb>hate|dislike|like|love|mind|enjoy|working|work|doing|do|playing|play|eat|"
    r"drink|on|at|in|into)\b)?\s*(?P<obj>[\w' -]+?)\s+(?:any\s?more|no\s+more)\b",
    re.I,
)
#: "i quit", "jk i quit already its so boring": a job left with nothing named.
_BARE_QUIT = re.compile(
    rf"{_LEAD}i(?:\s+just|'ve|\s+have|\s+already)*\s+(?:quit|quitted|left|packed\s+it\s+in|"
    r"jacked\s+it\s+in)(?:\s+(?:already|lol|today|yesterday|it|work|my\s+job|the\s+job|now))*"
    r"(?:\s+(?:its|it's|it\s+was|coz|cos|because|bc)\b.*)?$",
    re.I,
)
#: "single now", "im single again": the one partner is past.
_SINGLE = re.compile(rf"{_LEAD}(?:(?:i'm|im|i\s+am)\s+)?single\s+(?:now|again)\b", re.I)
_DISLIKES = re.compile(
    r"^The user (?:doesn't like|does not like|dislikes|hates|can't stand) (?P<what>.+?)\.$"
)
#: Said of another ("my mate is single now"): the person is not the one.
_SOMEONE = re.compile(r"\b(?:my|his|her|their|our)\s+\w+\s+(?:is|'s)\b|\b(?:he|she|they)\b", re.I)


def _parts(text: str) -> list[str]:
    """Every sentence of ``text``, cut at its commas (a joke's too: "jk i quit already")."""
    return [p for p in re.split(r"[.!?]+\s+|\n+|\s*[,;]\s*|\s+-+\s+", text.strip(" .!?")) if p]


def _one(found: Sequence[MemoryRecord], taken: set[str]) -> MemoryRecord | None:
    return found[0] if len(found) == 1 and found[0].id not in taken else None


def _ended(part: str, own: Sequence[MemoryRecord], taken: set[str]) -> MemoryRecord | None:
    """The one live record ``part`` says is over, or None."""
    if _SOMEONE.search(part):
        return None
    if _BARE_QUIT.search(part):
        return _one([r for r in own if _of_kind(r, frozenset({"job"}))], taken)
    if _SINGLE.search(part):
        return _one([r for r in own if _PARTNER.match(r.content.strip())], taken)
    m = _NOT_ANYMORE.search(part)
    wanted = _words(m.group("obj")) - {"really", "even", "that", "so"} if m else set()
    if m is None or not wanted:
        return None
    return _one([r for r in own if wanted <= _words(r.content.replace("'s ", " "))], taken)


def _no_longer(rec: MemoryRecord) -> str:
    """What ``rec`` says once over: a dislike "no longer dislikes"; a partner parted from."""
    disliked = _DISLIKES.match(rec.content.strip())
    if disliked is not None:
        return f"The user no longer dislikes {disliked.group('what')}."
    return _over(rec, parted=bool(_PARTNER.match(rec.content.strip()))).rstrip(".") + "."


#: Verbs of a record that are no doing to follow "no longer" ("liking chess").
_NOT_DOINGS = frozenset(
    [
        "no",
        "doesn't",
        "does",
        "has",
        "can't",
        "cannot",
        "likes",
        "loves",
        "enjoys",
        "hates",
        "dislikes",
        "prefers",
    ]
)


def _was(rec: MemoryRecord) -> str | None:
    """What ``rec`` said, to follow "no longer": "The user works nights." -> "working
    nights", "The user is vegetarian." -> "vegetarian"; None when it is said otherwise."""
    m = re.match(r"^The user (\w+) ([^.;]+)\.$", rec.content.strip())
    if m is None or m.group(1) in _NOT_DOINGS:
        return None
    verb, rest = m.group(1), m.group(2)
    if verb in ("is", "was"):
        return rest
    stem = re.sub(
        r"(?<=[^aeiou])e$", "", re.sub(r"(?:es|s)$", "", verb) if verb.endswith("s") else verb
    )
    return f"{stem}ing {rest}" if verb.endswith("s") else None


def no_more_writes(text: str, existing: Sequence[MemoryRecord], taken: set[str]) -> list[WriteOp]:
    """Updates retiring what ``text`` says is over by its slot (see the module docstring);
    ``taken``: records already retired this turn (grows)."""
    parts = _parts(text)
    if not any(p.search(part) for part in parts for p in (_BARE_QUIT, _SINGLE, _NOT_ANYMORE)):
        return []  # most messages end nothing: the records are not read
    own = [r for r in live_of(existing) if r.scope == "user" and not r.open_loop]
    out: list[WriteOp] = []
    for part in parts:
        rec = _ended(part, own, taken)
        if rec is None:
            continue
        taken.add(rec.id)
        others = [p for p in parts if p is not part]
        new = None if _PARTNER.match(rec.content.strip()) else _new_content(rec, "", others)
        if new is not None:  # what it was is said too: "do I work nights?" finds it over
            was = _was(rec)
            said = f"{new[0].rstrip('.')} now, no longer {was}." if was else new[0]
            out.append(superseding(rec, said, text, new[1]))
        else:
            tags = [*rec.tags, *([] if "ended" in rec.tags else ["ended"])]
            out.append(superseding(rec, _no_longer(rec), text, tags))
    return out


__all__ = ["no_more_writes"]
