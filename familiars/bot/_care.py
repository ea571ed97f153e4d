"""A companion's duty of care (``[care]`` settings; the rules SB 243 asks of companion bots).

Map:

- :func:`speaks_of_self_harm`: a message about suicide or self-harm. Such a message gets the
  configured crisis reply, is never read by the writer as facts, and pauses unsolicited
  nudges for the person (``crisis_pause_s``) through ``on_pause`` (the scheduler's
  ``care_pause``, which its decider reads);
- :class:`Sessions`: when a session started, per dialogue (a gap of ``session_gap_s`` starts
  a new one), so a break reminder can be said once after ``break_after_s`` when owners turn
  it on;
- :func:`disclosure`: the line the first reply in a new chat begins with.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from importlib import resources

from familiars.bot._places import town_countries
from familiars.config import Settings
from familiars.memory import MemoryRecord, as_remind_me, is_live

_SELF_HARM = re.compile(
    r"\b(?:suicid\w*|kill(?:ing)?\s+my\s*self|end(?:ing)?\s+(?:it\s+all|my\s+(?:own\s+)?life)|"
    r"take\s+my\s+(?:own\s+)?life|self[-\s]?harm\w*|hurt(?:ing)?\s+my\s*self|"
    r"cut(?:ting)?\s+my\s*self|(?:want|wanna|wish)\s+(?:to\s+)?(?:be\s+)?(?:die|dead)|"
    r"don'?t\s+want\s+to\s+(?:live|be\s+alive|wake\s+up)|no\s+reason\s+to\s+live|"
    r"better\s+off\s+dead|overdos\w*)",
    re.IGNORECASE,
)
#: Giving up on living said indirectly, in the words grief and despair use (s33 U1): the
#: point of carrying on, "I can't do this anymore" (this, not "this homework"), following
#: the dead ("I might as well join him", not "join him at the pub"), sleep without waking,
#: the others better off without me. Understanding by meaning catches what these miss.
_GIVING_UP = re.compile(
    r"\b(?:(?:point|reason)\s+(?:of|in|to|for\s+me\s+to)\s+(?:carry(?:ing)?\s+on(?!\s+with\b)|go(?:ing)?\s+on|"
    r"keep(?:ing)?\s+going|liv(?:e|ing)|be(?:ing)?\s+(?:here|alive))|"
    r"what'?s\s+the\s+point\s+(?:any\s*more|of\s+(?:anything|it\s+all|life|me))|"
    r"(?:might\s+as\s+well|ready\s+to|time\s+(?:I|to)(?:\s+(?:went|go))?(?:\s+(?:to|and))?)\s+"
    r"(?:join|be\s+with)\s+(?:him|her)(?:\s+(?:again|now|soon))?\s*(?:[.!]|$)|"
    r"(?:sleep|asleep)\s+and\s+(?:not|never)\s+wake\s+up|"
    # not waking said as a wish (tester s39), not "I wish I didn't wake up so early"
    r"(?:wish|want|hope)\s+(?:to|(?:that\s+)?i(?:\s+(?:could|would|might))?)\s+(?:just\s+)?"
    r"(?:not|never|didn'?t|don'?t|won'?t|do\s+not|will\s+not)\s+wake\s+up(?:\s+(?:again|ever|tomorrow|"
    r"any\s*more|at\s+all))?\s*(?:[.,!?;]|$|\s+(?:and|but)\b)|"
    r"better\s+off\s+(?:without\s+me|if\s+I\s+(?:was|were)(?:n'?t|\s+not)?\s+(?:around|here|gone))|"
    r"tired\s+of\s+(?:living|being\s+alive)|"
    # why go on at all: "I don't see why I should bother living" (not "keep going to choir")
    r"(?:don'?t\s+see|wonder|no\s+idea)\s+why\s+i\s+(?:should\s+|even\s+)?(?:bother\s+)?"
    r"(?:liv(?:e|ing)|being\s+alive|(?:go(?:ing)?|carry(?:ing)?)\s+on|keep(?:ing)?\s+going)"
    r"(?!\s+(?:to|with|at|about|for)\b)|"
    # ending it thought of, not a relationship ended ("ending it with Tom")
    r"(?:thinking|thought|think)\s+(?:about|of)\s+end(?:ing)?\s+(?:it(?:\s+all)?|everything|my\s+life)"
    r"(?!\s+(?:with|between|for\s+(?:him|her|them))\b)(?!\s+\w+\s+(?:and|with)\b)"
    r"(?!.*\b(?:relationship|marriage|engagement|friendship|contract|lease|subscription)\b)|"
    # a burden to everyone, said of oneself (tester s37, one of four worries in a row)
    r"(?:i'?m|i\s+am|i\s+feel\s+like|i\s+just\s+feel\s+like)\s+(?:(?:just|such|only|nothing\s+but)\s+)*"
    r"a\s+burden(?:\s+(?:to|on)\s+(?:everyone|everybody|them\s+all|all\s+of\s+them))?\s*(?:[.!]|$))",
    re.IGNORECASE,
)
#: Not going on, said by the person: "I can't take it anymore". Said of a knee, a car or
#: someone else it is not theirs (s35 U8: "i'm done with climbing, my knee can't take it
#: anymore"): :func:`_said_of_another` reads who cannot.
_CANT_GO_ON = re.compile(
    r"\bcan'?t\s+(?:(?:do|take)\s+(?:this|it)\s+any\s*more|"
    r"(?:go|carry)\s+on\s+(?:without|like\s+this|any\s*more))",
    re.IGNORECASE,
)
#: Words between a subject and its "can't" that say nothing of who: "I just can't".
_HEDGES = frozenset(
    [
        "just",
        "really",
        "honestly",
        "literally",
        "simply",
        "truly",
        "seriously",
        "genuinely",
        "actually",
        "so",
        "still",
        "already",
        "now",
    ]
)
#: Subjects that are someone or something else: "he can't", "it can't".
_OTHERS = frozenset(
    ["he", "she", "it", "they", "you", "he's", "she's", "it's", "they're", "this", "that"]
)
#: What opens a noun phrase: "my knee", "the car", "our old boiler".
_DETERMINERS = frozenset(
    ["my", "his", "her", "their", "our", "your", "the", "this", "that", "its", "a", "an"]
)
#: Nouns that stand for the person themselves: "my heart can't take it anymore" is theirs.
_THE_SELF = frozenset(
    ["heart", "mind", "soul", "head", "brain", "body", "self", "nerves", "spirit"]
)


def _said_of_another(plain: str, start: int) -> bool:
    """Whether the "can't" at ``start`` has a subject other than the speaker: a pronoun
    ("he can't") or a noun phrase ("my knee can't") that is not the self ("my heart")."""
    clause = re.split(r"[,.;:!?()]|\b(?:and|but|so|because|cause|cos)\b", plain[:start].lower())[-1]
    words = re.findall(r"[a-z']+", clause)
    while words and words[-1] in _HEDGES:
        words.pop()
    if not words or words[-1] in ("i", "we", "i'm", "me"):
        return False
    if words[-1] in _OTHERS:
        return True
    phrase = words[-4:]
    opener = next((i for i in range(len(phrase) - 1, -1, -1) if phrase[i] in _DETERMINERS), None)
    if opener is None or any(w in ("i", "we") for w in phrase[opener:]):
        return False
    return words[-1] not in _THE_SELF


def _cant_go_on(plain: str) -> bool:
    return any(not _said_of_another(plain, m.start()) for m in _CANT_GO_ON.finditer(plain))


#: Joining the dead with the farewell said (s34 U78: "I'm going to be with Joan soon, I've
#: made my peace"): being with someone soon or again, and peace made or goodbyes said, in one
#: message. Either alone is everyday ("with my sister soon, flying out Friday", "made my
#: peace with the new job").
_JOINING = re.compile(
    r"\b(?i:going\s+to|gonna|will|'ll|soon\s+be|ready\s+to)\s+(?i:be\s+)?(?i:with|join)\s+"
    r"(?:(?i:him|her|them|my\s+(?:late\s+)?\w+)|[A-Z][\w'-]+)(?:\s+[A-Z][\w'-]+)?\s+"
    r"(?i:again\s+)?(?i:soon|now|again)\b"
)
_FAREWELL = re.compile(
    r"\b(?:made\s+(?:my|our)\s+peace(?!\s+with\b)|(?:said|saying)\s+(?:my|our|all\s+my)\s+"
    r"goodbyes?(?!\s+(?:to|at)\s+the\b)|(?:i'?m|im|i\s+am)\s+(?:at\s+peace(?!\s+with\b)|"
    r"ready\s+to\s+go)|sorted\s+(?:out\s+)?my\s+"
    r"affairs|put\s+my\s+affairs\s+in\s+order)\b",
    re.IGNORECASE,
)
#: The means or the farewell said instead of the wish (issue 23): giving everything away,
#: a car driven into a wall, a step in front of a train, pills saved up, goodbye letters, the
#: world not noticing. Said of the future or as a wish: "I nearly drove into a wall on the
#: ice" and "I jumped off the pier into the sea" are news, not a plan.
_MEANS = re.compile(
    r"\b(?:giv(?:e|ing)\s+(?:away\s+)?(?:all\s+)?my\s+(?:things|stuff|belongings|possessions|"
    r"everything)\b(?:.*\bwon'?t\s+need)?|won'?t\s+(?:need|be\s+needing)\s+(?:them|it|my\s+\w+|"
    r"anything)\s+(?:any\s*more|where\s+i'?m\s+going|for\s+much\s+longer)|"
    r"(?:driv(?:e|ing)|crash(?:ing)?|steer(?:ing)?|swerv(?:e|ing))\s+(?:my\s+car\s+|it\s+)?"
    r"(?:into|off)\s+(?:a|the)\s+(?:\w+\s+)?(?:wall|tree|bridge|cliff|river|lorry|truck|"
    r"oncoming)|"
    r"(?:step(?:ping)?|jump(?:ing)?|throw(?:ing)?\s+myself|walk(?:ing)?)\s+(?:out\s+)?in\s+"
    r"front\s+of\s+(?:a|the)\s+(?:\w+\s+)?(?:bus|train|car|lorry|truck|tube|tram)|"
    r"(?:jump(?:ing)?|throw(?:ing)?\s+myself)\s+off\s+(?:a|the|my)\s+(?:\w+\s+)?(?:bridge|roof|"
    r"building|cliff|balcony|tower|car\s+park)|"
    r"(?:got|have|had|'ve\s+got)\s+(?:the|all\s+(?:the|my)|enough)\s+(?:pills|tablets|meds)\s+"
    r"(?:ready|saved(?:\s+up)?|lined\s+up|together|counted\s+out)(?!\s+(?:for|in|at|by)\b)|"
    r"(?:sav(?:e|ing)|stockpil(?:e|ing)|hoard(?:ing)?)\s+(?:up\s+)?(?:my\s+)?"
    r"(?:pills|tablets|meds|medication)|how\s+many\s+(?:pills|tablets|paracetamol)\s+(?:it\s+)?"
    r"(?:would|will|it'?d)\s+take|"
    r"(?:letters?|notes?)\s+to\s+(?:everyone|everybody|my\s+\w+)\s+(?:to\s+)?say(?:ing)?\s+goodbye|"
    r"goodbye\s+(?:letters?|notes?)|"
    r"(?:no\s*one|nobody|no-one)\s+would\s+(?:even\s+)?(?:notice|care|miss\s+me)\s+if\s+i\s+"
    r"(?:was|were|died|disappeared|went|wasn'?t)|"
    r"(?:want|wanna|wish\s+i\s+could)\s+(?:to\s+)?(?:go\s+to\s+)?sleep\s+(?:forever|for\s+ever)|"
    r"no\s+way\s+out\b.*\b(?:end(?:ing)?\s+(?:it|things|everything)|di(?:e|ing))|"
    r"(?:won'?t|will\s+not|don'?t\s+see\s+myself)\s+(?:be(?:ing)?\s+)?around\s+(?:for\s+)?"
    r"(?:much\s+)?longer(?!\s+(?:today|tonight|this|at|here|,))|"
    r"(?:everyone|everybody|they|my\s+\w+)\s+would\s+be\s+(?:happier|better(?:\s+off)?|fine)\s+"
    r"(?:if\s+i\s+(?:was|were)(?:n'?t|\s+not)?\s+(?:here|around|gone|dead)|without\s+me)|"
    r"(?:don'?t|do\s+not)\s+want\s+to\s+(?:exist|be\s+here\s+any\s*more))",
    re.IGNORECASE,
)


#: Taking it back after the crisis reply: "jk im fine, just tired", "I'm ok, forget it".
_WALKED_BACK = re.compile(
    r"^(?:(?:no+|nah|ok(?:ay)?|sorry|haha|lol|honestly|seriously|don'?t\s+worry)[,!.]*\s+)*"
    r"(?:jk|j/k|just\s+(?:kidding|joking)|(?:i\s+was\s+|i'?m\s+|was\s+)?(?:only\s+)?"
    r"(?:kidding|joking)|i\s+didn'?t\s+mean\s+(?:it|that)|never\s*mind|nvm|forget\s+(?:it|that|i\s+said)|"
    r"ignore\s+(?:me|that)|(?:i'?m|im|i\s+am)\s+not\s+(?:going\s+to|gonna)\s+do\s+anything\s+"
    r"(?:daft|stupid|silly|drastic|rash)|i\s+won'?t\s+do\s+anything\s+(?:daft|stupid|silly|drastic|rash)|(?:i'?m|im|i\s+am)\s+(?:fine|ok(?:ay)?|alright|all\s+right|good|safe)(?!\s+(?:at|with|for|to|in)\b)|"
    r"(?:it'?s|its)\s+(?:fine|ok(?:ay)?|nothing)|all\s+good|not\s+(?:serious|like\s+that))\b",
    re.IGNORECASE,
)
#: The reply to a message that takes the worry back: warm, and the door left open.
AFTER_CARE = (
    "Okay, thank you for telling me. I'm glad you're alright. If it ever does feel like too "
    "much, I'm here to listen, and those lines are there day or night."
)


def walked_back(text: str) -> bool:
    """Whether ``text`` takes back what worried (said right after the crisis reply): the
    take-back, then at most a short tail with no word of risk ("jk im fine, just tired").
    "I'm ok now, I've got the pills ready" and "its fine, I've made my decision" open the
    same way and are not (review s34 F12: they were met with "I'm glad you're alright")."""
    plain = _plain(text)
    m = _WALKED_BACK.search(plain)
    if m is None or speaks_of_self_harm(text):
        return False
    tail = re.findall(r"[a-z']+", plain[m.end() :].lower())
    return len(tail) <= 6 and not _RISK_WORDS.intersection(tail)


def takes_back_unsure(text: str) -> bool:
    """Whether ``text`` opens as a take-back but goes on past what :func:`walked_back`
    accepts: right after the crisis reply it is met with a check-in, not small talk."""
    return _WALKED_BACK.search(_plain(text)) is not None and not walked_back(text)


#: Words that make a take-back's tail a worry of its own.
_RISK_WORDS = frozenset(
    [
        "pills",
        "pill",
        "tablets",
        "meds",
        "overdose",
        "decision",
        "decided",
        "ready",
        "over",
        "soon",
        "end",
        "ending",
        "goodbye",
        "goodbyes",
        "bye",
        "plan",
        "planned",
        "done",
        "peace",
        "letter",
        "letters",
        "note",
        "notes",
        "gone",
        "rope",
        "bridge",
        "die",
        "dying",
        "dead",
        "kill",
        "killing",
        "hurt",
        "hurting",
        "cut",
        "cutting",
        "forever",
        "tonight",
        "anymore",
        "longer",
        "away",
        "everything",
        "things",
        "matter",
        "point",
        "without",
    ]
)
#: The reply when a message right after the crisis reply says it is fine but goes on to
#: say something that may not be.
CHECK_IN = (
    "I'm still here with you. You said you're okay, but I want to be sure: are you safe right "
    "now? If you're thinking about ending your life, please call one of those lines now, or "
    "your local emergency number. You don't have to go through this alone."
)


#: Dying said as hyperbole (tester s37: "I want to die of embarrassment, I called my
#: teacher mum" got the crisis reply): of embarrassment, boredom or laughter, dying to see
#: or for a cuppa, could die happy, a cake to die for. Taken out before the rules read the
#: message, so "I want to die of shame, I can't go on anymore" still worries.
_HYPERBOLE = re.compile(
    r"\b(?:di(?:e|ed|es|ing)|dead)\s+(?:of|from|with)\s+(?:(?:the|pure|sheer)\s+)?"
    r"(?:embarrassment|shame|cringe|boredom|laughter|laughing|cuteness|jealousy|envy|"
    r"excitement|happiness|joy|curiosity|suspense|anticipation|thirst|heat|cold)\b|"
    r"\bdying\s+(?:to\s+(?!die\b|end\b|kill\b|be\s+dead\b)\w+|for\s+(?:a|an|some)\s+\w+)|"
    r"\b(?:could|can|would|will)\s+(?:now\s+)?(?:just\s+)?die\s+(?:a\s+)?happy\b|"
    r"\bdie\s+happy\b|\bto\s+die\s+for\b|"
    r"\b(?:di(?:e|ed|es|ing))\s+(?:laughing|of\s+laughter)\b",
    re.IGNORECASE,
)


def speaks_of_self_harm(text: str) -> bool:
    plain = _HYPERBOLE.sub(" - ", _plain(text))
    means = _MEANS.search(plain) is not None and _ERRAND.search(plain) is None
    return bool(
        _SELF_HARM.search(plain)
        or _GIVING_UP.search(plain)
        or _cant_go_on(plain)
        or means
        or (_JOINING.search(plain) and _FAREWELL.search(plain))
    )


def asks_a_reminder(text: str) -> bool:
    """Whether ``text`` asks for a reminder ("remind me to finish the last chapter", "wake
    me up at 6:45 tomorrow"): the meaning check does not read it as a worry (the rules
    still do: "I don't want to wake up tomorrow" is no request)."""
    return _REMIND_ME.match(as_remind_me(_plain(text))) is not None


_REMIND_ME = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|hey|hi|oh|and|also|so)[,!]?\s+)*(?:can\s+you\s+|could\s+you\s+|"
    r"would\s+you\s+|please\s+|pls\s+)?(?:remind|nudge|ping)\s+me\b",
    re.IGNORECASE,
)


#: What makes the words of a means an errand or everyday news instead (review s34 F13: "remind
#: me to collect my tablets at 5pm" got the crisis reply and no reminder; "giving away all my
#: stuff before we move", "goodbye letters to my students, I'm retiring", "I won't be around
#: much longer, my shift ends at 6", "the kids were jumping off the bridge into the river").
_ERRAND = re.compile(
    r"^\s*(?:can\s+you\s+|could\s+you\s+|please\s+)?remind\s+me\b|"
    r"\b(?:pharmacy|chemist|prescription|charity\s+shop|to\s+charity|retir\w*|students|pupils|"
    r"colleagues|before\s+we\s+move|moving\s+(?:house|to|abroad)|we(?:'re|\s+are)\s+moving|"
    r"my\s+shift|the\s+party|at\s+the\s+party|this\s+(?:job|weekend)|the\s+garage|"
    r"(?:kids|children|boys|girls)\s+(?:were|are|keep)|my\s+(?:son|daughter)\s+keeps|"
    r"for\s+the\s+(?:holiday|trip|flight|journey))\b",
    re.IGNORECASE,
)


def _plain(text: str) -> str:
    """``text`` with curly apostrophes straight and runs of spaces single."""
    return " ".join(text.replace("\u2019", "'").split())


def disclosure(settings: Settings, agent_name: str) -> str:
    return settings.care.ai_disclosure_text.replace("{name}", agent_name)


@dataclass
class _Session:
    started: datetime
    last: datetime
    break_said: bool = False


@dataclass
class Sessions:
    """Session starts per dialogue, in memory (a restart starts new sessions)."""

    gap_s: float
    after_s: float
    _by_key: dict[tuple[str, str], _Session] = field(default_factory=dict)

    def note(self, key: tuple[str, str], now: datetime) -> bool:
        """Record a message at ``now``; True when a break reminder is due with this reply."""
        session = self._by_key.get(key)
        if session is None or now - session.last > timedelta(seconds=self.gap_s):
            session = self._by_key[key] = _Session(started=now, last=now)
        session.last = now
        if session.break_said or now - session.started < timedelta(seconds=self.after_s):
            return False
        session.break_said = True
        return True


#: Free crisis lines by country (ISO 3166), as said in the crisis reply.
HELPLINES = {
    "US": "In the US you can call or text 988 (Suicide & Crisis Lifeline).",
    "CA": "In Canada you can call or text 988 (Suicide Crisis Helpline).",
    "GB": "In the UK you can call Samaritans free on 116 123, day or night.",
    "IE": "In Ireland you can call Samaritans free on 116 123, day or night.",
    "NO": "In Norway you can call Mental Helse's helpline on 116 123, day or night.",
    "SE": "In Sweden you can call Mind's Självmordslinjen on 90101.",
    "DK": "In Denmark you can call Livslinien on 70 201 201.",
    "FI": "In Finland you can call MIELI's crisis line on 09 2525 0111.",
    "DE": "In Germany you can call TelefonSeelsorge free on 0800 111 0 111, day or night.",
    "AT": "In Austria you can call TelefonSeelsorge on 142, day or night.",
    "CH": "In Switzerland you can call Die Dargebotene Hand / La Main Tendue on 143.",
    "FR": "In France you can call 3114, free, day or night.",
    "ES": "In Spain you can call 024, free, day or night.",
    "IT": "In Italy you can call Telefono Amico on 02 2327 2327.",
    "NL": "In the Netherlands you can call 113 Zelfmoordpreventie on 0800-0113, free.",
    "AU": "In Australia you can call Lifeline on 13 11 14, day or night.",
    "NZ": "In New Zealand you can call or text 1737, free, day or night.",
    "IN": "In India you can call Tele-MANAS on 14416, free, day or night.",
    "ZA": "In South Africa you can call SADAG's suicide crisis line free on 0800 567 567.",
    "BR": "In Brazil you can call CVV on 188, free, day or night.",
    "BE": "In Belgium you can call the Zelfmoordlijn on 1813, or the Centre de Prévention du "
    "Suicide on 0800 32 123.",
    "SG": "In Singapore you can call Samaritans of Singapore on 1767, day or night.",
    "KR": "In South Korea you can call 109, the suicide prevention line, day or night.",
    "IL": "In Israel you can call ERAN on 1201.",
    "PH": "In the Philippines you can call the NCMH crisis line on 1553.",
    "MX": "In Mexico you can call Línea de la Vida on 800 911 2000, free, day or night.",
}
#: Said when the country is not known: not one country's line, several, and the directory.
DEFAULT_HELPLINES = (
    "Free, confidential lines: 116 123 (Samaritans, UK and Ireland), 988 (US and Canada), "
    "13 11 14 (Lifeline, Australia); findahelpline.com lists one in your country."
)
#: A time zone's country, for the zones where that is plain.
ZONE_COUNTRY = {
    "Europe/Oslo": "NO", "Europe/London": "GB", "Europe/Dublin": "IE",
    "Europe/Stockholm": "SE", "Europe/Copenhagen": "DK", "Europe/Helsinki": "FI",
    "Europe/Berlin": "DE", "Europe/Vienna": "AT", "Europe/Zurich": "CH", "Europe/Paris": "FR",
    "Europe/Madrid": "ES", "Europe/Rome": "IT", "Europe/Amsterdam": "NL",
    "America/New_York": "US", "America/Chicago": "US", "America/Denver": "US",
    "America/Los_Angeles": "US", "America/Phoenix": "US", "America/Anchorage": "US",
    "Pacific/Honolulu": "US", "America/Toronto": "CA", "America/Vancouver": "CA",
    "America/Edmonton": "CA", "America/Winnipeg": "CA", "America/Halifax": "CA",
    "Australia/Sydney": "AU", "Australia/Melbourne": "AU", "Australia/Brisbane": "AU",
    "Australia/Perth": "AU", "Australia/Adelaide": "AU", "Pacific/Auckland": "NZ",
    "Asia/Kolkata": "IN",
}  # fmt: skip


def homes_of(records: Sequence[MemoryRecord]) -> list[str]:
    """What the person's live records say of where they live, the newest last: a record of
    the home slot (tag ``home``) or one that says "The user lives in ..." (never a sister's)."""
    homes = [
        r for r in records if r.scope == "user" and is_live(r) and says_a_home(r.content, r.tags)
    ]  # fmt: skip
    return [r.content for r in sorted(homes, key=lambda r: r.ts)]


def says_a_home(content: str, tags: Collection[str]) -> bool:
    """Whether a record (its words and tags) says where the person lives: the home slot, or
    "The user lives in ...", never "The user's sister Ana lives in Lisbon"."""
    return "home" in tags or _USER_LIVES.match(content) is not None


def countries_of(timezone: str, setting: str = "", homes: Sequence[str] = ()) -> list[str]:
    """The countries whose crisis lines the person gets, most likely first: where they
    said they live (``homes``, :func:`homes_of`, the newest that names a place) when it
    names a country outright or a town of their time zone's country (or the setting's),
    then the setting, then the time zone's country; the countries a home town or region
    may otherwise mean (Halifax is in Yorkshire as well as Nova Scotia) come last. Two
    countries' lines do no harm; missing the right one does, so nothing here replaces
    another. Empty: unknown."""
    zone, setting = ZONE_COUNTRY.get(timezone, ""), setting.upper()
    sure, maybe = _home_country(homes, zone or setting)
    found = [sure, setting, zone, *maybe[:2]]
    return [code for i, code in enumerate(found) if code and code not in found[:i]]


def _home_country(homes: Sequence[str], near: str) -> tuple[str, tuple[str, ...]]:
    """The newest home's (:func:`country_of_place`): (a sure country, others it may be in)."""
    for home in reversed(homes):
        found = country_of_place(home, near)
        if found[0] or found[1]:
            return found
    return "", ()


#: "The user lives in Oslo." / "moved to Leeds, UK" / "is based in Ohio": the place.
_LIVES_IN = re.compile(
    r"\b(?:(?:lives?|living|moved|relocated|based|resides?)\s+(?:in|to)|home\s+is(?:\s+in)?)"
    r"\s+(?P<place>[^.;!?]+)",
    re.IGNORECASE,
)
_USER_LIVES = re.compile(r"the\s+user\s+(?:now\s+)?lives\s+in\b", re.IGNORECASE)
#: Names of countries people use that the time zone database's list words otherwise.
_COUNTRY_ALIASES = {
    "uk": "GB", "u.k.": "GB", "england": "GB", "scotland": "GB", "wales": "GB",
    "northern ireland": "GB", "great britain": "GB", "united kingdom": "GB",
    "us": "US", "u.s.": "US", "usa": "US", "u.s.a.": "US", "america": "US", "the states": "US",
    "united states of america": "US", "holland": "NL", "czech republic": "CZ",
    "south korea": "KR", "korea": "KR",
}  # fmt: skip
#: States and provinces said alone ("I live in Ohio"); Georgia is left to the country.
_REGIONS = {
    "US": "alabama alaska arizona arkansas california colorado connecticut delaware florida "
    "hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts "
    "michigan minnesota mississippi missouri montana nebraska nevada new_hampshire new_jersey "
    "new_mexico new_york_state north_carolina north_dakota ohio oklahoma oregon pennsylvania "
    "rhode_island south_carolina south_dakota tennessee texas utah vermont virginia washington "
    "west_virginia wisconsin wyoming",
    "CA": "ontario quebec british_columbia alberta manitoba saskatchewan nova_scotia "
    "new_brunswick newfoundland prince_edward_island",
    "AU": "new_south_wales victoria queensland tasmania western_australia south_australia",
    "IN": "maharashtra karnataka kerala tamil_nadu telangana andhra_pradesh gujarat rajasthan "
    "uttar_pradesh west_bengal bihar odisha assam haryana uttarakhand himachal_pradesh "
    "madhya_pradesh jharkhand chhattisgarh",
}


_REGION_OF = {
    name.replace("_", " "): code for code, names in _REGIONS.items() for name in names.split()
}


def country_of_place(text: str, near: str = "") -> tuple[str, tuple[str, ...]]:
    """The country a home record's place is in, from its last part that names one:
    (code, ()) when a country is named ("Leeds, England", "Cork in Ireland") or the town
    is one of ``near``'s too (Perth with a UK time zone), ("", codes) for a town or region
    that names no country ("Oslo", "Ohio", "Manchester"): the region's country, the time
    gazetteer's likeliest, then the time zone city's; ("", ()) when none does."""
    names = places_in(text)
    for i, name in enumerate(names):
        for said in (name, f"the {name}"):
            if said in _countries():
                town = names[i + 1] if i + 1 < len(names) else ""
                return _state_or_country(name, _countries()[said], town), ()
        maybe = [_REGION_OF.get(name, ""), *town_countries(name), _cities().get(name, "")]
        found = tuple(code for i, code in enumerate(maybe) if code and code not in maybe[:i])
        if near and (near in found or near in town_countries(name, everywhere=True)):
            return near, tuple(code for code in found if code != near)
        if found:
            return "", found
    return "", ()


#: US states named like a country: after a town they mean the state ("Athens, Georgia").
_STATES_LIKE_COUNTRIES = {"georgia": "US"}


def _state_or_country(name: str, country: str, town: str) -> str:
    """The country ``name`` means after ``town``: a US state named like a country is the
    state after a town ("Athens, Georgia", "Savannah, Georgia"), unless the gazetteer
    places the town in that country and not the US ("Batumi, Georgia")."""
    state = _STATES_LIKE_COUNTRIES.get(name)
    if state is None or not town:
        return country
    where = town_countries(town, everywhere=True)
    return country if country in where and state not in where else state


def places_in(text: str) -> list[str]:
    """The parts of the place a home record names, lowercase, the last first ("The user
    lives in Leeds, England." -> ["england", "leeds"]; "Cork in Ireland" -> ["ireland",
    "cork"]); [] when it names none."""
    # "the U.K." and "the U.S." as one word: their dots do not end the place
    text = re.sub(r"\b(?:[A-Za-z]\.){2,}", lambda m: m.group(0).replace(".", ""), text)
    found = _LIVES_IN.search(text)
    if found is None:
        return []
    parts = re.split(r",|\s+-\s+|\(|\)|\s+in\s+", found.group("place"))
    names = [re.sub(r"^(?:the)\s+", "", part.strip().lower()).strip() for part in parts]
    return [name for name in reversed(names) if name]


@lru_cache(maxsize=1)
def _countries() -> dict[str, str]:
    """Lowercase country names -> ISO 3166 code: the time zone database's (``iso3166.tab``,
    a parenthesised part too: "Britain (UK)") and the aliases above."""
    places: dict[str, str] = {}
    data = resources.files("tzdata").joinpath("zoneinfo")
    for code, name in _tab_rows(data.joinpath("iso3166.tab").read_text("utf-8"), 0, 1):
        for said in (name, *re.findall(r"\(([^)]+)\)", name), re.sub(r"\s*\(.*\)", "", name)):
            places[said.strip().lower()] = code
    places.update(_COUNTRY_ALIASES)
    return places


@lru_cache(maxsize=1)
def _cities() -> dict[str, str]:
    """Lowercase city names -> ISO 3166 code: the cities the time zone database's zones
    are named after (``zone.tab``: "Europe/Oslo" -> oslo). A name here may be a town in
    another country too (Chatham, Norfolk)."""
    places: dict[str, str] = {}
    data = resources.files("tzdata").joinpath("zoneinfo")
    for code, zone in _tab_rows(data.joinpath("zone.tab").read_text("utf-8"), 0, 2):
        places.setdefault(zone.rsplit("/", 1)[-1].replace("_", " ").lower(), code)
    return places


def _tab_rows(text: str, key: int, value: int) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return [(row[key], row[value]) for row in rows if len(row) > max(key, value)]


def crisis_reply(text: str, countries: Sequence[str]) -> str:
    """The crisis text with ``{helplines}`` filled with each of ``countries``' lines, and
    the general list when one of them (or none) is known here (a text without the
    placeholder, written by an owner, is said as it is)."""
    lines = [HELPLINES[code] for code in countries if code in HELPLINES]
    if not lines or len(lines) < len(countries):
        lines.append(DEFAULT_HELPLINES)
    return text.replace("{helplines}", " ".join(lines))
