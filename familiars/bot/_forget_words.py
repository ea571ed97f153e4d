"""Whether a message asks to forget something said, and what (pure).

"forget that" names the last thing said; "forget that I live in Denver" names it by what it
says. What follows a clause break is an afterthought, not a description: in "actually
forget that, I shouldn't have said it", "forget that. it was mean" and "pls forget that lol"
the person means the last thing said (tester F7: the afterthought was taken as the
description, matched nothing, and the message stayed). An aside after a description is cut
off the same way ("forget that I live in Denver, I shouldn't have said it").

Look-alikes are not requests: "don't forget that ...", "I always forget that ...", "forget
about it", "scratch that itch", "delete this app".
"""

from __future__ import annotations

import re

# Words that open an afterthought before the request ("never mind, forget that" was taken
# as chat and the next "forget that" then forgot it instead: tester T29).
_LEAD = (
    r"^(?:(?:please|pls|plz|ok(?:ay)?|actually|no|nope|oh|oops|ugh|hmm+|um+|uh+|erm|wait|"
    r"sorry|hey|so|well|right|never\s*mind|nvm|on\s+second\s+thoughts?|"
    r"can\s+you|could\s+you|would\s+you|will\s+you|just)\b[,!.]?\s+)*"
)
# The person's last message named as such: "my last message", "the last thing I told you",
# "what I just said" (tester s36: "forget my last message" was read as a description,
# matched nothing and forgot nothing).
_LAST = (
    r"(?:(?:my|the|that)\s+(?:very\s+)?(?:last|previous|latest)\s+(?:message|msg|text|"
    r"thing\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote|sent|typed))"
    r"|last\s+message|what\s+i\s+just\s+(?:said|told\s+you|wrote|sent|typed))\b"
)
# What a forget points at without describing it: "that", "what I just said", "I said that".
_POINT = (
    rf"(?:{_LAST}|(?:that|this)(?:\s+one)?|it|what\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote)"
    r"|(?:that\s+)?i\s+(?:just\s+|ever\s+)?(?:said|mentioned|told\s+you|wrote)"
    r"(?:\s+(?:that|it|this))?)\b"
)
# "forget" takes a description; "scratch/delete/erase" only point ("scratch that itch" and
# "delete this app" are not requests), so what follows them must be a clause break or end.
_FORGET = re.compile(_LEAD + r"forget\s+" + _POINT + r"(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_STRIKE = re.compile(
    _LEAD + rf"(?:scratch|delete|erase|remove)\s+(?:{_LAST}|(?:that|it|this)\b)"
    r"(?P<rest>(?:\s*[,.;:!?\-–—(].*)?)$",
    re.IGNORECASE | re.DOTALL,
)
_NAMES_LAST = re.compile(
    _LEAD + rf"(?:forget|scratch|delete|erase|remove)\s+{_LAST}", re.IGNORECASE
)
# A clause break: punctuation that ends or sets off a clause.
_BREAK = re.compile(r"\s*(?:[,.;!?–—(]|\s-\s|\s-$)")
# A word of manners or feeling, which describes nothing ("forget that lol", "... please").
_INTERJECTION = (
    r"my\s+bad|sorry|oops|lol|lmao|haha\w*|jk|just\s+kidding|please|pls|plz|thanks?|"
    r"thank\s+you|ty|ok(?:ay)?|never\s*mind|nvm|whatever|ugh|yikes|oh\s+well|"
    r"forget\s+(?:it|that|this)|scratch\s+(?:it|that|this)"
)
_OPENS_WITH_INTERJECTION = re.compile(rf"^\s*(?:{_INTERJECTION})\b", re.IGNORECASE)
_ENDS_WITH_INTERJECTION = re.compile(
    r"\s+(?:lol|lmao|haha\w*|jk|please|pls|plz|thanks|thank\s+you|ok(?:ay)?)\W*$", re.IGNORECASE
)
# What an afterthought says after a break: why it should go, how the person feels, manners.
_ASIDE = re.compile(
    r"^\s*(?:"
    r"(?:i|it|that|this|which)\s+(?:\w+\s+)?(?:shouldn'?t|should\s+not|wasn'?t|was|is|"
    r"didn'?t|did\s+not|don'?t|do\s+not|never|meant|regret|take\s+it)"
    r"|it'?s|that'?s|i'?m|too\s+(?:personal|much|private)|not\s+(?:important|true|relevant)|"
    rf"private|{_INTERJECTION}"
    r")\b",
    re.IGNORECASE,
)


