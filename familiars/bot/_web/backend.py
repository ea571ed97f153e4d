"""What the memory page reads and changes, and for whom.

Map:

- :class:`WebBackend` - one workspace as the page sees it: a person's records, their
  history, reminders and dialogues; every change goes through the bot's own commands
  (``/memory edit|pin|unpin|forget``, ``/reminders cancel|move|snooze``) with the signed-in
  person as the caller, so the page and the chat share one code path, the one Forgetter
  included.
- the people graph of the signed-in person (the People page), read like the records.
- :class:`NotYours` - the record, reminder or dialogue is not the person's (or does not
  exist): the page answers 404 either way.
- :class:`ActionRefused` - the command said no (its own words), or this process may not
  write (``familiars api`` while a bot owns the workspace).

The running bot builds the backend from its services (``familiars run`` with the API on);
``familiars api`` builds one over a workspace it owns, or a read-only one while another
process owns it (see :func:`familiars.bot._web.standalone.standalone_backend`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from familiars.bot._adapters.base import CommandInvocation
from familiars.bot._commands import Caller, CommandSet, MemoryCommand
from familiars.bot._state import BotState, DialogueInfo
from familiars.bot._web.sessions import Session, WebSessions
from familiars.config import Settings, UserFacingError
from familiars.memory import (
    RECORD_ID_RE,
    DialogTree,
    DialogTrees,
    MemoryError_,
    MemoryRecord,
    MemoryStore,
    PeopleGraph,
    PeopleIndex,
    PersonHoldings,
    RecordNotFoundError,
    build_graph,
    check_agent_id,
    check_dialogue_id,
)
from familiars.scheduler import Reminder, ReminderBook

logger = logging.getLogger(__name__)

#: The categories an owner tends for the agent (its identity scope).
AGENT_CATEGORIES = ("directive", "procedure", "preference")
MAX_LISTED = 500


class NotYours(LookupError):
    """Not the signed-in person's, or not there: both answer 404."""


class ActionRefused(Exception):
    """A change the command (or this process) refused; the text says why, to the person."""


#: The last reply's recalled items per (agent_id, dialogue_id, user_key) (``/memory why``).
RecallLog = Mapping[tuple[str, str | None, str], list[dict[str, Any]]]


def caller_of(session: Session) -> Caller:
    return Caller(
        user_key=session.user_key,
        agent_id=session.agent_id,
        dialogue_id=None,
        is_owner=session.is_owner,
        platform="web",
        user_id=session.user_key,
    )


