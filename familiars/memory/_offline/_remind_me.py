"""Two more ways of asking for a reminder said the way the reminder rules read them (see
``_asked_reminders.as_remind_me``, which calls this): an alarm with its time ("wake me up at 6:45
tomorrow"), and a task said with its "not" first ("remind me at 6pm not to eat after
midnight" is "remind me at 6pm to not eat after midnight")."""

from __future__ import annotations

import re

#: "remind me" and what follows it.
REMIND_ME = re.compile(r"\bremind\s+me\s+(?P<rest>.+)$", re.IGNORECASE)
#: An alarm asked for with its time: "wake me up at 6:45 tomorrow", "can you wake me
#: tomorrow at 7" (tester s39: the first got the crisis reply, the second "Tell me more?").
#: Only at the start of a request and only before a time: "I don't want to wake up
#: tomorrow" and "wake me up when it's over" are no alarm.
_WAKE_ME = re.compile(
    r"^(?P<lead>\s*(?:(?:ok(?:ay)?|hey|hi|oh|and|also|so|right)[,!]?\s+)*(?:(?:can|could|will|"
    r"would)\s+(?:you|u)\s+)?(?:please\s+|pls\s+)?)(?:wake\s+me(?:\s+up)?|get\s+me\s+up)\s+"
    r"(?:please\s+|pls\s+)?(?=(?:at|on|in|by|tomorrow|tmrw|today|tonight|this|next|every|each|"
    r"\d)\b|\d)",
    re.IGNORECASE,
)


#: An alarm's clock said with no am or pm: "at 7", "for 6:45", "by 5:30", or a clock first.
_ALARM_CLOCK = re.compile(
    r"^(?P<lead>(?:.*?\b(?:at|for|by)\s+)?)(?P<clock>(?:1[01]|0?[1-9])(?::[0-5]\d)?)\b"
    r"(?!\s*(?:am\b|pm\b|a\.m|p\.m|:|minutes?\b|mins?\b|hours?\b|hrs?\b))",
    re.IGNORECASE,
)
#: The evening or the morning said in an alarm's time: its hour is left as said.
_HALF_SAID = re.compile(
    r"(?<![a-z])(?:am|pm|a\.m|p\.m|morning|afternoon|evening|tonight|night|noon|midday)(?!\w)",
    re.IGNORECASE,
)


def alarm_and_not_first(text: str) -> str:
    """``text`` with an alarm asked for with its time ("wake me up at 6:45 tomorrow") said as
    "remind me to wake up", and a task said with its "not" first said as "to not ..."."""
    wake = _WAKE_ME.search(text)
    if wake is None:
        return _not_to_first(text)
    said = f"{wake['lead']}remind me to wake up {_morning(text[wake.end() :])}"
    return _not_to_first(said)


def _morning(when: str) -> str:
    """An alarm's bare hour said as the morning ("at 7" is "at 7 am", "6:45 tmrw" 06:45):
    a bare hour from 1 to 6 is otherwise after noon, right for "remind me at 5 to call mum"
    but not for waking up (tester s39: "can you wake me at 7" was set for 19:00). An hour
    with am or pm, or with the morning or evening said, is left as said."""
    if _HALF_SAID.search(when):
        return when
    return _ALARM_CLOCK.sub(r"\g<lead>\g<clock> am", when, count=1)


#: "remind me (when) not to eat", "never to", "don't": the task, said as "to not eat".
_NOT_TO = re.compile(
    r"\b(?P<no>not|never)\s+to\s+"
    # "don't" said to the person, not of someone ("tomorrow I don't have work")
    r"|(?<!\bi\s)(?<!\bwe\s)(?<!\byou\s)(?<!\bu\s)(?<!\bthey\s)(?<!\bhe\s)(?<!\bshe\s)"
    r"(?<!\bit\s)\b(?:don'?t|do\s+not)\s+(?!let\b)",
    re.IGNORECASE,
)
#: A task begun already before a "not to": "remind me to tell Jo not to come".
_TASK_BEGUN = re.compile(
    r"\b(?:that|about)\b|(?<!quarter\s)(?<!half\s)(?<!\d\s)(?<!\d)\bto\s+(?!\d)",
    re.IGNORECASE,
)


def _not_to_first(text: str) -> str:
    """A reminder's task said with its "not" first ("remind me on the 14th at 6pm not to eat
    after midnight") said as "to not eat after midnight", so that the "not" stays in the
    task (tester s39: it was dropped, and the reply said "remind me to eat after midnight");
    a "not to" inside a task begun already is the task's own ("to tell Jo not to come")."""
    asked = REMIND_ME.search(text)
    if asked is None:
        return text
    rest = asked.group("rest")
    no = _NOT_TO.search(rest)
    if no is None or _TASK_BEGUN.search(rest[: no.start()]):
        return text
    said = "never" if (no["no"] or "").lower() == "never" else "not"
    return f"{text[: asked.start('rest')]}{rest[: no.start()]}to {said} {rest[no.end() :]}"


#: An alarm asked for with its time and no task: "set an alarm for 6", "an alarm at 6:30".
_AN_ALARM_FOR = re.compile(
    r"\b(?P<head>alarm\s+)(?P<rest>(?:for|at|on|tomorrow|tmrw|\d)(?:(?!\bto\b).)*)$",
    re.IGNORECASE | re.DOTALL,
)


def alarm_in_the_morning(text: str) -> str:
    """``text`` with an alarm's bare hour said as the morning ("set an alarm for 6" is for
    6 am, as "wake me at 6" is); an alarm with a task ("an alarm to take my pills at 5")
    keeps the reminder's rule."""
    alarm = _AN_ALARM_FOR.search(text)
    if alarm is None:
        return text
    return f"{text[: alarm.start('rest')]}{_morning(alarm['rest'])}"


__all__ = ["alarm_and_not_first", "alarm_in_the_morning"]
