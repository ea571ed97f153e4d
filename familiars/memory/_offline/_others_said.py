"""What a message says that is not the speaker's own fact, read by the shape of the words.

- Reported speech: "my dad always says 'I'm a simple man, I like my tea strong'" quotes him,
  even when the quote holds an apostrophe that ends the plain quote reader's span; "as my nan
  used to say, I'm a lady who lunches" applies a saying, and states nothing.
- A clause whose subject is someone else: a pronoun ("she is working as accountant"), a
  relative named with "our" ("our Chloe's at uni in Nottingham"), someone outside the family
  ("Priya from work has a ragdoll cat", "my colleague Sandra has ... a husband called
  Keith"). Understanding by meaning reads a clause's slot without its subject, so what it
  finds there is checked here (:func:`owned_by_meaning`).
- A hedge after a value ("I'm a dental nurse really"): no part of the value.
- A dictated run-on ("I don't eat meat anymore I've been vegetarian since June"): a new "I"
  after a word that ends a saying starts a new sentence.
"""

from __future__ import annotations

import re

from familiars.memory._offline._objects import FAMILY, Fact, _words

#: A reporting verb and the quote it opens; the quote runs to a closing mark that is no
#: apostrophe inside a word ("I'm"), or to the end of the sentence.
_QUOTE_OPENED = re.compile(
    r"\b(?:says?|said|goes|went|asks?|asked|tells?\s+me|told\s+me|used\s+to\s+say|would\s+say|"
    r"always\s+says?)\s*[,:]?\s*(?P<q>['\"“‘])",
    re.I,
)
_CLOSING = {"'": r"'(?!\w)", '"': r'"', "“": r"”", "‘": r"['’](?!\w)"}
#: "as my nan used to say, ...", "as they say, ...": a saying applied, to the sentence's end.
_AS_THEY_SAY = re.compile(
    r"(?:^|(?<=[.!?]\s))as\s+(?:[\w']+\s+){0,3}?(?:says?|said|put\s+it|would\s+say|"
    r"used\s+to\s+say)\s*,[^.!?\n]*[.!?]?",
    re.I,
)


def reported_cut(text: str) -> str:
    """``text`` without the words it reports others saying."""
    text = _AS_THEY_SAY.sub("", text)
    out, start = [], 0
    for m in _QUOTE_OPENED.finditer(text):
        if m.start() < start:
            continue
        close = re.compile(_CLOSING[m.group("q")]).search(text, m.end())
        end = close.end() if close else len(text)
        out.append(text[start : m.end() - 1])
        start = end
    out.append(text[start:])
    return "".join(out)


#: A word that ends a saying, then a new "I" with its verb: a sentence break not typed.
_RUN_ON = re.compile(
    r"(?<=\w\s)(?P<end>anymore|lately|again|too|there|lol|haha)\s+(?=(?-i:I)(?:'m|'ve|\s+am\b|"
    r"\s+have\b|\s+was\b|\s+work\b|\s+live\b|\s+love\b|\s+like\b|\s+hate\b))",
    re.I,
)


#: In a long message typed with no mark at all (dictated), any "I" with its verb after a
#: word that does not lead into it starts a new saying.
_DICTATED_I = re.compile(
    r"(?<=\w)\s+(?=(?-i:I)(?:'m|'ve|\s+(?:am|have|was|work|live|love|like|hate|had|got)\b))"
    # "the only food I like is pasta": a clause that is the subject of what follows
    r"(?!I\s+\w+\s+(?:is|are|was|were)\b)"
)
_LEADS_IN = frozenset(
    _words(
        "and but so then because cause cos coz that when if as since while where what which",
        "who how than or before after until till though although think know guess hope said",
        "mean reckon suppose wish feel thought knew bet sure why whether me",
    )
)
_MIN_DICTATED_WORDS = 12


