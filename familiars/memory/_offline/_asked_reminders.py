"""A reminder asked for in other words, said the way the reminder rules read it.

:func:`as_remind_me` says each other way of asking ("give me a nudge", "don't let me forget
to", "jog my memory", "set an alarm") as "remind me"; :func:`settled_request` says a request
made in a roundabout way plainly (its time words, a day taken back at the end, a request
after what it is about); :func:`remind_of_asked` tells "can you remind me of the rehearsal"
from "you remind me of my mother".
"""

from __future__ import annotations

import re

from familiars.memory._offline._remind_me import alarm_and_not_first, alarm_in_the_morning
from familiars.memory._offline._time_words import plain_request

#: "set a reminder for ...", "make me a reminder to ...", "nudge me tomorrow to ...", "give
#: me a nudge at 5 to ...", "don't let me forget to ...": read as "remind me ...".
_SET_A_REMINDER = re.compile(
    r"\b(?:(?:set|make|create|add|put\s+in|schedule)\s+(?:me\s+|up\s+)?an?\s+(?:reminder|alarm)"
    r"|(?:nudge|ping|prod|poke|buzz)\s+me"
    r"|(?:give|send)\s+me\s+an?\s+(?:nudge|ping|prod|poke|buzz|shout|reminder|heads[\s-]up)"
    r"|jog\s+my\s+memory|help\s+me\s+(?:to\s+)?remember(?=\s+(?:to|about|at|on|in|tomorrow)\b)"
    r"|(?:don't|dont|do\s+not)\s+let\s+me\s+forget(?=\s+(?:to|about)\b))\s+",
    re.IGNORECASE,
)
#: "remind me for my flu jab on the 18th" (a reminder wished "for" a thing): about it; not
#: "for the 18th", "for tomorrow" or "for the morning", which say when.
_FOR_A_THING = re.compile(
    r"\b(remind\s+me)\s+for\s+(?=(?:my|our|his|her|their|the|a|an)\s+"
    r"(?!(?:\d|next\b|morning|afternoon|evening|night|weekend|day|week|month|end)))",
    re.IGNORECASE,
)
#: "remind me of the orchestra rehearsal on friday" asks for a reminder; "you remind me of
#: my mother at Christmas" does not: "of" only where the clause asks ("can you remind me of").
_ASKED_OF = re.compile(
    r"^(?:(?:please|pls|hey|ok|okay|and|so|also|oh)[\s,]+)*(?:(?:can|could|would|will)\s+"
    r"(?:you|u)\s+(?:please\s+)?)?remind\s+me\s+of\b",
    re.IGNORECASE,
)
_REMIND_OF = re.compile(r"\bremind\s+me\s+of\b", re.IGNORECASE)


_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
_DAY_NAMES = {d[:3]: d for d in ("monday", "tuesday", "wednesday", "thursday", "friday",
                                  "saturday", "sunday")}  # fmt: skip
#: "every tuesday and thursday at 10 remind me to X... actually just tuesdays": the days
#: said, then taken back to one at the end (its words are no part of the task).
_JUST_THE_DAY = re.compile(
    rf"^(?P<head>.*?\b(?:every|each)\s+)(?P<days>{_DAY}s?(?:\s*(?:,|and|&|or)\s*{_DAY}s?)+)"
    r"(?P<mid>.*?)[\s.,;!…-]*\b(?:actually|no|sorry|wait|oh|hmm)[,!]?\s+"
    rf"(?:make\s+(?:it|that)\s+)?(?:just|only)\s+(?:on\s+)?(?P<day>{_DAY})s?\s*[.!]*$",
    re.IGNORECASE,
)
#: "I need my blood pressure tablets every morning at 8, can you remind me": a request to be
#: reminded said after what it is about (it was taken as chat: "I see. Tell me more?").
_ASKED_AFTER = re.compile(
    r"^i\s+(?:need|have|must|'ve\s+got|got)\s+(?:(?:to\s+)?remember\s+)?(?P<to>to\s+)?"
    r"(?P<body>.+?)[\s,.;…-]*(?:so\s+)?(?:(?:can|could|will|would)\s+you\s+)?(?:please\s+)?"
    r"remind\s+me"
    r"(?:\s+(?:please|pls|of\s+that|about\s+(?:that|it)))?\s*[?.!]*$",
    re.IGNORECASE,
)
_MEDICINE = re.compile(
    r"^(?:my|the|his|her|their|our)\s+(?:[\w-]+\s+){0,3}(?:tablets?|pills?|meds|medications?|"
    r"medicines?|inhaler|insulin|vitamins?|injections?|antibiotics|drops|dose)\b",
    re.IGNORECASE,
)


def settled_request(text: str) -> str:
    """A reminder request said in a roundabout way, said plainly: its time words
    (:func:`~familiars.memory._offline._time_words.plain_request`: "tmrw at seven, please"),
    a day taken back at the end ("every tuesday and thursday at 10 remind me to X... actually
    just tuesdays" is "every tuesday at 10 remind me to X"), and a request after what it is
    about ("I need to call the bank at 3, can you remind me"; "I need my tablets every
    morning at 8, can you remind me" is "remind me to take my tablets every morning at 8").
    Else ``text``."""
    if _ASKS_A_REMINDER.search(as_remind_me(text)):
        plain = plain_request(text)
        return _settled(plain) if plain != text.strip() else _settled(text)
    return _settled(text)


_ASKS_A_REMINDER = re.compile(r"\bremind\s+me\b", re.IGNORECASE)


def _settled(text: str) -> str:
    said = text.strip()
    just = _JUST_THE_DAY.match(said)
    if just is not None:
        day = _DAY_NAMES[just.group("day").lower()[:3]]
        said = f"{just.group('head')}{day}{just.group('mid')}".strip(" ,.…")
    asked = _ASKED_AFTER.match(said)
    if asked is None:
        return said if just is not None else text
    body = asked.group("body").strip(" ,")
    if asked.group("to"):
        return f"remind me to {body}"
    if _MEDICINE.match(body):
        return f"remind me to take {body}"
    return said if just is not None else text


def as_remind_me(text: str) -> str:
    """``text`` with each other way of asking for a reminder ("give me a nudge", "don't let
    me forget to") said as "remind me", an alarm with its time ("wake me up at 6:45") as
    "remind me to wake up", and a task's "not" said first ("not to eat") as "to not eat":
    what the turn checks for a reminder asked for."""
    said = _SET_A_REMINDER.sub("remind me ", alarm_in_the_morning(text))
    said = _FOR_A_THING.sub(r"\1 about ", said)
    return alarm_and_not_first(said)


def remind_of_asked(clause: str) -> bool:
    """Whether a clause with "remind me of" in it asks for a reminder ("can you remind me of
    the rehearsal on friday"), not "you remind me of my mother"; True when it says no "of"."""
    return not _REMIND_OF.search(clause) or _ASKED_OF.match(clause.strip()) is not None


__all__ = ["alarm_in_the_morning", "as_remind_me", "remind_of_asked", "settled_request"]
