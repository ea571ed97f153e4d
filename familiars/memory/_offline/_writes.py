"""Facts to writes: every pattern run on every clause (:func:`facts_in`), then a
WriterOutput against the live records (:func:`to_writes`: ``skip`` when a record already
says it, ``update`` with ``supersedes_id`` when it holds another value of the same fact,
else ``add``), and the open loops a message closes (:func:`closed_loops`).
:func:`offline_writes` is the whole offline writer.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from familiars.memory._limits import DEFAULT_MAX_RECORD_CHARS
from familiars.memory._offline._ages import aged_writes
from familiars.memory._offline._asides import asides_said
from familiars.memory._offline._asked_reminders import as_remind_me
from familiars.memory._offline._birthdays import match_others_birthday
from familiars.memory._offline._changes import revise
from familiars.memory._offline._clauses import (
    _REPORTED,
    _as_request,
    _is_question,
    _sentence_clauses,
    clauses,
)
from familiars.memory._offline._corrections import correction_writes, scratched_writes
from familiars.memory._offline._dates import (
    match_birthday,
    match_dated_event,
    match_reminder,
    pin_weekdays,
    zone,
)
from familiars.memory._offline._directives import match_directive
from familiars.memory._offline._dropped import dropped_writes, together_only
from familiars.memory._offline._each_said import with_address
from familiars.memory._offline._everyday import everyday, joke_writes, match_hometown, match_worry
from familiars.memory._offline._health import match_conditions, match_medication
from familiars.memory._offline._kept import Kept, contents_of, live_of
from familiars.memory._offline._kin_fixes import kin_correction_writes
from familiars.memory._offline._late import late_takes_place, match_late
from familiars.memory._offline._meaning import Understanding, by_meaning
from familiars.memory._offline._misread import ended_writes, misread
from familiars.memory._offline._no_more import no_more_writes
from familiars.memory._offline._not_quite import not_quite_writes
from familiars.memory._offline._objects import _GENERIC_HEADS, MEANING_KINDS, Fact, _fact_key
from familiars.memory._offline._others_said import (
    hedge_cut,
    owned_by_meaning,
)
from familiars.memory._offline._past import match_seen
from familiars.memory._offline._patterns import (
    _MY_THING_IS,
    match_greeting_name,
    match_health,
    match_name,
    match_note,
    match_place_or_work,
    match_preference,
    note_body,
)
from familiars.memory._offline._people import people_facts
from familiars.memory._offline._plainly import as_said
from familiars.memory._offline._plans import match_plan
from familiars.memory._offline._presumed import presumed
from familiars.memory._offline._relatives import (
    match_relative_place,
    one_record_per_someone,
    pronoun_named,
    pronoun_named_before,
    pronouns_joined,
)
from familiars.memory._offline._replacing import replaced
from familiars.memory._offline._restated import restated_writes
from familiars.memory._offline._romance import partners_said
from familiars.memory._offline._second_thoughts import second_thoughts
from familiars.memory._offline._shifts import moved_to, shifted
from familiars.memory._offline._spouses import one_spouse
from familiars.memory._offline._states import joking, match_cause, match_meaning, sarcastic
from familiars.memory._offline._tidy import unemphasised, unfilled
from familiars.memory._offline._turned import turned_said
from familiars.memory._offline._value_fixes import value_correction_writes
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import OpenLoop, WriteOp, WriterEntry, WriterOutput

logger = logging.getLogger(__name__)

#: A word (no spaces, no sentence or clause marks); one longer than the record limit is skipped.
_LONG_WORD = re.compile(r"[^\s.!?;,]{200,}")
#: What stands for a skipped word: the clause holding it is skipped too.
_SKIPPED = "\x01"


_DONE = re.compile(
    r"^i\s+(?:already\s+|just\s+|finally\s+)?(?P<rest>(?:\w+ed|did|done|bought|paid|sent|wrote|"
    r"made|took|went|got|gave|rang|sold|spoke|met|read)\b.*)$",
    re.IGNORECASE,
)


def _clause_facts(
    clause: str,
    *,
    now: datetime,
    tz: ZoneInfo,
    grace_s: float,
    dialogue_id: str | None,
    meaning: bool = True,
) -> list[Fact]:
    """Every pattern run on one clause. A reminder is the whole clause: its task ("to tell
    mom I love jazz") says nothing about the person. A state, feeling, goal or value
    (:func:`match_meaning`) is looked for only when no plainer fact was found, and only when
    ``meaning`` (the message is not sarcastic)."""
    reminder = match_reminder(clause, now=now, tz=tz, grace_s=grace_s, dialogue_id=dialogue_id)
    if reminder is not None:
        return [reminder]
    someone = match_others_birthday(clause, now=now, tz=tz) or match_relative_place(clause)
    if someone is not None:  # the whole clause, as a reminder is
        return [someone]
    late = match_late(clause, now)
    if late is not None:  # "my late husband Geoffrey passed in 2019": one record says both
        return [late]
    found = (
        match_name(clause),
        match_birthday(clause, now=now, tz=tz),
        match_health(clause),
        match_preference(clause),
        match_place_or_work(clause),
        match_dated_event(clause, now=now, tz=tz),
        match_seen(clause, now=now, tz=tz),
        match_directive(clause),
    )
    more = [
        *people_facts(clause),
        *match_plan(clause, now=now, tz=tz),
        *match_conditions(clause),
        *match_medication(clause),
        *match_hometown(clause),
        *match_worry(clause),
    ]
    facts = [f for f in found if f is not None] + more
    if not facts and meaning:
        state = match_meaning(clause)
        facts = [state] if state is not None else []
    return facts


def _politely_asked(clause: str) -> str:
    """:func:`_as_request`, and a polite request for a reminder in other words too ("can you
    give me a nudge at 5", F6): the request, not a question."""
    request = _as_request(clause)
    if request != clause:
        return request
    reworded = as_remind_me(clause)
    request = _as_request(reworded)
    return request if request != reworded else clause


def _is_meaning(fact: Fact) -> bool:
    return any(kind in fact.tags for kind in MEANING_KINDS)


def _sentence_cause(sentence: str, facts: list[Fact], *, text: str) -> Fact | None:
    """The cause a stated sentence gives ("since I started X, I've Y"), unless one of its
    clauses already gave a state, feeling, goal or value, or the message is sarcastic."""
    if any(_is_meaning(f) for f in facts) or sarcastic(text):
        return None
    if _is_question(sentence, text) or _REPORTED.search(sentence):
        return None
    cause = match_cause(sentence)
    return None if cause is None else Fact(**{**cause.__dict__, "quote": sentence.strip()})


def _without_long_words(text: str, max_chars: int) -> str:
    """``text`` with each word no record could hold (longer than ``max_chars``) replaced by
    :data:`_SKIPPED`, so the clause around it is skipped and the other clauses still count."""
    if len(text) <= max_chars:
        return text
    kept = _LONG_WORD.sub(lambda m: _SKIPPED if len(m.group(0)) > max_chars else m.group(0), text)
    if kept != text:
        logger.info("offline writer: skipped word(s) over %d characters", max_chars)
    return kept


#: A wish said with "would" ("I'd love to be a pilot", "I'd hate to live in London"): what it
#: names is no fact of the person's life, only the wish is (a goal); a request is no wish.
_WISHED = re.compile(
    r"^(?:i'?d|id|i\s+would)\s+(?:really\s+|so\s+|absolutely\s+|just\s+|much\s+)?"
    r"(?:love|like|hate|want|prefer|enjoy)\s+to\s+(?!(?:remind|be\s+reminded|remember|note|set|"
    r"add|save|change|update|tell|ask|let\s+you)\b)",
    re.IGNORECASE,
)
#: A clause that asks to forget something ("actually forget the allergy thing", "please
#: delete the bit about my job", "scratch what I said about Tom") states nothing: its words
#: were read as a fact ("allergic to forget the": tester s39). "don't forget ..." is no such.
_FORGET_ASKED = re.compile(
    r"^(?:(?:please|pls|plz|ok(?:ay)?|actually|so|just|oh|no|nope|wait|and|also|sorry|oops|"
    r"can\s+you|could\s+you|would\s+you|will\s+you)\b[,!.]?\s+)*"
    r"(?:forget|delete|drop|scratch|erase|remove|disregard|ignore|scrap|wipe|strike)\s+"
    r"(?:about\s+)?(?:the|that|this|my|what|everything|all|it|anything|whatever)\b",
    re.IGNORECASE,
)
#: A clause said with no subject ("retired now", "on blood thinners now"): whose it is comes
#: from the clause before it.
_SUBJECTLESS = re.compile(r"^(?:on|taking|retired)\b", re.IGNORECASE)
#: A clause said by the user of themselves: "I was a postman", "im jay", "I've been ill".
_OWN = re.compile(r"^(?:i|i'\w+|im|ive)\b", re.IGNORECASE)


def _states_nothing(clause: str, text: str) -> bool:
    """Whether ``clause`` asks, reports what someone else said, or asks to forget."""
    return bool(
        _is_question(clause, text) or _REPORTED.search(clause) or _FORGET_ASKED.match(clause)
    )


def _owned(clause: str, before: bool) -> bool:
    """Whether ``clause`` is said by the user of themselves: it opens with "I", or it has no
    subject and goes on with the clause before it, which was."""
    said = clause.strip()
    return bool(_OWN.match(said)) or (before and bool(_SUBJECTLESS.match(said)))


def _own_only(said: str, facts: list[Fact], *, own: bool) -> list[Fact]:
    """A subjectless job or medicine clause after a clause about someone else ("Grandad had a
    stroke. on blood thinners now", "my dad? retired now") is not the user's: dropped."""
    if own or not _SUBJECTLESS.match(said.strip()):
        return facts
    return [f for f in facts if not {"job", "medication"} & set(f.tags)]


def _wished_only(said: str, facts: list[Fact]) -> list[Fact]:
    """A wish's clause keeps only the wish: "I'd hate to live in London" names no home; and
    where one grew up is no home now ("we grew up in Cork")."""
    if any("hometown" in f.tags for f in facts):
        facts = [f for f in facts if "home" not in f.tags]
    return [f for f in facts if _is_meaning(f)] if _WISHED.match(said) else facts


def _presumed_said(group: list[str], text: str) -> list[str]:
    """The clauses of a sentence, a question's replaced by what it takes for granted about
    the person's own relatives and pets ("what should I get my wife Anna?" -> "my wife is
    called Anna"); a question that takes nothing for granted stays, to be skipped."""
    out = []
    for clause in group:
        asked = _is_question(_politely_asked(clause), text) and not _REPORTED.search(clause)
        out += (presumed(clause) or [clause]) if asked else [clause]
    return out


def _said_plainly(text: str, max_chars: int) -> str:
    """``text`` said the plain way the rules read: asides, emphasis, fillers ("actually",
    "tbh") and everyday wordings,
    a liking turned round with "them" ("I used to hate olives, now I love them"), a partner
    said by dating ("I'm dating Kai"), and names given by pronoun."""
    said = as_said(_without_long_words(text, max_chars))
    said = everyday(unfilled(unemphasised(asides_said(said))))
    return pronoun_named(pronouns_joined(partners_said(turned_said(said))))


def facts_in(
    text: str,
    *,
    now: datetime,
    timezone: str = "UTC",
    dialogue_id: str | None = None,
    reminder_grace_s: float = 6 * 3600.0,
    max_chars: int = DEFAULT_MAX_RECORD_CHARS,
    understanding: Understanding | None = None,
) -> list[Fact]:
    """Every fact the patterns find in ``text``, in the order said; when one fact is said twice
    ("I like tea. Actually I don't like tea") the later saying wins. A word or a clause
    longer than ``max_chars`` (the record limit) is skipped, not the message."""
    tz = zone(timezone)
    found: dict[tuple[str, str, str], Fact] = {}
    meaning = not sarcastic(text)
    own = True  # the message's first clause, said alone, is the user's
    said_text = _said_plainly(text, max_chars)
    for sentence, group in _sentence_clauses(said_text):
        said_here: list[Fact] = []
        if (greeting := match_greeting_name(sentence)) is not None:
            found[("user", "profile", "name")] = Fact(
                **{**greeting.__dict__, "quote": sentence.strip()[:200]}
            )
        noting = False
        for said_clause in _presumed_said(group, text):
            own_before, own = own, _owned(said_clause, own)
            if len(said_clause) > max_chars or _SKIPPED in said_clause:
                logger.info("offline writer: skipped a clause over %d characters", max_chars)
                noting = False
                continue
            clause = _politely_asked(said_clause)
            if _states_nothing(clause, text):
                noting = False
                continue
            body = note_body(clause)
            noting = noting or body is not None
            said = hedge_cut(body or clause)  # "I'm a dental nurse really"
            facts = _clause_facts(
                said, now=now, tz=tz, grace_s=reminder_grace_s, dialogue_id=dialogue_id,
                meaning=meaning and not body,
            )  # fmt: skip
            if body:  # "remember that I have a dentist appointment tomorrow" is a note
                facts = [f for f in facts if "plan" not in f.tags]
            elif understanding is not None and all(_is_meaning(f) for f in facts):
                facts = _owned_by_meaning(said, said_clause, group, understanding) or facts
            if not facts and (body or (noting and _MY_THING_IS.match(said))):
                note = match_note(said, now=now, tz=tz)
                facts = [note] if note is not None else []
            facts = [_pinned(f, now, tz, said) for f in facts if not misread(f, said_clause)]
            facts = _wished_only(said, _own_only(said, facts, own=own_before))
            said_here += [Fact(**{**f.__dict__, "quote": said_clause}) for f in facts]
        cause = _sentence_cause(sentence, said_here, text=text)
        if sarcastic(text, strong=True):  # "Oh great, I just LOVE being stuck in traffic"
            said_here = [f for f in said_here if f.category != "preference"]
        for fact in [*said_here, *([cause] if cause else [])]:
            found.pop((fact.scope, fact.category, fact.key), None)
            found[(fact.scope, fact.category, fact.key)] = fact
    return one_record_per_someone(list(found.values()))


def _owned_by_meaning(
    said: str, said_clause: str, group: list[str], understanding: Understanding
) -> list[Fact]:
    """What understanding by meaning reads in ``said``, less what is someone else's, also by
    the clause it goes on with ("my colleague Sandra has three cats and a husband called
    Keith")."""
    at = group.index(said_clause) if said_clause in group else 0
    before = group[at - 1] if at else ""
    return owned_by_meaning(said, by_meaning(said, understanding), before=before)


def _pinned(fact: Fact, now: datetime, tz: ZoneInfo, said: str) -> Fact:
    """A fact about someone with "next Saturday" in it, pinned to that day's date, read by
    the tense of the words it came from ("was here on Monday" is not pinned)."""
    if fact.category != "relation":
        return fact
    content = pin_weekdays(fact.content, now=now, tz=tz, said=said)
    return Fact(**{**fact.__dict__, "content": content})


def _head_alias(key: str) -> str | None:
    """``topic:pumpernickel-bread`` -> ``topic:pumpernickel``; None when there is none."""
    if not key.startswith("topic:"):
        return None
    parts = key[6:].split("-")
    if len(parts) < 2 or parts[-1] not in _GENERIC_HEADS:
        return None
    return "topic:" + "-".join(parts[:-1])


def _same_topic(
    fact: Fact, by_key: dict[tuple[str, str, str], MemoryRecord]
) -> MemoryRecord | None:
    """A live preference about the same topic under a longer or shorter name."""
    if fact.category != "preference":
        return None
    for (scope, category, key), rec in by_key.items():
        if (scope, category) != (fact.scope, fact.category):
            continue
        if _head_alias(key) == fact.key or _head_alias(fact.key) == key:
            return rec
    return None


def _polarity(rec: MemoryRecord) -> str:
    return "dislikes" if "dislikes" in rec.tags else "likes" if "likes" in rec.tags else ""


def to_writes(
    facts: Sequence[Fact],
    existing: Sequence[MemoryRecord],
    *,
    max_chars: int = DEFAULT_MAX_RECORD_CHARS,
) -> WriterOutput:
    """Writes for ``facts``: ``skip`` when a live record already says it, ``update`` (with
    ``supersedes_id``) when a live record holds another value of the same fact, else ``add``.
    A preference about the same topic under another name ("I hate pumpernickel" against
    "likes pumpernickel bread") supersedes it when the polarity turned, else is skipped.
    A fact whose sentence would be longer than ``max_chars`` is left out."""
    if not facts:  # most questions: the person's records are not scanned for nothing
        return WriterOutput(writes=[])
    by_key: dict[tuple[str, str, str], MemoryRecord] = {}
    for rec in live_of(existing):
        key = _fact_key(rec)
        if key is not None:
            by_key[(rec.scope, rec.category, key)] = rec
    writes: list[WriteOp] = []
    for fact in facts:
        if len(fact.content) > max_chars:
            logger.info("offline writer: skipped a fact over %d characters", max_chars)
            continue
        entry = WriterEntry(
            content=fact.content,
            tags=list(fact.tags),
            salience=fact.salience,
            ttl=fact.ttl,
            epistemic_status="asserted",
            source_quote=[f"User message: '{fact.quote}'"] if fact.quote else [],
            open_loop=fact.open_loop,
        )
        old = by_key.get((fact.scope, fact.category, fact.key))
        if old is None:
            alias = _same_topic(fact, by_key)
            if alias is not None and _polarity(alias) == fact.polarity:
                writes.append(
                    WriteOp(op="skip", scope=fact.scope, category=fact.category, entry=entry)
                )
                continue
            old = alias
        if old is not None and old.content.strip() == fact.content:
            writes.append(WriteOp(op="skip", scope=fact.scope, category=fact.category, entry=entry))
            continue
        if old is not None:
            entry.supersedes_id = old.id
            writes.append(
                WriteOp(op="update", scope=fact.scope, category=fact.category, entry=entry)
            )
        else:
            writes.append(WriteOp(op="add", scope=fact.scope, category=fact.category, entry=entry))
    return WriterOutput(writes=writes)


def closed_loops(text: str, open_records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Open reminders/promises a message says are done ("I called my mom")."""
    closed = []
    for clause in clauses(text):
        m = _DONE.match(clause)
        if not m or _is_question(clause, text):
            continue
        said = {w[:4] for w in re.findall(r"\w+", m.group("rest").lower()) if len(w) > 2}
        for rec in open_records:
            loop = rec.open_loop
            if not loop or loop.get("status") != "open" or rec in closed:
                continue
            task = re.search(r"Remind the user to (.+?) on \w+day ", rec.content)
            words = re.findall(r"\w+", (task.group(1) if task else rec.content).lower())
            wanted = {w[:4] for w in words if len(w) > 2 and w not in ("their", "the", "and")}
            if wanted and len(wanted & said) >= max(1, len(wanted) - 1):
                closed.append(rec)
    return closed


def _with_shifts(
    facts: list[Fact], text: str, existing: Sequence[MemoryRecord], understanding: Understanding
) -> list[Fact]:
    """``facts`` and the changes of mind found by meaning; a fact that only repeats a record
    the message takes back ("I no longer work for Acme" read as "works at Acme") is dropped."""
    kept = contents_of(existing)
    new_keys = {f.key for f in facts if f.content not in kept}
    shifts = shifted(text, existing, new_keys, understanding)
    gone = {f.key for f in shifts}
    # "I moved from Asda to Lidl": Lidl is the new employer, not also a new town.
    moved = {(v.lower(), f.key) for f in shifts if (v := moved_to(f))}
    return [
        f
        for f in facts
        if not (f.key in gone and f.content in kept)
        and not any(v in f.content.lower() and f.key != k for v, k in moved)
        and not (f.key in gone and any(f.key == k for _, k in moved))
    ] + shifts


_NO_LONGER_LIKES = re.compile(
    r"^The user no longer (?:likes|drinks|eats|plays|does) (?P<old>.+)\.$"
)


def _one_change(facts: list[Fact], existing: Sequence[MemoryRecord]) -> list[Fact]:
    """ "I quit coffee, now I drink green tea": the new like takes the old one's place (one
    update, "The user drinks green tea now, no longer coffee."), so the old is superseded by
    what replaced it rather than left as a "no longer" beside a new record. The old is a
    "no longer" fact, or a dislike keyed to a kept like ("I'm not into padel anymore")."""
    liked = {
        (k, r.content)
        for r in live_of(existing)
        if "likes" in r.tags and (k := _fact_key(r)) is not None
    }
    turned = {k: re.sub(r"^The user (?:likes|drinks|loves|enjoys) |\.$", "", c) for k, c in liked}
    gone = [
        f
        for f in facts
        if f.category == "preference"
        and (_NO_LONGER_LIKES.match(f.content) or (f.polarity == "dislikes" and f.key in turned))
    ]
    new = [
        f
        for f in facts
        if f.category == "preference" and "likes" in f.tags and f not in gone and f.quote
    ]
    if len(gone) != 1 or len(new) != 1:
        return facts
    old = _NO_LONGER_LIKES.match(gone[0].content)
    was = old["old"] if old else turned.get(gone[0].key, "")
    said = re.sub(r"\s+now$", "", new[0].content.rstrip("."))
    liked_now = re.sub(r"^The user (?:likes|drinks|loves|enjoys) ", "", said).lower()
    listed = f"{was} {turned.get(gone[0].key, '')}".lower()
    words = set(re.findall(r"[\w'-]+", liked_now)) - {"and"}
    if words and words <= set(re.findall(r"[\w'-]+", listed)):  # the rest of a listed like
        return facts
    merged = Fact(
        **{**new[0].__dict__, "content": f"{said} now, no longer {was}." if was else said,
           "key": gone[0].key}
    )  # fmt: skip
    return [f for f in facts if f not in (gone[0], new[0])] + [merged]


def offline_writes(
    text: str,
    *,
    existing: Sequence[MemoryRecord],
    now: datetime,
    timezone: str = "UTC",
    dialogue_id: str | None = None,
    reminder_grace_s: float = 6 * 3600.0,
    max_chars: int = DEFAULT_MAX_RECORD_CHARS,
    understanding: Understanding | None = None,
) -> WriterOutput:
    """The whole offline writer: facts, then closed loops, as one WriterOutput. Nothing over
    ``max_chars`` (the record limit) is written; the rest of the message still is. What
    several passes derive from ``existing`` is worked out once (:class:`Kept`)."""
    existing = Kept.of(existing)
    taken_back = joke_writes(text, existing)  # "the dragon was a joke", "... made up"
    if joking(text) or taken_back:  # "lol jk i have a pet dragon called smaug": no fact
        # "jk i quit already": the job is over whichever way the joke is read
        ended = {w.entry.supersedes_id for w in taken_back if w.entry.supersedes_id}
        return WriterOutput(writes=taken_back + no_more_writes(text, existing, ended))
    facts = facts_in(
        pronoun_named_before(text, existing, now),  # "I have a son" then "his name is kai"
        now=now,
        timezone=timezone,
        dialogue_id=dialogue_id,
        reminder_grace_s=reminder_grace_s,
        max_chars=max_chars,
        understanding=understanding,
    )
    text = _without_long_words(text, max_chars)
    facts = together_only(facts, text)  # "me and my gf Priya broke up": no girlfriend now
    facts = revise(with_address(facts, text), text, existing)  # "I live at 14 Marlow Road, ..."
    if understanding is not None and existing:
        facts = _with_shifts(facts, text, existing, understanding)
    if facts and existing:  # "I don't like coffee anymore, I switched to tea": tea is new
        facts = replaced(facts, text, existing)
    output = to_writes(
        _one_change(facts, existing) if facts and existing else facts, existing, max_chars=max_chars
    )
    # "my husband's name is Tim not Tom": Tim takes Tom's record's place; with no Tom kept,
    # "it's Tim not Tom" names no one Tim
    output.writes = correction_writes(text, output.writes, existing, now=now)
    output.writes = not_quite_writes(text, output.writes, existing)  # "retraining as a plumber"
    output.writes = second_thoughts(text, output.writes)  # "... pizza. actually nah, its sushi"
    if existing:  # "actually it's amoxicillin I'm allergic to, not penicillin": any value
        output.writes = value_correction_writes(text, output.writes, existing, now=now)
        output.writes = kin_correction_writes(text, output.writes, existing)  # "Jess is a ..."
        output.writes = aged_writes(text, output.writes, existing)  # "Rosie turned 8"
        output.writes = scratched_writes(text, output.writes, existing, now=now)
        output.writes = restated_writes(text, output.writes, existing, now=now)
        output.writes = one_spouse(output.writes, existing)  # "my WIFE is Latisha"
    late_takes_place(output.writes, existing)
    taken = {w.entry.supersedes_id for w in output.writes if w.entry.supersedes_id}
    output.writes += ended_writes(text, existing, taken)
    if existing:  # "i quit starbucks, ...", "me and priya broke up": any record, by its value
        output.writes += dropped_writes(text, existing, output.writes, taken)
        output.writes += no_more_writes(text, existing, taken)  # "not on nights anymore"
    output.writes += _closing_writes(text, existing)
    return output


def _closing_writes(text: str, existing: Sequence[MemoryRecord]) -> list[WriteOp]:
    """The open loops ``text`` closes, each marked done."""
    out = []
    for rec in closed_loops(text, Kept.of(existing).open_loops):
        loop = OpenLoop(**{**(rec.open_loop or {}), "status": "done"})
        entry = WriterEntry(
            content=rec.content,
            tags=rec.tags,
            salience=rec.salience,
            ttl=rec.ttl,
            supersedes_id=rec.id,
            open_loop=loop,
            source_quote=[f"User message: '{text.strip()[:200]}'"],
        )
        out.append(WriteOp(op="update", scope=rec.scope, category=rec.category, entry=entry))
    return out
