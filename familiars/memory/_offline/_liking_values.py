"""The value of a clause whose slot is a liking or a dislike, by light syntax: the object
after the verb of liking, whatever the verb ("adore", "can't get enough of", "I'm a huge X
fan", "X is my thing"), or of disliking (:mod:`._values` dispatches here)."""

from __future__ import annotations

import re
from collections.abc import Callable

from familiars.memory._offline._objects import NO_THING, Fact
from familiars.memory._offline._patterns import match_preference

#: When it is done, said before the doing: "weekends I go fishing", "on Sundays I sail".
_WHEN = (
    r"(?:(?:at\s+|on\s+)?(?:the\s+)?(?:weekends?|evenings?|mornings?|sundays?|saturdays?)\s+|"
    r"in\s+my\s+(?:free|spare)\s+time,?\s+|most\s+(?:days|nights|weekends)\s+)?"
)
_LIKING = re.compile(
    rf"^{_WHEN}(?:i'?m\s+|im\s+|i\s+am\s+|i'?ve\s+|i\s+)?(?:(?:really|absolutely|just|totally|so|truly|"
    r"actually|honestly|now|recently|finally)\s+)*"
    r"(?:(?:really|absolutely|so|a\s+(?:huge|big)|huge|big)\s+)*"
    r"(?:(?:love|adore|enjoy)(?:ing)?|like|into|fan\s+of|obsessed\s+with|mad\s+(?:about|on)|"
    r"crazy\s+about|can'?t\s+get\s+enough\s+of|passionate\s+about|hooked\s+on|keen\s+on|play|"
    r"do|practi[sc]e|getting\s+into|got\s+into|big\s+on|(?:a\s+)?sucker\s+for|live\s+for|"
    r"go(?=\s+\w+ing\b)|"
    r"spend\s+(?:my\s+)?(?:evenings|weekends|free\s+time|spare\s+time)|"
    r"drink|prefer|switched\s+to|moved\s+on\s+to)\s+(?P<thing>.+?)"
    r"(?:\s+(?:now|these\s+days|at\s+the\s+moment|lately|right\s+now|rn|for\s+me))?$"
    # "these days it's all wild swimming (for me)"
    r"|^(?:(?:these\s+days|nowadays|now),?\s+)?(?:it'?s|its|it\s+is)\s+(?:all|mostly|mainly|largely|more|pretty\s+much\s+all|"
    rf"more\s+or\s+less\s+all)\s+(?:about\s+)?(?!{NO_THING})(?P<all>.+?)(?:\s+for\s+me)?"
    r"(?:\s+(?:now|these\s+days))?$",
    re.I,
)
#: "I'm a huge Arsenal fan", "I'm a coffee addict": the thing before the word of liking.
_A_FAN = re.compile(
    r"^(?:i'?m|im|i\s+am)\s+(?:an?\s+)?(?:(?:big|huge|massive|real|total|proper|bit\s+of\s+an?)\s+)?"
    r"(?P<thing>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:fan|addict|lover|nut|buff|fanatic|enthusiast|geek|"
    r"nerd|junkie|fiend)$",
    re.I,
)
_THING_IS_FAVOURITE = re.compile(
    r"^(?P<thing>.+?)\s+(?:is|are)\s+my\s+(?:favou?rite|fave|thing|jam|life|passion|"
    r"everything|obsession)\b",
    re.I,
)
#: "birdwatching is what I enjoy", "what I love is jazz": the thing named around "what I".
_WHAT_I_LIKE = re.compile(
    r"^(?P<thing>.+?)\s+(?:is|are)\s+what\s+i\s+(?:really\s+|most\s+)?(?:love|enjoy|like|adore|"
    r"live\s+for)(?:\s+(?:most|best|doing))?$"
    r"|^what\s+i\s+(?:really\s+|most\s+)?(?:love|enjoy|like|adore)(?:\s+(?:most|best))?\s+"
    r"(?:is|are)\s+(?P<thing2>.+)$",
    re.I,
)
_MY_FAVOURITE = re.compile(r"^my\s+(?:favou?rite|fave)\s+[\w ]+?\s+is\s+(?P<thing>.+)$", re.I)
_DISLIKING = re.compile(
    r"^(?:i'?m\s+|im\s+|i\s+am\s+|i\s+)?(?:(?:really|absolutely|just|truly|actually|honestly|"
    r"now)\s+)*(?:hate|detest|loathe|despise|dislike|can'?t\s+stand|can'?t\s+bear|"
    r"not\s+(?:a\s+|big\s+)?(?:fan\s+of|keen\s+on|into|big\s+on|on)|don'?t\s+(?:like|enjoy))"
    r"\s+(?P<thing>.+)$",
    re.I,
)
#: A time of day or week said to be the worst is grief or low mood, not a dislike (s34 U24:
#: "The evenings are the worst" was kept as "you don't like The evenings").
_THING_IS_BAD = re.compile(
    r"^(?!(?:the\s+)?(?:evenings?|nights?|mornings?|weekends?|days?|sundays?|mealtimes)\s)"
    r"(?P<thing>.+?)\s+(?:is|are)\s+(?:so\s+|just\s+|really\s+)?(?:disgusting|gross|vile|"
    r"awful|horrible|the\s+worst|not\s+for\s+me|not\s+my\s+thing)\b",
    re.I,
)


def like_value(text: str, kind: Callable[[str], str] | None = None) -> Fact | None:
    m = (
        _LIKING.match(text)
        or _A_FAN.match(text)
        or _THING_IS_FAVOURITE.match(text)
        or _MY_FAVOURITE.match(text)
        or _WHAT_I_LIKE.match(text)
    )
    if m is None:
        return None
    said = m.groupdict()
    thing = said.get("thing") or said.get("thing2") or said.get("all") or ""
    if thing and _JUST_DONE.match(text) and not _done_for_fun(thing, kind):
        return None  # "I do the washing up too", "I do nights too": a chore or a shift
    return match_preference(f"I like {thing}") if thing else None


#: A doing said with a bare "do", no word of liking: "I do yoga", "I do reception too".
_JUST_DONE = re.compile(r"^(?:i\s+)?(?:(?:also|just|now|still)\s+)*do\s+\S", re.I)
_TOO = re.compile(r"\s+(?:too|as\s+well|also|sometimes|now\s+and\s+then)$", re.I)
_A_TASK = re.compile(r"^(?:the|a|an|my|our|some|all\s+the|his|her|their)\s", re.I)


def _done_for_fun(thing: str, kind: Callable[[str], str] | None) -> bool:
    """Whether a thing one just "does" is a pastime: one named bare ("yoga", not "the
    washing up"), and, when meaning is at hand, not nearest the labelled jobs or the other
    words ("reception" is nearer work, "nights" nearer the other words)."""
    bare = _TOO.sub("", thing.strip())
    if _A_TASK.match(bare):
        return False
    return kind is None or kind(bare) not in ("job", "other")


def dislike_value(text: str, kind: Callable[[str], str] | None = None) -> Fact | None:
    m = _DISLIKING.match(text) or _THING_IS_BAD.match(text)
    if m is None:
        return None
    thing = re.sub(r"^(?:the\s+)?", "", m.group("thing"))
    return match_preference(f"I don't like {thing}")
