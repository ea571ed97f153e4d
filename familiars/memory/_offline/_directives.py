"""A standing instruction to the agent ("from now on, always answer in pirate speak"):
:func:`match_directive` makes it an ``identity/directive`` fact.

Whether it stays the agent's (every chat's prompt) is not decided here: the writer's one
rule (:func:`familiars.memory._writer._rights.govern`) keeps it for the speaker unless an
owner said it in a private chat. Only an imperative about how the agent talks is taken
("always reply in French", "never use emoji"), not "call me Ali from now on" (a nickname,
:mod:`._people`) nor "never mind".
"""

from __future__ import annotations

import logging
import re

from familiars.memory._offline._objects import Fact

logger = logging.getLogger(__name__)

_LEAD = re.compile(
    r"^(?:(?:and|so|ok|okay|also|from now on|going forward|in future|in the future|"
    r"from here on|please|pls|kindly)\b[,\s]*)+",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(?P<how>always|never|don'?t ever|do not ever|don'?t|do not)\s+"
    r"(?P<verb>answer|reply|respond|write|speak|talk|use|say|address|greet|sign|end|start|"
    r"begin|format|keep|include|add|put|mention|swear|curse)\b(?P<rest>[^?]*)$",
    re.IGNORECASE,
)
#: Without "always" / "never", a plain "don't ..." stands only with a marker of time.
_STANDING = re.compile(
    r"\b(?:from now on|going forward|in future|in the future|from here on|anymore|any more|"
    r"again)\b",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"[\s,]*(?:from now on|going forward|in (?:the )?future|from here on|please|ok|okay|"
    r"thanks|thank you)[\s,.!]*$",
    re.IGNORECASE,
)
_SWAP = (
    (re.compile(r"\bme\b", re.IGNORECASE), "the user"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "the user's"),
)


def match_directive(clause: str) -> Fact | None:
    """The standing instruction ``clause`` gives the agent, or None."""
    text = clause.strip().rstrip(".!")
    m = _IMPERATIVE.match(_LEAD.sub("", text))
    if m is None:
        return None
    how = m.group("how").lower()
    if how.startswith(("don", "do not")) and "ever" not in how and not _STANDING.search(text):
        return None
    rest = _TAIL.sub("", m.group("rest")).strip()
    body = f"{m.group('verb').lower()} {rest}".strip()
    for pattern, third in _SWAP:
        body = pattern.sub(third, body)
    lead = "Always" if how == "always" else "Never"
    content = f"{lead} {body}."
    key = "directive:" + "-".join(re.findall(r"\w+", body.lower())[:8])
    return Fact("identity", "directive", content, ("directive",), key, 0.8)
