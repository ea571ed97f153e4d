"""What a question takes for granted about the person's own people and pets: "do you think
my lab Maisie needs a bigger crate?" asks nothing about Maisie, but tells in passing that the
person has a lab called Maisie, as "what should I get my wife Anna?" tells the wife's name.

The question itself keeps nothing; only a relative or pet of one's own named right after its
word is said again as a statement ("my lab is called Maisie") and read like any other. A
name asked for ("what's my dog called?") or someone else's ("my friend's dog Max") is not.
"""

from __future__ import annotations

import re

from familiars.memory._offline._objects import FAMILY
from familiars.memory._offline._people import PETS

#: One's own relative or pet and the name said right after it; "my wife Anna's birthday".
_OWN_NAMED = re.compile(
    r"(?<!')\b(?i:my|our)\s+(?:(?i:little|old|new|baby|eldest|youngest|twin)\s+)?"
    r"(?P<noun>[a-z-]+)\s+(?P<name>[A-ZÀ-Þ][a-zà-ÿ-]+)(?:'s)?\b(?!\s+[A-Z])"
)
#: Whose: a relative or a pet, by its word ("lab" is a labrador when a name follows).
_OWN_WORDS = FAMILY | PETS | frozenset({"lab"})


def presumed(question: str) -> list[str]:
    """The statements ``question`` takes for granted about the person's own relatives and
    pets: "how do I stop my cat Pudding scratching the sofa?" -> ["my cat is called Pudding"]."""
    return [
        f"my {m.group('noun').lower()} is called {m.group('name')}"
        for m in _OWN_NAMED.finditer(question)
        if m.group("noun").lower() in _OWN_WORDS
    ]


__all__ = ["presumed"]
