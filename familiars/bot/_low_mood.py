"""Low mood said plainly, that is no crisis: "some days I don't see why I bother getting up
at all", "I just feel empty most days", "I'm not coping very well at the moment" (issue 23:
such words got "I see. Tell me more?"). Met with a warm word of its own, never a crisis
line: the care check (:func:`~familiars.bot._care.speaks_of_self_harm`, and the check by
meaning) reads every message first, so giving up on living said in any of these words
still gets the crisis reply.

:data:`LOW_MOOD` is one (pattern, reply) row of the offline answerer's feelings.
"""

from __future__ import annotations

import re

#: Words that make a feeling stronger or softer: "so", "really", "a bit", "just".
_SO = (
    r"(?:(?:so|really|very|just|quite|pretty|rather|totally|completely|utterly|a\s+bit|"
    r"a\s+little|kind\s+of|kinda|sort\s+of|that|too|always|often|mostly|constantly)\s+)*"
)
#: Who feels it: "I", "I'm", "I've been", "I feel", "I keep feeling".
_I_FEEL = (
    r"(?:i'?m|im|i\s+am|i'?ve\s+been|i\s+have\s+been|been|i\s+(?:just\s+|kind\s+of\s+|always\s+)?"
    r"(?:feel|felt)|feeling|i\s+keep\s+feeling|i\s+(?:still\s+)?get)\s+(?:feeling\s+)?"
)
#: How low mood is said: a hollow feeling, no joy or energy, not coping, the day too much.
_PATTERN = (
    rf"\b{_I_FEEL}{_SO}(?:empty|numb|flat|hollow|hopeless|worthless|useless|invisible|"
    r"(?:like\s+)?a\s+failure|lost|broken|miserable|depressed|low|down|sad|blue|"
    r"unhappy|rubbish|awful|terrible|horrible|crap|shit|drained|defeated)\b"
    # "low on petrol", "down the pub", "rubbish at darts", "flat out", "empty-handed"
    r"(?![-'])(?!\s+(?:on|in(?!\s+(?:the\s+dumps|myself))|into|for(?!\s+(?:weeks|days|months|ages|so\s+long|a\s+(?:while|long\s+time)))|to|with|at|the|by|from|out|there|here|a|an|and\s+out)\b)"
    rf"|\b(?:everything|life|the\s+world|it\s+all|each\s+day|every\s+day)\s+(?:feels|seems|is|looks)\s+"
    rf"{_SO}(?:grey|gray|bleak|heavy|hopeless|empty|dark|flat|meaningless|too\s+much)\b"
    r"|\b(?:don'?t\s+see|(?:i\s+)?wonder|not\s+sure|no\s+idea)\s+(?:why|the\s+point\s+(?:of|in))\s+(?:i\s+(?:even\s+|should\s+)?)?"
    r"(?:bother(?:ing)?|get(?:ting)?\s+(?:up|out\s+of\s+bed)|try(?:ing)?)\b"
    r"(?!\s+(?:with|about|to\s+(?:cook|clean|iron|reply|answer))\s+(?:the|that|this|it|my\s+"
    r"(?:phone|car|laptop|emails?)))"
    r"|\bwhy\s+(?:do|should)\s+i\s+(?:even\s+)?(?:bother|try|get\s+up)\s*(?:any\s*more)?\s*[?!.]*$"
    r"|\bcan'?t\s+be\s+bothered\s+(?:with|to\s+do)\s+(?:anything|anyone|everything|life)\b"
    r"|\bgoing\s+through\s+the\s+motions\b"
    r"|\bnothing\s+(?:seems\s+to\s+|ever\s+|really\s+|much\s+)?(?:makes?|make)\s+me\s+"
    r"(?:happy|smile|laugh)\b"
    r"|\b(?:don'?t|do\s+not|can'?t|cannot)\s+(?:really\s+)?(?:enjoy|feel)\s+"
    r"(?:anything|much\s+of\s+anything)\b"
    r"|\blost\s+(?:all\s+)?(?:interest|joy|pleasure)\s+in\s+(?:everything|anything|life)\b"
    r"|\b(?:i'?m|im|i\s+am|i'?ve\s+been|been|i\s+keep)\s+(?:really\s+|just\s+|so\s+)?"
    r"struggling(?=\s*(?:[.!,;]|$)|\s+(?:a\s+(?:bit|lot|little)|so\s+much|at\s+the\s+moment|"
    r"lately|recently|these\s+days|right\s+now|to\s+cope|with\s+(?:everything|life|my\s+"
    r"(?:mood|mental\s+health|feelings))|mentally|emotionally)\b)"
    r"|\b(?:not|barely|hardly)\s+coping\b|\bcan'?t\s+(?:really\s+)?cope\b"
    r"|\bcan'?t\s+face\s+(?:anyone|anybody|people|anything|the\s+day|getting\s+up|"
    r"going\s+out|the\s+world)\b"
    r"|\b(?:getting|get)\s+(?:up|out\s+of\s+bed)\s+(?:is|feels)\s+(?:\w+\s+){0,2}"
    r"(?:struggle|hard|impossible|battle|effort)\b"
    r"|\bcan'?t\s+(?:seem\s+to\s+)?(?:make\s+myself\s+)?get\s+out\s+of\s+bed\b"
    r"|\b(?:in\s+)?a\s+(?:bit\s+of\s+a\s+|really\s+)?(?:dark|bad|low)\s+place\b"
    r"|\b(?:no|zero)\s+(?:energy|motivation|interest)\s+(?:for|to\s+do|in)\s+anything\b"
    r"|\bdon'?t\s+have\s+(?:the\s+|any\s+)?(?:energy|motivation)\s+(?:for|to\s+do)\s+anything\b"
    rf"|\b(?:sad|low|down|miserable|empty)\s+(?:all\s+the\s+time|every\s+day|most\s+days)\b"
    # "what's the use, nothing I do goes right" (not "what's the use of the blue button?")
    r"|\bwhat'?s\s+the\s+use(?:\s+(?:of|in)\s+(?:trying|bothering|anything|it\s+all))?"
    r"(?=\s*(?:[,.!?;]|$))|\bnothing\s+(?:i\s+do\s+)?(?:ever\s+)?goes\s+right\b"
)
#: The reply: the feeling heard, no advice, the door left open.
REPLY = (
    "I'm really sorry you're feeling like this. That sounds heavy to carry, and you don't "
    "have to carry it alone: I'm here, and I'd like to hear how things have been."
)
LOW_MOOD: tuple[re.Pattern[str], str] = (re.compile(_PATTERN, re.IGNORECASE), REPLY)


def sounds_low(text: str) -> bool:
    """Whether ``text`` says low mood in one of the ways :data:`LOW_MOOD` hears."""
    return LOW_MOOD[0].search(" ".join(text.replace("\u2019", "'").split())) is not None
