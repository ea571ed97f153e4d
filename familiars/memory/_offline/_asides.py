"""What a message says in brackets, said plainly before it is cut into clauses.

An aside in brackets is part of what the person tells: "Sanjay (my husband) is away" names
the husband, "Biscuit and Crumpet (our two dachshunds)" the dogs, and "(I manage a garden
centre btw)" is a statement of its own. Left as it is, the bracket hides the fact inside a
clause about something else ("booking the vet for Bramble (our cocker spaniel)"). An aside
that only comments ("(lol)", "(not really)", "(jk)") is left where it is, so it still tells
the clause it belongs to.
"""

from __future__ import annotations

import re

_NAME = r"[A-ZÀ-Þ][\w'À-ÿ-]*"
_NAMES = rf"{_NAME}(?:(?:\s*,\s*|\s+(?:and|&)\s+){_NAME})*"
#: "Sanjay (my husband)", "Bramble (our cocker spaniel, she's 3)": who or what the names are.
_NAMED_THEN_WHAT = re.compile(
    rf"\b(?P<names>{_NAMES})\s*\(\s*(?P<what>(?i:my|our)\s+(?!(?i:own)\b)[^(),]+?)"
    r"(?:\s*,\s*(?P<rest>[^()]*?))?\s*\)"
)
_COUNT = re.compile(r"^(?P<det>my|our)\s+(?:two|three|four|five|2|3|4|5)\s+", re.I)
#: "my kids (Ollie and Maya)": the names of what was just named.
_WHAT_THEN_NAMED = re.compile(rf"\b(?P<what>(?i:my|our)\s+[\w-]+)\s*\(\s*(?P<names>{_NAMES})\s*\)")
#: An aside that is a statement with its own subject: said as a sentence of its own.
_STATEMENT = re.compile(
    r"\s*\(\s*(?P<said>(?i:i|i'm|im|i've|i'd|we|we're|we've|he|he's|she|she's|they|they're|"
    r"my|our)\b[^()]*?)\s*\)\s*"
)


def _named(m: re.Match[str]) -> str:
    what = _COUNT.sub(r"\g<det> ", m.group("what"))
    rest = m.group("rest")
    return f"{what} {m.group('names')}" + (f" ({rest})" if rest else "")


def asides_said(text: str) -> str:
    """``text`` with its bracketed asides said plainly: "Sanjay (my husband)" -> "my husband
    Sanjay", "my kids (Ollie and Maya)" -> "my kids Ollie and Maya", and a bracketed statement
    ("(I manage a garden centre btw)") as a sentence of its own."""
    if "(" not in text:
        return text
    text = _NAMED_THEN_WHAT.sub(_named, text)
    text = _WHAT_THEN_NAMED.sub(r"\g<what> \g<names>", text)
    return _STATEMENT.sub(lambda m: f". {m.group('said')}. ", text).strip()
