"""Forgetting in the running bot: the workspace's :class:`~familiars.memory.Forgetter` with the
runtime's caches as hooks, and the words that ask for it. (A time window said in words is
``_forget_window``'s; how a forget's question and answer are worded, ``_forget_texts``'.)

Map:

- :func:`runtime_forgetter` - the one Forgetter of a running bot: it flushes held-back reply
  nodes first, then drops forgotten texts from the recaller, the embedder's cache and the
  ``/memory why`` log.
- :class:`ForgetByWords` - forgetting asked in words ("forget that", "forget that I live in
  Denver", "forget what I said in the last 5 minutes"), answered before the message becomes
  a turn: what it would remove is said, and asked about first when it is more than one thing.
- :func:`is_yes` - whether the person's next message says yes to a question (also to the
  question the model's ``forget`` tool has the bot ask: :meth:`ForgetByWords.ask`);
  :func:`is_clear_yes` - the plain yes forgetting a whole person waits for ("yes",
  "confirm"; never a bare "ok").
- "forget everything about me" (:func:`~familiars.bot._forget_person.asks_to_forget_me`) and
  ``/memory forget everything``: :func:`~familiars.bot._forget_texts.person_ask_text` names
  what would go, counted, and what is kept; ``person_done_text`` says what went.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from familiars.bot._forget_match import (
    PAST_SAID,
    name_asked,
    names_in,
    names_in_texts,
    names_said,
    past_asked,
    record_says,
    says,
    taste_asked,
    taste_of,
    told_with,
)
from familiars.bot._forget_person import asks_to_forget_me
from familiars.bot._forget_texts import (
    NOTHING_OF_YOURS,
    PERSON_IN_PRIVATE,
    count,
    done_text,
    gone_text,
    person_ask_text,
    person_done_text,
    plan_words,
    record_said,
    shorten,
    window_done_text,
)
from familiars.bot._forget_window import Window, parse_window
from familiars.bot._forget_words import (
    forget_about,
    forget_reminder,
    forget_request,
    names_last_message,
    said_instead,
)
from familiars.bot._home_zone import ZoneReader
from familiars.bot._yes_no import (
    answers_unclearly,
    asks_what_goes,
    is_plain_no,
    is_yes,
    plain_answer,
)
from familiars.llm import is_question
from familiars.memory import (
    TASTE,
    DialogTrees,
    FileForgetting,
    ForgetReport,
    Forgetter,
    MemoryReader,
    MemoryRecord,
    MemoryWorkspace,
    NodeRef,
    PeopleForgetting,
    RecordNotFoundError,
    TurnsPlan,
    every_text,
    evidence_refs,
    is_live,
    is_node_ref,
    is_slot,
    person_ref,
    remembered,
    restated_instead,
    slots_of,
    terms,
)

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the runtime's


def runtime_forgetter(
    memory: MemoryWorkspace,
    trees: DialogTrees,
    *,
    reader: MemoryReader | None,
    embedder: Any,
    flush: Callable[[], Awaitable[None]] | None,
    recall_log: MutableMapping[Any, list[dict[str, Any]]],
    fanout_log: MutableMapping[Any, Any] | None = None,
    documents: FileForgetting | None = None,
    people: PeopleForgetting | None = None,
) -> Forgetter:
    """The bot's Forgetter: its open trees, and hooks for every cache that held the text
    (the last recalls' sub-queries, which quote messages, go whole on any forget)."""

    async def drop_from_reader(report: ForgetReport) -> None:
        if reader is not None:
            await reader.forget_keys(report.keys)
        # Other workers' readers (database): the records' removal reaches them with the
        # store's changes, the turns' here.
        await memory.index.forgotten_turns([k for k in report.keys if is_node_ref(k)])

    def drop_from_embedder(report: ForgetReport) -> None:
        forget = getattr(embedder, "forget_texts", None)
        if forget is not None:
            forget([*report.texts, *report.derived])

    def drop_from_recall_log(report: ForgetReport) -> None:
        keys = set(report.keys)
        for log_key, items in list(recall_log.items()):
            kept = [it for it in items if it.get("id") not in keys]
            if len(kept) != len(items):
                recall_log[log_key] = kept
        if fanout_log is not None and keys:
            fanout_log.clear()

    return Forgetter(
        memory.store,
        memory.index,
        trees,
        hooks=(drop_from_reader, drop_from_embedder, drop_from_recall_log),
        before=flush,
        documents=documents,
        people=people,
    )


# --------------------------------------------------------------------------- yes and no


def is_no(text: str) -> bool:
    """A no to a forget question: one that starts with a no (a forget kept is the safe
    side), a plain no (:func:`is_plain_no`: "wait, no"), or "cancel" (the forget)."""
    words = plain_answer(text)
    starts = re.match(r"(?:no|nope|nah|don'?t|cancel|keep it)\b", words) is not None
    return "?" not in words and (starts or is_plain_no(text))


_CLEAR_YES = re.compile(r"\b(?:yes|yeah|yep|yup|confirm|confirmed|go\s+ahead|do\s+it)\b")


def is_clear_yes(text: str) -> bool:
    """A yes (:func:`is_yes`) that says so in words: "ok" alone (or "yeah right") does not
    erase a person."""
    words = plain_answer(text)
    return is_yes(text) and _CLEAR_YES.search(words) is not None  # "yeah right" is no yes


# --------------------------------------------------------------------------- by words

#: "forget what I said in the last 10 minutes", and the window alone: "forget the last 10
#: minutes", "forget everything from today".
_ASK_RE = re.compile(
    r"^(?:please\s+)?forget\s+(?:(?:what|everything|all(?:\s+that)?)\s+i(?:'ve|\s+have)?\s+"
    r"(?:said|wrote|told\s+you)\s+|(?:everything\s+|all\s+)?(?:from\s+|of\s+)?"
    r"(?=(?:the\s+)?(?:last|past)\s|today\b))(?P<when>.+?)[.!]?$"
)
KEPT = "Kept: I forgot nothing."
#: "forget my last message" once it is gone: "forget that" twice never reaches further back.
LAST_GONE = "Your last message here is forgotten already, so I forgot nothing more."
#: A yes that comes a message too late: the question it answers was let go by the message
#: between (it said "Oh? Tell me more." and the person believed it done: tester T22).
TOO_LATE = (
    "Nothing was forgotten: you wrote something else after my question, so I let it go. "
    "If you still want it, ask me again."
)
#: A yes that was not typed after the question was shown (typed ahead, pasted or forwarded
#: with the request: tester s38): the question still waits.
NOT_FRESH_YES = (
    "That yes reached me before my question was on your screen (typed ahead, or sent with "
    "what you asked), so I have forgotten nothing yet. If you mean it, reply yes now; "
    "no keeps it."
)
#: An answer to the forget question that is neither yes nor no: the question still waits.
STILL_ASKED = "I still need a yes or no: reply yes to go ahead, or no to keep it."
#: A description that matches nothing: not "already gone" (tester F7), and what to do.
NO_MATCH = (
    "I found nothing of yours that says that, so I forgot nothing. "
    "`/memory list` shows what I keep; `/memory forget <id>` forgets one of them."
)


@dataclass(frozen=True)
class _Asked:
    """A forget that waits for the person's yes: a time window, or ids (memories, turns)."""

    window: Window | None = None
    #: What the window's forget takes, as the question said it.
    plan: TurnsPlan | None = None
    ids: tuple[str, ...] = ()
    #: Everything about the person (:func:`asks_to_forget_me`): only a plain yes.
    person: bool = False
    #: Memories that stay although a message that goes is where they came from.
    keep: tuple[str, ...] = ()
    #: What the person said instead, after the break ("scratch that, my favourite colour
    #: is green"): a statement of its own, kept once they answered, yes or no.
    instead: str = ""


@dataclass(frozen=True)
class _Where:
    agent_id: str
    dialogue_id: str
    user_key: str
    is_group: bool


@dataclass
class _Found:
    """What a forget by words would remove: the ids, and the lines that say what they are."""

    ids: list[str]
    records: list[MemoryRecord]
    turns: list[str]
    #: What else was kept from the messages that go, and stays (not about what was named).
    kept: list[MemoryRecord] = field(default_factory=list)
    #: "forget that" pointed past the last message (a question): asked, never done at once.
    reached_back: bool = False
    #: The person's other messages that say what goes again (the values each says, its
    #: text): :meth:`ForgetByWords._with_mentions`.
    mentions: list[tuple[str, str]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.records) + len(self.turns) + len(self.mentions)


class ForgetByWords:
    """Forgetting asked in plain words, before the message becomes a turn (neither the ask
    nor the answer is kept):

    - "forget what I said in the last 5 minutes" / "... today": asks, then forgets on yes;
    - "forget that" (alone): the person's last message here and what was noted from it,
      at once when that is one memory at most, else after a yes;
    - "forget that I live in Denver": the person's memories and messages here that say it
      (:func:`~familiars.bot._forget_match.says`), always listed first and forgotten after
      a yes (a description may match more, or other, than the person meant).

    A pending question is answered by the person's next message only: yes (:func:`is_yes`)
    forgets, no keeps, anything else drops the question and is a turn as usual."""

    def __init__(
        self,
        forgetter: Forgetter,
        *,
        zone_of: ZoneReader | None = None,
    ) -> None:
        self.forgetter = forgetter
        #: The person's zone, in a group the room's (a window said there is read in it).
        self.zone_of = zone_of
        self._asked: dict[tuple[str, str, str], _Asked] = {}
        #: What was said instead of a forgotten thing, for the turn that follows the answer.
        self._instead: dict[tuple[str, str, str], str] = {}
        #: Questions the last message let go: a yes or no right after is told so.
        self._let_go: set[tuple[str, str, str]] = set()
        #: The question each waiting forget showed, said again to "what goes?".
        self._shown: dict[tuple[str, str, str], str] = {}

    async def answer(
        self,
        text: str,
        *,
        agent_id: str,
        dialogue_id: str,
        user_key: str,
        now: datetime,
        is_group: bool = False,
    ) -> str | None:
        """The reply when ``text`` asks to forget or answers the question (one that asks
        what would go, "what goes?", gets the question again); None for any other message
        (which also drops a pending question)."""
        key = (agent_id, dialogue_id, user_key)
        shown = self._shown.pop(key, "")  # it quotes what would go: kept while asked only
        before = self._asked.get(key)
        if shown and before is not None and asks_what_goes(text):
            self._shown[key] = shown
            return shown
        reply = await self._answer(text, key, now, is_group)
        after = self._asked.get(key)
        if after is not None and reply:
            self._shown[key] = shown if after is before else reply
        return reply

    async def _answer(
        self, text: str, key: tuple[str, str, str], now: datetime, is_group: bool
    ) -> str | None:
        agent_id, dialogue_id, user_key = key
        asked = self._asked.pop(key, None)
        let_go = key in self._let_go
        self._let_go.discard(key)
        if asked is None and let_go and (is_yes(text) or is_no(text)):
            return TOO_LATE if is_yes(text) else KEPT
        if asked is not None and asked.person and is_yes(text) and not is_clear_yes(text):
            self._asked[key] = asked  # "ok" does not erase a person: asked again
            return "To forget everything about you I need a plain yes (or no to keep it)."
        if asked is not None and is_yes(text):
            done = await self._go(asked, user_key, agent_id, now, is_group)
            self._then_note(key, asked)
            return done
        if asked is not None and is_no(text):
            self._then_note(key, asked)
            return KEPT
        if asked is not None and answers_unclearly(text):
            self._asked[key] = asked  # "yes but ...", "hmm": still asked, and said so
            return STILL_ASKED
        where = _Where(agent_id, dialogue_id, user_key, is_group)
        if asks_to_forget_me(text):
            return await self._everything(key, where)
        m = _ASK_RE.match(" ".join(text.lower().split()))
        if m is not None and (reply := await self._window(m["when"], key, where, now)):
            return reply
        what = forget_request(text)
        if what is None:
            # "forget everything about my sister", "forget the reminder to call mum"
            what = forget_about(text) or forget_reminder(text)
            if what is None:
                if asked is not None:
                    self._let_go.add(key)
                return None
        reply = await self._that(
            what, key, where, now, instead=said_instead(text), last=names_last_message(text)
        )
        if reply is None and asked is not None:
            self._let_go.add(key)
        return reply

    def _then_note(self, key: tuple[str, str, str], asked: _Asked) -> None:
        """Forgotten or kept (never when the forget failed), the statement said instead is
        the person's: a turn of its own follows (the forget was asked and the correction
        lost: review s34 F3)."""
        if asked.instead:
            self._instead[key] = asked.instead

    def ask(self, agent_id: str, dialogue_id: str, user_key: str, ids: tuple[str, ...]) -> None:
        """Wait for this person's answer to a question the bot asked in its reply (the
        model's ``forget`` tool): their next message here answers it in :meth:`answer`,
        yes forgets ``ids``, no keeps them, whatever a model would have said."""
        self._let_go.discard((agent_id, dialogue_id, user_key))
        self._shown.pop((agent_id, dialogue_id, user_key), None)  # the model worded it
        self._asked[(agent_id, dialogue_id, user_key)] = _Asked(ids=ids)

    def said_instead(self, agent_id: str, dialogue_id: str, user_key: str) -> str | None:
        """What the person said instead of what their answer just forgot or kept, once: the
        text of a turn to run after the answer; None when there is none."""
        return self._instead.pop((agent_id, dialogue_id, user_key), None)

    def waits(self, agent_id: str, dialogue_id: str, user_key: str) -> bool:
        """Whether a question waits for this person's answer here."""
        return (agent_id, dialogue_id, user_key) in self._asked

    def drop(self, agent_id: str, dialogue_id: str, user_key: str) -> None:
        """Drop the question waiting for this person's answer here (another was answered)."""
        self._asked.pop((agent_id, dialogue_id, user_key), None)
        self._shown.pop((agent_id, dialogue_id, user_key), None)

    async def _everything(self, key: tuple[str, str, str], where: _Where) -> str:
        """ "forget everything about me": what would go, counted, and a plain yes asked for
        (in a private chat only: the counts are the person's)."""
        if where.is_group:
            return PERSON_IN_PRIVATE
        try:
            holdings = await self.forgetter.person_holdings(where.user_key)
        except RecordNotFoundError:
            return NOTHING_OF_YOURS
        if holdings.empty:
            return NOTHING_OF_YOURS
        self._asked[key] = _Asked(person=True)
        return person_ask_text(holdings, command=False)

    async def _go(
        self, asked: _Asked, user_key: str, agent_id: str, now: datetime, is_group: bool
    ) -> str:
        if asked.person:
            report = await self.forgetter.forget(person_ref(user_key), now=now.timestamp())
            return person_done_text(report)
        if asked.window is not None:
            report = await self.forgetter.forget_turns(
                user_key,
                since=asked.window.since,
                until=asked.window.until,
                agent_id=agent_id,
                now=now.timestamp(),
            )
            if asked.plan is not None:
                return window_done_text(asked.window, asked.plan, report)
            return done_text(report, asked.window)
        report = await self.forgetter.forget_all(
            list(asked.ids), now=now.timestamp(), keep=asked.keep
        )
        return done_text(report)

    async def _window(
        self, when: str, key: tuple[str, str, str], where: _Where, now: datetime
    ) -> str | None:
        zone = await self.zone_of(where.user_key, where.is_group) if self.zone_of else None
        tz = zone.key if zone is not None else None
        window = parse_window(when, now, tz)
        if window is None:
            return None
        turns = await self.forgetter.turns_between(
            where.user_key, window.since, window.until, agent_id=where.agent_id, sent=True
        )
        if not turns:
            return f"You said nothing to me {window.label} that I still keep."
        plan = await self.forgetter.plan_turns(turns)
        self._asked[key] = _Asked(window=window, plan=plan)
        named = "" if where.is_group else await self._window_named(plan, where.user_key)
        return f"About to forget for good {plan_words(plan, window)}.{named} Reply yes to go ahead."

    async def _window_named(self, plan: TurnsPlan, user_key: str) -> str:
        """The memories a window's forget takes, named as every forget's question names them
        (tester s39: "1 memory I noted from them" was "you live in Bristol", unsaid), and
        the zone the person's times will follow once a home that gave theirs goes."""
        records = []
        for record_id in plan.records:
            with contextlib.suppress(RecordNotFoundError):
                records.append(await self.forgetter.store.get(record_id))
        said = "; ".join(shorten(record_said(r.content)).rstrip(".") for r in records)
        named = f"\nThe {'memory' if len(records) == 1 else 'memories'}: {said}." if said else ""
        if self.zone_of is None or not records:
            return named
        now, then = (
            await self.zone_of(user_key, False),
            await self.zone_of(user_key, False, without=plan.records),
        )
        if now.key != then.key:
            named += (
                f"\nYour reminders and times will then follow {then.key}, not {now.key} "
                "(/timezone sets yours)."
            )
        return named

    async def _that(
        self,
        what: str,
        key: tuple[str, str, str],
        where: _Where,
        now: datetime,
        *,
        instead: str,
        last: bool = False,
    ) -> str | None:
        """The answer to a forget by words. A question is nothing to scratch (tester s35
        U23 was asked to forget "what are my kids' names?"): "scratch that" points at the
        last statement, and with none before the question, "scratch that, it's three kids"
        is no forget but a statement (None). ``last``: the person's last message was named
        as such ("forget my last message"), a question too."""
        await self.forgetter.settle()  # the last turn's reply node and memories are in
        found = await (
            self._matching(what, where, now) if what else self._last(where, now, exact=last)
        )
        if found is None and instead and await self._asked_last(where):
            return None
        if found is None or not found.ids:
            if what:
                return NO_MATCH
            return LAST_GONE if last else "You have said nothing here that I still keep."
        if not what and found.size <= 1 and not instead and not found.reached_back:
            # "forget that": nothing to choose
            report = await self.forgetter.forget_all(found.ids, now=now.timestamp())
            return _forgotten_text(found, report, where.is_group)
        kept = tuple(r.id for r in found.kept)
        instead = restated_instead(instead, found.records) if instead else ""  # "its dosa"
        self._asked[key] = _Asked(ids=tuple(found.ids), keep=kept, instead=instead)
        if not instead:
            return _ask_text(found, where.is_group)
        return (
            f'{_ask_text(found, where.is_group)} Either way, I\'ll then note "{shorten(instead)}".'
        )

    async def _asked_last(self, where: _Where) -> bool:
        """Whether the person's last message here was a question."""
        ref = await self.forgetter.last_turn(where.user_key, where.agent_id, where.dialogue_id)
        return ref is not None and is_question((await self.forgetter.node(ref)).content)

    async def _last_statement(self, where: _Where) -> NodeRef | None:
        """The person's last message here that is not a question (a question is nothing to
        scratch); None when the last message is forgotten."""
        ref = await self.forgetter.last_turn(where.user_key, where.agent_id, where.dialogue_id)
        if ref is None:
            return None
        last = await self.forgetter.node(ref)
        if not is_question(last.content):
            return ref
        before = await self.forgetter.turns_between(
            where.user_key, 0.0, last.timestamp, agent_id=where.agent_id
        )
        for earlier in reversed(before):
            if earlier.dialogue_id != where.dialogue_id or earlier == ref:
                continue
            if not is_question((await self.forgetter.node(earlier)).content):
                return earlier
        return None

    async def _last(self, where: _Where, now: datetime, *, exact: bool = False) -> _Found | None:
        """The person's last statement here (``exact``: their last message, whatever it
        is) and the memories written from it."""
        if exact:
            ref = await self.forgetter.last_turn(where.user_key, where.agent_id, where.dialogue_id)
        else:
            ref = await self._last_statement(where)
        if ref is None:
            return None
        agents_with = remembered(self.forgetter.trees.agents_with)
        records = [
            r
            for r in await self._visible(where, now)
            if any(e == ref for e in evidence_refs(r, agents_with))
        ]
        node = await self.forgetter.node(ref)
        last = await self.forgetter.last_turn(where.user_key, where.agent_id, where.dialogue_id)
        said = [] if records else [node.content]
        # The memories by id too: the Forgetter then takes the messages that repeat them.
        ids = [*(r.id for r in records), ref.key]
        found = _Found(ids, records, said, reached_back=ref != last)
        return await self._with_mentions(found, await self._visible(where, now))

    async def _matching(self, what: str, where: _Where, now: datetime) -> _Found:
        """The person's memories, and their messages here, that say ``what`` (with the other
        messages that say what those memories say of them: :meth:`_with_mentions`)."""
        visible = await self._visible(where, now)
        found = await self._described(what, where, visible)
        return await self._with_mentions(found, visible)

    async def _described(self, what: str, where: _Where, visible: list[MemoryRecord]) -> _Found:
        """What says ``what``: a name ("May", "Rose", "Will") as a name, never as the word
        "may"; a word written as a name that names no one ("Work") as the word."""
        names = name_asked(what, names_in(visible))
        if names:
            found = await self._matching_terms(set(), names, visible, where)
            if found.ids:
                return found
            names = set()
        what, past = past_asked(what)
        want = terms(what)
        if want == {TASTE} or (want and all(is_slot(t) for t in want)):
            # "where I live", "my address": the person's own, not their sister's home in
            # Cork nor their mum's, nor the messages that said those (review s35 R6). None
            # of the slot kept: nothing, never a message that only uses its word (review
            # s36 item 6); none replaced: nothing, never the one that is so now.
            visible = [r for r in visible if r.category != "relation"]
            if want == {TASTE}:  # "what I like": the likes, never dislikes nor wishes
                asked = taste_asked(what)
                return self._slot_found([r for r in visible if taste_of(r) == asked], visible)
            return self._slot_found(_filling(want, past, visible), visible)
        return await self._matching_terms(want, names, visible, where)

    def _slot_found(self, records: list[MemoryRecord], visible: list[MemoryRecord]) -> _Found:
        """A slot asked for ("where I live", "my old job"): the records that fill it, what
        they replaced, and the messages they came from; no message only for using one of
        the slot's words (tester s36: "/forget where I live" also took the job, told in
        "I work from home ...", and "Remind me to book Toby's train home.")."""
        records = records + _replaced_by(records, visible)
        agents_with = remembered(self.forgetter.trees.agents_with)
        sources = {e.key for r in records for e in evidence_refs(r, agents_with)}
        kept = [
            r
            for r in visible
            if r not in records
            and not r.deprecated
            and any(e.key in sources for e in evidence_refs(r, agents_with))
        ]
        return _Found([r.id for r in records], records, [], kept)

    async def _matching_terms(
        self,
        want: set[str],
        names: set[str],
        visible: list[MemoryRecord],
        where: _Where,
    ) -> _Found:
        """What says ``want`` (its share of terms) or one of ``names`` (as a name), and all
        that is said of a name these give someone, with what was kept from it."""
        said_here = await self._said_here(where)

        def matches(text: str) -> bool:
            return says(want, text) or names_said(names, text)

        records = [r for r in visible if matches(r.content) or record_says(want, r)]
        # "my husband": and all that is said of Craig, his name, in any case (tester s35
        # U6: "The user's sparky is called Craig." and the messages naming him stayed).
        names = set(names) | names_in(records)
        names |= names_in_texts(c for _, t in said_here for c in _clauses(t) if matches(c))
        records += [r for r in visible if r not in records and names_said(names, r.content)]
        agents_with = remembered(self.forgetter.trees.agents_with)
        told = {k for k, t in said_here if matches(t)}
        records += _noted_from(told, want, visible, records, agents_with)
        records += told_with(
            want, said_here, [r for r in visible if r not in records and not r.deprecated],
            lambda r: [e.key for e in evidence_refs(r, agents_with)],
        )  # fmt: skip
        # What a record replaced is what it said before (tester s35 U4: the old home
        # stayed in the history, the files and the turns after "forget that I live in Otley").
        records += _replaced_by(records, visible)
        sources = {e.key for r in records for e in evidence_refs(r, agents_with)}
        turns = [(k, t) for k, t in said_here if k not in sources and matches(t)]
        # What was kept from a matching message goes with it (it quotes the words): say so;
        # what else was kept from it, or from a message a matching memory came from, stays
        # (a message that said several things: tester U2, "forget about Shelly" took the
        # wife, the dog and the job).
        said = {k for k, _ in turns} | sources
        kept = [
            r
            for r in visible
            if r not in records
            and not r.deprecated
            and any(e.key in said for e in evidence_refs(r, agents_with))
        ]
        ids = [r.id for r in records] + [k for k, _ in turns]
        return _Found(ids, records, [t for _, t in turns], kept)

    async def _with_mentions(self, found: _Found, visible: list[MemoryRecord]) -> _Found:
        """The person's other messages that say a value of a memory that goes ("Leeds" of
        "you live in Leeds"), listed: the Forgetter takes them with the memory
        (:meth:`~familiars.memory.Forgetter.repeating`, the same on every road), the replies
        to them with them (tester s37: "forget where I live" kept "... dental hygienist in
        Leeds", a message no home memory was noted from). What else was noted from those
        messages stays, and the question says so."""
        agents_with = remembered(self.forgetter.trees.agents_with)
        going = {*found.ids, *(e.key for r in found.records for e in evidence_refs(r, agents_with))}
        repeats = await self.forgetter.repeating(found.records, besides=going)
        # The bot's replies that say it go too (the Forgetter takes them): not listed as
        # messages of the person's.
        found.mentions += [(" and ".join(r.values), r.text) for r in repeats if not r.reply]
        added = {r.ref.key for r in repeats}
        found.kept += [
            r
            for r in visible
            if r not in found.records
            and r not in found.kept
            and not r.deprecated
            and any(e.key in added for e in evidence_refs(r, agents_with))
        ]
        return found

    async def _said_here(self, where: _Where) -> list[tuple[str, str]]:
        """The person's messages in this dialogue that are still kept: (key, text)."""
        said: list[tuple[str, str]] = []
        for ref in await self.forgetter.turns_between(where.user_key, 0.0, agent_id=where.agent_id):
            if ref.dialogue_id == where.dialogue_id:
                said.append((ref.key, (await self.forgetter.node(ref)).content))
        return said

    async def _visible(self, where: _Where, now: datetime) -> list[MemoryRecord]:
        """What the person may forget by words: their own memories, and those a change
        replaced (deprecated, still kept); in a private chat also the chat's."""
        store = self.forgetter.store
        found = await store.list(scope="user", user_key=where.user_key, live_only=False)
        if not where.is_group:
            found += await store.list(
                scope="dialogue",
                agent_id=where.agent_id,
                dialogue_id=where.dialogue_id,
                live_only=False,
            )
        return [r for r in found if r.deprecated or is_live(r, now=now)]


def _clauses(text: str) -> list[str]:
    """The clauses of a message: a name is someone's only in the clause that says so ("My
    wife is called Helen, our tortoise is called Shelly": Shelly is not the wife)."""
    return [c for c in re.split(r"[,;.!?]|\b(?:and|but)\b", text) if c.strip()]


def _filling(want: set[str], past: bool, visible: list[MemoryRecord]) -> list[MemoryRecord]:
    """The records of ``visible`` that fill a slot of ``want``; with ``past`` ("my old
    job", "where I used to live") only those a newer one replaced, or that say they are
    past ("The user used to work as a nurse.")."""
    filling = [r for r in visible if want & slots_of(r)]
    if not past:
        return filling
    return [r for r in filling if r.deprecated] or [
        r for r in filling if PAST_SAID.search(r.content)
    ]


def _noted_from(
    told: set[str],
    want: set[str],
    visible: list[MemoryRecord],
    found: list[MemoryRecord],
    agents_with: Callable[[str], list[str]],
) -> list[MemoryRecord]:
    """The memories of ``visible`` (not in ``found``) noted from a message that says what
    was named (``told``: its turn keys) and sharing a word of it that is not a slot's: they
    say it in the writer's words (tester s36: "forget that i hate mushrooms" kept "The user
    doesn't like mushrooms you r." as said in the same message, not about it)."""
    named = {t for t in want if not is_slot(t) and t != TASTE}
    if not named or not told:
        return []
    return [
        r
        for r in visible
        if r not in found
        and named & terms(r.content)
        and any(e.key in told for e in evidence_refs(r, agents_with))
    ]


def _replaced_by(records: list[MemoryRecord], pool: list[MemoryRecord]) -> list[MemoryRecord]:
    """The records of ``pool`` that ``records`` replaced, and those they replaced, on down
    the ``supersedes`` chain (not already in ``records``)."""
    by_id = {r.id: r for r in pool}
    seen = {r.id for r in records}
    out: list[MemoryRecord] = []
    for rec in records:
        older = by_id.get(rec.supersedes or "")
        while older is not None and older.id not in seen:
            seen.add(older.id)
            out.append(older)
            older = by_id.get(older.supersedes or "")
    return out


def _lines(found: _Found) -> list[str]:
    lines: list[str] = []
    for r in found.records:
        said = record_said(r.content)
        if r.deprecated and said in lines:
            continue  # a merged record's source, in the same words
        every = (r.open_loop or {}).get("every")
        if isinstance(every, dict) and every_text(every):  # not a one-off (tester s39)
            said = f"{said.rstrip('.')}, repeating {every_text(every)}."
        lines.append(f"{said.rstrip('.')} (since replaced)." if r.deprecated else said)
    lines += [f'what you said: "{shorten(t)}"' for t in found.turns]
    return lines + [
        f'a message of yours that mentions {values}: "{shorten(t)}"' for values, t in found.mentions
    ]


def _ask_text(found: _Found, is_group: bool) -> str:
    if is_group:  # the memories may be private: counted, not read out to the group
        return (
            f"About to forget for good {count(len(found.records), 'memory', 'memories')} and "
            f"{count(len(found.turns) + len(found.mentions), 'other message')} of yours. "
            "Reply yes to go ahead."
        )
    items = "\n".join(f"- {shorten(line)}" for line in _lines(found))
    one = found.size == 1
    return (
        f"About to forget for good:\n{items}\n"
        f"(with the {'message it' if one else 'messages they'} came from, and any message "
        f"since that repeated {'it' if one else 'them'}).{_kept_text(found)} "
        f"Reply yes to go ahead, or no to keep {'it' if one else 'them'}."
    )


def _kept_text(found: _Found) -> str:
    """What stays although it was said in a message that goes (""  when nothing)."""
    if not found.kept:
        return ""
    said = "; ".join(shorten(record_said(r.content)).rstrip(".") for r in found.kept)
    return f"\nKept, though said in the same message: {said}."


def _forgotten_text(found: _Found, report: ForgetReport, is_group: bool) -> str:
    if is_group:
        return done_text(report)
    said = " ".join(shorten(line) for line in _lines(found))
    return f"Forgotten: {said}\n{gone_text(report)}"