def run_on_cut(text: str) -> str:
    """``text`` with a sentence break where a dictated run-on starts a new saying."""
    text = _RUN_ON.sub(lambda m: f"{m.group('end')}. ", text)
    if re.search(r"[,.;:!?]", text) or len(text.split()) < _MIN_DICTATED_WORDS:
        return text

    def cut(m: re.Match[str]) -> str:
        before = text[: m.start()].split()[-1].lower()
        return m.group(0) if before in _LEADS_IN else ". "

    return _DICTATED_I.sub(cut, text)


#: Said after a value, telling nothing of it: "a dental nurse really", "a plumber mostly".
_HEDGE = re.compile(
    r"(?:[\s,]+(?-i:really|basically|mostly|mainly|essentially|technically|i\s+guess|"
    r"I\s+guess|i\s+suppose|I\s+suppose|i\s+think|I\s+think|more\s+or\s+less|sort\s+of|"
    r"kind\s+of|there))+[.!]*$"
)


def hedge_cut(clause: str) -> str:
    """``clause`` without a hedge after its last word."""
    return _HEDGE.sub("", clause)


_PRONOUN = re.compile(r"^(?:he|she|they|his|her|their)(?:'s|'re|\s)", re.I)
#: "my wife is from Ukraine, she ...": a relative as the subject, not "my wife and I".
_KIN_SUBJECT = re.compile(
    rf"^(?i:my|our)\s+(?:\w+\s+)?(?i:{'|'.join(sorted(FAMILY))})(?:'s)?\s+(?!(?:and|&)\s+(?:I|me)\b)"
    r"(?i:is|was|has|'s|works|lives|loves|likes|hates)\b"
)
#: A clause with no subject of its own, going on with the clause before: "a husband called
#: Keith" after "my colleague Sandra has three cats".
_GOES_ON = re.compile(r"^(?i:a|an|the|and|two|three|four|\d+)\s")
#: "our Chloe's at uni": a relative named with "our" or "my" and no word for who they are.
_OUR_NAMED = re.compile(r"^(?i:our|my)\s+[A-Z][a-z]+(?:'s\b|\s+(?i:is|has|was|works|lives)\b)")
#: Someone outside the family as the subject: "my colleague Sandra", "the bloke next door",
#: "Priya from work", "Jade at the salon".
_OUTSIDER = re.compile(
    r"^(?:(?i:my|our)\s+(?:\w+\s+)?(?i:friend|mate|bestie|colleague|coworker|co-worker|boss|"
    r"manager|neighbour|neighbor|landlord|landlady|flatmate|housemate|roommate|teacher|doctor)s?"
    r"|(?i:the)\s+(?:\w+\s+)?(?i:bloke|guy|man|woman|lady|girl|lad|fella|chap)"
    r"|[A-Z][a-z]+\s+(?i:from|at)\s+(?:(?i:the|my|our|his|her)\s+)?[\w-]+(?:\s+[\w-]+)?\s+"
    r"(?i:has|had|is|was|works|lives|keeps|owns|got|just)\b)",
)
_OWN_CATEGORIES = ("profile", "preference")


def owned_by_meaning(clause: str, facts: list[Fact], before: str = "") -> list[Fact]:
    """``facts`` read by meaning from ``clause``, less what is not the speaker's: nothing
    when someone outside the family is the subject (also of ``before``, the clause this one
    goes on with), and no profile or liking of the speaker's when a relative or a pronoun
    is."""
    said = clause.strip()
    facts = [_value_mended(f) for f in facts]
    if _OUTSIDER.match(said) or (_GOES_ON.match(said) and _OUTSIDER.match(before.strip())):
        return []
    if _PRONOUN.match(said) or _OUR_NAMED.match(said) or _KIN_SUBJECT.match(said):
        return [f for f in facts if f.category not in _OWN_CATEGORIES]
    return facts


#: A value that starts with a preposition: "The user works at in Hospital."
_DOUBLED = re.compile(r"^The user (?P<v>works at|lives in) (?i:in|at|on)\s+")


def _value_mended(fact: Fact) -> Fact:
    """``fact`` without a preposition said twice ("works at at Google's London campus")."""
    content = _DOUBLED.sub(lambda m: f"The user {m.group('v')} ", fact.content)
    return fact if content == fact.content else Fact(**{**fact.__dict__, "content": content})
