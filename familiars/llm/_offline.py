"""The offline responder: with no language model configured the bot still answers, with what
it recalled and a plain statement that no model is configured.

Also the text helpers offline answers are made of (no model, no invented text):

- :func:`second_person` turns a stored record ("The user has a dog called Biscuit.") into
  what the bot says to the person ("Your dog is called Biscuit.");
- :func:`relevance` scores how much a recalled line is about a question (shared words, with
  question words mapped to the words records use: "where" meets "lives", "when" meets dates);
- :func:`is_question` says whether a message asks something.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from typing import Any

from familiars.llm._base import ChatMessage, ChatModel, ChatResult
from familiars.llm._text_caches import text_cache

OFFLINE_NOTICE = (
    "(Offline mode: no language model is configured, so I can only tell you what I remember.)"
)
_RECALL_HEADER = re.compile(r"(recall|remember|memor)", re.IGNORECASE)

# --------------------------------------------------------------------------- second person

#: "The user has a dog called Biscuit." -> "Your dog is called Biscuit."
_HAS_NAMED = re.compile(
    r"^The user has (?:an? |one |(?P<many>two |three |four |five |six |\d+ ))?(?P<what>[\w' -]+?) "
    r"(?:called|named) "
    r"(?P<name>[^,.]+)(?P<rest>.*)$",
    re.IGNORECASE,
)
_REMIND = re.compile(r"^Remind the user to (?P<task>.+)$", re.IGNORECASE)
_SUBJECT = re.compile(r"^The user(?P<own>'s)?\b\s*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
#: Verbs as they follow "The user", and how they read after "You".
_VERB_BASE = {
    "is": "are",
    "was": "were",
    "has": "have",
    "does": "do",
    "doesn't": "don't",
    "goes": "go",
    "isn't": "aren't",
    "wasn't": "weren't",
    "hasn't": "haven't",
}
_PRONOUNS = {
    "their": "your",
    "theirs": "yours",
    "them": "you",
    "themselves": "yourself",
    "they": "you",
    "they're": "you're",
}
_WORD = re.compile(r"[A-Za-z']+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split(" "))


_ADVERBS = _words(
    "no longer now also still often usually never always sometimes really actually just "
    "truly rarely mostly generally definitely absolutely seriously"
)


def _base_verb(verb: str) -> str:
    low = verb.lower()
    if low in _VERB_BASE:
        return _VERB_BASE[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return low


def _swap_pronouns(text: str) -> str:
    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        new = _PRONOUNS.get(word.lower())
        if new is None:
            return word
        return new.capitalize() if word[0].isupper() else new

    return _WORD.sub(swap, text)


_USER_INSIDE = re.compile(r"\bthe user(?P<own>'s)?\b", re.IGNORECASE)


def _user_inside(text: str) -> str:
    """ "Loud neighbors put the user on edge." -> "Loud neighbors put you on edge."."""
    if not _USER_INSIDE.search(text):
        return text
    said = _swap_pronouns(text)
    return _USER_INSIDE.sub(lambda m: "your" if m.group("own") else "you", said)


#: Nouns whose plural is not made with -s or -es.
_IRREGULAR = {
    "child": "children",
    "person": "people",
    "man": "men",
    "woman": "women",
    "foot": "feet",
    "tooth": "teeth",
    "mouse": "mice",
    "goose": "geese",
    "sheep": "sheep",
    "fish": "fish",
    "deer": "deer",
    "ox": "oxen",
}
#: Nouns in -f or -fe whose plural is -ves ("chief", "roof" keep -s).
_VES = _words("wife life knife wolf half calf leaf self shelf elf thief loaf")
_PLURALS = frozenset(_IRREGULAR.values()) - frozenset(_IRREGULAR)


def plural(noun: str) -> str:
    """The plural of an English noun: "wife" -> "wives", "child" -> "children", "niece" ->
    "nieces", "boss" -> "bosses", "nanny" -> "nannies"; the last word of a phrase
    ("step-sister", "twin girl") is the one made plural."""
    head, sep, last = noun.rpartition(" ")
    low = last.lower()
    if low in _IRREGULAR:
        made = _IRREGULAR[low]
    elif low in _VES:
        made = low[:-2] + "ves" if low.endswith("fe") else low[:-1] + "ves"
    elif low.endswith(("s", "x", "z", "ch", "sh")):
        made = low + "es"
    elif low.endswith("y") and low[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        made = low[:-1] + "ies"
    else:
        made = low + "s"
    if last[:1].isupper():
        made = made[:1].upper() + made[1:]
    return f"{head}{sep}{made}"


def is_plural(noun: str) -> bool:
    """Whether a noun (a phrase's last word) is plural: "girls", "twins", "children", "wives";
    "boss", "bus", "Iris" and "class" are not."""
    low = noun.rsplit(" ", 1)[-1].lower()
    if low in _PLURALS:
        return True
    if low in _IRREGULAR or not low.endswith("s") or len(low) < 3:
        return False
    return not low.endswith(("ss", "us", "is", "ous"))


#: A pet or a person the record keeps as gone: "The user no longer has their dog Biscuit
#: (it died)." (the offline writer's words for a death).
_DIED = re.compile(r"^The user no longer has their (?P<what>.+?) \(it died\)\.?$")


def second_person(text: str) -> str:
    """A third-person record as said to the person; other text comes back as it is."""
    text = text.strip()
    if (died := _DIED.match(text)) is not None:  # said kindly, not "(it died)" (tester s37)
        return f"Your {died.group('what')} has died."
    named = _HAS_NAMED.match(text)
    if named:
        rest = _swap_pronouns(named.group("rest").rstrip(". "))
        many = named.group("many") or is_plural(named.group("what"))
        verb = "are" if many else "is"  # "Your kids are called Arjun and Maya.", "twin girls"
        return f"Your {named.group('what')} {verb} called {named.group('name').strip()}{rest}."
    remind = _REMIND.match(text)
    if remind:
        return f"I'll remind you to {_swap_pronouns(remind.group('task'))}"
    m = _SUBJECT.match(text)
    if not m:
        return _user_inside(text)
    rest = m.group("rest")
    if m.group("own"):
        return "Your " + _swap_pronouns(rest)
    words = rest.split(" ")
    i = 0
    while i < len(words) - 1 and words[i].lower() in _ADVERBS:
        i += 1
    if words and words[i]:
        words[i] = _base_verb(words[i])
    return "You " + _swap_pronouns(" ".join(words))


# --------------------------------------------------------------------------- relevance

_STOP = _words(
    "a an the i me my mine you your yours is are was were be been am do does did what whats "
    "what's who whom whose which when where why how of to in on at for with and or it its "
    "that this these those there their they them user users's s tell about know remember "
    "please can could would will should any some have has had"
)
#: Words that only name a slot ("what's my dog's name": the dog matters more).
_WEAK = frozenset({"name", "called", "named", "like", "love"})
#: Question words and the words records use for the same thing.
_ASKS = {
    "where": ("lives", "live", "home", "moved", "from", "works", "city", "in"),
    "when": (
        "birthday",
        "born",
        "date",
        "on",
        "at",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ),
    "who": ("name", "called", "named", "sister", "brother", "husband", "wife", "partner"),
    "job": ("works", "work", "job", "nurse", "teacher", "engineer"),
    "work": ("works", "job"),
    "live": ("lives", "home", "moved"),
    "name": ("called", "named", "name"),
    "called": ("name", "named", "called"),
    "old": ("age", "born", "birthday"),
    "like": ("likes", "loves", "enjoys", "favourite", "favorite", "prefers"),
    "love": ("likes", "loves", "enjoys"),
    "favourite": ("favourite", "favorite", "likes", "loves"),
    "favorite": ("favourite", "favorite", "likes", "loves"),
    "eat": ("food", "vegetarian", "vegan", "allergic", "likes"),
    "allergic": ("allergic", "allergy"),
    "remind": ("remind",),
    "reminders": ("remind",),
}


@text_cache
@functools.lru_cache(maxsize=16384)  # an offline answer stems the same words every turn
def _stem(word: str) -> str:
    word = word.lower().strip("'")
    if word.endswith("'s"):
        word = word[:-2]
    if word.endswith("ies") and len(word) > 5:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text) if w.lower() not in _STOP and len(w) > 1}


#: Words a record may use for what a question names more generally.
_KINDS = {
    "dog": ("retriever", "labrador", "terrier", "poodle", "puppy", "spaniel", "collie", "pup"),
    "cat": ("kitten", "tabby"),
    "pet": ("dog", "cat", "retriever", "labrador", "terrier", "puppy", "kitten", "hamster"),
    "job": ("nurse", "teacher", "engineer", "developer", "doctor", "works"),
    "food": ("vegetarian", "vegan", "allergic", "spicy"),
}


def relevance(question: str, text: str) -> float:
    """How much ``text`` is about ``question``: shared content words count 1, words a
    question word stands for ("where" -> "lives") count 0.6. When the question names a thing
    ("my dog's name") the text must name it too (or a kind of it: "retriever"), else 0."""
    asked, asks = _asked(question)
    said = _said(text)
    for word, kinds in _KIND_SETS:  # in order: "tabby" names a cat, and so a pet
        if word in asked and word not in said and said & kinds:
            said = said | {word}
    strong = asked - _WEAK
    if strong and not strong & said:
        return 0.0
    shared = asked & said
    score = len(shared - _WEAK) + 0.4 * len(shared & _WEAK)
    for means in asks:
        if said & means:
            score += 0.6
    return score


# The offline answer scores every record of the person each turn: a text's words and a
# question's parts are worked out once, not once per record per turn.
_KIND_SETS = tuple((word, frozenset(kinds)) for word, kinds in _KINDS.items())


@text_cache
@functools.lru_cache(maxsize=256)
def relevance_words(question: str) -> frozenset[str] | None:
    """The stemmed words (:func:`said_words`) one of which a text must say for
    :func:`relevance` to give it more than 0; None when any text may score (the question
    names nothing strong: "who am I?"). The question's strong words, and every word that
    stands for one of them ("tabby" for "cat", and so for "pet"), so an index of texts by
    their words finds every text that can score without scoring the rest."""
    strong = set(_asked(question)[0] - _WEAK)
    if not strong:
        return None
    grown = True
    while grown:
        before = len(strong)
        for word, kinds in _KIND_SETS:
            if word in strong:
                strong |= kinds
        grown = len(strong) != before
    return frozenset(strong)


def said_words(text: str) -> frozenset[str]:
    """The stemmed words of ``text`` as :func:`relevance` reads them."""
    return _said(text)


@text_cache
@functools.lru_cache(maxsize=65536)
def _said(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _WORD.findall(text))


@text_cache
@functools.lru_cache(maxsize=256)
def _asked(question: str) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """The question's content words, and the stemmed meanings of its question words."""
    low = {w.lower() for w in _WORD.findall(question)}
    asks = tuple(frozenset(_stem(m) for m in means) for word, means in _ASKS.items() if word in low)
    return frozenset(content_words(question)), asks


_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|where|where's|wheres|when|when's|whens|who|who's|whos|whom|whose|which|"
    r"why|how|hows|"
    r"do|does|did|am|is|are|was|were|can|could|would|will|should|have|has|tell me (?:about|what"
    r"|who|where|when|everything|all|anything)|(?:summari[sz]e|recap|list)\s+(?:what|everything"
    r"|all)|remind me what|do you (?:know|remember))\b(?!['’]t\b)",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    stripped = text.strip()
    return stripped.endswith("?") or bool(_QUESTION_START.match(stripped))


# --------------------------------------------------------------------------- the responder


def recalled_lines(messages: Sequence[ChatMessage]) -> list[str]:
    """Bullet lines (``- ...``) under a system-prompt heading that mentions recall/memory."""
    found: list[str] = []
    for message in messages:
        if message.role != "system":
            continue
        inside = False
        for line in message.content.splitlines():
            stripped = line.strip()
            if not stripped:
                inside = False
            elif stripped.startswith(("- ", "* ")):
                if inside:  # quoted data has its &, < and > escaped (bot._untrusted)
                    found.append(html.unescape(stripped[2:].strip()))
            else:
                inside = bool(_RECALL_HEADER.search(stripped))
    return found


class OfflineResponder(ChatModel):
    """A ChatModel with no model: the recalled lines of a prompt, most relevant first. The
    bot's own turns use :mod:`familiars.bot._answers`, which knows more of the turn."""

    name = "offline"
    model = "offline"

    def __init__(self, *, max_items: int = 5) -> None:
        super().__init__()
        self.max_items = max_items

    def respond(self, text: str, recalled: Sequence[str]) -> str:
        items = [r.strip() for r in recalled if r and r.strip()]
        ranked = sorted(items, key=lambda r: -relevance(text, r))[: self.max_items]
        if not ranked:
            return f"I hear you, and I'll keep what I can. {OFFLINE_NOTICE}"
        lines = [OFFLINE_NOTICE, "Here is what I remember that may be relevant:"]
        lines += [f"- {item}" for item in ranked]
        return "\n".join(lines)

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:
        user = next((m.content for m in reversed(messages) if m.role == "user"), "")
        return ChatResult(
            text=self.respond(user, recalled_lines(messages)), provider=self.name, model=self.model
        )