def forget_request(text: str) -> str | None:
    """The words after "forget that" that say what to forget ("" for the last thing said:
    "forget that" alone, or followed by an afterthought); None when the message does not ask
    to forget ("don't forget that ..." does not)."""
    said = text.strip()
    m = _FORGET.match(said) or _STRIKE.match(said)
    if m is None or _CORRECTION.match(m.group("rest")) or _restates(m.group("rest")):
        return None
    return _description(m.group("rest"))


def names_last_message(text: str) -> bool:
    """Whether a pointing request names the person's last message as such ("forget my
    last message", "delete what I just said"): that message goes, a question too, where
    "forget that" reaches back past a question to the last statement."""
    return forget_request(text) == "" and _NAMES_LAST.match(text.strip()) is not None


def says_more(text: str) -> bool:
    """Whether a pointing request ("scratch that, ...", "forget that, ...") goes on, after
    its clause break, with something of its own that is neither an afterthought about
    the forget nor manners: "scratch that, its skating AND football actually" corrects
    what was said, and the last thing said is then only forgotten when the person says
    yes (tester s34 U4: a reminder set three messages before went at once, unasked)."""
    return bool(said_instead(text))


def said_instead(text: str) -> str:
    """What a pointing request says after its clause break when that is something of its
    own (:func:`says_more`): "my favourite colour is green" in "scratch that, my favourite
    colour is green"; "" for an afterthought, manners or nothing."""
    said = text.strip()
    m = _FORGET.match(said) or _STRIKE.match(said)
    if m is None:
        return ""
    rest = m.group("rest")
    brk = _BREAK.match(rest)
    if brk is None:
        return ""
    more = _ENDS_WITH_INTERJECTION.sub("", rest[brk.end() :]).strip(" \t\n.,;:!?-–—()")
    if not more or _OPENS_WITH_INTERJECTION.match(more):
        return ""
    if _ASIDE.match(more) and not _STATES.match(more):
        return ""
    return more if len(more.split()) >= 2 else ""


#: "it's skating now", "it's Tim", "I'm a nurse": an opening the afterthoughts share with
#: statements, read as a statement unless a word of feeling or privacy follows.
_STATES = re.compile(
    r"^(?:it'?s|that'?s|i'?m)\s+(?!(?:private|personal|nothing|none|not|too|wrong|"
    r"embarrassing|fine|ok(?:ay)?|irrelevant|silly|stupid|old|out\s+of\s+date|a\s+secret|"
    r"between|just|only|really|so|very|sorry|ashamed|embarrassed|joking|kidding)\b)",
    re.IGNORECASE,
)


#: "forget that, it's friday not thursday", "scratch that, make it 5pm": not a forget but
#: the day or time corrected (the reminder words move the reminder just set; it was
#: deleted: tester U5, s34 U74).
#: The clock time a correction names ("5pm", "at 4", "7:15", "noon", "half 9"); a bare
#: number is none ("sorry, I meant 2": review s34 F4). The reminder words read the same.
CORRECTED_TIME = (
    r"(?:at\s+\d{1,2}(?:[:.][0-5]\d)?\s*(?:am|pm|a\.m\.?|p\.m\.?)?|"
    r"\d{1,2}(?:[:.][0-5]\d)\s*(?:am|pm|a\.m\.?|p\.m\.?)?|\d{1,2}\s*(?:am|pm|a\.m\.?|p\.m\.?)|"
    r"(?:at\s+)?(?:noon|midday|midnight|half\s+(?:past\s+)?\d{1,2}))"
)
_CORRECTION = re.compile(
    r"^\s*[,.;!]?\s*(?:it'?s|it\s+is|it\s+should\s+be|make\s+it|i\s+meant)\s+(?:on\s+)?"
    r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b|"
    rf"{CORRECTED_TIME}(?:\s+(?:instead|please|pls|thanks|thank\s+you))*[\s.!?]*$)",
    re.IGNORECASE,
)


