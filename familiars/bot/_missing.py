"""The reply to missing someone the person has told of: "i miss Geoffrey terribly today",
"missing my husband", "it would have been Geoffrey's birthday today".

Offline, such a message kept nothing and got "I see. Tell me more?": filler where a person
grieving wants to be heard. Here the one missed is found among the person's relations (by
name, or by the relation said: "my husband"), and the reply names them and how they are
related; for someone who has died (a "late" relation) it is a condolence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.llm import plural
from familiars.memory import own_edges

_MISS = re.compile(
    r"(?:^|\b(?:i|i'm|im|i\s+am|i've\s+been|ive\s+been)\s+)"
    r"(?:(?:really|so|just|still|truly|terribly|badly|been)\s+)*(?:miss|missing)\s+"
    r"(?P<who>my\s+(?:late\s+|dear\s+|darling\s+)?[\w-]+|[A-Z][\w'-]+)"
    r"|\bwould\s+have\s+been\s+(?P<day>[A-Z][\w'-]+?|my\s+[\w-]+?)(?:'s|s')\s+"
    r"(?:birthday|anniversary|\d+\w*\s+birthday)",
    re.I,
)
_HIM = frozenset(
    [
        "husband",
        "father",
        "son",
        "brother",
        "grandfather",
        "boyfriend",
        "grandson",
        "uncle",
        "nephew",
        "stepfather",
    ]
)
_HER = frozenset(
    [
        "wife",
        "mother",
        "daughter",
        "sister",
        "grandmother",
        "girlfriend",
        "granddaughter",
        "aunt",
        "niece",
        "stepmother",
    ]
)


def _pronoun(rel: str) -> str:
    return "him" if rel in _HIM else "her" if rel in _HER else "them"


def missing_someone(text: str, contents: Sequence[str]) -> str | None:
    """The reply to ``text`` when it says the person misses one of the people ``contents``
    (their records) name; None when it does not, or names no one kept."""
    m = _MISS.search(text.strip())
    if m is None:
        return None
    said = (m.group("who") or m.group("day") or "").strip()
    asked_rel = said.split()[-1].lower() if said.lower().startswith("my ") else None
    for content, edge in own_edges(contents):
        if said.lower() != edge.dst.lower() and asked_rel not in (edge.rel, plural(edge.rel)):
            continue
        late = bool(re.search(r"\blate\s|\bdied\b", content))
        name, rel, them = edge.dst, edge.rel, _pronoun(edge.rel)
        if late:
            return (
                f"I'm so sorry. Missing {name}, your late {rel}, is hard, and some days "
                f"more than others. I'm here if you want to talk about {them}."
            )
        return f"You miss {name}, your {rel}. Do you want to tell me about {them}?"
    return None


__all__ = ["missing_someone"]
