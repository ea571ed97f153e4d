"""What a person says about their inner life: states, feelings, goals, values and causes.

These are the facts a later message meets only through their meaning ("Loud neighbors put me
on edge" is what a party upstairs at 3am calls up), so they are kept next to the plain facts,
each as one third-person sentence with a kind tag and a ``topic:`` tag:

- ``state`` (user/profile): a lasting condition of body or life: "I'm colorblind", "I work
  nights", "I'm recovering from a bad flu", "My back has been killing me lately";
- ``feeling`` (user/knowledge): a feeling with a durable marker: "I've been feeling low
  lately", "X makes me Y" / "X puts me on edge", "I get anxious before flying", "I've been
  missing my grandmother";
- ``goal`` (user/knowledge): "I want to ...", "I'm trying to ...", "I'm working towards ...",
  "I hope to ...", "my goal is ..."; "I'd like/love to ..." only with a goal verb or a
  "someday" ("I'd like to order a pizza" is a request, "I'd love to go to Paris" a daydream);
- ``value`` (user/knowledge): "X is a big deal for me", "I care a lot about ...", "X matters
  to me", "I believe in ...", "I try to ...";
- ``cause`` (user/knowledge), read on the whole sentence: "since I started X, I've Y",
  "after X I've felt Y", "I Y because X".

Only the person's own first-person statements count. What is momentary ("I want coffee", "I
want to go to bed", "I'm fine", "I'm so excited!"), aimed at a pronoun ("it makes me happy",
"I want to try that"), said with a sarcasm marker, or about someone else ("my sister wants to
move") is left alone; questions, hypotheticals and reported speech never reach this module
(:func:`._writes.facts_in` drops them first). Facts with the same kind and topic are one fact:
a new saying supersedes the old one.

:func:`match_meaning` reads one clause, :func:`match_cause` one sentence, :func:`sarcastic`
tells whether a message says the opposite of what it means.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from familiars.memory._offline._objects import Fact, _words, third_person, topic_key
from familiars.memory._offline._patterns import _about_the_user

logger = logging.getLogger(__name__)

_CATEGORY = {"state": "profile"}
_SALIENCE = {"state": 0.65, "feeling": 0.55, "goal": 0.6, "value": 0.6, "cause": 0.55}
#: A meaning fact is one sentence; a longer clause is more than a simple pattern can vouch for.
MAX_WORDS = 32

_SARCASM = re.compile(
    r"(?:^|\s)/s\b|\byeah,?\s+right\b|\bnot!|\b(?:lol|lmao|rofl|jk|haha+)\b|🙄|😒|🙃|"
    r"\bas\s+if\b|\boh\s+(?:great|joy|goody|sure)\b|\bjust\s+(?:great|perfect|wonderful)\b|"
    r"\blove\s+that\s+for\s+me\b|\bsarcas",
    re.IGNORECASE,
)
#: Only this moment: "I want to sleep right now", "I'm trying to call you today".
_MOMENT = re.compile(
    r"\b(?:right\s+now|now|today|tonight|this\s+(?:morning|afternoon|evening)|at\s+the\s+moment|"
    r"atm|rn|in\s+a\s+(?:bit|minute|sec|second)|later|real\s+quick|for\s+a\s+(?:sec|second|"
    r"minute|bit)|yesterday|earlier|just\s+now|this\s+weekend|tomorrow|all\s+day)\b",
    re.IGNORECASE,
)
#: What makes a feeling last beyond the moment it is said.
_DURABLE = re.compile(
    r"\b(?:lately|recently|these\s+days|since|ever\s+since|always|every\s+time|everytime|whenever|"
    r"all\s+the\s+time|constantly|still|anymore|any\s+more|most\s+days|for\s+(?:weeks|months|years|"
    r"days|ages|a\s+while|a\s+long\s+time|(?:\w+\s+)?(?:weeks|months|years))|every\s+\w+)\b",
    re.IGNORECASE,
)
_PRONOUN = frozenset(
    _words(
        "it that this these those you he she they we which what who there here everything "
        "something anything nothing someone everyone one it's that's they're he's she's we're "
        "there's them him her us me myself"
    )
)
_INTENS = (
    r"(?:(?:so|really|very|super|pretty|quite|a\s+bit|kind\s+of|kinda|truly|deeply|always|"
    r"often|usually|still|just|totally|genuinely|incredibly|extremely|constantly)\s+)*"
)
Builder = Callable[[re.Match[str], str], Fact | None]


#: Markers that a whole message means the opposite: no preference in it is kept either.
_STRONG_SARCASM = re.compile(
    r"(?:^|\s)/s\b|\byeah,?\s+right\b|\bnot!|🙄|😒|🙃|\bas\s+if\b|"
    r"^(?:oh\s+)?(?:great|wonderful|fantastic|perfect),\s|\blove\s+that\s+for\s+me\b",
    re.IGNORECASE,
)


#: A liking said with emphasis (capitals, stars) ...
_EMPHATIC_LIKING = re.compile(
    r"(?-i:\b(?:LOVE|LOVED|LOVING|ADORE|ENJOY|LIKE)\b)|[*_](?i:love|adore|enjoy|like)[*_]"
)
#: ... inside an ironic frame: an interjection that opens the message ("sure, I LOVE
#: waiting on hold", "yeah I *adore* Mondays"). Either alone is sincere ("I LOVE pizza").
_IRONIC_OPENER = re.compile(
    r"^\W*(?:oh|yeah|yes|sure|right|wow|great|brilliant|fantastic|wonderful|lovely|perfect|"
    r"of\s+course|because|cos|totally|ah\s+yes)\b",
    re.IGNORECASE,
)


def sarcastic(text: str, *, strong: bool = False) -> bool:
    """Whether ``text`` carries a marker that it means the opposite ("/s", "yeah right", an
    emphasised liking after an ironic interjection); with ``strong``, only a marker sure
    enough to void a plain like or dislike too."""
    if _EMPHATIC_LIKING.search(text) and _IRONIC_OPENER.search(text):
        return True
    return bool((_STRONG_SARCASM if strong else _SARCASM).search(text))


#: A message that says it is a joke: "lol jk", "just kidding", "I was joking", "..., not really".
_JOKING = re.compile(
    r"\b(?:jk|j/k|jking|kidding\s+lol)\b|\b(?:just|only)\s+(?:kidding|joking)\b|"
    r"\b(?:i'?m|im|i\s+am|i\s+was|was)\s+(?:only\s+|just\s+)?(?:kidding|joking)\b|"
    r"\b(?:was|were|is)\s+(?:just\s+|only\s+)?a\s+joke\b|"
    r"(?:^|[,.;!(]\s*|\b(?:lol|haha\w*)\s+)not\s+really\W*(?:lol|haha\w*)?\W*$|"
    r"^\W*not\s+really\s*[,.!]|\(\s*(?:kidding|joking)\s*\)|"
    # a name said in the film's line, surname then full name: "the name's Bond, James Bond"
    r"\bname'?s?\s+(?:is\s+)?(?P<last>[a-z][\w'-]+)[,.]+\s+[a-z][\w'-]+\s+(?P=last)\b",
    re.IGNORECASE,
)


def joking(text: str) -> bool:
    """Whether ``text`` says that it (or what was just said) is a joke: nothing in it is kept."""
    return bool(_JOKING.search(text))


#: Words before what a goal is about ("get back into painting" -> "painting").
_GOAL_WORDS = (
    r"get|getting|back|into|to|be|able|more|better|at|start|starting|learn|learning|how|"
    r"finally|really|become|a|an|the|my|some|go|keep|do|make|actually|pass|passing"
)
_GOAL_FILLER = re.compile(rf"^(?:{_GOAL_WORDS})\s+", re.IGNORECASE)
#: ... and before what any state, feeling or value is about.
_TOPIC_FILLER = re.compile(
    rf"^(?:{_GOAL_WORDS}|so|very|always|been|feeling|missing|i|i'm|i've|like)\s+", re.IGNORECASE
)
_TOPIC_END = re.compile(
    r"\s+(?:since|because|when|whenever|after|before|a\s+lot|so\s+much|around|every|lately|"
    r"once|by|within|than)\b.*$|,.*$",
    re.IGNORECASE,
)


def _topic(text: str) -> str:
    """The few words a fact is about: "missing my grandmother a lot since..." -> "grandmother"."""
    text = text.strip(" .!,;")
    for _ in range(8):
        text = _TOPIC_FILLER.sub("", text)
    head = _TOPIC_END.sub("", text).strip() or text
    return " ".join(re.findall(r"[\w'-]+", head)[:3])


def _fact(kind: str, content: str, topic: str, salience: float | None = None) -> Fact:
    key = "-".join(topic_key(_topic(topic) or topic).split("-")[:3]) or "thing"
    return Fact(
        "user",
        _CATEGORY.get(kind, "knowledge"),
        content,
        (kind, f"topic:{key}"),
        f"{kind}:{key}",
        _SALIENCE[kind] if salience is None else salience,
    )


def _sentence(text: str) -> str:
    text = text.strip(" .!,;")
    return text[0].upper() + text[1:] + "." if text else ""


def _first_word(text: str) -> str:
    words = re.findall(r"[\w']+", text.lower())
    return words[0] if words else ""


_PAST = re.compile(
    r"^i\s+(?P<verb>(?:(?:really|just|finally|also|always|never|once|recently|even)\s+)?"
    r"(?:got|became|sold|broke|felt|was|made|took|left|lost|went|grew|knew|thought|began|quit|"
    r"chose|fell|found|gave|had|kept|met|ran|saw|spent|taught|told|wrote|won|forgot|bought|"
    r"brought|caught|built|drove|ate|drank|swam|sang|sat|slept|stood|came|did|put|cut|hurt|set|"
    r"let|read|shut|split|quit))\b(?P<rest>.*)$",
    re.IGNORECASE,
)


def _about(clause: str) -> str:
    """The clause said of the user, one sentence; a past verb stays as said ("I felt")."""
    clause = clause.strip(" .!,;")
    m = _PAST.match(clause)
    if m:
        return f"The user {m.group('verb')}{third_person(m.group('rest'))}."
    return _about_the_user(clause)


# States: lasting conditions of body and life. Traits ("I'm a night owl", "I'm a fast
# learner") are not kept: the writer's tests and bench hold them as nothing to keep.
_CONDITIONS = (
    r"colou?r[\s-]?blind|dyslexic|autistic|deaf(?:\s+in\s+one\s+ear)?|blind(?:\s+in\s+one\s+eye)?|"
    r"hard\s+of\s+hearing|left[\s-]handed|pregnant|sober|disabled|epileptic|asthmatic|"
    r"(?:an?\s+)?insomniac|retired|unemployed|between\s+jobs|self[\s-]employed|single|divorced|"
    r"widowed|homeless|(?:short|near|long)[\s-]sighted|in\s+a\s+wheelchair|on\s+crutches|"
    r"in\s+therapy|in\s+recovery|on\s+(?:medication|antidepressants|meds|bed\s+rest|sick\s+leave|"
    r"(?:maternity|paternity|medical|parental)\s+leave)|without\s+a\s+(?:car|job|home)|"
    r"a\s+single\s+(?:mom|mother|dad|father|parent)|a\s+(?:full[\s-]time\s+)?carer|a\s+caregiver|"
    r"chronically\s+ill|immunocompromised|neurodivergent|bipolar|a\s+recovering\s+\w+"
)
_STATE_IS = re.compile(
    r"^(?:i'?m|i\s+am|im)\s+(?:now\s+|still\s+|also\s+|currently\s+|basically\s+|completely\s+|"
    rf"totally\s+|mostly\s+|partially\s+|legally\s+)*(?P<what>{_CONDITIONS})\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_STATE_ONGOING = re.compile(
    r"^(?:i'?m|i\s+am|im)\s+(?:still\s+|currently\s+|slowly\s+|now\s+|also\s+)*"
    r"(?P<what>recovering\s+from|healing\s+from|getting\s+over|going\s+through|dealing\s+with|"
    r"struggling\s+with|living\s+with|battling|undergoing|in\s+the\s+middle\s+of|caring\s+for|"
    r"fasting|stuck\s+working|working\s+(?:nights|night\s+shifts?|from\s+home|remotely|two\s+jobs|"
    r"part[\s-]time|full[\s-]time|weekends))\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_WORK_SCHEDULE = re.compile(
    r"^i\s+(?:now\s+|mostly\s+|usually\s+|still\s+|currently\s+|only\s+|also\s+)*work\s+"
    r"(?P<what>nights|night\s+shifts?|the\s+night\s+shift|(?:early|late)\s+shifts?|shifts|"
    r"weekends|from\s+home|remotely|two\s+jobs|part[\s-]time|full[\s-]time|long\s+hours|"
    r"(?:twelve|12|ten|10)[\s-]hour\s+shifts)\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_BODY = (
    r"arm|leg|wrist|ankle|foot|toe|finger|rib|ribs|hand|knee|collarbone|nose|back|hip|shoulder|"
    r"elbow|acl|meniscus|ligament|tendon|neck"
)
_HAS_CONDITION = re.compile(
    r"^i\s+(?:also\s+|still\s+|now\s+)?(?:have|'ve\s+got|have\s+got|suffer\s+from|live\s+with|"
    r"(?:was|got)\s+diagnosed\s+with)\s+(?P<what>(?:an?\s+)?(?:adhd|asthma|(?:type\s+[12]\s+)?"
    r"diabetes|anxiety|depression|insomnia|migraines|arthritis|epilepsy|eczema|psoriasis|ibs|ptsd|"
    r"ocd|autism|dyslexia|tinnitus|endometriosis|fibromyalgia|lupus|long\s+covid|cancer|"
    r"(?:high|low)\s+blood\s+pressure|heart\s+condition|chronic\s+\w+(?:\s+pain)?|"
    rf"bad\s+(?:{_BODY})|(?:stress\s+fracture|broken|sprained|torn|fractured|slipped)\s*"
    rf"(?:{_BODY}|disc)?|(?:back|knee|joint)\s+pain|pacemaker|hearing\s+aid))\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_MY_BODY = re.compile(
    r"^my\s+(?P<what>back|knees?|hips?|neck|shoulders?|wrists?|feet|foot|ankles?|stomach|skin|"
    r"eyesight|vision|hearing|sleep|health|mental\s+health|anxiety|depression|allergies|asthma|"
    r"migraines|blood\s+pressure|memory|joints|insomnia|back\s+pain)\s+"
    r"(?P<rest>(?:has|have|is|are|'s|keeps?|hurts?|aches?|got|gets|been)\b.+)$",
    re.IGNORECASE,
)
_BODY_LASTING = re.compile(
    r"\b(?:gotten|getting|got|grown|gone)\s+(?:\w+\s+)?(?:worse|better)\b|\bchronic|\bkilling\b",
    re.IGNORECASE,
)


def _state(m: re.Match[str], clause: str) -> Fact | None:
    if _MOMENT.search(m.group("rest")):
        return None
    return _fact("state", _about(clause), m.group("what"))


def _body_state(m: re.Match[str], clause: str) -> Fact | None:
    rest = m.group("rest")
    if _MOMENT.search(rest) or not (_DURABLE.search(rest) or _BODY_LASTING.search(rest)):
        return None
    return _fact("state", _about(clause), m.group("what"))


# Feelings, each with what makes it last.
_EMOTION = (
    r"stressed(?:\s+out)?|anxious|overwhelmed|exhausted|tired|lonely|depressed|sad|down|low|angry|"
    r"frustrated|burn[te]d?\s+out|scared|afraid|nervous|worried|happ(?:y|ier|iest)|calm(?:er)?|"
    r"better|worse|restless|irritable|grumpy|moody|cranky|drained|numb|hopeless|lost|stuck|bored|"
    r"isolated|homesick|nostalgic|jealous|guilty|ashamed|embarrassed|insecure|invisible|"
    r"unmotivated|motivated|content|confident|proud|grateful|uneasy|uncomfortable|furious|"
    r"on\s+edge|paranoid|emotional|hopeful|relieved|unhappy|miserable|heartbroken|betrayed|"
    r"unappreciated|ignored|left\s+out|safe|cozy|cosy|at\s+peace|awkward|self[\s-]conscious|"
    r"anxiety|panicky|sleepy|weepy|sick\s+to\s+my\s+stomach|like\s+(?:an?\s+)?(?:outsider|failure|"
    r"fraud|burden|stranger|imposter|impostor)"
)
_BEEN = re.compile(
    r"^i(?:'ve|\s+have)\s+(?:really\s+|just\s+|also\s+|honestly\s+)?been\s+"
    rf"(?P<how>{_INTENS})(?P<what>feeling|missing|struggling|grieving|stressing|worrying|"
    rf"dreading|craving|obsessing|hurting|suffering|coping|panicking|overthinking|{_EMOTION})\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_BEEN_DOING = re.compile(
    r"^i(?:'ve|\s+have)\s+(?:really\s+|just\s+|also\s+)?been\s+(?P<what>sleeping|eating|drinking|"
    r"sober|clean|smoke[\s-]free|sugar[\s-]free|working|running|exercising|training|dieting|"
    r"fasting|volunteering|living|commuting|taking|seeing|single|unemployed|vegan|vegetarian)\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_AM_FEELING = re.compile(
    rf"^(?:i'?m|i\s+am|im)\s+{_INTENS}(?P<what>{_EMOTION})\b(?P<rest>.*)$", re.IGNORECASE
)
_GET_FEELING = re.compile(
    rf"^i\s+{_INTENS}(?P<verb>feel|get|felt|was)\s+{_INTENS}(?P<what>{_EMOTION})\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
#: After "I get X" / "I feel X": the situation that makes it a pattern, not a moment.
_SITUATION = re.compile(
    r"^\s*,?\s*(?:when|whenever|around|before|after|at|in|during|about|every|on|since|if|"
    r"lately|these\s+days|each\s+time|any\s+time|anytime)\b",
    re.IGNORECASE,
)
_OCCASION = re.compile(
    r"\b(?:when|whenever|around|before|during|every|each\s+time|any\s+time)\b", re.IGNORECASE
)
_MAKES_ME = re.compile(
    r"^(?P<x>.+?)\s+(?P<what>is\s+(?:what|the\s+(?:only\s+)?thing\s+that)\s+)?"
    r"(?P<verb>(?:(?:always|really|just|still|totally|usually|honestly|instantly|immediately)\s+)*"
    r"(?:makes?|made|puts?|calms?|keeps?|stress(?:es)?|drives?|scares?|terrif(?:y|ies)|"
    r"frighten|frightens|relax(?:es)?|cheers?|freaks?|annoys?|bugs?|upsets?|soothes?|comforts?|"
    r"wears?|triggers?))\s+me\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_MAKES_ME_REST = re.compile(
    rf"^\s+(?:feel\b|{_INTENS}(?:{_EMOTION})\b|want\b|cry\b|laugh\b|smile\b|sick\b|"
    r"on\s+edge\b|in\s+a\s+\w+\s+mood\b|at\s+ease\b|off\b|down\b|up\b|out\b|calm\b|sane\b|"
    r"grounded\b|going\b|awake\b|crazy\b|nuts\b|mad\b|insane\b|up\s+the\s+wall\b)|^\s*$",
    re.IGNORECASE,
)
_NEEDS_REST = re.compile(r"make|made|put|keep|drive|wear|cheer|freak", re.IGNORECASE)
_MISS = re.compile(
    rf"^i\s+{_INTENS}miss\s+(?P<what>.+)$",
    re.IGNORECASE,
)
_NOT_MISSED = re.compile(r"^(?:out\b|the\s+(?:bus|train|flight|point|deadline|call)\b)", re.I)
_FEAR = re.compile(
    rf"^(?:i'?m|i\s+am|im)\s+{_INTENS}(?:scared|afraid|terrified|frightened|petrified|phobic)\s+"
    r"(?:of|to)\s+(?P<what>.+)$",
    re.IGNORECASE,
)
_NOT_FEARED = frozenset(_words("ask say tell admit check look go answer"))


def _been(m: re.Match[str], clause: str) -> Fact | None:
    if _MOMENT.search(m.group("rest")) or _first_word(m.group("rest")) in _PRONOUN:
        return None
    what = m.group("what").lower()
    topic = m.group("rest") if what in ("missing", "craving", "dreading") else "mood"
    return _fact("feeling", _about(clause), topic)


def _been_doing(m: re.Match[str], clause: str) -> Fact | None:
    rest = m.group("rest")
    if _MOMENT.search(rest) or not _DURABLE.search(rest):
        return None
    return _fact("state", _about(clause), m.group("what") + " " + _first_word(rest))


def _am_feeling(m: re.Match[str], clause: str) -> Fact | None:
    rest = m.group("rest")
    if _MOMENT.search(rest) or not _DURABLE.search(rest):
        return None
    return _fact("feeling", _about(clause), "mood")


def _get_feeling(m: re.Match[str], clause: str) -> Fact | None:
    rest = m.group("rest")
    if _MOMENT.search(rest) or not (
        _SITUATION.match(rest) or _OCCASION.search(rest) or _DURABLE.search(rest)
    ):
        return None
    if m.group("verb").lower() in ("felt", "was") and not re.match(
        r"^\s*,?\s*(?:when|after|since|every|whenever)\b", rest, re.IGNORECASE
    ):
        return None
    return _fact("feeling", _about(clause), m.group("what") + rest)


def _makes_me(m: re.Match[str], clause: str) -> Fact | None:
    x, rest = m.group("x").strip(), m.group("rest")
    words = re.findall(r"[\w']+", x.lower())
    if not words or {words[0], words[-1]} & (_PRONOUN | {"i", "i'm", "me", "so", "and"}):
        return None
    if words[0].endswith("ly") or words[0] in ("imagining", "picturing", "thinking", "also"):
        return None
    if len(words) > 8 or re.search(r"[,;:]|\s-", x):
        return None
    if not _MAKES_ME_REST.match(rest) or (_NEEDS_REST.search(m.group("verb")) and not rest):
        return None
    if _MOMENT.search(rest):
        return None
    said = f"{x} {m.group('what') or ''}{m.group('verb')} the user{third_person(rest)}"
    return _fact("feeling", _sentence(third_person(said)), x)


def _miss(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what")
    if _first_word(what) in _PRONOUN or _NOT_MISSED.match(what) or _MOMENT.search(what):
        return None
    return _fact("feeling", _about(clause), "missing " + what)


def _fear(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what")
    if _first_word(what) in _PRONOUN | _NOT_FEARED or _MOMENT.search(what):
        return None
    return _fact("feeling", _about(clause), "fear " + what)


# Goals and wishes: something to reach, not a want of the moment.
_GOAL = re.compile(
    r"^(?:i\s+(?:really\s+|truly\s+|also\s+|still\s+|just\s+|seriously\s+|badly\s+|so\s+)*"
    r"(?:want|hope|intend|aim|mean)\s+to"
    r"|(?:i'?m|i\s+am|im)\s+(?:really\s+|also\s+|still\s+|desperately\s+|seriously\s+|so\s+)*"
    r"(?:trying|hoping|determined|aiming|dying|itching|eager|set|desperate)\s+to"
    r"|i(?:'ve|\s+have)\s+(?:always\s+|long\s+|really\s+|also\s+)*(?:been\s+)?"
    r"(?:wanting|wanted|meaning|trying|hoping|planning|dying)\s+to"
    r"|my\s+(?:main\s+|big\s+|biggest\s+|ultimate\s+|long[\s-]term\s+|personal\s+|"
    r"new\s+year'?s?\s+)?(?:goal|aim|dream|ambition|resolution|mission|target)\s+"
    r"(?:for\s+\w+(?:\s+\w+)?\s+)?is(?:\s+to)?"
    r"|(?:i'?m|i\s+am|im)\s+(?:really\s+|slowly\s+|still\s+|currently\s+|also\s+)*"
    r"(?:working\s+towards?|saving\s+(?:up\s+)?(?:for|to)|training\s+for|studying\s+for|"
    r"learning(?:\s+how)?\s+to|preparing\s+for|practi[cs]ing\s+for))\s+(?P<what>.+)$",
    re.IGNORECASE,
)
#: "I'd like to" / "I'd love to" / "I plan to" is a goal only with one of these verbs or a
#: "someday" (a plan with a day is :mod:`._plans`' business).
_WISH = re.compile(
    r"^(?:i(?:'d|\s+would)\s+(?:really\s+|so\s+|just\s+|also\s+|absolutely\s+)*(?:like|love)|"
    r"i\s+(?:also\s+)?plan|(?:i'?m|i\s+am)\s+(?:also\s+)?planning)\s+to\s+(?P<what>.+)$",
    re.IGNORECASE,
)
_GOAL_VERBS = frozenset(
    _words(
        "learn become improve master study pursue earn publish launch found create compete "
        "qualify graduate retire adopt volunteer climb own build write travel visit quit stop "
        "start finish save lose run raise pay"
    )
)
_GOAL_PHRASE = re.compile(
    r"^(?:become|get\s+better|be\s+(?:able|more|less|a\s+better)|spend\s+more|have\s+(?:kids|"
    r"children|a\s+(?:baby|family))|make\s+peace|go\s+back|get\s+back|give\s+back|"
    r"cut\s+(?:down|back))\b",
    re.IGNORECASE,
)
_SOMEDAY = re.compile(
    r"\b(?:someday|some\s+day|one\s+day|eventually|at\s+some\s+point|in\s+the\s+future|"
    r"before\s+i\s+\w+|by\s+the\s+time|within|in\s+(?:the\s+next\s+)?(?:a\s+few|\w+)\s+years|"
    r"(?:this|next)\s+year|by\s+(?:next|the\s+end|thirty|forty|fifty|\d+))\b",
    re.IGNORECASE,
)
#: Wants of the moment: "I want to sleep", "I'm trying to ask you something".
_MOMENTARY = frozenset(
    _words(
        "sleep nap rest eat drink pee grab order ask say tell know hear check thank talk "
        "chat vent rant watch listen add mention share clarify confirm cry scream die sit "
        "lie shower shout hug kiss continue understand remember forget figure decide "
        "call text email reply respond answer show send double-check come wait hang log sign "
        "cancel"
    )
)
_MOMENTARY_AFTER = re.compile(
    r"^(?:go\s+(?:to\s+bed|to\s+sleep|home|out|back|outside|shopping|for\s+a)|"
    r"get\s+(?:some|a|an|coffee|food|lunch|dinner|breakfast|something|up|ready|going|out|home|off|"
    r"this|it|that)|have\s+(?:some|coffee|lunch|dinner|breakfast|fun|a\s+(?:word|look|drink|"
    r"coffee|snack|bath|shower|nap|break))|be\s+(?:honest|clear|sure|done|alone|left\s+alone|"
    r"quiet)|try\s+(?:it|this|that|something|again)|play\s+(?:a|some|another|something))\b",
    re.IGNORECASE,
)


#: A want aimed at one new thing to see, try or hear ("see the new spiderman film", "try that
#: new ramen place"): an eagerness of the moment, no aim in life.
_ONE_OFF = re.compile(
    r"^(?:go\s+(?:and\s+)?)?(?:see|watch|try|catch|check\s+out|read|hear|play|listen\s+to|visit)\s+"
    r"(?:(?:the|that|this|a|an|their|his|her)\s+)?(?:(?:brand\s+)?new|latest|upcoming|next)\b",
    re.IGNORECASE,
)


def _momentary(what: str) -> bool:
    """A want of the moment, or one aimed at a thing named before ("make it work")."""
    first = _first_word(what)
    return (
        not first
        or bool(re.match(r"^(?:\S+\s+){1,2}(?:it|this|that|them)\b", what, re.IGNORECASE))
        or (first in _MOMENTARY and not _DURABLE.search(what))
        or first in _PRONOUN
        or bool(_MOMENTARY_AFTER.match(what))
        or bool(_MOMENT.search(what))
        or bool(_ONE_OFF.match(what))
    )


def _goal(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what")
    if _momentary(what):
        return None
    return _fact("goal", _about(clause), what)


def _wish(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what")
    if _momentary(what):
        return None
    first = _first_word(_GOAL_FILLER.sub("", what) if what.lower().startswith("be ") else what)
    if first not in _GOAL_VERBS and not _GOAL_PHRASE.match(what) and not _SOMEDAY.search(what):
        return None
    return _fact("goal", _about(clause), what)


# Values: what the person holds to.
_MATTERS = re.compile(
    r"^(?P<what>.+?)\s+(?:is|are|was|has\s+always\s+been)\s+(?:always\s+|really\s+|very\s+|so\s+|"
    r"super\s+|incredibly\s+|extremely\s+|truly\s+|hugely\s+)*(?:a\s+(?:really\s+|very\s+)?big\s+"
    r"deal|important|sacred|everything|non[\s-]negotiable|(?:a\s+|my\s+)?(?:top\s+)?priority|"
    r"precious|a\s+core\s+value)\s+(?:to|for)\s+me\b(?P<rest>.*)$"
    r"|^(?P<what2>.+?)\s+(?:really\s+|truly\s+|deeply\s+)?matters?\s+(?:(?:a\s+lot|so\s+much|"
    r"a\s+great\s+deal|more|most|deeply|hugely)\s+)?to\s+me\b(?P<rest2>.*)$"
    r"|^(?P<what3>.+?)\s+(?:is|are)\s+(?:something|what)\s+i\s+(?:really\s+|truly\s+|deeply\s+)?"
    r"(?:value|care\s+about|believe\s+in|live\s+by|stand\s+for)\b(?P<rest3>.*)$"
    r"|^(?P<what6>.+?)\s+(?:is|are)\s+(?:something|what)\s+i(?:'d|\s+would)\s+"
    r"(?:fight|die|go\s+to\s+war)\s+for\b(?P<rest6>.*)$"
    r"|^(?P<what4>.+?)\s+(?:is|was)\s+how\s+i\s+was\s+(?:raised|brought\s+up)\b(?P<rest4>.*)$"
    r"|^(?P<what5>.+?)\s+(?:guides|shapes|drives|rules)\s+(?:most\s+of\s+|all\s+of\s+|a\s+lot\s+of\s+)?"
    r"my\s+(?:choices|decisions|life)\b(?P<rest5>.*)$",
    re.IGNORECASE,
)
_I_VALUE = re.compile(
    r"^i\s+(?:really\s+|truly\s+|deeply\s+|genuinely\s+|also\s+|still\s+)*"
    r"(?P<verb>care\s+(?:(?:a\s+lot|so\s+much|deeply|a\s+great\s+deal)\s+)?about|value|"
    r"believe\s+in|live\s+by|stand\s+for)\s+(?P<what>.+)$"
    r"|^(?:i'?m|i\s+am|im)\s+(?:really\s+|very\s+|so\s+|super\s+)*(?P<verb2>big\s+on|"
    r"passionate\s+about)\s+(?P<what2>.+)$",
    re.IGNORECASE,
)
_BELIEVE = re.compile(
    r"^i\s+(?:really\s+|truly\s+|strongly\s+|firmly\s+|honestly\s+|genuinely\s+)*"
    r"(?P<verb>believe|think|feel)\s+(?:that\s+)?(?P<what>.+)$",
    re.IGNORECASE,
)
#: What a belief about how things should be sounds like (not "I think it's at 5").
_CREED = re.compile(
    r"^(?:it'?s|it\s+is)\s+(?:really\s+|so\s+|very\s+)?(?:important|wrong|right|essential|crucial|"
    r"vital|never\s+okay|not\s+okay|unfair|selfish|rude)\s+to\b"
    r"|^(?:everyone|everybody|people|kids|children|parents|we\s+all|nobody|no\s+one|you)\s+"
    r"(?:should|shouldn't|must|deserve|need\s+to|ought)\b"
    r"|^(?:[\w-]+\s+){1,3}(?:beats|matters\s+more|is\s+overrated|is\s+underrated|is\s+everything)\b",
    re.IGNORECASE,
)
_TRY_TO = re.compile(
    r"^i\s+(?:always\s+|really\s+|usually\s+|also\s+|still\s+)*try\s+(?:hard\s+|my\s+best\s+)?"
    r"to\s+(?P<what>.+)$",
    re.IGNORECASE,
)


def _matters(m: re.Match[str], clause: str) -> Fact | None:
    n = next(i for i in ("", "2", "3", "4", "5", "6") if m.group("what" + i))
    what, rest = m.group("what" + n).strip(), m.group("rest" + n)
    if _first_word(what) in _PRONOUN or len(what.split()) > 8 or _MOMENT.search(what + rest):
        return None
    said = (
        third_person(clause.strip(" .!,;"))
        .replace(" to them", " to the user")
        .replace(" for them", " for the user")
    )
    said = re.sub(
        r"\bthey(?: (are|were|would)\b|'(d)\b)",
        lambda v: "the user " + {"are": "is", "were": "was", "d": "would"}.get(v[1] or v[2], v[1]),
        said,
        count=1,
    )
    if "the user" not in said:
        said = re.sub(r"\btheir\b", "the user's", said, count=1)
    return _fact("value", _sentence(said), what)


def _i_value(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what") or m.group("what2")
    if _first_word(what) in _PRONOUN or _MOMENT.search(what):
        return None
    return _fact("value", _about(clause), what)


def _believe(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what")
    if not _CREED.match(what) or _MOMENT.search(what):
        return None
    return _fact("value", _about(clause), re.sub(r"^it'?s\s+\w+\s+to\s+", "", what))


def _try_to(m: re.Match[str], clause: str) -> Fact | None:
    what = m.group("what")
    if _momentary(what):
        return None
    return _fact("value", _about(clause), what)


# Causes, read on the whole sentence: the cause may stand in a clause of its own.
_EFFECT_START = (
    r"(?:i(?:'ve|'m|'d|\s+have|\s+am|\s+feel|\s+felt|\s+get|\s+got|\s+can't|\s+don't|\s+started|"
    r"\s+stopped|\s+haven't|\s+never|\s+always|\s+became|\s+gained|\s+lost|\s+quit)|"
    r"my\s+[\w']+(?:\s+[\w']+)?\s+(?:has|have|is|are|got|gets|went|dropped|improved))\b"
)
_CAUSE_FIRST = re.compile(
    r"^(?P<conn>(?:ever\s+)?since|after)\s+(?P<cause>.+?)(?:,\s*|\s+)"
    rf"(?P<effect>{_EFFECT_START}.*)$",
    re.IGNORECASE,
)
_CAUSE_AFTER = re.compile(
    r"^(?P<effect>(?:i|i'm|i've|i'd|my)\b.+?),?\s+(?P<conn>because(?:\s+of)?|ever\s+since|"
    r"since|after|once(?!\s+(?:a|an|every|or|again|more|in)\b)|due\s+to|thanks\s+to)\s+"
    r"(?P<cause>.+)$",
    re.IGNORECASE,
)
_SWITCH_AND = re.compile(
    r"^(?P<effect>i\s+(?:switched|started|stopped|quit|gave\s+up|cut\s+back\s+on|cut\s+out|began|"
    r"took\s+up|moved)\b.+?),?\s+and\s+(?P<cause>my\s+.+?\b(?:disappeared|went\s+away|"
    r"got\s+(?:\w+\s+)?(?:better|worse)|improved|stopped|vanished|is\s+gone|cleared\s+up)\b.*)$",
    re.IGNORECASE,
)
#: An effect worth a cause: a change, a feeling or a habit ("I went to bed after dinner" is not).
_CHANGE = re.compile(
    r"\b(?:felt|feel|feeling|been|became|become|gained|lost|started|stopped|quit|changed|improved|"
    r"worse|better|less|more|dropped|disappeared|grew|learned|decided|switched|moved|sold|bought|"
    r"joined|failed|chose|broke\s+up|gave\s+up|don't|never|always|can't\s+stand|hate|"
    r"got\s+(?:promoted|fired|sick|married|divorced|hurt|injured|into|better|worse|laid\s+off|"
    r"\w+ed)|"
    r"promoted|fired|retired|afraid|scared|so\s+tired|exhausted|stressed|anxious)\b",
    re.IGNORECASE,
)


#: "after forty years as a bus driver": how long, not why.
_SPAN = re.compile(
    r"^(?:(?:a|an|\w+|\d+|over|nearly|almost)\s+){1,2}(?:years?|months?|decades?)\b", re.I
)


def _cause(effect: str, conn: str, cause: str) -> Fact | None:
    words = len(effect.split()) + len(cause.split())
    if words > MAX_WORDS or not _CHANGE.search(effect) or _MOMENT.search(effect + " " + cause):
        return None
    if _CHAT.search(cause) or (conn.lower() == "after" and _SPAN.match(cause.strip())):
        return None
    if any(
        re.search(r"\b(?:it|that|this|them|so)$", part.strip(" ,.!"), re.IGNORECASE)
        for part in (effect, cause)
    ):
        return None
    said = _about(effect).rstrip(".") + f" {conn.lower()} {third_person(cause.strip(' .!,;'))}."
    return _fact("cause", said, re.sub(r"^(?:i\S*|my)\s+", "", effect, flags=re.I))


def match_cause(sentence: str) -> Fact | None:
    """A cause said of the person in one sentence ("since I started X, I've Y"), or None."""
    text = sentence.strip(" .!;")
    if _YOU.search(text):
        return None
    m = _CAUSE_FIRST.match(text)
    if m:
        return _cause(m.group("effect"), m.group("conn"), m.group("cause"))
    m = _SWITCH_AND.match(text)
    if m:
        return _cause(m.group("effect"), "and since then", m.group("cause"))
    m = _CAUSE_AFTER.match(text)
    if m:
        return _cause(m.group("effect"), m.group("conn"), m.group("cause"))
    return None


#: Where a clause turns to something else: ", so let's ...", ", such a relief".
_ASIDE = re.compile(
    r",\s+(?=(?:so|such|which|plus|though|but|and|lol|haha)\b)"
    r"|\s+and\s+(?=(?:there's|there\s+is|it's|that's)\s)",
    re.IGNORECASE,
)
#: A cause that is only this conversation: "since we last talked".
_CHAT = re.compile(
    r"\b(?:our\s+last\s+(?:chat|talk|conversation)|we\s+(?:last\s+)?(?:talked|spoke|chatted)|"
    r"last\s+time\s+we)\b",
    re.IGNORECASE,
)
_YOU = re.compile(r"\byou(?!')\b|\byour\b|\by'all\b", re.IGNORECASE)
_RECOGNISERS: tuple[tuple[re.Pattern[str], Builder], ...] = (
    (_STATE_IS, _state),
    (_STATE_ONGOING, _state),
    (_WORK_SCHEDULE, _state),
    (_HAS_CONDITION, _state),
    (_MY_BODY, _body_state),
    (_BEEN, _been),
    (_BEEN_DOING, _been_doing),
    (_FEAR, _fear),
    (_AM_FEELING, _am_feeling),
    (_GET_FEELING, _get_feeling),
    (_MISS, _miss),
    (_GOAL, _goal),
    (_WISH, _wish),
    (_I_VALUE, _i_value),  # not "I'm a big believer in ...": a self-description, left alone
    (_BELIEVE, _believe),
    (_TRY_TO, _try_to),
    (_MATTERS, _matters),
    (_MAKES_ME, _makes_me),
)


def match_meaning(clause: str) -> Fact | None:
    """The state, feeling, goal or value one clause says of the person, or None. A dash
    ends the clause: what follows it is an aside."""
    text = re.split(r"\s*(?:\s-+|-+\s|—|–)\s*", clause, maxsplit=1)[0]
    text = _ASIDE.split(text, maxsplit=1)[0].strip(" .!;,")
    text = re.sub(r"\s*,\s*\d{1,3}$", "", text)  # "im sober, 90": a bare number says nothing
    if not text or len(text.split()) > MAX_WORDS or _YOU.search(text):
        return None
    for pattern, build in _RECOGNISERS:
        m = pattern.match(text)
        if m:
            fact = build(m, text)
            if fact is not None:
                return fact
    return None
