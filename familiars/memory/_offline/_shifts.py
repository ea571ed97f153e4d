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
from dataclasses import replace

from familiars.memory._offline._changes import _no_longer, _record_words, _Said, topic_words
from familiars.memory._offline._clauses import _sentence_clauses
from familiars.memory._offline._kept import derived_of
from familiars.memory._offline._meaning import Understanding
from familiars.memory._offline._objects import Fact, _fact_key
from familiars.memory._offline._patterns import match_preference
from familiars.memory._offline._people import _job_fact, _work_fact
from familiars.memory._offline._tidy import _SOMEONE_ELSE
from familiars.memory._offline._turned import turned_against_dislike
from familiars.memory._offline._values import RELATIVE_SAYS, match_place_or_home
from familiars.memory._records import MemoryRecord, is_live

#: Said of something that is over for the person.
_OVER = re.compile(
    r"(?:n't\b|\b(?:not|no\s+longer|never|any\s?more|used\s+to|from|quit|quitted|stopped|gave\s+up|"
    r"given\s+up|give\s+up|giving\s+up|(?:packed|packing|pack|jacked|chucked)\s+in|"
    r"left|leaving|off|out|over|done\s+with|switched|swapped|ditched|dropped|"
    r"moved\s+on|gone\s+off|instead\s+of|rather\s+than|no\s+more|former(?:ly)?|ex)\b)",
    re.I,
)
#: Said of something still true: no change.
_STILL = re.compile(r"\b(?:still|always|again)\b", re.I)
#: A clause whose vector is this close to a record's names it without its words.
MIN_SIMILARITY = 0.62
_SLOT_KEYS = frozenset({"job", "work", "home"})


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
    changeable = derived_of(existing, "changeable", lambda kept: list(filter(_changeable, kept)))
    records = [
        r for r in changeable if (_fact_key(r) or "") not in keys and not _narrower_said(r, keys)
    ]
    out: list[Fact] = []
    for sentence, group in _sentence_clauses(text):
        for clause in [*group, sentence]:
            moved = _from_to(clause, records)
            if moved is not None:
                out.append(moved[1])
                keys.add(moved[1].key)
                records.remove(moved[0])
                continue
            if not _OVER.search(clause) or _STILL.search(clause) or clause.rstrip().endswith("?"):
                continue
            if _not_the_persons(clause):
                continue
            rec = _named(clause, records, understanding)
            if rec is None or ("likes" in rec.tags and turned_against_dislike(clause)):
                continue  # "I used to hate olives" takes no liking of olives back
            key = _fact_key(rec) or ""
            obj = _value_of(rec)
            out.append(_no_longer(_Said(obj, None, -1), rec, clause.strip()))
            keys.add(key)
            records.remove(rec)
    return out


#: "switched jobs from Asda to Lidl", "moved from Leeds to York", "went from tea to coffee".
#: "upped sticks from Walthamstow to Margate, sea air and all that", "left Croydon for
#: Brighton": what follows B (a time, a comment after a comma) is no part of it.
_FROM_TO = re.compile(
    r"(?:\bfrom\s+(?P<a>[\w&'. -]+?)\s+to|\bleft\s+(?P<a2>[\w&'. -]+?)\s+for)\s+(?P<b>[\w&'. -]+?)"
    r"(?:\s+(?:now|(?:the\s+)?(?:last|past|this)\s+\w+|recently|in\s+\w+|\w+\s+ago))*"
    r"(?:\s*,.*)?$",
    re.I,
)


#: A slip put right: "no wait i said leeds not leicester", "sorry, I meant Bristol, not Bath".
_NOT_THAT = re.compile(
    r"\b(?:said|meant|is|it'?s|its|in|at)\s+(?P<b>[\w&'. -]+?)\s*,?\s+not\s+"
    r"(?P<a>[\w&'. -]+?)[.!]*$",
    re.I,
)


def _from_to(clause: str, records: Sequence[MemoryRecord]) -> tuple[MemoryRecord, Fact] | None:
    """The kept record "from A to B" (or "B not A") names as A, and B as the new value of
    the same slot (an employer stays an employer: "I moved from Asda to Lidl" does not make
    Lidl a town)."""
    m = _FROM_TO.search(clause) or _NOT_THAT.search(clause)
    if m is None or _not_the_persons(clause):
        return None
    old = topic_words(m.group("a") or m.groupdict().get("a2") or "")
    rec = next((r for r in records if (w := _record_words(r)) and w <= old), None)
    if rec is None:
        return None
    new = m.group("b").strip()
    if new.islower() and _fact_key(rec) in ("home", "work"):  # typed in lower case: a name
        new = new.title()
    key = _fact_key(rec) or ""
    fact = (
        _work_fact(new) if key == "work" else
        match_place_or_home(new) if key == "home" else
        _job_fact(None, new) if key == "job" else
        match_preference(f"I like {new}")
    )  # fmt: skip
    if fact is None:
        return None
    return rec, replace(fact, key=key, quote=clause.strip())


def _not_the_persons(clause: str) -> bool:
    """Whether ``clause`` tells of someone else ("my friend quit coffee", "my sister gave up
    coffee"); "I used to play rugby" is the person's own (and over)."""
    own = re.sub(r"\bused\s+to\b", "", clause, flags=re.I)
    return bool(_SOMEONE_ELSE.search(own) or RELATIVE_SAYS.match(clause.strip()))


def moved_to(shift: Fact) -> str | None:
    """The new value a "from A to B" change gave (None for a "no longer")."""
    if "no longer" in shift.content:
        return None
    m = re.search(
        r"\b(?:works at|lives in|works as an?|likes|drinks|prefers)\s+(.+?)\.?$", shift.content
    )
    return m.group(1) if m else None


def _narrower_said(rec: MemoryRecord, keys: set[str]) -> bool:
    """ "I don't like cold coffee" speaks of cold coffee, not of the coffee the person likes:
    a topic this message names that holds the record's words and more leaves it alone."""
    words = _record_words(rec)
    return bool(words) and any(
        k.startswith("topic:") and words < topic_words(k[6:].replace("-", " ")) for k in keys
    )


def _changeable(rec: MemoryRecord) -> bool:
    """A live like or job, workplace or home of the person's; asked of each of their
    records every turn, so the cheap tests come first."""
    if rec.scope != "user":
        return False
    if rec.category == "preference":
        slot = "likes" in rec.tags
    else:
        slot = rec.category == "profile" and not _SLOT_KEYS.isdisjoint(rec.tags)
    return slot and is_live(rec)


def _value_of(rec: MemoryRecord) -> str:
    m = re.search(
        r"\b(?:likes|loves|drinks|eats|plays|does|prefers|enjoys|works at|works as an?|lives in)"
        r"\s+(.+?)\.?$",
        rec.content,
    )
    return m.group(1) if m else rec.content


def _named(
    clause: str, records: Sequence[MemoryRecord], understanding: Understanding
) -> MemoryRecord | None:
    """The record whose value the clause names before its change word, by words, else by
    meaning (a preference only: places and employers are names, not meanings)."""
    # word by word: a topic key keeps only a few words of a long clause
    words = frozenset().union(*(topic_words(w) for w in re.findall(r"[\w'&-]+", clause)))
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
