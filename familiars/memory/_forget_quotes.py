"""The quotes a forget takes out of the memories it keeps.

A memory keeps, in ``source_quote``, the words it was noted from ("User message: 'I run a
little bakery in Whitby'"). When a message is forgotten but a memory noted from it stays
(a forget by words of one thing a message said keeps the others), or a kept memory's quote
holds what was forgotten, the quote goes: from the entry, every event of its history and
the index's copy (:meth:`~familiars.memory.MemoryStore.drop_quotes`). The memory itself,
its id, its evidence and everything else stay.

Map:

- :func:`quotes_to_drop` - record id -> the quotes of it that go.
- :func:`from_forgotten` - whether a quote's words are a piece of a forgotten text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from familiars.memory._forget_files import MIN_QUOTE_CHARS, Forgotten
from familiars.memory._records import MemoryRecord
from familiars.memory._store import normalise_content

#: The label before a quote ("User message: '...'") and the marks around its words.
_LABEL = re.compile(r"^[\w' ]{1,24}:\s+")
_MARKS = "'\"\u2018\u2019\u201c\u201d "

EvidenceKeys = Callable[[MemoryRecord], Sequence[tuple[str, str, int]]]


def quote_words(quote: str) -> str:
    """The quoted words of a quote, normalised: no label, no quotation marks."""
    return normalise_content(_LABEL.sub("", quote.strip(), count=1).strip(_MARKS))


def from_forgotten(quote: str, forgotten: Forgotten, said: Sequence[str] | None = None) -> bool:
    """Whether ``quote`` holds a forgotten text, or its words (long enough to say which) are
    a piece of a forgotten message or memory; a reply taken along counts whole only.
    ``said``: :func:`said_texts` of ``forgotten``, when read once for many quotes."""
    if forgotten.holds(quote):
        return True
    words = quote_words(quote)
    if len(words) < MIN_QUOTE_CHARS:
        return False
    pattern = re.compile(rf"(?<!\w){re.escape(words)}(?!\w)")
    return any(pattern.search(t) for t in (said_texts(forgotten) if said is None else said))


def said_texts(forgotten: Forgotten) -> list[str]:
    """The forgotten texts but the replies taken along, normalised."""
    return [normalise_content(t) for t in forgotten.texts if t not in forgotten.quoted_only]


def quotes_to_drop(
    records: Iterable[MemoryRecord], forgotten: Forgotten, evidence: EvidenceKeys
) -> dict[str, list[str]]:
    """Record id -> its quotes that go: every quote of a memory noted from a forgotten turn
    (its ``evidence``; one merged from others keeps the quotes of the others), and any quote
    :func:`from_forgotten`."""
    out: dict[str, list[str]] = {}
    said = said_texts(forgotten)
    for rec in records:
        if not rec.source_quote:
            continue
        told_there = not rec.derived_from and any(
            forgotten.names_turn(*key) for key in evidence(rec)
        )
        drop = [q for q in rec.source_quote if told_there or from_forgotten(q, forgotten, said)]
        if drop:
            out[rec.id] = drop
    return out


__all__ = ["from_forgotten", "quote_words", "quotes_to_drop", "said_texts"]
