"""Offline replies that answer: built from what the turn did and what recall found, with no
language model and no invented text.

Map (:func:`offline_reply`, in this order):

1. what the turn did (:mod:`._action_lines`): "Okay, I'll remind you to stretch on Tue 1 Dec
   09:27.", "When should I remind you to water the plants?", "Updated: you live in Seattle
   now (was Portland).", "Noted: you like hiking." ("Forgotten: ..." is said by the forget
   itself, before a turn);
2. a question: the best recalled record for *that* question, said to the person ("Your dog
   is called Biscuit."), then at most two more relevant lines; nothing relevant: "I don't
   know that yet"; several questions in one message (``asked``, see :mod:`._questions`):
   each answered so in turn, one nothing answers named ("I don't know that yet: what's
   your dog called?");
3. small talk (greetings, thanks, jokes asked for): one short fixed line;
4. anything else, where nothing was kept: a short reply that claims nothing was kept
   (:func:`nothing_kept`: a smile back for emoji alone, "Oh? Tell me more." for news about
   someone else, "I see. Tell me more?" otherwise); never a false "Got it.".

In a group the speaker's private (user-scope) memories are never quoted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from familiars.bot._about_you import about_you
from familiars.bot._action_lines import (
    _lower_first,
    action_lines,
)
from familiars.bot._care import (
    AFTER_CARE,
    CHECK_IN,
    speaks_of_self_harm,
    takes_back_unsure,
    walked_back,
)
from familiars.bot._care_talk import safe_reply, says_safe
from familiars.bot._kin import kin_answer
from familiars.bot._likes import likes_answer
from familiars.bot._low_mood import LOW_MOOD
from familiars.bot._missing import missing_someone
from familiars.bot._questions import Asked, as_asked, not_known, spelled_out
from familiars.bot._turn_actions import TurnActions
from familiars.llm import (
    OFFLINE_NOTICE,
    is_question,
    relevance,
    relevance_words,
    said_words,
    second_person,
    text_cache,
)
from familiars.memory import kin_not_kept, looks_english, whose_asked

MAX_EXTRA_LINES = 2
#: "who am I?" meets "The user's name is Ali." through the question word alone (0.6).
MIN_RELEVANCE = 0.6


class Item(Protocol):
    kind: str
    text: str
    score: float
    private: bool
    #: Not written by the asker: another person's message or a record of a tainted turn.
    foreign: bool


#: Fond words before whose loss it is ("my old dog", "my dear nan").
_FOND = r"(?:(?:old|dear|beloved|little|lovely|late|sweet|best|big|baby)\s+)?"
#: Whose loss is a bereavement ("my phone died" is not one).
_DEAR = (
    r"(?:mum|mom|mother|dad|father|parents?|grand(?:ma|pa|mother|father|mum|dad|parents?)|"
    r"nan|nana|nanna|gran|granny|grandad|brother|sister|son|daughter|baby|child|wife|husband|"
    r"partner|friend|best\s+friend|uncle|aunt|auntie|cousin|niece|nephew|boyfriend|"
    r"girlfriend|fianc[eé]e?|dog|cat|pet|puppy|kitten|horse|rabbit|hamster)"
)

#: Big news, offline too (tester T26: a grandmother's death, a new job and an exam tomorrow
#: all got "I see. Tell me more?"): met first, and before what a turn noted.
_BIG_NEWS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reply)
    for pattern, reply in (
        # A loss first: of a person or a pet.
        (
            # the relation right before what happened ("my dad's phone died" is no loss)
            rf"\bmy\s+{_FOND}{_DEAR}(?:\s+\w+)?\s+(?:has\s+|had\s+)?(?:died|passed\s+(?:away|on)|"
            r"passed(?=\s*(?:[.!?,;]|$))|didn'?t\s+make\s+it|was\s+put\s+(?:down|to\s+sleep))\b"
            rf"|\b(?:lost|losing)\s+my\s+{_FOND}{_DEAR}\b(?!'s)(?!.*\bfound\b)"
            rf"|\b(?:that|when|how)\s+(?:my\s+)?{_DEAR}\s+(?:had\s+|has\s+)?(?:died|passed\s+away)\b"
            # a pet put to sleep, by its name: "we had to put Toby down last month"
            rf"|\b(?:had|have|having)\s+to\s+(?:have\s+)?(?:put|let)\s+(?:(?:my|our)\s+{_DEAR}|"
            r"(?-i:[A-Z][\w'-]*))\s+(?:down|to\s+sleep)\b"
            r"|\b(?:funeral|bereavement|miscarriage)\b"
            # one named, passed away: "Mr Darcy passed away this morning"
            r"|(?-i:\b[A-Z][\w'-]+)\s+(?:has\s+|had\s+)?passed\s+away\b",
            "I'm so sorry for your loss. I'm here if you want to talk about it.",
        ),
        (  # loneliness, before its cause ("since Harold went into hospital")
            r"\b(?:i'?m|im|i\s+am|feeling|i\s+feel|i'?ve\s+been|been|so)\s+(?:(?:so|really|very|"
            r"terribly|awfully|quite|a\s+bit|a\s+little|rather|that|just)\s+)*(?:lonely|isolated)\b"
            r"|\b(?:feel|feeling)\s+(?:so\s+|very\s+|really\s+|all\s+)*alone\b",
            "I'm sorry you're feeling lonely. I'm here, and I'm glad you're talking to me.",
        ),
        (  # hard news (s34 U58): "my mum Sheila has dementia, she's in a care home now"
            r"\b(?:has|had|got|with|diagnosed\s+with)\s+(?:(?:early|late|bad|terminal|advanced|"
            r"stage\s+\w+)\s+)?(?:dementia|alzheimer'?s|cancer|a\s+(?:\w+\s+)?stroke(?!\s+of\b)|"
            r"parkinson'?s|"
            r"motor\s+neurone\s+disease|a\s+(?:brain\s+)?tumou?r|a\s+heart\s+attack|leuk(?:a)?emia)\b"
            r"|\b(?:went|gone|going|moved|is|'s|was|now|still)\s+(?:in|into)\s+(?:a\s+|the\s+)?"
            r"(?:care\s+home|nursing\s+home|hospice|hospital|intensive\s+care)\b"
            r"|\b(?:taken|rushed|admitted)\s+(?:in)?to\s+(?:the\s+)?(?:hospital|a&e|intensive\s+care)\b"
            r"|\bterminally\s+ill\b",
            "I'm so sorry, that's hard news. I'm here if you want to talk about it.",
        ),
        (
            r"\b(?:i|we)\s+(?:just\s+|finally\s+)?(?:got|landed)\s+(?:the|a|an|my)\s+"
            r"(?:new\s+|dream\s+)?(?:job|promotion|place|scholarship)\b"
            r"(?!\s+(?:offer\s+)?(?:done|rejected|withdrawn|cancell?ed|turned\s+down))"
            r"|\b(?:i|we)\s+(?:just\s+|finally\s+)?(?:passed|aced|nailed)\s+(?:the|my|a|an|our)\s+"
            r"(?:\w+\s+)?(?:exam|test|interview|degree)s?\b"
            r"|\b(?:i|we)\s+(?:just\s+|finally\s+)?won\s+(?:the|a|an|our|my)\s+(?:\w+\s+)?"
            r"(?:award|prize|race|match|final|competition|trophy)\b"
            r"|\b(?:i|we)\s+(?:just\s+|finally\s+)?got\s+(?:engaged|married|promoted)\b"
            r"|\b(?:i'?m|we'?re)\s+engaged\b"
            r"|\bgot\s+(?:in(?:to)?|a\s+place\s+at)\s+(?:[A-Z][\w'-]*\s+){0,3}(?:uni|university|college)\b",
            "That's wonderful news, congratulations! 🎉",
        ),
        (  # a parting: "me and priya broke up last night", "my girlfriend dumped me"
            r"\b(?:broke|broken|split)\s+up\b|\bdumped\s+me\b|\bwe(?:'re|\s+are)\s+over\b",
            "I'm sorry, that's hard. I'm here if you want to talk about it.",
        ),
    )
)

#: Good words for a time had ("a lovely afternoon"), and the times and outings they praise.
_GOOD = (
    r"(?:lovely|great|wonderful|brilliant|fantastic|amazing|fun|nice|good|gorgeous|perfect|fab|"
    r"fabulous|beautiful|cosy|cozy|relaxing|magical|special|awesome|excellent|smashing|cracking)"
)
_OCCASION = (
    r"(?:time|day|afternoon|morning|evening|night|weekend|week|holiday|vacation|trip|walk|chat|"
    r"dinner|lunch|breakfast|brunch|meal|party|birthday|visit|catch[-\s]?up|date|outing|run|"
    r"swim|game|match|concert|gig|film|movie|picnic|day\s+out|night\s+out)"
)

GOOD_TIME = "That sounds lovely! I'm glad you had a good time."

#: Feelings met kindly, whatever else the turn did (s34 U19, U24, U58, U86, U89: a hard year,
#: "the evenings are the worst", crying, loneliness and pride all got "Tell me more" or a
#: bare "Noted:").
_FEELINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reply)
    for pattern, reply in (
        (  # tester s37: "morning. feeling a bit better today" got "Oh? Tell me more."
            r"^(?!.*(?:\b(?:not|never|no|any|dont|cant|wont|isnt)|n't)\b.*\bbetter\b)"
            r".*\b(?:feeling|feel|i'?m|im|doing)\s+"
            r"(?:(?:a\s+(?:bit|little|lot|tad)|much|loads|lots|so\s+much|way|somewhat|slightly|heaps|"
            r"quite\s+a\s+bit)\s+)?better\b",
            "I'm really glad you're feeling better. Thank you for letting me know.",
        ),
        (
            r"\b(?:it'?s\s+been|been|having|had|going\s+through|what)\s+(?:a|an|such\s+a)\s+"
            r"(?:really\s+|very\s+|so\s+)?(?:hard|tough|difficult|rough|awful|terrible|horrible|"
            r"bad|shit|crap|sad|lonely|grim)\s+(?:day|week|night|month|year|few\s+\w+|"
            r"couple\s+of\s+\w+|time|spell|while)\b"
            r"|\b(?:the\s+)?(?:evenings?|nights?|mornings?|weekends?|sundays?|holidays|anniversar(?:y|ies)|"
            r"first\s+\w+|quiet|silence|mealtimes)\s+(?:are|is)\s+(?:the\s+)?(?:worst|hardest|"
            r"toughest|(?:so\s+|really\s+)?hard)\b"
            r"|\b(?:i'?ve\s+been|i\s+keep|i\s+can'?t\s+stop|i\s+was|i'?m|been|started|burst\s+into)\s+"
            r"(?:\w+\s+)?(?:crying|sobbing|weeping|in\s+tears)\b(?!\s+(?:laughing|with\s+laughter))"
            r"|\bburst(?:ing)?\s+into\s+tears\b"
            r"|\bcried\s+(?:myself\s+to\s+sleep|all\s+(?:day|night|week)|a\s+lot|so\s+much)\b"
            # a late one's things given away (U78: "giving away Joan's things")
            r"|\b(?:giving|gave|given|sorting|sorted|clearing|cleared|going)\s+(?:away|out|through)\s+"
            r"(?:[A-Z][\w-]+'s|his|her|their|my\s+late\s+\w+'s)\s+(?:things|clothes|stuff|belongings)\b"
            rf"|\bi\s+(?:(?:still|just|really|so|do|terribly|badly)\s+)*miss\s+(?:her|him|them|"
            rf"my\s+{_FOND}{_DEAR})\b",
            "I'm sorry, that sounds really hard. I'm here if you want to talk about it.",
        ),
        (
            r"\b(?:i'?m|im|i\s+am|we'?re|we\s+are|so|feeling)\s+(?:(?:so|really|very|incredibly|"
            r"dead|immensely|ever\s+so|just|bursting)\s+)*proud\s+of\s+(?:her|him|them|my|our|[A-Z])",
            "That's lovely, and you've every reason to be proud!",
        ),
        (
            r"\b(?:i'?m|i\s+am|feeling|feel)\s+(?:\w+\s+)?(?:anxious|nervous|worried|scared|"
            r"terrified|panicking|dreading)\b|\b(?:dreading|worried\s+about|nervous\s+about|"
            r"anxious\s+about|scared\s+about)\b",
            "That sounds stressful. I'm here if you want to talk it through.",
        ),
        (
            r"\b(?:killing\s+me|driving\s+me\s+(?:mad|crazy|nuts|up\s+the\s+wall)|doing\s+my\s+head\s+in|"
            r"(?:so|really|totally|completely)\s+(?:tired|exhausted|stressed|fed\s+up|knackered|"
            r"drained|done)|(?:rough|bad|long|awful|terrible|horrible)\s+(?:day|week|night)|"
            r"(?:i'?m|im|i\s+am|feeling|i\s+feel)\s+(?:feeling\s+)?(?:(?:a\s+(?:bit|little)|kind\s+of|"
            r"kinda|pretty|quite|so|really|very|super|rather|proper|right|well|dead|totally)\s+)?(?:down|low|sad|blue|fed\s+up|stressed|"
            r"exhausted|lonely|miserable|rubbish|crap|meh|upset|gutted))\b|^ugh+\b",
            "That sounds rough. I'm here if you want to talk about it.",
        ),
    )
) + (LOW_MOOD,)  # low mood said in other words, last: the rows above keep theirs

_SMALL_TALK: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reply)
    for pattern, reply in (
        (
            r"\b(?:joke|poem|story|song|riddle|fun fact)\b",
            "I can't make those up without a "
            "language model, sorry. I can keep track of what you tell me, though.",
        ),
        (
            r"\b(?:are|r)\s+(?:you|u)\s+(?:a\s+|an\s+)?(?:real\s+)?(?:person|human|bot|robot|ai|"
            r"machine|alive|real|program|programme|computer|chatbot|software)\b|"
            r"\b(?:talking|speaking)\s+to\s+a\s+(?:real\s+)?(?:human|person|bot)|"
            # asked as a statement with its alternative: "You are a robot or a person?"
            r"^(?:you|u)\s+(?:(?:are|r)\s+)?(?:an?\s+)?(?:real\s+)?(?:person|human|bot|robot|ai|machine|"
            r"program|computer)\s+or\b|"
            r"\b(?:do|can)\s+(?:you|u)\s+(?:really\s+)?(?:care|feel|have\s+feelings)\b",
            "I'm an AI, not a person: a companion program running on your own machine. "
            "I'm glad to listen, and I remember what you tell me.",
        ),
        (
            r"\bdid\s+(?:you|u)\s+miss\s+me\b",
            "I don't feel time pass between our chats, but I'm glad you're back!",
        ),
        (
            r"\bi\s+(?:hate|can't\s+stand)\s+(?:you|u)\b|\b(?:you(?:'re|\s+are)|youre|ur|u\s+r|u'?re)\s+"
            r"(?:(?:so|kinda|kind\s+of|pretty|really|totally|completely|such\s+an?|an?|the\s+most|"
            r"bloody|fucking|so\s+so|daft|great|big|silly|total)\s+)*(?:useless|stupid|dumb|thick|annoying|"
            r"rubbish|pointless|daft|"
            r"boring|crap|trash|garbage|idiot|moron|the\s+worst)\b|\b(?:you|u)\s+(?:suck|are\s+no\s+help)\b|"
            r"\b(?:this|the)\s+(?:bot|app|thing)\s+is\s+(?:\w+\s+)?(?:useless|stupid|rubbish|crap|pointless)\b",
            "I'm sorry I let you down. Tell me what went wrong and I'll try to do better.",
        ),
        (
            r"^i\s+love\s+(?:you|u)\b",
            "That's kind of you. I'm an AI, but I'm glad our chats matter to you.",
        ),
        (  # after something heavy was said (tester s37: it got "You're welcome!")
            r"\bsorry\s+(?:for|about)\s+(?:dumping|unloading|offloading|venting|rambling|"
            r"going\s+on|moaning|all\s+(?:that|this)|being\s+(?:so\s+)?(?:a\s+mess|heavy|a\s+downer|"
            r"a\s+burden|negative|dramatic))|\bsorry\s+(?:to|i)\s+(?:dump|dumped|unload|offload|"
            r"vent|burden|went\s+on)",
            "There's no need to apologise. I'm really glad you told me, and I'm here whenever "
            "you want to talk.",
        ),
        (
            r"^(?:thanks|thank you|thx|ty|cheers|ta(?![-\s]?ra\b))\b.*\b(?:last\s+night|yesterday|"
            r"the\s+other\s+(?:day|night))\b",
            "I'm glad I could be there. How are you doing today?",
        ),
        (
            r"^(?:thanks|thank you|thx|ty|cheers|ta(?![-\s]?ra\b))\b.*\b(?:listening|being there|"
            r"hearing me out|the chat|talking)\b",
            "Any time. I'm glad I could listen.",
        ),
        (  # a promise of safety after a care reply (tester s38: it got "You're welcome!")
            r"\b(?:not|never|won'?t)\s+(?:going\s+to\s+|gonna\s+)?(?:do|try)\s+anything\s+"
            r"(?:silly|stupid|daft|rash|drastic|foolish)\b|\bi'?(?:m|\s+am)\s+(?:not\s+going\s+to|"
            r"not\s+gonna)\s+(?:hurt|harm)\s+myself\b|\bi'?(?:m|\s+am)\s+safe\b",
            "I'm really glad to hear that, and thank you for telling me. I'm here whenever you "
            "want to talk, and if it gets heavy again, please reach out to someone you trust.",
        ),
        (r"^(?:thanks|thank you|thx|ty|cheers|ta(?![-\s]?ra\b))\b", "You're welcome!"),
        (
            r"^(?:(?:ok|okay|right|alright|anyway|well)[,!.]?\s+)?(?:bye|goodbye|good\s*night|night|"
            r"nighty?[-\s]night|see you|see ya|later|laters|gotta go|got to go|gtg|g2g|ttyl|"
            r"cheerio|ta[-\s]?ra|ta\s+ta|toodle[-\s]?oo|catch\s+(?:you|ya)|talk\s+(?:to\s+you\s+)?(?:later|soon|"
            r"tomorrow)|(?:i'?m|im|i\s+am)\s+off(?:\s+to\s+bed)?\s*[.!]*$|off\s+to\s+bed|"
            r"(?:i'?m|im)\s+going\s+to\s+bed)\b",
            "Bye for now!",
        ),
        (
            r"\bhow\s+(?:are|r)\s+(?:you|u|ya)\b|\bhow's\s+it\s+going\b|\bhow are things\b|"
            r"\bhow's\s+your\s+day\b|\b(?:you|u)\s+(?:good|ok|okay|alright)\s*\?|^(?:sup|wassup|what's\s+up)\b",
            "I'm here and ready to listen. How are you?",
        ),
        (
            r"^(?:hi+|hello+|hey+|hiya|heya|yo|howdy|good (?:morning|afternoon|evening))\b",
            "Hello{name}!",
        ),
        (
            # a look-up asked for, not a complaint about the weather ("this weather is
            # killing me" is a feeling, answered below)
            r"^(?:what|what's|whats|how's|hows|how\s+is|will|is\s+it\s+going\s+to|any|tell\s+me|"
            r"check|give\s+me|can\s+you\s+(?:check|tell))\b.*\b(?:weather|forecast|news|"
            r"headlines|rain|snow)\b|^(?:weather|forecast|news)\s*\??$",
            "I can't look things up: no language model or internet is "
            "set up for me. I can tell you what you've told me.",
        ),
    )
)
#: Said after the feelings: a blush, a good time had.
_WARM_TIMES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reply)
    for pattern, reply in (
        (  # embarrassment, said in the words that sound like harm and are not
            r"\b(?:die|died|dying)\s+of\s+(?:embarrassment|shame|cringe)\b|\bmortified\b|"
            r"\b(?:so|really|totally|very)\s+embarrass(?:ed|ing)\b|\bwant(?:ed)?\s+the\s+ground\s+to\s+"
            r"swallow\s+me\b",
            "Oh no, how mortifying! These things feel huge at the time. Want to tell me about it?",
        ),
        (  # a good time told: "i had a lovely afternoon with Oliver, we made scones"
            r"\b(?:i|we|i'?ve|we'?ve|i'?m|we'?re)\s+(?:just\s+)?(?:had|spent|been\s+having|having)"
            r"\s+(?:a|an|such\s+a|the\s+(?:most|best)|the\s+loveliest)\s+(?:really\s+|very\s+|so\s+)?"
            rf"{_GOOD}\s+(?:\w+\s+)?{_OCCASION}\b"
            rf"|^what\s+a\s+{_GOOD}\s+{_OCCASION}\b"
            r"|\b(?:i|we)\s+(?:really\s+|totally\s+)?(?:loved|enjoyed)\s+(?:it|that|every\s+minute)\b",
            GOOD_TIME,
        ),
    )
)
_NAME = re.compile(r"^The user's name is (?P<name>[^.]+)\.?$")
DONT_KNOW = "I don't know that yet. If you tell me, I'll remember it."
_LEADING = re.compile(r"^\([^)]*\)\s*")
_SPEAKER = re.compile(r"^\((?P<who>[^,)]*),")


def offline_reply(
    text: str,
    *,
    actions: TurnActions,
    items: Sequence[Item],
    is_group: bool,
    name: str = "",
    meant: Sequence[str] = (),
    unknown: bool = False,
    now: datetime | None = None,
    last_reply: str = "",
    familiar: str = "",
    kept: Sequence[str] = (),
    on_now: str | None = None,
    after_care: bool = False,
    asked: Sequence[Asked] = (),
) -> str:
    """The reply (see the module map); ``kept``: the person's live records, so that missing
    someone they told of is met by name (:func:`missing_someone`) and a relative asked about
    is never answered with another (:func:`kin_not_kept`); ``on_now``: the answer to "anything
    on this week?" (:func:`~familiars.bot._window.on_in_span`); ``meant``: the records a question
    asks about, found by meaning, which answer it before the word-overlap rules; ``now``
    (in the person's time zone) answers "what's the date?", ``last_reply`` "what did you
    just say?", ``familiar`` (the familiar's own name) "who are you?"; ``after_care``: the
    last reply was the crisis reply, so "jk im fine" is met warmly, the door left open;
    ``asked``: the questions of a message that asks several, each with what answers it."""
    lines = action_lines(actions)
    if after_care and says_safe(text):  # "I'm safe tonight, my sister's coming over"
        return "\n".join([safe_reply(text), *lines])
    if after_care and walked_back(text):  # "I'm not doing anything daft, I just miss her"
        missing = missing_someone(text, kept) or kind_word(text)
        return "\n".join([AFTER_CARE, *([missing] if missing else []), *lines])
    if after_care and takes_back_unsure(text):
        return "\n".join([CHECK_IN, *lines])
    usable = [it for it in items if not (is_group and it.private)]
    if lines:  # big news is met before what was noted ("my nan passed away" and a name)
        news = None if any(ln.startswith("I'm so sorry about") for ln in lines) else kind_word(text)
        return "\n".join([news, *lines] if news else lines)
    if (greeted := _GREETED.match(text)) and is_question(rest := text[greeted.end() :]):
        lines.append(f"Hello{f', {name}' if name else ''}!")  # "hi, who am I?": asked too
        text = rest
    chat = on_now or missing_someone(text, kept) or about_you(text, familiar)
    chat = chat or small_talk(text, name)
    chat = chat or about_now(text, now) or said_before(text, last_reply)
    if chat is not None:
        lines.append(chat)
    elif len(asked) > 1:
        for one in asked:
            said = _answer(one.text, usable, kept, one.meant, one.unknown)
            lines += [not_known(one.text)] if said == [DONT_KNOW] else said
    else:
        lines += _answer(text, usable, kept, meant, unknown)
    return "\n".join(dict.fromkeys(lines))  # F4: a line said once, however it was found


def _answer(
    text: str, usable: Sequence[Item], kept: Sequence[str], meant: Sequence[str], unknown: bool
) -> list[str]:
    """The lines that answer one question (or a relative's or a like's answer)."""
    if (named := kin_answer(text, kept) or likes_answer(text, kept)) is not None:
        return [named]  # "what are my boys called?", "do I like running?"
    asked = as_asked(text)
    if not is_question(asked):
        return [nothing_kept(text)]
    if (kin := kin_not_kept(asked, kept)) is not None:
        return [_not_known_kin(*kin)]
    if meant:
        said = [second_person(m) for m in meant if favourite_fits(asked, m)]
        return said or [DONT_KNOW]
    if unknown:
        return [DONT_KNOW]
    lines = [line for line in answer_lines(asked, usable) if favourite_fits(asked, line)]
    return _not_about_it(asked, lines) or [DONT_KNOW]


_FAVOURITE = re.compile(r"\bfavou?rite\s+(?P<kind>[a-z]+)", re.IGNORECASE)
#: Kinds of favourite said in other words.
_SAME_KIND = (
    frozenset({"film", "movie", "flick"}), frozenset({"colour", "color"}),
    frozenset({"food", "dish", "meal"}), frozenset({"song", "tune", "track"}),
    frozenset({"band", "group", "singer", "artist", "musician"}),
    frozenset({"book", "novel", "read"}), frozenset({"show", "series", "programme", "program"}),
    frozenset({"drink", "tipple"}), frozenset({"sport", "game"}),
)  # fmt: skip


#: Words after "favourite" that name no kind of thing ("my favourite thing", "my favourite
#: of all", "my favourite ever"): such a question is about every favourite.
_NO_KIND = frozenset([
    "thing", "things", "stuff", "one", "ones", "something", "anything", "everything", "kind",
    "sort", "type", "item", "pick", "choice", "of", "in", "is", "was", "ever", "at", "to",
    "for", "and", "or", "the", "a", "an", "my", "your",
])  # fmt: skip


def favourite_fits(question: str, answer: str) -> bool:
    """Whether ``answer`` may answer ``question`` as far as a favourite goes: "what's my
    favourite band?" is never answered by "your favourite film is Alien" (tester s37); a
    question or answer that names no kind of favourite fits ("what's my favourite thing?")."""
    asked, said = _FAVOURITE.search(question), _FAVOURITE.search(answer)
    if asked is None or said is None or {asked["kind"].lower(), said["kind"].lower()} & _NO_KIND:
        return True
    kinds = {asked["kind"].lower(), said["kind"].lower()}
    return len(kinds) == 1 or any(kinds <= same for same in _SAME_KIND)


_CAPITALISED = re.compile(r"(?<!^)\b(?!I\b)[A-Z][a-z]+\b")


def _not_about_it(question: str, lines: list[str]) -> list[str]:
    """``lines`` as they are, unless the question names someone and asks a kind of thing
    ("what's Sanjay's job?": a job, a teacher, a nurse...) that the best line, found by the
    name alone, says nothing of ("your brother Sanjay lives in Glasgow"): then it is said as
    what is known, after the plain "I don't know" (tester s37: a wrong fact was said)."""
    names = _CAPITALISED.findall(question.strip())
    if not lines or not names or lines[0].startswith(("I don't know", "I have no note")):
        return lines
    wanted = relevance_words(question) or frozenset()
    named = {n.lower() for n in names}
    kinds = wanted - said_words(question) - named
    if not kinds:
        return lines
    told = {w[:4] for w in said_words(lines[0])}
    if {w[:4] for w in wanted - named} & told:
        return lines
    return [f"I don't know that about {names[0]} yet. You told me: {_lower_first(lines[0])}"]


#: A greeting before what the message goes on to say: "hi, who am I?".
_GREETED = re.compile(
    r"^\s*(?:hi+|hello+|hey+|hiya|heya|yo|howdy|good\s+(?:morning|afternoon|evening))"
    r"(?:\s+there)?[,!.\s]+(?=\w)",
    re.I,
)
_LETTER = re.compile(r"[^\W\d_]")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|i'd|me|my|mine|we|our|us)\b", re.I)
_OTHERS_OWN = re.compile(r"\b(?:my|our)\s+[\w-]+(?:'s|s')\s", re.I)


ENGLISH_ONLY = (
    "Sorry, without a language model I only understand English, so I didn't take that in."
)
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")


def not_english(text: str) -> bool:
    """Whether a message is plainly not English: most of its letters in another script
    ("我住在北京"), or Latin text with more foreign function words than English ones
    (``looks_english``); an English message with a foreign name in it is English."""
    letters = _LETTER.findall(text)
    latin = len(_LATIN.findall(text))
    if latin * 2 < len(letters):
        return True
    distinct = {w.lower() for w in re.findall(r"[^\W\d_]+", text)}
    return latin == len(letters) and len(distinct) >= 3 and not looks_english(text)


def _not_known_kin(asked: str, near: Sequence[tuple[str, str]]) -> str:
    """ "I don't know of a son; you told me about your grandson Oliver." """
    told = " and ".join(f"your {rel} {name}" for rel, name in near)
    article = "an" if asked[0] in "aeiou" else "a"
    return f"I don't know of {article} {asked}; you told me about {told}."


def nothing_kept(text: str) -> str:
    """The reply to a message the turn kept nothing of: it says nothing was noted (no "Got
    it."): a smile for emoji or marks alone, curiosity for news about someone else ("my
    neighbour's parrot screams all day"), else an invitation to say more."""
    if not _LETTER.search(text):
        return "🙂"
    if not_english(text):  # tester T32: "Mi perro se llama Toby." got "Oh? Tell me more."
        return ENGLISH_ONLY
    if _OTHERS_OWN.search(text) or not _FIRST_PERSON.search(text):
        return "Oh? Tell me more."
    return "I see. Tell me more?"


def with_notice(reply: str) -> str:
    return f"{reply}\n{OFFLINE_NOTICE}"


def answer_lines(question: str, items: Sequence[Item]) -> list[str]:
    """The best record for the question first, said to the person; then up to two more."""
    unique: dict[str, Item] = {}
    for it in items:
        unique.setdefault(it.text, it)
    own = " ".join(t for t in unique if _NAME.match(t))
    whose = whose_asked(question, own)  # F8: never another's fact (or own)
    bare = [(_bare(it.text), it) for it in unique.values()]
    scored = [(relevance(question, text), it) for text, it in bare if whose.fits(text)]
    scored = [(r, it) for r, it in scored if r >= MIN_RELEVANCE]
    records = sorted(
        ((r, it) for r, it in scored if it.kind == "record"), key=lambda p: (-p[0], -p[1].score)
    )
    if records:
        best = records[0][0]
        picked = [it for r, it in records if r >= best * 0.75][: 1 + MAX_EXTRA_LINES]
        return [second_person(it.text) for it in picked]
    # A message that spoke of self-harm is never quoted back as an answer (s33 U1).
    nodes = sorted(
        (p for p in scored if p[1].kind == "node" and not speaks_of_self_harm(p[1].text)),
        key=lambda p: (-p[0], -p[1].score),
    )
    if nodes:
        node = nodes[0][1]
        quote = _quote(question, _bare(node.text))
        return [f"I have no note of that, but {_who_said(node)} said: " + quote]
    return [DONT_KNOW]


def may_answer(question: str, texts: Sequence[str]) -> list[int]:
    """The positions, in order, of the ``texts`` that :func:`answer_lines` may find relevant
    to ``question`` (any other scores 0): found through an index of the texts' words, kept
    while the texts are the same (a person's records change far less often than they ask),
    so a question is not scored against every record the person has; all of them when the
    question names nothing a text must say ("who am I?")."""
    return answerable(question, _words_index(tuple(texts)), len(texts))


def answerable(question: str, index: dict[str, tuple[int, ...]], count: int) -> list[int]:
    """:func:`may_answer` through ``index`` (:func:`words_index` of ``count`` texts)."""
    wanted = relevance_words(question)
    if wanted is None:
        return list(range(count))
    return sorted({i for word in wanted for i in index.get(word, ())})


def words_index(texts: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Each word (as relevance reads it) -> the positions of the texts that say it."""
    index: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        for word in said_words(_bare(text)):
            index.setdefault(word, []).append(i)
    return {word: tuple(at) for word, at in index.items()}


_words_index = text_cache(functools.lru_cache(maxsize=16)(words_index))


#: The longest quote of a recalled message: a long one is quoted by its sentence that answers.
MAX_QUOTE_CHARS = 300
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _quote(question: str, text: str) -> str:
    """``text`` when short; else its sentence most about ``question`` (the first of equals),
    cut at a word with "…" when that alone is too long."""
    text = text.strip()
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    best = max(sentences, key=lambda s: relevance(question, s), default=text).strip()
    if len(best) <= MAX_QUOTE_CHARS:
        return best
    cut = best[: MAX_QUOTE_CHARS - 1]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(" ,;:-") + "…"


def _who_said(node: Item) -> str:
    """Who said a recalled turn, as the asker hears it: "you" for their own message, "I" for
    the familiar's reply (its lead reads "(you, ...)", as the model is told), else the name
    its lead gives (someone else's message in a group)."""
    lead = _SPEAKER.match(node.text)
    who = lead.group("who").strip() if lead else ""
    if node.foreign:
        return who if who and who not in ("you", "they") else "someone"
    return "I" if who == "you" else "you"


_DATE = re.compile(
    r"\b(?:what(?:'?s|\s+is)?\s+(?:the\s+)?(?:date|day)|what\s+day\s+is\s+it|"
    r"what(?:'?s|\s+is)?\s+today'?s?\s+date|(?:what|which)\s+day\s+is\s+(?:it\s+)?today)\b",
    re.I,
)
_TIME = re.compile(r"\bwhat(?:'?s|\s+is)?\s+(?:the\s+)?time\b|\bwhat\s+time\s+is\s+it\b", re.I)
_AGAIN = re.compile(
    r"\bwhat\s+did\s+(?:you|u)\s+(?:just\s+)?say\b|\b(?:say|repeat)\s+(?:that|it)\s+again\b|"
    r"^(?:(?:sorry|pardon|huh|eh|wait)[,!.\s]*)?(?:come\s+again|what|what\s+was\s+that)\s*[?!.]*$",
    re.I,
)
#: Words that colour a message and say nothing of what it asks: "are you *actually* a
#: person", "*be honest*, do you care", "*man*, thanks", "*ugh* you're *honestly* useless"
#: (s35 U20): dropped before small talk and the clock are read.
_HEDGE = re.compile(
    r"\b(?:actually|honestly|really|just|literally|seriously|truly|genuinely|kinda|even|"
    r"tbh|to\s+be\s+honest|be\s+honest|if\s+i'?m\s+honest)\b[,]?\s*",
    re.I,
)
_INTERJECTION = re.compile(
    r"^(?:(?:man|dude|bro|mate|ugh+|argh+|oh|ah|well|ok(?:ay)?|so|lol|haha\w*|hmm+|um+|"
    r"welp|right|anyway)\b[,!.]*\s+)+",
    re.I,
)


def plainly(text: str) -> str:
    """``text`` without its hedges and its opening interjections, runs of spaces single."""
    said = _INTERJECTION.sub("", " ".join(text.replace("\u2019", "'").split()))
    return " ".join(_HEDGE.sub("", said).split()) or said


def about_now(text: str, now: datetime | None) -> str | None:
    """ "What's the date?", "what time is it?" from the clock, in the person's time zone."""
    if now is None:
        return None
    text = plainly(text)
    if _DATE.search(text):
        return f"It's {now.strftime('%A')} {now.day} {now.strftime('%B %Y')}."
    if _TIME.search(text):
        return f"It's {now.strftime('%H:%M')} ({now.tzname() or 'UTC'})."
    return None


def said_before(text: str, last_reply: str) -> str | None:
    """ "What did you just say?": the last reply again."""
    if not _AGAIN.search(plainly(spelled_out(text))):
        return None
    if not last_reply:
        return "I haven't said anything yet in this chat."
    return f'I said: "{last_reply.strip()}"'


def big_news(text: str) -> str | None:
    """The reply to a loss or to good news in ``text``, whatever else it says."""
    said = text.strip()
    return next((reply for pattern, reply in _BIG_NEWS if pattern.search(said)), None)


def kind_word(text: str) -> str | None:
    """Big news, else a feeling, met before what a turn noted ("I'm so sorry, ..." then
    "Noted: your mum Sheila has dementia")."""
    said = text.strip()
    return big_news(said) or next((r for p, r in _FEELINGS if p.search(said)), None)


def small_talk(text: str, name: str = "") -> str | None:
    if (news := big_news(text)) is not None:
        return news
    plain, said = plainly(text), spelled_out(text.strip())
    for pattern, reply in (*_SMALL_TALK, *_FEELINGS, *_WARM_TIMES):
        if reply == GOOD_TIME and _HARD_NEWS.search(text):
            continue  # "a lovely walk, then I got the call that ..." (review s34 F18)
        if (
            pattern.search(text.strip())
            or pattern.search(said)
            or (pattern, reply) in _SMALL_TALK
            and pattern.search(plain)
        ):
            return reply.replace("{name}", f", {name}" if name else "")
    return None


#: Words of hard news: a good time told with them is not met with "That sounds lovely!".
_HARD_NEWS = re.compile(
    r"\b(?:died|dying|passed\s+away|cancer|tumou?r|hospital|ambulance|accident|crash|"
    r"diagnos\w*|funeral|sick|ill|bad\s+news|awful|terrible|horrible|worst|scared|frightened|"
    r"lost|fired|sacked|redundant|broke\s+up|dumped|the\s+call)\b",
    re.IGNORECASE,
)


def name_of(contents: Sequence[str]) -> str:
    """The person's name from the first record that holds it ("" when none does)."""
    for content in contents:
        name = _name_in(content)
        if name is not None:
            return name
    return ""


# Every turn reads all of the person's records (a thousand and more) for their name, and
# most hold none: each text is read once, not once a turn.
@text_cache
@functools.lru_cache(maxsize=65536)
def _name_in(content: str) -> str | None:
    m = _NAME.match(content.strip())
    return m.group("name").strip() if m else None


def _bare(text: str) -> str:
    """A recalled node's text without its "(alice, 01 Dec 2026)" lead."""
    return _LEADING.sub("", text)
