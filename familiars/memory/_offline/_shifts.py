"""Changes of mind by slot and meaning: "not into X anymore", "used to X but now Y",
"switched from A to B", "moved from A to B", "quit X, now Y".

The rules of :mod:`._changes` know a list of phrasings. Here a change is found from what the
message says about a *kept* record, whatever the phrasing: a clause that names the record's
value (its words, or, failing that, a clause whose sentence vector is close to the record's)
and says it is over (a negation, "used to", "from", "quit", "left", "off"...) takes that
record back; :func:`revise` in ``_changes`` then supersedes it, and the new value the same
message gives ("I do tango now") is kept by the writer as usual. A clause that names the
value without saying it is over ("I still love coffee") takes nothing back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._changes import _no_longer, _record_words, _Said, topic_words
from familiars.memory._offline._clauses import _sentence_clauses
from familiars.memory._offline._meaning import Understanding
from familiars.memory._offline._objects import Fact, _fact_key
from familiars.memory._offline._values import _SOMEONE_ELSE
from familiars.memory._records import MemoryRecord, is_live

#: Said of something that is over for the person.
_OVER = re.compile(
    r"\b(?:not|n't|no\s+longer|never|any\s?more|used\s+to|from|quit|quitted|stopped|gave\s+up|"
    r"given\s+up|left|leaving|off|out|over|done\s+with|switched|swapped|ditched|dropped|"
    r"moved\s+on|gone\s+off|instead\s+of|rather\s+than|no\s+more|former(?:ly)?|ex)\b",
    re.I,
)
#: Said of something still true: no change.
_STILL = re.compile(r"\b(?:still|always|again)\b", re.I)
#: A clause whose vector is this close to a record's names it without its words.
MIN_SIMILARITY = 0.62
_SLOT_KEYS = ("job", "work", "home")


def shifted(
    text: str,
    existing: Sequence[MemoryRecord],
    keys: set[str],
    understanding: Understanding,
) -> list[Fact]:
    """ "no longer" facts for the kept records ``text`` says are over (``keys``: the facts
    already said by this message, which are left to the rules)."""
    if not understanding.has("changes"):
        return []
    records = [r for r in existing if _changeable(r) and (_fact_key(r) or "") not in keys]
    out: list[Fact] = []
    for sentence, group in _sentence_clauses(text):
        for clause in [*group, sentence]:
            if not _OVER.search(clause) or _STILL.search(clause) or clause.rstrip().endswith("?"):
                continue
            if _SOMEONE_ELSE.search(clause):
                continue
            rec = _named(clause, records, understanding)
            if rec is None:
                continue
            key = _fact_key(rec) or ""
            obj = _value_of(rec)
            out.append(_no_longer(_Said(obj, None, -1), rec, clause.strip()))
            keys.add(key)
            records.remove(rec)
    return out


def _changeable(rec: MemoryRecord) -> bool:
    if not is_live(rec) or rec.scope != "user":
        return False
    if rec.category == "preference":
        return "likes" in rec.tags
    return rec.category == "profile" and any(k in rec.tags for k in _SLOT_KEYS)


def _value_of(rec: MemoryRecord) -> str:
    m = re.search(r"\b(?:likes|works at|works as an?|lives in)\s+(.+?)\.?$", rec.content)
    return m.group(1) if m else rec.content


def _named(
    clause: str, records: Sequence[MemoryRecord], understanding: Understanding
) -> MemoryRecord | None:
    """The record whose value the clause names before its change word, by words, else by
    meaning (a preference only: places and employers are names, not meanings)."""
    words = topic_words(clause)
    for rec in records:
        value = _record_words(rec)
        if value and value <= words and not _named_as_new(clause, value):
            return rec
    best, best_sim = None, MIN_SIMILARITY
    for rec in records:
        if rec.category != "preference":
            continue
        sim = understanding.similarity(clause, _value_of(rec))
        if sim > best_sim:
            best, best_sim = rec, sim
    return best


def _named_as_new(clause: str, value: frozenset[str]) -> bool:
    """ "moved from Leeds to York" names York as the new value: only the word after "from"
    (or before "to") is the old one."""
    m = re.search(r"\b(?:to|into|for)\s+([\w' -]+)$", clause, re.I)
    if m is None or not re.search(r"\bfrom\b", clause, re.I):
        return False
    return bool(value & topic_words(m.group(1)))
