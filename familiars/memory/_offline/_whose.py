"""Whose fact a question asks about, and whether a kept sentence is about that one (F8, F13).

"Where does my brother live?" asks about the brother: "The user lives in Leeds." is the
person's own city, never the answer. "When is my birthday?" asks about the person: "The
user's friend Sam has a birthday on May 3." is someone else's. A question that names nobody
("what do you know about me?", "anything new?") fits every sentence, and so does a sentence
about the person that names the one asked about ("The user saw Sam on Friday" answers "when
did I last see Sam?").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from familiars.llm import text_cache
from familiars.memory._people_graph import _REL_BARE, relation_of

_MY_RELATIVE = re.compile(rf"\b(?:my|our)\s+(?:\w+\s+)?(?P<rel>{_REL_BARE})(?:'s)?\b", re.I)
#: A name in a question: capitalised, after its first word.
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b(?-i:[A-Z][a-z]+)(?:'s)?\b")
_NOT_NAMES = frozenset(
    {"I", "Mr", "Mrs", "Ms", "Dr", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
     "Saturday", "Sunday", "January", "February", "March", "April", "May", "June", "July",
     "August", "September", "October", "November", "December"}
)  # fmt: skip
#: Questions about the person and everyone around them: every sentence fits.
_EVERYONE = re.compile(
    r"\babout\s+(?:me|myself|us)\b|\b(?:family|friends|relatives|people|everyone|kids|children)\b",
    re.I,
)
_MY = re.compile(r"\bmy\s+(?:own\s+)?(\w+)", re.I)
#: What "my ..." may ask of the person's own (anything else may be someone: "my fella").
_OWN_WORDS = frozenset(
    {"name", "names", "birthday", "bday", "job", "work", "address", "home", "age", "phone",
     "email", "number", "favourite", "favorite", "allergy", "allergies", "diet", "plan",
     "plans", "hobby", "hobbies"}
)  # fmt: skip
_I = re.compile(r"\b(?:i|i'm|im|i've|i'd)\b", re.I)
#: A word for several relatives: "my kid" may be a son or a daughter.
KIN = {
    "child": {"son", "daughter", "child", "kid", "kids", "baby", "boy", "girl"},
    "kid": {"son", "daughter", "child", "kid", "kids", "baby", "boy", "girl"},
    "kids": {"son", "daughter", "child", "kid", "kids"},
    "parent": {"mother", "father", "parent"},
    "parents": {"mother", "father", "parent"},
    "partner": {"husband", "wife", "partner", "spouse", "boyfriend", "girlfriend", "fiance"},
    "spouse": {"husband", "wife", "partner", "spouse"},
    "sibling": {"brother", "sister", "sibling"},
}
#: What kind of pet a breed or a young one is: "what's my dog's name?" is answered by "a
#: beagle called Rufus" (s32 T1), "my kitten" by "a tabby called Tig".
_DOGS = (
    "puppy pup pups puppies retriever labrador lab beagle poodle spaniel terrier collie husky "
    "corgi dachshund sausage pug bulldog greyhound whippet shepherd schnauzer labradoodle "
    "cockapoo cavapoo lurcher westie springer pointer setter boxer rottweiler doberman staffie "
    "staffy mastiff chihuahua pomeranian dalmatian malamute akita sheepdog"
)
_CATS = "kitten kitty tabby siamese persian ragdoll bengal moggy moggie tomcat coon sphynx burmese"
_PET_KIND = {**dict.fromkeys(_DOGS.split(), "dog"), **dict.fromkeys(_CATS.split(), "cat")}
#: A sentence about someone else: kept ("The user's brother ...", "Sam has ...") or as said
#: ("my friend Sam's birthday is ...").
_KEPT_OTHER = re.compile(
    rf"^(?:(?:the\s+user's|my|our)\s+(?:\w+\s+)?{_REL_BARE}\b"
    r"|(?!The\b|I\b|My\b)(?-i:[A-Z][a-z]+)\b)",
    re.I,
)


def _asked_others(question: str) -> set[str]:
    """The relatives ("brother", and "son" and "daughter" for "kid") and names ("sam")
    ``question`` asks about, lower case."""
    found: set[str] = set()
    for m in _MY_RELATIVE.finditer(question):
        rel = relation_of(m.group("rel"))
        found |= KIN.get(rel, {rel})
    found |= {m.group(0).removesuffix("'s").lower() for m in _NAME.finditer(question.strip())}
    return {w for w in found if w.title() not in _NOT_NAMES}


def _asks_of_self(question: str) -> bool:
    """Whether ``question`` asks of the person's own ("when is my birthday?", "where do I
    live?"), nobody else's."""
    if _EVERYONE.search(question):
        return False
    mine = [w.lower() for w in _MY.findall(question)]
    if any(w not in _OWN_WORDS for w in mine):
        return False
    return bool(mine) or _I.search(question) is not None


def fits_whose(question: str, content: str, own: str = "") -> bool:
    """Whether the kept sentence ``content`` may answer ``question`` by whose it is: a
    question about someone else is answered only by a sentence that names them (by name or
    relation), one about the person's own never by a sentence about someone else. ``own``:
    the person's own name records (their name is not someone else's: "what does Mia do?")."""
    return whose_asked(question, own).fits(content)


@dataclass(frozen=True)
class Whose:
    """Whose fact a question asks about (:func:`whose_asked`): ``asked``, the others it
    names (relatives, names, and the kind of pet a breed is), or, when it names nobody, the
    person's own (``of_self``) or anyone's (neither)."""

    asked: frozenset[str]
    of_self: bool

    def fits(self, content: str) -> bool:
        """:func:`fits_whose` for this question: the question is read once, each sentence
        once (an offline answer asks this of hundreds of the person's records a turn)."""
        if self.asked:
            return bool(self.asked & _named_in(content))
        return not self.of_self or not about_someone_else(content)


@text_cache
@functools.lru_cache(maxsize=256)
def whose_asked(question: str, own: str = "") -> Whose:
    """Whose fact ``question`` asks about (see :func:`fits_whose`)."""
    own_words = set(re.findall(r"[a-z]+", own.lower()))
    others = _asked_others(question) - own_words
    if others:
        asked = others | {_PET_KIND[w] for w in others if w in _PET_KIND}
        return Whose(frozenset(asked), of_self=False)
    return Whose(frozenset(), of_self=_asks_of_self(question))


@text_cache
@functools.lru_cache(maxsize=65536)
def _named_in(content: str) -> frozenset[str]:
    """Whom ``content`` may name: its words, the kinds of pet and the relations they say."""
    words = set(re.findall(r"[a-z]+", content.strip().lower()))
    kinds = {_PET_KIND[w] for w in words if w in _PET_KIND}
    return frozenset(words | kinds | {relation_of(w) for w in words})


@text_cache
@functools.lru_cache(maxsize=65536)
def about_someone_else(content: str) -> bool:
    """Whether the kept sentence ``content`` is about someone other than the person
    ("The user's brother lives in Hull.", "Sam has a birthday on May 3.")."""
    return _KEPT_OTHER.match(content.strip()) is not None
