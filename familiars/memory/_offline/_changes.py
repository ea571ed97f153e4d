"""Offline changes of mind: which kept record a message takes back.

Two things, both run by :func:`revise` between reading the facts and turning them into
writes, since both need the records already kept:

- a preference said with the other polarity about a topic the record names more narrowly
  ("I don't like spicy food anymore" against "likes spicy Thai food") takes that record's key,
  so that it supersedes it. The new topic's words must all be in the old one, so "I don't like
  cold coffee" leaves "likes coffee" alone;
- a phrasing that only takes something back ("I've gone off X", "I quit X", "I'm not a nurse
  anymore", "I left Acme", "no more X") becomes a "no longer" fact keyed to the record it
  names. Nothing is taken back unless a live record names it: "I left my keys at work" finds
  no record of keys.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from familiars.memory._offline._clauses import _REPORTED, _is_question, _sentence_clauses
from familiars.memory._offline._kept import contents_of, keyed_of, live_of
from familiars.memory._offline._objects import Fact, _fact_key, _words, third_person, topic_key
from familiars.memory._offline._patterns import _pref
from familiars.memory._records import MemoryRecord

logger = logging.getLogger(__name__)

#: Words that say nothing of which topic is meant.
_NOISE = frozenset(
    _words(
        "a an the my their some any it food foods stuff thing things music movie film show "
        "dish dishes cuisine kind kinds type sort really much more anymore now"
    )
)
_VERB_3RD = {
    "eat": "eats",
    "drink": "drinks",
    "play": "plays",
    "do": "does",
    "doing": "does",
    "eating": "eats",
    "drinking": "drinks",
    "playing": "plays",
    "going": "goes to",
    "watch": "watches",
    "watching": "watches",
    "smoke": "smokes",
    "smoking": "smokes",
}
_OBJ_VERB = (
    r"(?:(?P<verb>doing|eating|drinking|playing|watching|going\s+to|smoking|do|eat|drink|play|"
    r"watch|smoke)\s+)?"
)
_TAIL = r"(?:\s+(?:any\s?more|these\s+days|now|lately|last\s+\w+|for\s+good|after\s+all))*"
_LISTED = re.compile(r"^The user (likes|doesn't like) (.+)\.$")
_SAID_OF = re.compile(r"^The user (?:no longer \w+|doesn't like|likes|drinks|prefers) (.+)\.$")
_LIST_SEP = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
#: Phrasings that take something back; ``obj`` names it.
_TAKE_BACK = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^i\s+(?:have\s+|'ve\s+)?(?:quit|stopped|gave\s+up|given\s+up|dropped|ditched)\s+(?:on\s+)?"
        rf"(?:my\s+job\s+at\s+)?{_OBJ_VERB}(?P<obj>.+?){_TAIL}$",
        rf"^i\s+(?:don't|do\s+not|dont)\s+(?:really\s+)?{_OBJ_VERB}(?:work\s+(?:at|for)\s+|live\s+in\s+)?"
        rf"(?P<obj>.+?)\s+any\s?more$",
        rf"^i\s+no\s+longer\s+(?:like\s+|love\s+|enjoy\s+|work\s+(?:at|for)\s+|live\s+in\s+)?"
        rf"{_OBJ_VERB}(?P<obj>.+?){_TAIL}$",
        rf"^i'?m\s+(?:not|no\s+longer)\s+(?:really\s+)?(?:into\s+|a\s+fan\s+of\s+|an?\s+)?"
        rf"{_OBJ_VERB}(?P<obj>.+?)\s+any\s?more$",
        rf"^i'?ve\s+(?:gone\s+off|lost\s+interest\s+in|gone\s+cold\s+on|grown\s+out\s+of|"
        rf"moved\s+on\s+from|fallen\s+out\s+of\s+love\s+with)\s+(?P<obj>.+?){_TAIL}$",
        rf"^i\s+fell\s+out\s+of\s+love\s+with\s+(?P<obj>.+?){_TAIL}$",
        rf"^i'?m\s+(?:off|done\s+with|over|sick\s+of|tired\s+of)\s+(?P<obj>.+?){_TAIL}$",
        r"^(?P<obj>.+?)\s+(?:isn't|is\s+not|aren't|are\s+not)\s+(?:really\s+)?"
        r"(?:my\s+thing|for\s+me)\s+any\s?more$",
        r"^(?P<obj>[\w ]+?)\??,?\s+not\s+for\s+me\s+any\s?more$",
        r"^(?P<obj>.+?)\s+(?:bores|bore)\s+me\s+(?:now|these\s+days)$",
        r"^(?P<obj>.+?)\s+(?:doesn't|does\s+not|don't)\s+agree\s+with\s+me(?:\s+any\s?more)?$",
        r"\bno\s+more\s+(?P<obj>[\w ]+)$",
        # a capital, even under IGNORECASE: "I left my car at the garage" takes nothing back
        r"^i\s+(?:left|quit)\s+(?P<obj>(?-i:[A-Z])[\w&.' -]*?)(?:\s+last\s+\w+|\s+for\s+good)?$",
        r"^i\s+sold\s+my\s+(?P<obj>[\w ]+)$",
        r"^i\s+used\s+to\s+(?:love|like|enjoy|adore)\s+(?P<obj>.+)$",
        # a liking said in the past, by idiom: "I was big into darts", "used to be mad on squash"
        r"^i\s+(?:was|used\s+to\s+be)\s+(?:(?:really|so|well|massively|proper|very)\s+)*"
        r"(?:(?:big|huge|massive)\s+)?(?:into|mad\s+(?:on|about|for)|big\s+on|keen\s+on|"
        r"hooked\s+on|obsessed\s+with|a\s+(?:big\s+|huge\s+)?fan\s+of)\s+(?P<obj>.+)$",
    )
]
#: Phrasings that turn a dislike into a like.
_TURN_TO_LIKE = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^(?:turns\s+out\s+)?i\s+(?:actually\s+|now\s+|really\s+)*(?:like|love|enjoy)\s+"
        rf"(?P<obj>.+?){_TAIL}$",
        rf"^i'?ve\s+(?:come|warmed)\s+(?:a)?round\s+to\s+(?P<obj>.+?){_TAIL}$",
        rf"^i'?ve\s+(?:gotten|got|grown)\s+(?:into|to\s+like)\s+(?P<obj>.+?){_TAIL}$",
    )
]


@dataclass(frozen=True)
class _Said:
    obj: str
    verb: str | None
    pattern: int


def topic_words(text: str) -> frozenset[str]:
    """The words that say which topic ``text`` is about, singular, lower case."""
    words = re.findall(r"[\w']+", topic_key(re.sub(r"'s\b", "", text)).replace("-", " "))
    return frozenset(w for w in words if w not in _NOISE)


def _record_words(rec: MemoryRecord) -> frozenset[str]:
    topics = [t[6:] for t in rec.tags if t.startswith("topic:")]
    if rec.category == "preference" and topics:
        return topic_words(topics[0].replace("-", " "))
    m = re.search(
        r"\b(?:works at|works as an?|lives in|is called|name is)\s+(.+?)\.?$", rec.content
    )
    return topic_words(m.group(1)) if m else frozenset()


def _same_head(obj: str, rec: MemoryRecord) -> bool:
    """ "spicy food" may name "spicy Thai food" (a generic head), "beer" may name "craft
    beer" (the same head), but "coffee" does not name "coffee cake"."""
    topics = [t[6:] for t in rec.tags if t.startswith("topic:")]
    if rec.category != "preference" or not topics:
        return True
    listed = _LISTED.match(rec.content)
    items = _LIST_SEP.split(listed.group(2)) if listed else []
    heads = {topics[0].split("-")[-1]} | {topic_key(i).split("-")[-1] for i in items if i}
    return bool(heads & _NOISE) or topic_key(obj).split("-")[-1] in heads


