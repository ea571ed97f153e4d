"""What the familiar says around a crisis reply, so that it listens instead of repeating
itself (tester s37: four worried messages in a row got the same paragraph word for word;
"I'm safe tonight, my sister's coming over" was asked "are you safe right now?" again;
"what's the number for samaritans again" got "I don't know that yet").

Map:

- :class:`CareLog`: how many crisis replies a conversation has had, and whether the person
  has said they are safe or not alone;
- :func:`follow_up`: the second and later crisis replies of a conversation: shorter, about
  what was said, a line still named and safety asked (not once the person said they are);
- :func:`says_safe` and :func:`safe_reply`: "I'm safe tonight, my sister's coming over";
- :func:`asks_for_a_line` and :func:`lines_again`: the crisis lines asked for again;
- :func:`later_reply` and :func:`lines_reply`: the same, in the owner's words where the
  owner wrote the crisis text (``[care]`` settings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from familiars.bot._care import crisis_reply, speaks_of_self_harm
from familiars.config import DEFAULT_CRISIS_TEXT, CareSettings


@dataclass
class CareLog:
    """One conversation's crisis replies (in memory: a restart starts afresh)."""

    count: int = 0
    last: datetime | None = None
    safe: bool = False

    def fresh(self, now: datetime, gap_s: float) -> CareLog:
        """This log, or a new one when the last crisis reply is more than ``gap_s`` old."""
        if self.last is not None and now - self.last > timedelta(seconds=gap_s):
            return CareLog()
        return self


#: What was said, heard back: the first that matches answers.
_HEARD: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reply)
    for pattern, reply in (
        (
            r"\bburden\b",
            "Feeling like a burden is such a painful place to be, and it doesn't make it true.",
        ),
        (
            r"\b(?:no\s*one|nobody|no-one)\s+would\s+(?:even\s+)?(?:notice|care|miss)",
            "It sounds like you're feeling very alone with this right now.",
        ),
        (
            r"\b(?:end(?:ing)?\s+(?:it|my\s+life|things)|kill(?:ing)?\s+myself|suicid\w*)",
            "Thank you for telling me you've been thinking about ending your life. "
            "That is hard to say.",
        ),
        (
            r"\b(?:be\s+here|exist|wake\s+up|carry\s+on|go\s+on|keep\s+going)\b",
            "It sounds like everything feels like too much right now.",
        ),
    )
)
_HEARD_ANYTHING = "That sounds so heavy to carry."
#: Safety asked, a different way each time.
_ASKS = (
    "Are you safe right now?",
    "Is there someone with you, or someone you could call tonight?",
    "Are you thinking about acting on these thoughts? If you are, please call your local "
    "emergency number now.",
)
#: Once the person said they are safe or not alone.
_SAFE_SAID = (
    "I'm glad you're not on your own with it tonight.",
    "I'm glad you said you're safe; I'm still here with you.",
)


def follow_up(text: str, helplines: str, nth: int, *, safe: bool) -> str:
    """The ``nth`` (1 for the second) crisis reply of a conversation to ``text``: what was
    said heard back, safety asked (or, once said, its gladness), and ``helplines``."""
    heard = next((reply for p, reply in _HEARD if p.search(text)), _HEARD_ANYTHING)
    asked = (_SAFE_SAID if safe else _ASKS)[(nth - 1) % (2 if safe else 3)]
    lines = helplines[:1].lower() + helplines[1:] if helplines else ""
    if nth % 2:
        return f"{heard} I'm here, and I'm listening. {asked} {helplines}".strip()
    return f"I hear you. {heard} {asked} Talking to someone can help: {lines}".strip()


_WHO = (
    r"(?:(?:big|little|older|younger|best|twin)\s+)?(?:sister|brother|sis|bro|mum|mom|mam|"
    r"mother|dad|father|parents|partner|wife|husband|girlfriend|boyfriend|friend|mate|"
    r"flatmate|roommate|housemate|neighbour|neighbor|son|daughter|nan|gran|grandma|grandad|"
    r"aunt|auntie|uncle|cousin|fianc[eé]e?)"
)
#: Someone with them: "my sister's coming over", "my mum is here", "I'm with my friend".
_COMPANY = re.compile(
    rf"\bmy\s+(?P<who>{_WHO})(?:'s|\s+is|\s+will\s+be|'ll\s+be|\s+are|'re)?\s+(?P<what>"
    r"coming\s+(?:over|round|around|to\s+stay)|(?:here|with\s+me|on\s+(?:her|his|their|the)\s+way|"
    r"staying(?:\s+(?:over|with\s+me))?))\b"
    rf"|\b(?:i'?m|im|i\s+am|i'?ll\s+be|staying)\s+(?:staying\s+)?(?:with|at)\s+my\s+(?P<host>{_WHO})",
    re.IGNORECASE,
)
_SAFE = re.compile(
    r"\b(?:i'?m|im|i\s+am|i'?ll\s+be|i\s+will\s+be|i\s+feel|feeling)\s+(?:(?:totally|completely|"
    r"perfectly|quite|pretty|fairly|actually)\s+)?safe\b(?P<when>\s+(?:tonight|now|for\s+now|today))?",
    re.IGNORECASE,
)
#: A "but" or a means after the safety said: met with a check-in, not only gladness.
_UNSURE = re.compile(
    r"\b(?:but|although|though|except|pills|tablets|rope|plan|goodbye|tomorrow\s+night)\b",
    re.IGNORECASE,
)