#: After the break, what was said put right: "scratch that, we're going to Tenerife in May",
#: "forget that, it's Tim not Tom", "forget that, my husband is called Tim". The message is
#: a statement for the writer (its change rules replace the old fact), not a forget: the
#: old plan was forgotten and the new one dropped (review s33-2 item 9).
_RESTATED = re.compile(
    r"^\s*[,.;:!?–—-]+\s*(?:"
    r"(?:it'?s|it\s+is|i\s+meant)\s+\w+(?:\s+\w+)?,?\s+not\s+\w+"
    r"|(?:we|they)(?:'re|\s+are|'ll|\s+will|'ve|\s+have|\s+live|\s+moved|\s+got)\s+\w+"
    r"|i(?:'m|\s+am)\s+(?:going|moving|flying|travell?ing|heading|starting|staying|working|"
    r"living|getting|having|off)\b"
    r"|i(?:'ll|\s+will|\s+live|\s+work|\s+moved|\s+have\s+(?:a|an|two|three)\b)"
    r"|(?:my|our)\s+\w+(?:'s|\s+is|\s+are)?\s+(?:called|named|name\s+is|lives|works|moved)\b"
    r"|(?:the|our|my)\s+(?:\w+\s+)?(?:trip|holiday|flight|wedding|party|plan)\s+is\s+\w+"
    r")",
    re.IGNORECASE,
)


def _restates(rest: str) -> bool:
    """Whether ``rest`` (after "forget that"/"scratch that") opens with a clause break and
    then states the fact put right."""
    return _RESTATED.match(rest) is not None


def _description(rest: str) -> str:
    """``rest`` up to the first clause break followed by an afterthought; "" when ``rest``
    opens with a break (what follows it is not a description) or with an interjection."""
    if _BREAK.match(rest) or _OPENS_WITH_INTERJECTION.match(rest):
        return ""
    for brk in _BREAK.finditer(rest):
        if _ASIDE.match(rest[brk.end() :]):
            rest = rest[: brk.start()]
            break
    return _ENDS_WITH_INTERJECTION.sub("", rest).strip().rstrip(".!?,;").strip()


#: "forget everything about my sister", "please forget about Emma", "forget my sister",
#: "delete everything you know about Meera", "forget everything I said about work",
#: "forget where I live": what follows names a person or a thing, and all the person said
#: of it goes.
_ABOUT = re.compile(
    _LEAD + r"(?:forget|delete|erase|remove|wipe|clear)\s+"
    r"(?:(?:everything|all|anything|whatever|all\s+the\s+stuff|what)\s+"
    r"(?:(?:you\s+(?:know|have|remember|kept|noted)|i\s+(?:said|told\s+you|wrote|mentioned))\s+)?"
    r"(?:about|of|on|regarding)\s+|about\s+|(?=my\s+)"
    # "forget where I live", "forget how old I am", "forget who my boss is": what a
    # question about the person would ask names what goes.
    r"|(?=(?:where|when|who|what|how\s+old|how\s+many\s+\w+|which)\s+(?:i|i'm|my|me)\b))"
    r"(?P<what>[^,.;!?]+?)[,.;!?]*(?:\s*(?:please|pls|thanks|thank\s+you))?[.!?]*$",
    re.IGNORECASE,
)
#: What "forget about ..." says that is no one and nothing to forget: "forget about it",
#: "forget about me" (everything about the person: asked elsewhere), a reminder (the
#: reminder words cancel it).
_NOT_ABOUT = re.compile(
    r"^(?:it|that|this|them|him|her|me|myself|us|everything|all|anything)$|\b(?:reminders?|"
    r"alarms?|nudges?)\b|^what\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote|typed)\b",
    re.IGNORECASE,
)