def _named_record(obj: str, existing: Sequence[MemoryRecord]) -> MemoryRecord | None:
    """The live record whose topic holds every word of ``obj``, under the same head."""
    words = topic_words(obj)
    if not words:
        return None
    for rec in live_of(existing):
        if _fact_key(rec) and words <= _record_words(rec) and _same_head(obj, rec):
            return rec
    return None


def _polarity(rec: MemoryRecord) -> str:
    return "dislikes" if "dislikes" in rec.tags else "likes" if "likes" in rec.tags else ""


def _retarget(fact: Fact, existing: Sequence[MemoryRecord], keys: set[str]) -> Fact:
    """A turned preference takes the key of the narrower record it contradicts."""
    if fact.category != "preference" or fact.key in keys or not fact.polarity:
        return fact
    m = re.match(r"The user (?:doesn't like|likes|drinks|prefers) (.+)\.$", fact.content)
    if not m:
        return fact
    rec = _named_record(m.group(1), [r for r in existing if r.category == "preference"])
    if rec is None or _polarity(rec) in ("", fact.polarity):
        return fact
    return replace(fact, key=_fact_key(rec) or fact.key)


def _no_longer(said: _Said, rec: MemoryRecord, quote: str) -> Fact:
    key = _fact_key(rec) or topic_key(said.obj)
    obj = third_person(said.obj)
    if rec.category == "profile":
        what = {"work": "works at", "home": "lives in", "job": "works as"}.get(key, "is")
        m = re.search(r"\b(?:works at|works as|lives in)\s+(.+?)\.?$", rec.content)
        content = f"The user no longer {what} {m.group(1) if m else obj}."
        return Fact("user", "profile", content, (key,), key, 0.7, quote=quote)
    verb = _VERB_3RD.get((said.verb or "").lower().split()[0] if said.verb else "", "likes")
    tag = "dislikes" if verb == "likes" else "stopped"
    topic = next((t for t in rec.tags if t.startswith("topic:")), f"topic:{topic_key(obj)}")
    return Fact(
        "user", "preference", f"The user no longer {verb} {obj}.", (tag, topic), key, 0.6,
        polarity="dislikes", quote=quote,
    )  # fmt: skip


