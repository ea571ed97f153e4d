"""A liking turned round, said with a pronoun: "I used to hate olives but these days I can't
get enough of them", "I never liked mushrooms before, now I'm hooked on them".

The second clause says the new liking of "them"; the rules read a liking only of a thing
named. Here "it"/"them" (or "em", "'em") in the clause after a past liking or disliking of X
is said as X, so the rules read "these days I can't get enough of olives" as the liking it
is, and the kept dislike of olives is superseded by it (the record's polarity turned). The
past clause itself ("I used to hate olives") claims nothing now, and it does not take a kept
liking of olives back either (:func:`turned_against_dislike`).
"""

from __future__ import annotations

import re

#: A liking or disliking said to be past, then its object.
_WAS = (
    r"(?P<was>\b(?:used\s+to|never\s+used\s+to|didn'?t\s+use[d]?\s+to|did\s+not\s+use[d]?\s+to|"
    r"never|once|always|would\s+never)\s+(?:really\s+|even\s+|much\s+)?"
    r"(?:hate|hated|like|liked|love|loved|enjoy|enjoyed|stand|stood|bear|dislike|disliked|"
    r"mind|care\s+for|cared\s+for|rate|rated|touch|touched|eat|ate|drink|drank)\s+"
    r"(?P<obj>(?:(?!(?:before|but|and|though|yet|at|much|as|when|back|now)\b)[\w'-]+\s*){1,4}?))"
    r"(?:\s+(?:before|at\s+all|much|as\s+a\s+(?:kid|child|teenager)|growing\s+up|back\s+then|"
    r"when\s+i\s+was\s+(?:little|younger|a\s+kid)))?"
)
_TURNED = re.compile(
    _WAS + r"(?P<sep>\s*[,;-]?\s*(?:(?:but|and|though|yet)\s+)?)"
    r"(?P<now>(?:(?:now|these\s+days|nowadays|lately|recently)\b[^.!?]*?|i[^.!?]*?))"
    r"(?P<pro>\bit|\bthem|\bem|(?<!\w)'em)\b",  # "now i love em": "em" is "them"
    re.IGNORECASE,
)
#: A past disliking: "used to hate X", "never liked X", "didn't use to like X".
_DISLIKED_ONCE = re.compile(
    r"\b(?:used\s+to\s+(?:hate|dislike|detest|loathe)|(?:used\s+to|could)\s*n[o']t\s+stand|"
    r"couldn'?t\s+stand|never\s+(?:used\s+to\s+)?(?:like|liked|rated|cared\s+for)|"
    r"didn'?t\s+(?:use[d]?\s+to\s+)?(?:like|rate|care\s+for)|did\s+not\s+use[d]?\s+to\s+like)\b",
    re.IGNORECASE,
)


def turned_said(text: str) -> str:
    """``text`` with "it"/"them" after a past liking or disliking said as its object."""

    def named(m: re.Match[str]) -> str:
        said = m.group(0)[: m.start("pro") - m.start()]  # up to the pronoun
        return said + m.group("obj").strip()

    return _TURNED.sub(named, text)


def turned_against_dislike(clause: str) -> bool:
    """Whether ``clause`` says a disliking is past ("I used to hate olives"): it takes no
    kept liking back; if anything it says the liking is new."""
    return bool(_DISLIKED_ONCE.search(clause))


__all__ = ["turned_against_dislike", "turned_said"]