def says_safe(text: str) -> bool:
    """Whether ``text`` says the person is safe or not alone, with no doubt after it."""
    return bool(
        (_SAFE.search(text) or _COMPANY.search(text))
        and not _UNSURE.search(text)
        and not speaks_of_self_harm(text)
    )


def safe_reply(text: str) -> str:
    """Gladness for what :func:`says_safe` read, in its own words, without asking again."""
    parts = []
    if (safe := _SAFE.search(text)) is not None:
        parts.append(f"you're safe{(safe.group('when') or '').rstrip()}")
    if (company := _COMPANY.search(text)) is not None:
        if company.group("host"):
            parts.append(f"you're with your {company.group('host').lower()}")
        else:
            who, what = company.group("who").lower(), " ".join(company.group("what").split())
            verb = "are" if who == "parents" else "is"
            parts.append(f"your {who} {verb} {'with you' if what == 'with me' else what}")
    glad = " and that ".join(parts)
    return (
        f"I'm really glad {glad}. I'm here whenever you want to talk, and those lines are "
        "there day or night if it gets heavy again."
    )


#: A crisis line asked for again, after a crisis reply: named ("samaritans", "the helpline")
#: with its number or line asked for, or "that number" / "what was the line".
_LINE_NAMED = re.compile(
    r"\b(?:samaritans|lifeline|helplines?|hotlines?|crisis\s+(?:line|number)s?|"
    r"suicide\s+(?:line|hotline|number)s?|telefonseelsorge|tele-?manas|988|116\s*123)\b",
    re.IGNORECASE,
)
_LINE_AGAIN = re.compile(
    r"\b(?:the|that|those|your)\s+(?:phone\s+)?(?:numbers?|lines?)\b.*\b(?:again|you\s+(?:gave|said|"
    r"sent|mentioned))\b|\bwhat\s+(?:was|were|is|are)\s+(?:the|that|those)\s+(?:numbers?|lines?)\b",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"\?|\b(?:what|whats|which|where|give|send|tell|remind|again|how\s+do\s+i)\b",
    re.IGNORECASE,
)
#: What names the number or line itself: "the number for samaritans", "how do I call them".
_A_NUMBER = re.compile(
    r"\b(?:numbers?|lines?|phone|digits|contact\s+details)\b"
    r"|\bhow\s+(?:do|can)\s+i\s+(?:call|ring|reach|contact|get\s+hold\s+of)\b",
    re.IGNORECASE,
)
#: A reminder asked for: "remind me to call the samaritans office ..." is a task, not a plea.
_A_REMINDER = re.compile(
    r"\bremind\s+(?:me|us)\s+(?:to|at|in|on|about|tomorrow|tonight|every|next|this)\b"
    r"|\b(?:set|add|make)\s+(?:me\s+)?an?\s+reminder\b|\breminders?\s+(?:to|for)\b",
    re.IGNORECASE,
)


def asks_for_a_line(text: str, *, cared: bool) -> bool:
    """Whether ``text`` asks for a crisis line's number again; ``cared``: the conversation
    had a crisis reply, without which nothing is asked again. A reminder request, or a
    message that only names a line ("the samaritans office about my shift"), is no ask."""
    if not cared or _A_REMINDER.search(text):
        return False
    if _LINE_NAMED.search(text) and _A_NUMBER.search(text) and _ASKING.search(text):
        return True
    return _LINE_AGAIN.search(text) is not None


def lines_again(helplines: str) -> str:
    return f"Of course. {helplines} I'm here too, whenever you want to talk."


def owners_text(care: CareSettings) -> bool:
    """Whether the owner wrote the crisis text (it is not the shipped one)."""
    return " ".join(care.crisis_text.split()) != " ".join(DEFAULT_CRISIS_TEXT.split())


def later_reply(
    care: CareSettings, text: str, countries: Sequence[str], nth: int, *, safe: bool
) -> str:
    """The ``nth`` (1 for the second) crisis reply of a conversation to ``text``: the
    owner's follow-up texts in turn where they wrote some, else their crisis text again
    where they wrote that (an owner's text in Norwegian is not followed by English ones),
    else :func:`follow_up`."""
    if own := care.crisis_follow_up_texts:
        return crisis_reply(own[(nth - 1) % len(own)], countries)
    if owners_text(care):
        return crisis_reply(care.crisis_text, countries)
    return follow_up(text, crisis_reply("{helplines}", countries), nth, safe=safe)


def lines_reply(care: CareSettings, countries: Sequence[str]) -> str:
    """The crisis lines asked for again: the owner's crisis text where they wrote it (its
    lines, or the numbers they put in it), else :func:`lines_again`."""
    if owners_text(care):
        return crisis_reply(care.crisis_text, countries)
    return lines_again(crisis_reply("{helplines}", countries))
