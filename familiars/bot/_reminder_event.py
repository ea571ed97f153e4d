"""A reminder asked for relative to an event said in the same message.

"My granddaughter has a cello recital on the 18th of December at 2 in the afternoon, and I
should very much like to be reminded the day before at ten in the morning" names no task
after "remind me" (a wish, said as "remind me" by ``as_remind_me``): the task is what was
said before it, and "the day before" counts from that event's date. :func:`before_the_event`
says it as a request the reminder rules read ("remind me on 17 December 2026 at ten in the
morning that my granddaughter has a cello recital on ..."); a message without such an event
and offset is left as it is.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from familiars.memory import alarm_in_the_morning, as_remind_me, day_said, parse_when

#: A reminder asked for as a wish: "I'd like to be reminded", "I should very much like a
#: reminder", "it would be good to get a reminder", "I need reminding", "I'll need a reminder".
_WISHED = re.compile(
    r"\b(?:(?:(?:i'?d|i\s+would|i\s+should|i'?ll|i\s+will|i\s+shall|(?:could|can|may)\s+i)\s+"
    r"(?:(?:very\s+)?much\s+|really\s+|quite\s+|probably\s+|definitely\s+)?"
    r"(?:like|love|want|need|wish|appreciate|use|do\s+with|get|have)"
    # "I get a reminder from the dentist", "I have a reminder on my phone": what they have
    r"|i\s+(?:really\s+|just\s+)?(?:like|love|want|need|wish|appreciate|do\s+with))\s+"
    r"(?:to\s+(?:be|get)\s+reminded|reminding|(?:to\s+(?:get|have)\s+)?"
    r"an?\s+(?:quick\s+|little\s+|friendly\s+)?(?:reminder|nudge|heads[\s-]up|alarm)"
    # "an alarm that doesn't wake the baby": the alarm described, not news to be told
    r"(?!\s+which\b)(?!\s+that\s+(?!(?:i|i'm|i've|my|we|our|it's|the|he|she|they|his|her|"
    r"their|you|there)\b)))"
    r"|(?:it\s+would|it'?d|it\s+will|it'?ll)\s+be\s+(?:good|nice|great|helpful|handy|useful|"
    r"lovely|wise)\s+to\s+(?:get|have)\s+an?\s+reminder"
    r"|make\s+sure\s+(?:that\s+)?i\s+(?:remember|don'?t\s+forget|do\s+not\s+forget)"
    r"(?=\s+(?:to|about)\b))\s+",
    re.IGNORECASE,
)
#: "make sure I remember the recycling on Thursday": a thing to remember, said without "to"
#: or "about" (the wish above reads the rest).
_REMEMBER_THING = re.compile(
    r"\bmake\s+sure\s+(?:that\s+)?i\s+(?:remember|don'?t\s+forget|do\s+not\s+forget)\s+"
    r"(?!(?:to|about|that|what|who|where|when|how|if|whether)\b)",
    re.IGNORECASE,
)
#: Text-speak for "about" after a request ("remind me abt the bins").
_ABT = re.compile(r"\b(remind\s+me)\s+(?:abt|bout|'bout|abut)\b", re.IGNORECASE)


#: News told straight after "remind me", without "that": "remind me my passport runs out in
#: March", "remind me I've got the dentist at 3", "remind me it's bin day tomorrow". A subject,
#: then a verb within a few words.
_NEWS = re.compile(
    r"\b(remind\s+me)\s+(?=(?:i'?ve|i'?m|we'?re|we'?ve|it'?s|there'?s|i'?ll|we'?ll)\s"
    r"|(?:my|our|his|her|their|i|we)\s+(?:[\w'-]+\s+){0,4}?(?:is|are|was|were|has|have|had|"
    r"will|got|needs?|expires?|runs?|goes|starts?|ends?|finishes|closes?|opens?|comes?|arrives?|"
    r"leaves?|due|booked)\b)",
    re.IGNORECASE,
)


def wish_as_request(text: str) -> str:
    """``text`` with a reminder wished for said as "remind me" ("I'd like to be reminded to
    call the bank at 10" is "remind me to call the bank at 10"), and news told straight
    after it said with "that"; else ``text``."""
    said = _REMEMBER_THING.sub("remind me about ", alarm_in_the_morning(text))
    said = _ABT.sub(r"\1 about", _WISHED.sub("remind me ", said))
    return _NEWS.sub(r"\1 that ", said)


#: What was said, then a request with no task of its own ("remind me the day before ...").
_TASKLESS = re.compile(
    r"^(?P<event>.+?)[\s,;.!:-]*(?:\b(?:and|so)\s+)?(?:(?:can|could|would|will)\s+(?:you|u)\s+"
    r"(?:please\s+)?|please\s+)?remind\s+me\s+(?P<rest>(?!(?:to|that|about|of)\b).+?)[\s.!?]*$",
    re.IGNORECASE | re.DOTALL,
)
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
#: How long before the event: "the day before", "the evening before", "two days before",
#: "a week before", "the morning of", "on the day"; then the clock, when said.
_OFFSET = re.compile(
    r"^(?:on\s+)?(?:(?P<part>the\s+(?:day|evening|night|morning|afternoon)\s+before)"
    r"|(?P<n>\d+|an?|one|two|three|four|five|six)\s+(?P<unit>days?|weeks?)\s+(?:before|earlier)"
    r"|(?P<same>the\s+(?:morning|day)\s+of|on\s+the\s+day))(?:\s+(?:it|then|that))?"
    r"(?P<when>(?:[\s,]+.*)?)$",
    re.IGNORECASE | re.DOTALL,
)


def _days_before(m: re.Match[str]) -> int:
    if m["same"]:
        return 0
    if m["part"]:
        return 1
    n = int(m["n"]) if m["n"].isdigit() else _COUNT[m["n"].lower()]
    return n * (7 if m["unit"].lower().startswith("week") else 1)


def before_the_event(text: str, *, now: datetime, tz: ZoneInfo, previous: str = "") -> str:
    """``text`` said as a plain request when it asks to be reminded some time before (or on
    the day of) an event it names with its date, or, when it names none, an event the
    person's ``previous`` message named ("it's my sister's birthday on Saturday", then
    "remind me the day before"); else ``text``, a wish said as a request
    (:func:`wish_as_request`)."""
    wished = wish_as_request(text)
    request = as_remind_me(wished).strip()
    asked = _TASKLESS.match(request)
    if previous and _only_an_offset(request) and not _REMIND.search(previous):
        asked = _TASKLESS.match(f"{previous.strip()}, {request}") or asked  # said just before
    offset = _OFFSET.match(_POLITE.sub(" ", asked["rest"]).strip()) if asked is not None else None
    if asked is None or offset is None:
        return wished
    event = _SUBJECTLESS.sub("I have ", _the_event(asked["event"]), count=1)
    day = day_said(event)
    on = parse_when(f"on {day}", now=now, tz=tz) if day is not None else None
    if on is None:
        return wished
    when = offset["when"].strip(" ,")
    if not when:
        part = (offset["part"] or "").lower()
        when = "at 6pm" if "evening" in part or "night" in part else "at 9am"
    target = on - timedelta(days=_days_before(offset))
    return f"remind me on {target.day} {target:%B %Y} {when} that {event}"


_REMIND = re.compile(r"\bremind\s+me\b", re.IGNORECASE)
#: A message that is only a wish for a time around an event it does not name: "remind me
#: the day before", "can you remind me two days before at 8".
_BARE_OFFSET = re.compile(
    r"^(?:(?:oh|and|also|so|ok(?:ay)?|right|then)[,!]?\s+)*(?:(?:can|could|would|will)\s+"
    r"(?:you|u)\s+)?(?:please\s+)?remind\s+me\s+(?P<rest>.+?)[\s.!?]*$",
    re.IGNORECASE | re.DOTALL,
)
#: Words that give a request its own task or event ("... the day before that my passport").
_OWN_TASK = re.compile(r"\b(?:to|that|about|of|remind|my|our|is|are|has|have|got)\b", re.I)


def _only_an_offset(request: str) -> bool:
    """Whether ``request`` is no more than "remind me the day before" (its clock or manners
    aside): only then does the event come from the message before (tester s39: "remind me
    that my passport expires in march" was glued onto the dentist said the turn before)."""
    bare = _BARE_OFFSET.match(request)
    if bare is None:
        return False
    offset = _OFFSET.match(_POLITE.sub(" ", bare["rest"]).strip())
    return offset is not None and _OWN_TASK.search(offset["when"]) is None


#: An event said without its subject ("got a dentist appt thursday at 3"): said with "I have".
_SUBJECTLESS = re.compile(r"^(?:got|have\s+got|'ve\s+got|ve\s+got|have)\s+(?=an?\b|my\b)", re.I)
#: Words that open a message and are no part of the event ("oh and my mum's 70th is ...").
_OPENING = re.compile(
    r"^(?:(?:oh|and|also|so|well|anyway|btw|by\s+the\s+way|ok(?:ay)?|right|plus|hey|hi)[,!.]?\s+)+",
    re.IGNORECASE,
)


def _the_event(said: str) -> str:
    """The sentence of ``said`` that names the event's day, without an opening "oh and"
    ("morning! my mum's 70th is on the 19th" is "my mum's 70th is on the 19th")."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", said.strip(" ,;.")) if s.strip()]
    dated = next((s for s in reversed(sentences) if day_said(s)), said)
    return _OPENING.sub("", dated.strip(" ,;.!?"))


#: Manners around the offset ("two days before please", "the morning of it, thanks").
_POLITE = re.compile(r"[\s,]*\b(?:please|pls|plz|thanks|thank\s+you|cheers|ta)\b[\s,.!?]*", re.I)


__all__ = ["wish_as_request", "before_the_event"]
