"""The answer to "what are my boys called?", "who are my sisters?", "whos my gf": the names of
the person's own relations of the kind asked, every one of them, from their relations kept.

Offline, "what are my boys called?" with twin sons and a daughter kept was answered with the
daughter (the nearest record by meaning), and "whos my gf" got filler: a plural kin word
("boys", "kids", "sisters") or a slang one ("gf", "hubby", "missus") was not read as the
relation it names. Here the word asked is mapped to the relations it covers (kids: sons,
daughters, children; gf: girlfriend) and every kept relation of those kinds is named. Only a
question about names is answered so ("what does my sister do?" is not one).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.llm import plural
from familiars.memory import own_edges, relation_of

_CHILDREN = frozenset({"son", "daughter", "child", "baby", "twin"})
_PARENTS = frozenset({"mother", "father", "stepmother", "stepfather"})
_SIBLINGS = frozenset({"sister", "brother", "stepsister", "stepbrother", "twin"})
_GRANDCHILDREN = frozenset({"grandson", "granddaughter"})
#: Words for several kinds at once, or another word's plural.
_GROUPS: dict[str, frozenset[str]] = {
    "boys": frozenset({"son"}),
    "lads": frozenset({"son"}),
    "girls": frozenset({"daughter"}),
    "kids": _CHILDREN,
    "kiddos": _CHILDREN,
    "children": _CHILDREN,
    "twins": _CHILDREN,
    "parents": _PARENTS,
    "folks": _PARENTS,
    "siblings": _SIBLINGS,
    "grandkids": _GRANDCHILDREN,
    "grandchildren": _GRANDCHILDREN,
    "grandparents": frozenset({"grandmother", "grandfather"}),
}
#: The people relations a name question may ask about (pets are answered elsewhere).
_PEOPLE = frozenset(
    {
        "mother", "father", "sister", "brother", "son", "daughter", "wife", "husband",
        "partner", "spouse", "girlfriend", "boyfriend", "fiance", "grandmother", "grandfather",
        "aunt", "uncle", "cousin", "niece", "nephew", "child", "baby", "grandson",
        "granddaughter", "stepmother", "stepfather", "stepsister", "stepbrother", "twin",
        "friend", "boss", "colleague", "neighbour", "flatmate", "landlord", "teacher", "mentor",
        "therapist", "doctor", "coach",
    }
)  # fmt: skip
#: The relations that are family: every people relation but these.
_FAMILY = _PEOPLE - frozenset(
    {"friend", "boss", "colleague", "neighbour", "flatmate", "landlord", "teacher", "mentor",
     "therapist", "doctor", "coach"}
)  # fmt: skip
#: Words for the whole family: answered with every relative kept, by name.
_WHOLE_FAMILY = ("family", "relatives", "relations", "rellies", "loved ones", "kin", "kinfolk")
_GROUPS.update(dict.fromkeys(_WHOLE_FAMILY, _FAMILY))
_PARTNERS = frozenset({"wife", "husband", "partner", "spouse"})
#: Anyone the person is with: "who am I married to?", "who's my other half?".
_COUPLE = frozenset({*_PARTNERS, "girlfriend", "boyfriend", "fiance"})
_WITH = re.compile(
    r"^(?:(?:so|and|hey|um+|ok(?:ay)?|sorry|remind\s+me)[,!]?\s+)*(?:"
    r"who\s+(?:am\s+i|i'?m|im)\s+(?:married|engaged|hitched|with|dating|seeing|going\s+out\s+with)"
    r"(?:\s+to)?|who(?:'s|s|\s+is)\s+my\s+(?:other|better)\s+half"
    r"|what(?:'s|s|\s+is)\s+my\s+(?:other|better)\s+half(?:'s)?\s+(?:name|called))\s*[?!.]*$",
    re.IGNORECASE,
)
_MODS = r"(?:(?:twin|older|elder|younger|little|big|baby|eldest|youngest|step|best|new)\s+)?"
_WHO = rf"my\s+{_MODS}(?P<{{g}}>[a-z][\w-]*)(?:'s|')?"
_ASKED = re.compile(
    r"^(?:(?:so|and|hey|um+|ok(?:ay)?|sorry|remind\s+me)[,!]?\s+)*(?:"
    rf"who(?:'s|s|\s+is|\s+are|'re|\s+r|\s+was|\s+were)\s+{_WHO.format(g='a')}"
    rf"|what(?:'s|s|\s+is|\s+are|'re|\s+r|\s+was|\s+were)\s+{_WHO.format(g='b')}\s+"
    r"(?:names?|called|named)"
    rf"|what\s+(?:are|is|were|was)\s+(?:the\s+)?names?\s+of\s+{_WHO.format(g='c')}"
    rf"|(?:do\s+you\s+(?:know|remember)|tell\s+me|remind\s+me)\s+(?:what\s+|who\s+)?"
    rf"{_WHO.format(g='d')}(?:\s+(?:names?|(?:is|are)\s+called|(?:is|are)))?"
    # "what do you know about my family?", "tell me about my relatives": the whole family
    r"|(?:what\s+(?:do|did)\s+(?:you|u)\s+(?:know|remember)|what\s+have\s+i\s+told\s+(?:you|u)|"
    r"(?:can\s+you\s+)?tell\s+me)\s+(?:about|of)\s+my\s+(?:whole\s+|own\s+)?"
    rf"(?P<e>{'|'.join(_WHOLE_FAMILY)})"
    rf"|what\s+(?P<f>{'|'.join(_WHOLE_FAMILY)})\s+(?:have\s+i\s+got|do\s+i\s+have)"
    rf"|(?:and\s+)?what\s+about\s+{_WHO.format(g='g')}"
    r")\s*[?!.]*$",
    re.IGNORECASE,
)


def _kinds(word: str) -> tuple[frozenset[str], bool] | None:
    """The relations ``word`` names, and whether it names several people."""
    word = word.lower()
    if word in _GROUPS:
        return _GROUPS[word], True
    rel = relation_of(word)
    if rel in _PEOPLE:
        return (_PARTNERS if rel in _PARTNERS else frozenset({rel})), False
    several = next((r for r in _PEOPLE if plural(r) == word), None)  # "wives", "nieces"
    if several is not None:
        return frozenset({several}), True
    if word.endswith("s") and (rel := relation_of(word[:-1])) in _PEOPLE:
        return frozenset({rel}), True
    return None


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


#: When the question is asked of, which names no one: "who am I seeing *these days*?",
#: "who's my other half *nowadays*?", "who am I *currently* dating?".
_NOWADAYS = re.compile(
    r"[\s,]+(?:these\s+days|nowadays|at\s+the\s+moment|atm|at\s+present|right\s+now|"
    r"currently|now|still|any\s*more|then)(?=[\s?!.]*$)|\b(?:currently|still|now)\s+(?=\w)",
    re.IGNORECASE,
)


def kin_answer(text: str, contents: Sequence[str]) -> str | None:
    """The reply when ``text`` asks the names of the person's relations of one kind, given
    ``contents`` (their live records); None when it asks something else, or asks of one
    relation none of the records names (other answers say what is known near it)."""
    said = _NOWADAYS.sub(" ", " ".join(text.replace("\u2019", "'").split())).strip()
    m = _ASKED.match(said)
    word = m and next((m.group(g) for g in "abcdefg" if m.group(g)), None)
    kinds = _kinds(word) if word else None
    if _WITH.match(said):  # "who am I married to?": anyone the person is with
        word, kinds = "partner", (_COUPLE, True)
    if word is None or kinds is None:
        return None
    wanted, several = kinds
    edges = [e for _, e in own_edges(contents)]
    found = list(dict.fromkeys((e.rel, e.dst) for e in edges if e.rel in wanted))
    if len(found) == 1:
        rel, name = found[0]
        return f"You're married to {name}." if rel == "spouse" else f"Your {rel} is called {name}."
    rels = {rel for rel, _ in found}
    whole = word.lower() in _WHOLE_FAMILY
    if found and (word == "partner" or whole or (len(rels) > 1 and not several)):
        return f"You told me about {_names([f'your {rel} {name}' for rel, name in found])}."
    if found:  # "who are my kids?": sons and daughters are the kids asked
        said = plural(next(iter(rels))) if len(rels) == 1 else word.lower()
        return f"Your {said} are {_names([name for _, name in found])}."
    if not contents or not several or _said_anywhere(word, wanted, contents):
        return None  # nothing kept handed over (a group): the other answers say it
    others = [f"your {e.rel} {e.dst}" for e in edges if e.rel in _PEOPLE][:3]
    told = f"; you told me about {_names(others)}" if others else ""
    if word == "partner":
        return f"I don't know of a partner of yours yet{told}."
    if whole:
        return f"You haven't told me about your {word.lower()} yet{told}."
    return f"I don't know of any {word.lower()} of yours yet{told}."


def _said_anywhere(word: str, wanted: frozenset[str], contents: Sequence[str]) -> bool:
    """Whether a record names the kind asked in words no relation was read from ("The user
    has twin boys.")."""
    words = {word.lower(), *wanted, *(plural(w) for w in wanted)}
    if wanted & _PARTNERS:
        words |= {"married", "engaged"}
    pattern = re.compile(rf"\b(?:{'|'.join(sorted(words))})\b", re.IGNORECASE)
    return any(pattern.search(c) for c in contents)


__all__ = ["kin_answer"]
