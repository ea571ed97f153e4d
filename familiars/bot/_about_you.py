"""Offline replies to what is said to or asked of the familiar itself, not the person.

"what is your name?", "who are you?", "what should I call you?" are answered about the
familiar; "your name is Bob" / "I'll call you Bob" (naming the familiar) is answered with
its name and that a name is set in its settings. Neither is a question about the person's
own records: the writer keeps nothing of them either (the person's name stays theirs).
"""

from __future__ import annotations

import re

_WHO_ARE_YOU = re.compile(
    r"^(?:(?:so|and|ok(?:ay)?|hey|hi|hello|um+|sorry|btw)[,!]?\s+)*"
    r"(?:(?:what(?:'s|\s+is|s)|whats|tell\s+me)\s+(?:your|ur|yer)\s+name"
    r"|who\s+(?:are|r)\s+(?:you|u|ya)"
    r"|what\s+(?:are|r)\s+(?:you|u)(?:\s+exactly)?\s*[?!.]*$"
    r"|what\s+(?:should|do|can|shall)\s+i\s+call\s+(?:you|u)"
    r"|(?:do|have)\s+(?:you|u)\s+(?:have|got)\s+a\s+name"
    r"|what\s+(?:are|r)\s+(?:you|u)\s+called"
    # T27: a newcomer's first questions of the bot itself
    r"|tell\s+me\s+(?:\w+\s+){0,2}about\s+(?:yourself|urself|you)\s*[?!.]*$"
    r"|wh?at\s+(?:(?:can|do|could)\s+(?:you|u)|(?:you|u)\s+(?:can|could))\s+do"
    r"|(?:are|r)\s+(?:you|u)\s+(?:there|around|awake|still\s+there|here)"
    r"|can\s+(?:you|u)\s+help\s+me\s*[?!.]*$)(?!\w)",
    re.IGNORECASE,
)
_NAMING_YOU = re.compile(
    r"\b(?:your|ur)\s+(?:new\s+)?name\s+(?:is|will\s+be|shall\s+be|'s|should\s+be)\s+\w"
    r"|\b(?:i'?ll|i\s+will|i'?m\s+going\s+to|i'?m\s+gonna|let\s+me|can\s+i|i\s+shall|we'?ll)"
    # "I'll call you later" is a call, not a name (review of s32)
    r"\s+call\s+(?:you|u)\s+(?!(?:later|back|tonight|tomorrow|soon|now|again|in|at|on|when|"
    r"after|before|if|once|then|today|this|next|from|about|after|around|every|each|sometime|"
    r"maybe|please|ok|okay|and|but|or|to)\b)\w|\bi\s+(?:name|christen|dub)\s+(?:you|thee)\b",
    re.IGNORECASE,
)


def about_you(text: str, familiar: str) -> str | None:
    """The reply when ``text`` asks about or names the familiar; else None."""
    said = " ".join(text.split())
    me = familiar or "your familiar"
    if _WHO_ARE_YOU.search(said):
        return (
            f"I'm {me}: an AI companion running on your own machine, not a person. "
            "I remember what you tell me and can set reminders; /help shows more."
        )
    if _NAMING_YOU.search(said):
        return (
            f"My name is {me}: it's set in my settings, so I can't take a new one in a chat. "
            "I haven't changed anything about you."
        )
    return None