def _said_in(text: str) -> list[tuple[str, str]]:
    """Each statement of ``text`` (clauses, and whole sentences for "Running? Not for me
    anymore"), with the clause it came from."""
    out = []
    for sentence, group in _sentence_clauses(text.replace("?", ",")):
        for clause in [*group, sentence]:
            if not _is_question(clause, text) and not _REPORTED.search(clause):
                out.append((clause.strip(" .!,"), clause))
    return out


def _match(patterns: list[re.Pattern[str]], said: str) -> _Said | None:
    for number, pattern in enumerate(patterns):
        m = pattern.search(said)
        if m:
            verb = m.groupdict().get("verb")
            return _Said(m.group("obj").split(",")[0].strip(" .!"), verb, number)
    return None


def taken_back(text: str, existing: Sequence[MemoryRecord], keys: set[str]) -> list[Fact]:
    """ "no longer" facts and turned likes for records the message takes back."""
    out: list[Fact] = []
    for said, quote in _said_in(text):
        back = _match(_TAKE_BACK, said)
        if back is not None:
            rec = _named_record(back.obj, existing)
            if rec is not None and (_fact_key(rec) or "") not in keys:
                fact = _no_longer(back, rec, quote)
                out.append(fact)
                keys.add(fact.key)
            continue
        turn = _match(_TURN_TO_LIKE, said)
        if turn is not None:
            rec = _named_record(turn.obj, [r for r in existing if "dislikes" in r.tags])
            key = _fact_key(rec) if rec else None
            if rec is not None and key and key not in keys:
                obj = third_person(turn.obj)
                out.append(Fact("user", "preference", f"The user likes {obj}.",
                                ("likes", f"topic:{topic_key(obj)}"), key, 0.6,
                                polarity="likes", quote=quote))  # fmt: skip
                keys.add(key)
    return out


def revise(facts: Sequence[Fact], text: str, existing: Sequence[MemoryRecord]) -> list[Fact]:
    """``facts`` with turned preferences keyed to the records they contradict, and the
    "no longer" facts the message says, so that :func:`to_writes` supersedes those records."""
    if not existing:
        return list(facts)
    live = keyed_of(existing)
    kept = contents_of(existing)
    revised = [_retarget(f, existing, set(live)) for f in facts]
    # A fact that only repeats a kept record ("I no longer work for Acme" read as "works at
    # Acme") says nothing new: it neither blocks nor survives the message taking it back.
    said_keys = {f.key for f in revised if f.key in live and f.content not in kept}
    back = taken_back(text, existing, said_keys)
    gone = {f.key for f in back}
    changed = [f for f in revised if not (f.key in gone and f.content in kept)] + back
    rest = (_rest_of_list(f, live[f.key]) for f in changed if f.key in live)
    return changed + [f for f in rest if f is not None and f.key not in said_keys]


def _rest_of_list(fact: Fact, rec: MemoryRecord) -> Fact | None:
    """What a listed preference still says when a change takes back one thing of its list:
    "I don't like sci-fi movies anymore" against "likes rock climbing and bad sci-fi movies"
    keeps "likes rock climbing" (superseding the whole record lost it)."""
    m = _LISTED.match(rec.content)
    said = _SAID_OF.match(fact.content)
    if m is None or rec.category != "preference" or said is None:
        return None
    items = [i for i in _LIST_SEP.split(m.group(2)) if i]
    words = topic_words(said.group(1))
    rest = [i for i in items if not (words and words <= topic_words(i))]
    if len(items) < 2 or not rest or len(rest) == len(items):
        return None
    obj = rest[0] if len(rest) == 1 else ", ".join(rest[:-1]) + " and " + rest[-1]
    return replace(_pref(f"The user {m.group(1)} {obj}.", obj, _polarity(rec)), quote=fact.quote)
