"""Whether a clause asserts something of the speaker as true now: the stance of the clause,
read by light general syntax before any slot reader gives its words a value.

A slot is what a clause is about ("I'm not vegan" is about diet, as "I'm vegan" is); the
stance says whether it is claimed. Four stances claim nothing of the speaker now, whatever
the slot and the words:

- a denied being: "I'm not vegan", "I am no longer a teacher", "I'm never a morning person";
- a belief about someone else: "I'm pretty sure she's called Becky", "I reckon he's a vet";
- a past that is over: "I had a hamster when I was little", "as a kid I lived in Leeds";
- a wish, a plan or a condition: "I'd love to live in Spain", "one day I'll have a dog".

Negation of another verb ("I can't stand coriander", "I don't eat gluten") is not denied
being: it is what a dislike or an allergy says, and stays for its slot.
"""

from __future__ import annotations

import re

_DENIED_BEING = re.compile(
    r"\b(?:i'?m|im|i\s+am|i\s+ain't)\s+(?:really\s+|just\s+)?(?:not|no\s+longer|never|no)\b", re.I
)
#: A belief whose clause is about someone else: "I'm pretty sure she's called Becky", "I
#: reckon my brother's a vet" (an opinion of one's own, "I think mushrooms are the worst",
#: stays: its subject is no one).
_BELIEF = re.compile(
    r"^(?:(?:i'?m|im|i\s+am)\s+(?:\w+\s+)?(?:sure|certain|positive|convinced)"
    r"|i\s+(?:\w+\s+)?(?:think|reckon|guess|bet|heard|believe|suppose|doubt|assume))\s+"
    r"(?:that\s+)?(?:he|she|they|his|her|their|(?:my|our)\s+[\w-]+|(?-i:[A-Z][a-z]+))"
    r"(?:'s|'re|\s+is|\s+are|\s+was|\s+has|\s+works|\s+lives)\b",
    re.I,
)
_PAST_FRAME = re.compile(
    r"\bwhen\s+i\s+was\b|\bas\s+a\s+(?:kid|child|teen|teenager|boy|girl|student)\b"
    r"|\bgrowing\s+up\b|\bback\s+in\s+the\s+day\b|\b(?:years|ages)\s+ago\b|\bused\s+to\b"
    r"|\bin\s+my\s+(?:youth|teens|twenties|thirties|younger\s+days)\b|\bonce\s+upon\b",
    re.I,
)
_WISHED = re.compile(
    r"\b(?:i'd|id|i\s+would|i\s+wish|i\s+want\s+to|i\s+wanna|i\s+hope\s+to|i\s+might|i'll|"
    r"(?:i'?m|im|i\s+am)\s+(?:so\s+|just\s+|literally\s+)?(?:dying|itching|desperate|longing|"
    r"gagging|aching)\s+to|can'?t\s+wait\s+to|"
    r"i\s+will|one\s+day|someday|some\s+day|in\s+another\s+life|if)\b",
    re.I,
)


def claims_now(clause: str) -> bool:
    """Whether ``clause`` asserts something of the speaker as true now: not a denied being,
    a belief about someone else, a past that is over, or a wish (module docstring)."""
    said = clause.strip()
    return not (
        _DENIED_BEING.search(said)
        or _BELIEF.search(said)
        or _PAST_FRAME.search(said)
        or _WISHED.search(said)
    )