#: "forget Headingley", "forget Craig Jones": a name (or a word written as one) alone after
#: "forget" names what goes (tester s35 U24: it was answered "Oh? Tell me more.").
_NAMED = re.compile(
    rf"(?i:{_LEAD}forget)\s+(?P<what>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){{0,2}})"
    r"(?i:[,.;!?]*(?:\s*(?:please|pls|thanks|thank\s+you))?[.!?]*)$"
)


#: "forget the allergy thing", "delete the bit about my job", "scratch that stuff about Tom":
#: a thing named by "the ... thing" or "the bit about ...", alone or with an afterthought
#: ("actually forget the allergy thing, i got that wrong" was kept as a fact: tester s39).
_THING = re.compile(
    _LEAD + r"(?:forget|delete|erase|remove|scratch|drop|wipe)\s+(?:about\s+)?(?:the|that|this)\s+"
    r"(?:(?:bit|part|stuff|thing)\s+(?:about|on|re|with)\s+(?P<what>[^,.;!?]+?)"
    r"|(?P<named>[^,.;!?]+?)\s+(?:thing|stuff|bit|part))"
    r"(?P<rest>\s*[,.;!?-].*)?$",
    re.IGNORECASE | re.DOTALL,
)
#: An afterthought that says the thing was wrong: "i got that wrong", "my mistake".
_WRONG = re.compile(
    r"^\s*(?:i\s+(?:got|had)\s+(?:that|it)\s+wrong|(?:that|it)\s+was\s+(?:wrong|a\s+mistake)|"
    r"wrong|my\s+mistake|mistake|not\s+true)\b",
    re.IGNORECASE,
)


def _thing_named(said: str) -> str | None:
    """What "forget the X thing" names, when nothing but an afterthought follows it."""
    m = _THING.match(said)
    if m is None:
        return None
    rest = (m["rest"] or "").strip(" \t\n.,;:!?-")
    if rest and not (_WRONG.match(rest) or _ASIDE.match(rest) and not _STATES.match(rest)):
        return None
    return (m["what"] or m["named"]).strip()


def forget_about(text: str) -> str | None:
    """What a request to forget everything about someone or something names ("my sister",
    "Meera", "work", "forget Headingley"); None when the message is not one ("forget about
    it", "forget about the dentist reminder", "don't forget my sister's birthday")."""
    said = " ".join(text.split())
    m = _ABOUT.match(said) or _NAMED.match(said)
    if m is None:
        thing = _thing_named(said)
        return None if thing is None or _NOT_ABOUT.search(thing) else thing
    what = m.group("what").strip()
    return None if _NOT_ABOUT.search(what) else what


#: "forget the reminder to water the ferns", "delete my reminder about the dentist": the
#: reminder and its words go (it was answered "Oh? Tell me more.": person-tester s36).
_REMINDER = re.compile(
    _LEAD + r"(?:forget|delete|erase|remove|wipe)\s+(?:the|my|that|this)\s+reminders?\s+"
    r"(?:to|about|for|of|that\s+says?)\s+(?P<what>[^.!?]+?)[.!?]*(?:\s*(?:please|thanks))?[.!]*$",
    re.IGNORECASE,
)


def forget_reminder(text: str) -> str | None:
    """What a request to forget a reminder names ("water the ferns" in "forget the reminder
    to water the ferns"); None when the message is not one."""
    m = _REMINDER.match(" ".join(text.split()))
    return m.group("what").strip() if m is not None else None


#: A word or two after ``/forget`` ("craig", "headingley"): what goes, whatever its case.
_FEW_WORDS = re.compile(r"^[\w'-]+(?:\s+[\w'-]+){0,2}$")


def command_said(words: str) -> str:
    """The message ``/forget WORDS`` stands for: "forget WORDS", or "forget about WORDS"
    when that alone would not ask to forget and WORDS are a word or two ("/forget craig"
    found nothing while "/memory search craig" found him: tester s35 U6)."""
    said = f"forget {' '.join(words.split())}"
    if forget_request(said) is not None or forget_about(said) is not None:
        return said
    if _FEW_WORDS.match(words.strip()) and not _NOT_ABOUT.search(words.strip()):
        return f"forget about {words.strip()}"
    return said
