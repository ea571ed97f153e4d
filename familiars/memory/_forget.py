"""Forgetting that forgets: a memory's or a turn's words removed from everywhere the
workspace keeps them.

Map:

- :class:`Forgetter` - the one entry point. :meth:`Forgetter.forget` takes a memory id
  (``m_...``) or a turn id (``node:<agent>/<dialogue>/<n>``, as ``/memory why`` and
  ``/memory search`` show it); :meth:`Forgetter.forget_turns` a person's turns of a time
  window ("forget what I said in the last 10 minutes"); :meth:`Forgetter.forget_all` several
  of either at once (a forget by words that names more than one), a document (``file:ID``)
  or a whole person (``person:KEY``: every key of theirs, all that is theirs, see
  :mod:`familiars.memory._forget_person`; :meth:`Forgetter.person_holdings` counts it
  first, for the question). Every way to forget
  (commands, CLI, control socket, API, plain words, the model's tool) ends here, and nothing
  else deletes what a person asked to forget.
- What goes, in order: the record (its entry and its history, a tombstone left:
  ``MemoryStore.forget``); the turns it came from (its ``evidence``), the person's other
  messages that say a value of it again (:meth:`Forgetter.repeating`) and every reply or
  turn of the same person quoting the forgotten text, as tombstones in ``dialogue.json`` (the
  journal folded in and removed, so no line keeps the text); forgetting a turn also forgets
  the records written from it; then the derived copies: the index's vectors of the text,
  its FTS segments merged (``secure_delete`` zeroes what they held) and the WAL truncated
  (:meth:`MemoryIndex.purge_texts`), the files beside the memory (the writer queue with its
  ``failed/`` copies, ``pending_reply.json``, the JSON under ``state/``, the logs:
  :mod:`familiars.memory._forget_files`), and whatever recall caches the hooks name.
- :func:`parse_node_ref` / :func:`node_ref` - the turn id format (in ``_forget_refs``).
- :class:`ForgetReport` - what was forgotten (for the confirmation line and the hooks).

A hook is ``hook(report)`` (may be a coroutine function): the running bot's recaller drops
its rows and the embedder cache its texts there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from familiars.llm import clear_text_caches
from familiars.memory._backend import RecordIndex
from familiars.memory._dialog_tree import DialogTree, Node, is_forgotten
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._errors import InvalidIdError, RecordNotFoundError
from familiars.memory._forget_files import Forgotten, forgotten_of, scrub_files, scrub_state
from familiars.memory._forget_intent import ForgetIntent, ForgetIntents, as_dict
from familiars.memory._forget_person import (
    PeopleForgetting,
    PersonHoldings,
    PersonScope,
    is_person_ref,
    is_theirs,
    parse_person_ref,
    read_trees,
)
from familiars.memory._forget_plan import TurnsPlan, plan_turns, quoting, window_nodes
from familiars.memory._forget_quotes import quotes_to_drop
from familiars.memory._forget_refs import (
    NodeRef,
    evidence_keys,
    evidence_refs,
    file_ref,
    is_file_ref,
    is_node_ref,
    node_ref,
    parse_node_ref,
    remembered,
)
from familiars.memory._forget_repeats import Repeat, by_record, forgotten_with, repeats_of
from familiars.memory._paths import RECORD_ID_RE
from familiars.memory._people_index import forget_people_rows
from familiars.memory._promotion import CORE_TAG, EPISODE_TAG
from familiars.memory._recall_items import node_embedding_text
from familiars.memory._records import MemoryRecord
from familiars.memory._rederive import rederive_after_forget
from familiars.memory._state_home import FileStateHome, StateHome
from familiars.memory._store import MemoryStore
from familiars.memory._text import sentences

logger = logging.getLogger(__name__)

ForgetHook = Callable[["ForgetReport"], Awaitable[None] | None]
Before = Callable[[], Awaitable[None]]


class FileForgetting(Protocol):
    """What forgets a document (``DocumentFinder``): every row, vector, edit-history line
    and stored byte of it, on both homes; the paths forgotten."""

    async def forget_file_id(self, file_id: str) -> list[str]: ...
    async def describe_file(self, file_id: str) -> tuple[str, str] | None: ...
    async def forget(self, user_key: str | None, file_id: str | None = None) -> list[str]: ...
    async def list_files(self, user_key: str | None = None) -> Sequence[Any]: ...


def merged_away(rec: MemoryRecord) -> list[str]:
    """The records a consolidated ``rec`` replaced (its ``derived_from``); none for a
    stage (an episode or a core profile sums up turns and records that stand on their
    own)."""
    if {CORE_TAG, EPISODE_TAG} & set(rec.tags):
        return []
    return [s for s in rec.derived_from if RECORD_ID_RE.fullmatch(s)]


@dataclass
class ForgetReport:
    """What one forget removed: record ids, turn ids, and the texts they held."""

    records: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    #: Those of ``nodes`` that were people's messages (the rest were the bot's).
    said: list[str] = field(default_factory=list)
    #: Those of ``nodes`` taken as saying a forgotten record's value again: the person's
    #: messages (in ``said``) and the bot's replies to them (not in it).
    repeats: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    #: Those of ``texts`` that are the bot's replies taken along (matched only whole).
    replies: list[str] = field(default_factory=list)
    #: What those texts were embedded as besides themselves (a turn as "Speaker: text" and
    #: each of its sentences): their cached vectors go too, but they match nothing else.
    derived: list[str] = field(default_factory=list)
    #: Consolidated entries made from a forgotten record: old id -> the entry that now
    #: stands for it (made again from the sources left), or dropped (none left).
    rederived: dict[str, str] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    #: Documents forgotten (``file:...``): the paths they had.
    files: list[str] = field(default_factory=list)
    #: People forgotten whole (``person:...``): every key of theirs.
    people: list[str] = field(default_factory=list)
    #: What the bot's state dropped of them beside the memory (names, links, sign-ins).
    state: list[str] = field(default_factory=list)
    #: Where their files held what could not be read (``users/<key>/<file>:<line>``).
    unread: list[str] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        """Every id the recall index may hold a row for."""
        return [*self.records, *self.nodes]

    def as_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "nodes": self.nodes,
            "texts": len(self.texts),
            "rederived": self.rederived,
            "dropped": self.dropped,
            "files": self.files,
            "repeats": self.repeats,
            **(
                {"people": self.people, "state": self.state, "said": self.said}
                if self.people
                else {}
            ),
        }


def embedded_forms(text: str, speaker: str | None) -> list[str]:
    """The other texts a turn was embedded as (see ``node_embedding_text`` and the reader's
    sentence vectors): the whole turn with its speaker, and each sentence with and without."""
    forms = [node_embedding_text(text, speaker)]
    for part in sentences(text):
        forms += [part, node_embedding_text(part, speaker)]
    return [f for f in dict.fromkeys(forms) if f != text]


class Forgetter:
    """Forgets records and turns in one workspace (see the module map)."""

    def __init__(
        self,
        store: MemoryStore,
        index: RecordIndex,
        trees: DialogTrees,
        *,
        hooks: Sequence[ForgetHook] = (),
        before: Before | None = None,
        documents: FileForgetting | None = None,
        people: PeopleForgetting | None = None,
        home: StateHome | None = None,
    ) -> None:
        self.store = store
        #: Each forget's intent (:mod:`familiars.memory._forget_intent`): a crash mid-forget
        #: is finished by :meth:`resume` at the next start.
        self.intents = ForgetIntents(home or trees.home or FileStateHome(store.workspace))
        self._intent: ForgetIntent | None = None
        self._live: set[str] = set()  # this process's intents, run here: never resumed
        #: The bot's state (``familiars.bot``): a person's keys, and what it keeps of them.
        self.people = people
        #: The document finder: a ``file:...`` id is forgotten there.
        self.documents = documents
        self.index = index
        self.trees = trees
        self.hooks = list(hooks)
        #: Called first: the runtime adds the reply nodes it still holds back.
        self.before = before
        self._lock = asyncio.Lock()
        #: The repeats of the records the running forget takes (:meth:`_repeats_of_all`).
        self._repeats: dict[str, list[NodeRef]] = {}
        #: The agents' names (the runtime's settings): never a value of a person's memory.
        self.bot_names: set[str] = set()

    # ------------------------------------------------------------------ entry points

    @classmethod
    def for_workspace(cls, workspace: Any, **kwargs: Any) -> Forgetter:
        """The Forgetter of an open :class:`~familiars.memory.MemoryWorkspace` with trees of
        its own (a process that is not the running bot: the CLI with no bot running)."""
        trees = DialogTrees(workspace.path, home=workspace.home)
        return cls(workspace.store, workspace.index, trees, **kwargs)

    async def settle(self) -> None:
        """What the runtime still holds is written first (reply nodes, queued writes), so
        what is looked up next, and forgotten, is all there is."""
        if self.before is not None:
            await self.before()

    async def forget(self, item_id: str, *, now: float | None = None) -> ForgetReport:
        """Forget a memory (``m_...``), a turn (``node:...``), a document (``file:...``) or
        a person (``person:...``)."""
        return await self.forget_all([item_id], now=now)

    async def forget_all(
        self, item_ids: Sequence[str], *, now: float | None = None, keep: Sequence[str] = ()
    ) -> ForgetReport:
        """Forget several memories and turns in one go (one report, one pass over the
        derived copies). Every id is checked before anything is forgotten. ``keep``: memories
        that stay although a turn forgotten here is where they came from (a forget by words
        of one thing a message said keeps the other things it said)."""
        files = [i.strip()[5:] for i in item_ids if is_file_ref(i)]
        for item_id in item_ids:
            if not (
                is_node_ref(item_id) or is_file_ref(item_id) or is_person_ref(item_id)
            ) and not RECORD_ID_RE.fullmatch(item_id):
                raise InvalidIdError(
                    "memory id", item_id, "m_..., node:AGENT/DIALOGUE/N, file:ID or person:KEY"
                )
        if files and self.documents is None:
            raise InvalidIdError("memory id", files[0], "m_... or node:AGENT/DIALOGUE/N here")
        return await self._durably(list(item_ids), now, keep)

    async def resume(self) -> list[ForgetReport]:
        """Finish every forget a crash (or an error) left unfinished: each start of a process
        that forgets calls this before it serves (in the database a live worker's forget is
        left to it). What its first steps took away is found again by the intent's texts."""
        done: list[ForgetReport] = []
        async with self._lock:
            for name in await self.intents.left():
                if name in self._live:  # this process's own, written before it waits here
                    continue
                async with self.intents.lease(name) as mine:
                    intent = await self._left_intent(name) if mine else None
                    if intent is None:  # a live worker's, finished meanwhile, or not for us
                        continue
                    logger.warning("finishing a forget a crash left: %s", as_dict(intent))
                    await self.settle()
                    done.append(await self._run_intent(intent, resumed=True))
        return done

    async def _left_intent(self, name: str) -> ForgetIntent | None:
        """The intent to finish here; None (kept, and said) when it cannot be read or needs
        what this process lacks (a person's state, the documents): a start that has them
        finishes it."""
        try:
            intent = await self.intents.load(name)
        except ValueError as exc:
            logger.error("%s; it is kept for a look by hand", exc)
            return None
        if intent is None:
            return None
        lacks = [
            what
            for what, needed, have in (
                ("the bot's state of people", any(map(is_person_ref, intent.ids)), self.people),
                ("the documents", any(map(is_file_ref, intent.ids)), self.documents),
            )
            if needed and have is None
        ]
        if lacks:
            logger.warning("a forget left by a crash needs %s: left for the bot", lacks)
            return None
        return intent

    async def _durably(
        self, item_ids: list[str], now: float | None, keep: Sequence[str] = ()
    ) -> ForgetReport:
        """Run a forget under its intent: written before the first step, removed after the
        last. On an error the intent stays when a step may have taken something (the next
        start finishes it), and goes when nothing was touched. Once begun it runs to its end
        when its caller is cancelled (a Ctrl-C stops the console's turn), and the cancel goes
        on after it: cut short, what it had not yet taken stayed until the next start."""
        task = asyncio.ensure_future(self._intended(item_ids, now, keep))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            while not task.done():  # cancelled again: it still runs to its end
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait((task,))
            if not task.cancelled() and (error := task.exception()) is not None:
                logger.warning("a forget whose caller was cancelled failed: %r", error)
            raise

    async def _intended(
        self, item_ids: list[str], now: float | None, keep: Sequence[str]
    ) -> ForgetReport:
        """The intent is written (fsynced) before this waits for the lock or :meth:`settle`:
        a forget confirmed just before a crash is finished at the next start (tester s38)."""
        intent = self.intents.new(item_ids, now, keep)
        self._live.add(intent.name)
        try:
            async with self.intents.lease(intent.name):
                await self.intents.begin(intent)
                async with self._lock:
                    await self.settle()
                    return await self._run_intent(intent, resumed=False)
        finally:
            self._live.discard(intent.name)

    async def _run_intent(self, intent: ForgetIntent, *, resumed: bool) -> ForgetReport:
        self._intent = intent
        try:
            report = await self._run(intent, resumed=resumed)
        except BaseException:
            if not intent.started:
                await self.intents.end(intent)
            raise
        finally:
            self._intent, self._repeats = None, {}
        await self.intents.end(intent)
        return report

    async def _run(self, intent: ForgetIntent, *, resumed: bool) -> ForgetReport:
        """The steps of :meth:`forget_all`; ``resumed``: what is gone already is skipped,
        and what the intent noted joins the report for the derived copies."""
        ids, now = intent.ids, intent.now
        report = ForgetReport()
        if resumed:
            report.texts += intent.texts
            report.derived += intent.derived
        for user_key in dict.fromkeys(parse_person_ref(i) for i in ids if is_person_ref(i)):
            with _unless(resumed):
                await self._forget_person(report, user_key, now)
        for file_id in dict.fromkeys(i.strip()[5:] for i in ids if is_file_ref(i)):
            assert self.documents is not None
            with _unless(resumed):
                report.files += await self.documents.forget_file_id(file_id)
        refs = [parse_node_ref(i) for i in ids if is_node_ref(i)]
        records = [i for i in ids if RECORD_ID_RE.fullmatch(i) and not is_node_ref(i)]
        self._repeats = await self._repeats_of_all(records)
        for record_id in records:
            if record_id not in report.records:
                with _unless(resumed):
                    await self._forget_record(report, record_id, now)
        fresh = [r for r in refs if r.key not in report.nodes]
        with _unless(resumed):
            await self._forget_turn_refs(report, fresh, now, keep=frozenset(intent.keep))
        if resumed:
            await self._redo(report, intent, now)
        await self._finish(report)
        return report

    async def _redo(self, report: ForgetReport, intent: ForgetIntent, now: float | None) -> None:
        """What the intent noted before the crash: each record and turn taken again (what
        is gone already is skipped), replies quoting its texts, then all of it counted for
        the derived copies."""
        for record_id in intent.records:
            if record_id not in report.records:
                with _unless(True):
                    await self._forget_record(report, record_id, now)
        # An entry gone before the crash left its history (and the start noted its removal
        # as a hand edit, the whole record with it): _forget_record cannot find it.
        await self.store.purge_left_history(intent.records)
        turns = [parse_node_ref(n) for n in intent.nodes if n not in report.nodes]
        await self._tombstone(report, turns, now, owner=None)
        await self._tombstone_quotes(report, now, owner=None)
        report.records += [r for r in intent.records if r not in report.records]
        report.nodes += [n for n in intent.nodes if n not in report.nodes]

    async def _ahead(self, **taken: Any) -> None:
        """Note in the intent what the next step takes away, before it does."""
        if self._intent is not None:
            await self.intents.note(self._intent, **taken)

    async def forget_turns(
        self,
        user_key: str,
        *,
        since: float,
        until: float | None = None,
        agent_id: str | None = None,
        now: float | None = None,
    ) -> ForgetReport:
        """Forget ``user_key``'s turns from ``since`` (epoch seconds) to ``until``, in every
        dialogue (of ``agent_id`` when given), the bot's messages to them sent unasked in
        that time, and the records written from them."""
        async with self._lock:
            await self.settle()
            refs = await self.turns_between(user_key, since, until, agent_id=agent_id, sent=True)
        return await self._durably([r.key for r in refs], now)

    async def plan_turns(self, refs: Sequence[NodeRef]) -> TurnsPlan:
        """What :meth:`forget_turns` of ``refs`` would take (nothing is taken): for the
        question, which then says exactly what goes."""
        async with self._lock:
            await self.settle()
            agents_with = remembered(self.trees.agents_with)
            return plan_turns(
                [(r.agent_id, r.dialogue_id, r.node_id) for r in refs],
                await self._all_trees(),
                await self.store.list(live_only=False),
                lambda rec: evidence_keys(rec, agents_with),
                node_ref,
            )

    async def person_holdings(self, user_key: str) -> PersonHoldings:
        """What forgetting the person ``user_key`` is (every key of theirs) would remove,
        counted; RecordNotFoundError when nothing is known of them."""
        async with self._lock:
            await self.settle()
            scope, known = await self._person_scope(user_key)
            live = {r.id for r in await self.store.list()}
            files = 0
            if self.documents is not None:
                for key in sorted(scope.keys):
                    files += len(await self.documents.list_files(key))
            folders = {self.store.workspace / "users" / key for key in scope.keys}
            errors = await self.store.parse_errors()  # hand-broken entries of theirs
            unread = sum(1 for e in errors if e.path is not None and e.path.parent in folders)
            holdings = scope.holdings(live, files, unread)
            if holdings.empty and not known:
                raise RecordNotFoundError(f"person:{user_key}")
            return holdings

    async def _person_scope(self, user_key: str) -> tuple[PersonScope, bool]:
        """What is the person's (:mod:`familiars.memory._forget_person`), and whether the
        bot's state knows them."""
        known = await self.people.keys_of(user_key) if self.people is not None else []
        return await self._scope_of([user_key, *known]), bool(known)

    async def _scope_of(self, keys: Sequence[str]) -> PersonScope:
        scope = PersonScope(frozenset(keys))
        read_trees(scope, await self._all_trees())
        said = {*scope.turns, *scope.gone}
        agents_with = remembered(self.trees.agents_with)
        for rec in await self.store.list(live_only=False):
            if is_theirs(rec, scope, said, evidence_keys(rec, agents_with)):
                scope.records.append(rec)
        return scope

    async def _forget_person(self, report: ForgetReport, user_key: str, now: float | None) -> None:
        """Everything of one person (see :mod:`familiars.memory._forget_person`)."""
        noted = self._intent.people.get(user_key, []) if self._intent is not None else []
        known = await self.people.keys_of(user_key) if self.people is not None else []
        known = sorted({*known, *noted})  # a resumed forget: their links may be gone
        scope = await self._scope_of([user_key, *known])
        keys = sorted(scope.keys)
        documents = self.documents
        paths = [p for k in keys for p in await documents.forget(k)] if documents else []
        if not (known or paths or scope.records or scope.turns or scope.own):
            raise RecordNotFoundError(f"person:{user_key}")
        await self._ahead(people={user_key: keys})
        report.people += keys
        report.files += paths
        await self._forget_scope(report, scope, now)
        # A turn of theirs under way meanwhile (another chat, a linked account) may have
        # said, answered or noted more: looked for again, with the same keys (the links go
        # last), until nothing of theirs is left.
        for _ in range(PERSON_ROUNDS):
            await self.settle()
            scope = await self._scope_of(keys)
            scope.records = [r for r in scope.records if r.id not in report.records]
            if not (scope.turns or scope.records or _unforgotten(scope.own)):
                break
            await self._forget_scope(report, scope, now)
        unread = [where for key in keys for where in await self.store.forget_unparsed(key)]
        report.unread += unread
        if unread:  # hand edits of their own files that do not parse (tester F18)
            report.state.append(
                f"what I could not read in their files, gone too: {', '.join(unread)}"
            )
        if self.people is not None:
            report.state += await self.people.forget_people(keys)

    async def _forget_scope(
        self, report: ForgetReport, scope: PersonScope, now: float | None
    ) -> None:
        await self._tombstone(report, [NodeRef(*t) for t in scope.turns], now, owner=None)
        for tree in scope.own:  # no one else spoke here: the bot's words go too
            left = [n.id for n in tree.node_list if not is_forgotten(n)]
            await self._tombstone_in(tree, left, report, now)
        todo = [r for r in scope.records if r.id not in report.records]
        await self._ahead(texts=[r.content for r in todo], records=[r.id for r in todo])
        # All at once: the store's writer takes every queued forget in one batch (one write
        # of each file, not one a record).
        done = await asyncio.gather(
            *(self.store.forget(r.id) for r in todo), return_exceptions=True
        )
        for rec, result in zip(todo, done, strict=True):
            if isinstance(result, RecordNotFoundError):  # gone meanwhile
                continue
            if isinstance(result, BaseException):
                raise result
            report.records.append(rec.id)
            report.texts.append(rec.content)
        await self._tombstone_quotes(report, now, owner=None)
        await self._unname(scope)

    async def _unname(self, scope: PersonScope) -> None:
        """Their name out of the tombstones of their messages (a tombstone keeps who spoke,
        so "forget that" twice does not reach further back: their key is enough)."""
        for agent_id, dialogue_id in sorted({(a, d) for a, d, _ in scope.turns} | scope.own_ids):
            tree = await self.trees.aget(agent_id, dialogue_id)
            named = [
                n
                for n in tree.node_list
                if n.node_type == "Q"
                and n.metadata.get("user_key") in scope.keys
                and "speaker" in n.metadata
            ]
            for n in named:
                del n.metadata["speaker"]
            if named:
                await asyncio.to_thread(_rewrite, tree)

    async def turns_between(
        self,
        user_key: str,
        since: float,
        until: float | None = None,
        *,
        agent_id: str | None = None,
        sent: bool = False,
    ) -> list[NodeRef]:
        """The person's own (not yet forgotten) turns in a time window, oldest first; with
        ``sent``, also the bot's messages to them sent unasked (:func:`window_nodes`)."""
        found: list[tuple[float, NodeRef]] = []
        for tree in await self._all_trees():
            if agent_id is not None and tree.agent_id != agent_id:
                continue
            assert tree.agent_id is not None and tree.dialogue_id is not None
            found += [
                (n.timestamp, NodeRef(tree.agent_id, tree.dialogue_id, n.id))
                for n in window_nodes(tree, user_key, since, until, sent=sent)
            ]
        return [ref for _, ref in sorted(found, key=lambda item: item[0])]

    async def last_turn(self, user_key: str, agent_id: str, dialogue_id: str) -> NodeRef | None:
        """The person's last message in one dialogue (None when it is forgotten)."""
        if not self.trees.exists(agent_id, dialogue_id):
            return None
        tree = await self.trees.aget(agent_id, dialogue_id)
        for n in reversed(tree.node_list):
            if n.node_type == "Q" and n.metadata.get("user_key") == user_key:
                # Already forgotten: "forget that" twice does not reach further back.
                return None if is_forgotten(n) else NodeRef(agent_id, dialogue_id, n.id)
        return None

    async def repeating(
        self, records: Sequence[MemoryRecord], *, besides: Iterable[str] = ()
    ) -> list[Repeat]:
        """The messages of each record's person that say again a value of it (besides the
        turn keys ``besides``), which forgetting a record takes whole, the replies to them
        with them (:mod:`familiars.memory._forget_repeats`); a turn's forget does not."""
        trees, names = await self._all_trees(), self.bot_names  # read off the event loop
        return await asyncio.to_thread(repeats_of, records, trees, besides=besides, names=names)

    async def repeats_for(self, record_ids: Sequence[str]) -> list[Repeat]:
        """What :meth:`repeating` finds for a forget of ``record_ids``: with what they
        replaced or were merged from, which it takes too (for the question asked first)."""
        return (await self._repeats_with(record_ids))[1]

    async def _repeats_with(self, ids: Sequence[str]) -> tuple[list[MemoryRecord], list[Repeat]]:
        recs = await forgotten_with(self.store, ids, merged_away)
        sources = [e.key for r in recs for e in evidence_refs(r, self.trees.agents_with)]
        return recs, await self.repeating(recs, besides=sources)

    async def _repeats_of_all(self, record_ids: Sequence[str]) -> dict[str, list[NodeRef]]:
        """The repeats of each record a forget of ``record_ids`` takes (one pass), by id."""
        return by_record(*await self._repeats_with(record_ids))

    async def node(self, ref: NodeRef) -> Node:
        """The turn a ref names; RecordNotFoundError when there is none."""
        if not self.trees.exists(ref.agent_id, ref.dialogue_id):
            raise RecordNotFoundError(ref.key)
        tree = await self.trees.aget(ref.agent_id, ref.dialogue_id)
        if not 0 <= ref.node_id < len(tree.node_list):
            raise RecordNotFoundError(ref.key)
        return tree.node_list[ref.node_id]

    # ------------------------------------------------------------------ steps

    async def _forget_record(self, report: ForgetReport, record_id: str, now: float | None) -> None:
        rec = await self.store.get(record_id)
        # The turns it came from, and the person's messages that say it again, are noted
        # with it: once the entry is gone, a resumed forget could not find them again.
        sources = evidence_refs(rec, self.trees.agents_with)
        if rec.id in self._repeats:  # found for the whole forget in one pass
            repeats = [r for r in self._repeats[rec.id] if r.key not in report.nodes]
        else:
            repeats = [r.ref for r in await self.repeating([rec], besides=[s.key for s in sources])]
        turns = [*sources, *repeats]
        await self._ahead(texts=[rec.content], records=[rec.id], nodes=[r.key for r in turns])
        await self.store.forget(record_id)
        report.records.append(rec.id)
        report.texts.append(rec.content)
        await self._tombstone(report, turns, now, owner=rec.user_key)
        report.repeats += [r.key for r in repeats if r.key not in report.repeats]
        await self._tombstone_quotes(report, now, owner=rec.user_key)
        for source_id in merged_away(rec):  # the same fact in the words it was merged from
            if source_id not in report.records:
                try:
                    source = await self.store.get(source_id)
                except RecordNotFoundError:
                    continue
                if source.deprecated:
                    await self._forget_record(report, source_id, now)
        await self._forget_replaced(report, rec, now)

    async def _forget_replaced(
        self, report: ForgetReport, rec: MemoryRecord, now: float | None
    ) -> None:
        """What ``rec`` replaced (its ``supersedes``, deprecated) goes with it, on down the
        chain: it said the same thing of the person before (tester s35 U4: after "forget
        that I live in Otley" the old home stayed in the file, its history and the turns)."""
        if not rec.supersedes or rec.supersedes in report.records:
            return
        try:
            older = await self.store.get(rec.supersedes)
        except RecordNotFoundError:
            return
        if older.deprecated:
            await self._forget_record(report, older.id, now)

    async def _forget_turn_refs(
        self,
        report: ForgetReport,
        refs: Sequence[NodeRef],
        now: float | None,
        *,
        keep: frozenset[str] = frozenset(),
    ) -> None:
        if not refs:
            return
        owners = {str((await self.node(r)).metadata.get("user_key") or "") for r in refs}
        await self._tombstone(report, refs, now, owner=None)
        keys = {(r.agent_id, r.dialogue_id, r.node_id) for r in refs}
        agents_with = remembered(self.trees.agents_with)
        for rec in await self.store.list(live_only=False):
            if rec.id in report.records or rec.id in keep:
                continue
            if any(k in keys for k in evidence_keys(rec, agents_with)):
                await self._ahead(texts=[rec.content], records=[rec.id])
                await self.store.forget(rec.id)
                report.records.append(rec.id)
                report.texts.append(rec.content)
        for owner in owners or {""}:
            await self._tombstone_quotes(report, now, owner=owner or None)

    async def _tombstone(
        self,
        report: ForgetReport,
        refs: Iterable[NodeRef],
        now: float | None,
        *,
        owner: str | None,
    ) -> None:
        """Make each named turn a tombstone (missing ones are skipped: a record may name a
        turn of a dialogue that was removed)."""
        by_tree: dict[tuple[str, str], list[int]] = {}
        for ref in refs:
            by_tree.setdefault((ref.agent_id, ref.dialogue_id), []).append(ref.node_id)
        for (agent_id, dialogue_id), ids in by_tree.items():
            if not self.trees.exists(agent_id, dialogue_id):
                continue
            tree = await self.trees.aget(agent_id, dialogue_id)
            wanted = [i for i in ids if 0 <= i < len(tree.node_list)]
            await self._tombstone_in(tree, wanted, report, now)

    async def _tombstone_quotes(
        self, report: ForgetReport, now: float | None, *, owner: str | None
    ) -> None:
        """Every reply of the bot, and every turn of ``owner``, that holds a forgotten text;
        every reply that drew on a forgotten record (its ``uses``) or answered a forgotten
        turn (a child of one: "Noted: you live in Denver.")."""
        match = forgotten_of([], report.texts, replies=report.replies)  # read once
        records = set(report.records)
        for tree in await self._all_trees():
            gone = {n.id for n in tree.node_list if is_forgotten(n)}
            await self._tombstone_in(tree, quoting(tree, gone, match, records, owner), report, now)

    async def _tombstone_in(
        self, tree: DialogTree, ids: Sequence[int], report: ForgetReport, now: float | None
    ) -> None:
        if not ids:
            return
        assert tree.agent_id is not None and tree.dialogue_id is not None
        refs = [node_ref(tree.agent_id, tree.dialogue_id, node_id) for node_id in ids]
        texts: list[str] = []
        derived: list[str] = []
        for node_id in ids:
            node = tree.node_list[node_id]
            if node.content:
                speaker = node.metadata.get("speaker")
                texts.append(node.content)
                if node.node_type == "A":
                    report.replies.append(node.content)
                derived += embedded_forms(
                    node.content, speaker if isinstance(speaker, str) else None
                )
        await self._ahead(texts=texts, derived=derived, nodes=refs)
        report.said += [
            r for r, i in zip(refs, ids, strict=True) if tree.node_list[i].node_type == "Q"
        ]
        for node_id in ids:
            tree.forget_node(node_id, forgotten_at=now)
        report.nodes += refs
        report.texts += texts
        report.derived += derived
        await asyncio.to_thread(_rewrite, tree)

    async def _all_trees(self) -> list[DialogTree]:
        found: list[DialogTree] = []
        for agent_id, dialogue_id in await asyncio.to_thread(self.trees.stored):
            if self.trees.exists(agent_id, dialogue_id):
                found.append(await self.trees.aget(agent_id, dialogue_id))
        return found

    async def _finish(self, report: ForgetReport) -> None:
        """The derived copies: consolidated entries made from a forgotten record, the
        index's vectors, FTS segments and WAL; then the hooks."""
        try:
            again = await rederive_after_forget(self.store, [*report.records, *report.nodes])
            report.records += again.forgotten
            report.texts += again.texts
            report.rederived.update(again.rederived)
            report.dropped += again.dropped
            turns = [
                (r.agent_id, r.dialogue_id, r.node_id) for r in map(parse_node_ref, report.nodes)
            ]
            forgotten = forgotten_of(turns, report.texts, report.records, replies=report.replies)
            await self._unquote(forgotten)
            await asyncio.to_thread(scrub_files, self.store.workspace, forgotten)
            if self.trees.home is not None:  # the database home's state rows
                await asyncio.to_thread(scrub_state, self.trees.home, forgotten)
            await self.index.purge_texts([*report.texts, *report.derived])
            await forget_people_rows(self.index, report.records)  # the people graph's copy
            for hook in self.hooks:
                result = hook(report)
                if asyncio.iscoroutine(result):
                    await result
        finally:
            # Every process cache keyed by people's words, whoever owns it: a step that
            # failed above must not leave the forgotten words in memory.
            clear_text_caches()
        logger.info("forgot %d records and %d turns", len(report.records), len(report.nodes))

    async def _unquote(self, forgotten: Forgotten) -> None:
        """The quotes of what went out of every memory kept (:mod:`._forget_quotes`); before
        the index is purged, so its WAL loses the old copies too. A resumed forget does this
        again: a record already without them is left as it is."""
        agents_with = remembered(self.trees.agents_with)
        records = await self.store.list(live_only=False)
        wanted = quotes_to_drop(records, forgotten, lambda r: evidence_keys(r, agents_with))
        await self.store.drop_quotes(wanted)


#: How many times a whole-person forget looks again for what a turn under way added.
PERSON_ROUNDS = 3


@contextlib.contextmanager
def _unless(resumed: bool) -> Iterator[None]:
    """A resumed forget skips what is gone already (RecordNotFoundError)."""
    try:
        yield
    except RecordNotFoundError:
        if not resumed:
            raise


def _unforgotten(trees: Iterable[DialogTree]) -> bool:
    return any(not is_forgotten(n) for tree in trees for n in tree.node_list)


def _rewrite(tree: DialogTree) -> None:
    """Fold the tree, tombstones in, into ``dialogue.json`` and drop the journal (whose
    lines still hold the text)."""
    if tree.file is None:
        return
    with tree._lock:
        tree.file.compact(tree)


__all__ = [
    "ForgetHook", "ForgetReport", "Forgetter", "NodeRef", "evidence_refs", "remembered",
    "FileForgetting", "file_ref", "is_file_ref", "is_node_ref", "node_ref", "parse_node_ref"
]  # fmt: skip
