"""A message said again in plain words before the rules read it.

- Texting spellings: "wrk", "alergic", "gf", "bf", "r", "ppl", "thats", "her names mia".
- Likings said by idiom: "not really a football person", "more of a cat person", "not a big
  coffee drinker", "never cared for musicals", "could eat curry every day", "I do so enjoy
  a game of chess" read as the plain "I like" / "I don't like" they mean.
"""

from __future__ import annotations

import re

from familiars.memory._offline._lists import listed
from familiars.memory._offline._others_said import reported_cut, run_on_cut

#: Texting spellings, each a whole word in lower case, and the word they stand for.
_SPELLED = {
    "wrk": "work",
    "wrks": "works",
    "wrking": "working",
    "alergic": "allergic",
    "alergy": "allergy",
    "alergies": "allergies",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "r": "are",
    "ppl": "people",
    "thats": "that's",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "skl": "school",
    "bc": "because",
    "coz": "because",
    "cuz": "because",
    "luv": "love",
    "fav": "favourite",
    "wanna": "want to",
}
_SPELLING = re.compile(rf"(?<![\w'-])(?:{'|'.join(_SPELLED)})(?![\w'-])")
#: "her names mia", "his names Tank": the "is" lost its apostrophe after a pronoun's "name".
_NAMES_IS = re.compile(r"\b(?P<p>her|his|their)\s+names\s+(?=\w)", re.I)

#: Words said before what one tells, telling nothing: "I must confess I ...", "I'm afraid I
#: ...", "deadass hate maths", "ong im obsessed".
_OPENER = re.compile(
    r"(?:^|(?<=[.!?;]\s)|(?<=\n))(?:(?:I\s+must\s+(?:confess|say|admit)|I\s+have\s+to\s+"
    r"(?:say|admit)|I'm\s+afraid|I\s+am\s+afraid|I\s+confess|I\s+admit)(?:\s+that)?,?\s+"
    r"(?=(?:I|my|we)\b)|(?i:deadass|ong|frfr|fr|istg|bruh|no\s+cap|smh|tbf)[,!.]?\s+)"
)
_IDIOMS = (
    # "I'm gluten intolerant so ...", "I cannot tolerate shellfish": an intolerance
    # "am a retired headteacher": the "I" a texter leaves out
    (
        re.compile(
            r"(?:^|(?<=[.!?]\s)|(?<=\n))(?-i:[Aa]m)\s+(?=(?:a|an|now|retired|semi-retired|"
            r"currently|still|from|based|living|working)\b)"
        ),
        "I am ",
    ),
    # "im 16 n i wrk": "n" for "and", also before a capital
    (re.compile(r"(?<=\w)\s+(?-i:n)\s+(?=\w)"), " and "),
    # "shellfish of any description", "coffee at all": said for weight, no part of the thing
    (re.compile(r"\s+(?:of\s+any\s+(?:kind|sort|description)|at\s+all|whatsoever)\b", re.I), ""),
    # "I'm gluten intolerant so no pasta for me": what follows is what it means, said apart
    (re.compile(r"\s+so\s+(?=(?:no|can't|cannot|don't|never|wouldn't)\s)", re.I), ". So "),
    (re.compile(r"\bI\s+(?:cannot|can't|can\s+not)\s+tolerate\b", re.I), "I'm intolerant to"),
    # "not really a football person", "not much of a beach person": a dislike
    (
        re.compile(
            r"\b(?:(?:I'm|I\s+am|im)\s+)?not\s+(?:really\s+|much\s+of\s+|that\s+much\s+of\s+|"
            r"a\s+big\s+|the\s+biggest\s+|a\s+huge\s+|exactly\s+a\s+)?(?:an?\s+)?"
            r"(?P<x>(?!an?\s|the\s)[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:person|drinker|eater)\b",
            re.I,
        ),
        r"I don't like \g<x>",
    ),
    # "I'm more of a cat person", "a real dog person"
    (
        re.compile(
            r"\b(?:I'm|I\s+am|im)\s+(?:more\s+of\s+|very\s+much\s+|definitely\s+|really\s+)?"
            r"(?:a\s+|an\s+)(?:real\s+|total\s+|big\s+)?(?P<x>(?!morning\b|night\b|people\b)"
            r"[a-z][\w-]*)\s+person\b",
            re.I,
        ),
        r"I like \g<x>",
    ),
    # "never cared for musicals", "I have never much cared for X"
    (
        re.compile(
            r"\b(?:I\s+(?:have\s+|'ve\s+)?)?never\s+(?:really\s+|much\s+)?cared\s+(?:much\s+)?for\b",
            re.I,
        ),
        "I don't like",
    ),
    # "I could eat curry every day"
    (
        re.compile(
            r"\bI\s+could\s+(?P<v>eat|drink|live\s+on)\s+(?P<x>[\w -]+?)\s+"
            r"(?:every\s+(?:single\s+)?day(?:\s+of\s+the\s+week)?|all\s+day|forever)\b",
            re.I,
        ),
        r"I love \g<x>",
    ),
    # "I do so enjoy a good game of chess": the emphatic "do" and what one enjoys
    (re.compile(r"\bI\s+do\s+(?:so\s+|really\s+|very\s+much\s+)?(?=enjoy|love|like)", re.I), "I "),
)


_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9}  # fmt: skip
#: "I am seventy-eight", "aged forty": an age from twenty up said in words, as a formal
#: writer says it (other numbers in words stay as said: "after forty years as a driver").
_NUMBER_WORDS = re.compile(
    rf"\b(?P<pre>(?:I'm|I\s+am|aged)\s+)(?P<t>{'|'.join(_TENS)})"
    rf"(?:[- ](?P<u>{'|'.join(_UNITS)}))?\b",
    re.I,
)
#: "I am seventy-eight years of age": an age said formally.
_OF_AGE = re.compile(r"\b(?P<n>\d{1,3})\s+years\s+of\s+age\b", re.I)


def _in_figures(text: str) -> str:
    def figures(m: re.Match[str]) -> str:
        unit = _UNITS[m.group("u").lower()] if m.group("u") else 0
        return m.group("pre") + str(_TENS[m.group("t").lower()] + unit)

    return _OF_AGE.sub(lambda m: f"{m.group('n')} years old", _NUMBER_WORDS.sub(figures, text))


def as_said(text: str) -> str:
    """``text`` as the rules read it: lists as sentences (:mod:`._lists`), others' words
    left out and run-ons cut (:mod:`._others_said`), then said plainly."""
    return plainly(run_on_cut(reported_cut(listed(text))))


def plainly(text: str) -> str:
    """``text`` with its texting spellings and liking idioms said plainly."""
    text = _SPELLING.sub(lambda m: _SPELLED[m.group(0)], text)
    text = _NAMES_IS.sub(lambda m: f"{m.group('p')} name's ", text)
    text = _OPENER.sub("", _in_figures(text))
    for pattern, said in _IDIOMS:
        text = pattern.sub(said, text)
    return text