@dataclass
class WebBackend:
    settings: Settings
    store: MemoryStore
    state: BotState
    trees: DialogTrees
    book: ReminderBook
    commands: CommandSet
    sessions: WebSessions
    recall_log: RecallLog = field(default_factory=dict)
    #: The running bot's people index (recall's own); None: built from the records here.
    people: PeopleIndex | None = None
    #: Why this process may not change anything (None: it may).
    read_only: str | None = None
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    # ------------------------------------------------------------------ records

    async def records(
        self, session: Session, category: str | None = None, query: str | None = None
    ) -> list[MemoryRecord]:
        """The person's live records, newest first; ``query``'s words all in the text."""
        found = await self.store.list(scope="user", user_key=session.user_key, category=category)
        return _newest(_matching(found, query))

    async def agent_records(self, session: Session, query: str | None = None) -> list[MemoryRecord]:
        """The agent's identity records (owners only)."""
        if not session.is_owner:
            raise NotYours(session.agent_id)
        found = await self.store.list(scope="identity", agent_id=session.agent_id)
        return _newest(_matching(found, query))

    async def record(self, session: Session, record_id: str) -> MemoryRecord:
        """One record the person may see (a replaced one too: history links to it)."""
        if not RECORD_ID_RE.fullmatch(record_id):
            raise NotYours(record_id)
        try:
            rec = await self.store.get(record_id)
        except (RecordNotFoundError, MemoryError_) as exc:
            raise NotYours(record_id) from exc
        if not may_see(rec, session):
            raise NotYours(record_id)
        return rec

    async def history(self, session: Session, rec: MemoryRecord) -> list[dict[str, Any]]:
        """The record's events and those of the records in its chain that are the person's
        too (a chain never crosses people, but the check costs nothing)."""
        events = await self.store.history(rec.id)
        return [e for e in events if _event_visible(e, rec, session)]

    async def successor(self, session: Session, rec: MemoryRecord) -> MemoryRecord | None:
        """The live record that replaced ``rec`` (after a correction), if the person's."""
        if rec.scope == "user":
            found = await self.store.list(scope="user", user_key=rec.user_key)
        else:
            found = await self.store.list(scope=rec.scope, agent_id=rec.agent_id)
        newer = [r for r in found if r.supersedes == rec.id and may_see(r, session)]
        return newer[-1] if newer else None

    async def people_graph(self, session: Session) -> PeopleGraph:
        """The person's own people graph (issue 25), never anyone else's: the running bot's
        index (the graph recall walks), else built from their records as ``/memory people``
        does (a reader beside a running bot reads the records afresh, as the other pages)."""
        if self.people is not None and self.read_only is None:
            return await self.people.graph(session.user_key)
        found = await self.store.list(scope="user", user_key=session.user_key, live_only=False)
        return build_graph(found)

    # ------------------------------------------------------------------ changes

    def _check_writable(self) -> None:
        if self.read_only is not None:
            raise ActionRefused(self.read_only)

    async def run(self, session: Session, name: str, *args: str) -> str:
        """``/<name> args`` as the signed-in person; its answer, or :class:`ActionRefused`."""
        self._check_writable()
        command = self.commands.find(name)
        if command is None:
            raise ActionRefused(f"/{name} is not available here.")
        inv = CommandInvocation(
            platform="web",
            chat_id=f"web:{session.user_key}",
            user_id=session.user_key,
            display_name=session.user_key,
            name=name,
            args=tuple(args),
            ts=self.clock(),
        )
        try:
            return (await command.run(inv, caller_of(session))).text
        except UserFacingError as exc:
            raise ActionRefused(str(exc)) from exc

    async def everything(self, session: Session) -> PersonHoldings | None:
        """What forgetting everything about the signed-in person would remove, counted (the
        question ``/memory forget everything`` asks); None: nothing is kept of them."""
        command = self.commands.find("memory")
        if not isinstance(command, MemoryCommand):
            raise ActionRefused("/memory is not available here.")
        return await command.holdings(caller_of(session))

    async def edit(self, session: Session, record_id: str, text: str) -> str:
        """``/memory edit`` with the text as typed (newlines kept)."""
        self._check_writable()
        command = self.commands.find("memory")
        if not isinstance(command, MemoryCommand):
            raise ActionRefused("/memory is not available here.")
        try:
            return (await command.edit(caller_of(session), record_id, text)).text
        except UserFacingError as exc:
            raise ActionRefused(str(exc)) from exc

    # ------------------------------------------------------------------ reminders

    async def reminders(self, session: Session) -> list[Reminder]:
        return await self.book.of(session.user_key, self.clock())

    async def reminder(self, session: Session, record_id: str) -> Reminder:
        for reminder in await self.reminders(session):
            if reminder.record_id == record_id:
                return reminder
        raise NotYours(record_id)

    # ------------------------------------------------------------------ dialogues

    async def _state(self) -> BotState:
        if self.read_only is not None:
            await self.state.open()  # another process writes it: read it afresh
        return self.state

    def _trees(self) -> DialogTrees:
        # A reader beside a running bot must not keep stale trees: a fresh registry.
        if self.read_only is None:
            return self.trees
        return DialogTrees(self.trees.workspace, home=self.trees.home)

    async def dialogues(self, session: Session) -> list[tuple[DialogueInfo, DialogTree | None]]:
        """The dialogues the person is part of (their DM, a group they spoke in), with their
        trees, most recently active first."""
        trees = self._trees()
        out = []
        for info in await (await self._state()).dialogues():
            tree = await _tree_or_none(trees, info)
            if _part_of(info, tree, session.user_key):
                out.append((info, tree))
        out.sort(key=lambda it: it[0].last_user_at or it[0].last_bot_at or "", reverse=True)
        return out

    async def dialogue(
        self, session: Session, agent_id: str, dialogue_id: str
    ) -> tuple[DialogueInfo, DialogTree]:
        try:
            check_agent_id(agent_id)
            check_dialogue_id(dialogue_id)
        except MemoryError_ as exc:
            raise NotYours(dialogue_id) from exc
        info = await (await self._state()).dialogue(agent_id, dialogue_id)
        if info is None:
            raise NotYours(dialogue_id)
        tree = await _tree_or_none(self._trees(), info)
        if tree is None or not _part_of(info, tree, session.user_key):
            raise NotYours(dialogue_id)
        return info, tree

    def recalled(self, session: Session, agent_id: str, dialogue_id: str) -> list[dict[str, Any]]:
        """What the last reply to this person here recalled (``/memory why``), if known."""
        return list(self.recall_log.get((agent_id, dialogue_id, session.user_key)) or [])


def may_see(rec: MemoryRecord, session: Session) -> bool:
    if rec.scope == "user":
        return rec.user_key == session.user_key
    return session.is_owner and rec.scope == "identity" and rec.agent_id == session.agent_id


def _event_visible(event: dict[str, Any], rec: MemoryRecord, session: Session) -> bool:
    data = event.get("record") or {}
    owner = data.get("user_key")
    return owner in (None, session.user_key) or rec.scope != "user"


def _matching(records: list[MemoryRecord], query: str | None) -> list[MemoryRecord]:
    words = (query or "").lower().split()
    if not words:
        return records
    return [r for r in records if all(w in r.content.lower() for w in words)]


def _newest(records: list[MemoryRecord]) -> list[MemoryRecord]:
    return sorted(records, key=lambda r: (r.ts, r.id), reverse=True)[:MAX_LISTED]


async def _tree_or_none(trees: DialogTrees, info: DialogueInfo) -> DialogTree | None:
    if not trees.exists(info.agent_id, info.dialogue_id):
        return None
    try:
        return await trees.aget(info.agent_id, info.dialogue_id)
    except MemoryError_ as exc:
        logger.warning("dialogue %s/%s unreadable: %s", info.agent_id, info.dialogue_id, exc)
        return None


def _part_of(info: DialogueInfo, tree: DialogTree | None, user_key: str) -> bool:
    """Their DM, or a group where one of the messages is theirs."""
    if not info.is_group:
        return info.user_key == user_key
    if tree is None:
        return False
    return any(n.metadata.get("user_key") == user_key for n in tree.node_list)
