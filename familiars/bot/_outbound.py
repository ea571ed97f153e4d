"""The one step every text bound for a group passes (issue 19): :class:`Outbound`.

The turn's reply (tool answers and notes included), command answers shown in a group, and
every message the familiar starts itself (reminders, check-ins, follow-ups, through
:mod:`familiars.bot._proactive`) go through :meth:`Outbound.guard`, which checks them with
:func:`familiars.bot._leak_guard.guard_text` against the private notes of every person the
familiar knows in that chat: everyone whose message is in the dialogue's tree (``user_key``
on its Q nodes, read once per dialogue) or who spoke since, and whoever a proactive message
is for. Direct messages pass unchanged.

Each person's evidence (:class:`~familiars.bot._leak_guard.Secrets`) is built once from their
user-scope records and kept until their folder changes (file names, sizes and times, read
with one ``scandir``: writes through the store and edits by hand alike), and each chat's
merged evidence until one of its members' does, so a turn reads no record it read before.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from familiars.bot._leak_guard import GuardVerdict, Secrets, guard_text, secrets_of
from familiars.bot._state import BotState, DialogueInfo
from familiars.memory import USER_KEY_RE, MemoryStore

logger = logging.getLogger(__name__)

#: Sent instead of a proactive message that would tell the group something private.
PROACTIVE_WITHHELD = (
    "I have a message due here that holds something private, so I won't post it in the "
    "group. Ask me in a direct message."
)
#: Recent lines of a dialogue that count as what the group itself said (proactive path).
PUBLIC_LINES = 40

_Signature = tuple[tuple[str, int, int], ...]


class GroupLog(Protocol):
    """What the guard reads of a dialogue's tree (TreeLog has both)."""

    async def speakers(self, agent_id: str, dialogue_id: str) -> set[str]: ...

    async def recent_lines(self, agent_id: str, dialogue_id: str, n: int) -> list[str]: ...


class GuardCounter(Protocol):
    def guarded(self, verdict: GuardVerdict) -> None: ...


@dataclass(frozen=True)
class _Person:
    signature: _Signature
    name: str
    secrets: Secrets


class Outbound:
    """Where the guard lives: every group-bound text is checked here, and only here."""

    def __init__(
        self,
        store: MemoryStore,
        state: BotState,
        *,
        log: GroupLog | None = None,
        counter: GuardCounter | None = None,
    ) -> None:
        self.store = store
        self.state = state
        #: Who spoke in a dialogue before this process started, and what the group said
        #: lately (for proactive messages); without it, only who spoke since.
        self.log = log
        self.counter = counter
        self._members: dict[tuple[str, str], set[str]] = {}
        self._people: dict[str, _Person] = {}
        self._chats: dict[tuple[str, str], tuple[tuple[_Signature, ...], Secrets]] = {}

    async def note_member(self, dialogue: DialogueInfo, user_key: str) -> None:
        """``user_key`` spoke in ``dialogue``: their notes are guarded there from now on."""
        if dialogue.is_group and USER_KEY_RE.fullmatch(user_key):
            (await self.members(dialogue)).add(await self._canonical(user_key))

    async def send_to(
        self, dialogue: DialogueInfo, text: str, *, for_person: str | None = None, what: str
    ) -> str:
        """What a message the familiar starts itself may say in ``dialogue``: checked against
        the members' notes and ``for_person``'s, with the dialogue's recent lines as what
        the group said; a message that would leak is replaced whole."""
        if not dialogue.is_group:
            return text
        public = []
        if self.log is not None:
            key = (dialogue.agent_id, dialogue.dialogue_id)
            public = await self.log.recent_lines(*key, PUBLIC_LINES)
        people = [for_person] if for_person else []
        verdict = await self.guard(dialogue, text, public=public, people=people, what=what)
        return PROACTIVE_WITHHELD if verdict.withheld else verdict.text

    async def members(self, dialogue: DialogueInfo) -> set[str]:
        key = (dialogue.agent_id, dialogue.dialogue_id)
        known = self._members.get(key)
        if known is None:
            known = set(await self.log.speakers(*key)) if self.log is not None else set()
            if dialogue.user_key:
                known.add(dialogue.user_key)
            known = {await self._canonical(k) for k in known if USER_KEY_RE.fullmatch(k)}
            self._members[key] = known = self._members.get(key, set()) | known
        return known

    async def guard(
        self,
        dialogue: DialogueInfo,
        text: str,
        *,
        public: Sequence[str] = (),
        private: Sequence[str] = (),
        people: Iterable[str] = (),
        what: str = "reply",
        answering: str = "",
    ) -> GuardVerdict:
        """``text`` as it may go to ``dialogue``: unchanged in a DM; in a group checked
        against every member's notes (and ``people``'s, and the ``private`` texts), with
        ``public`` (what the group said) and the members' names as public. ``answering``
        is the message ``text`` replies to: a member it names is who the reply is about."""
        if not dialogue.is_group or not text.strip():
            return GuardVerdict(text)
        people = {await self._canonical(k) for k in people if USER_KEY_RE.fullmatch(k)}
        members = await self.members(dialogue) | people
        secrets, names = await self._chat_secrets(dialogue, members)
        if private:
            secrets = Secrets.merge([secrets, secrets_of(private)])
        verdict = guard_text(text, secrets, [*public, *names], answering)
        if verdict.changed:
            logger.warning(
                "group %s %s: %s",
                what,
                "withheld" if verdict.withheld else "redacted",
                ", ".join(leak.kind for leak in verdict.leaks),
            )
            if self.counter is not None:
                self.counter.guarded(verdict)
        return verdict

    async def _chat_secrets(
        self, dialogue: DialogueInfo, members: set[str]
    ) -> tuple[Secrets, list[str]]:
        people = [await self._person(k) for k in sorted(members)]
        key = (dialogue.agent_id, dialogue.dialogue_id)
        signature = tuple(p.signature for p in people)
        cached = self._chats.get(key)
        if cached is None or cached[0] != signature:
            cached = (signature, Secrets.merge(p.secrets for p in people))
            self._chats[key] = cached
        return cached[1], [p.name for p in people if p.name]

    async def _person(self, user_key: str) -> _Person:
        signature = _folder_signature(self.store.workspace / "users" / user_key)
        person = self._people.get(user_key)
        if person is not None and person.signature == signature:
            return person
        found = await self.state.person(user_key)
        name = found.display_name if found else ""
        records = await self.store.list(scope="user", user_key=user_key, live_only=False)
        secrets = secrets_of([r.content for r in records], [name] if name else [])
        person = _Person(signature, name, secrets)
        self._people[user_key] = person
        return person

    async def _canonical(self, user_key: str) -> str:
        """The person a (perhaps since linked) identity's key now belongs to."""
        found = await self.state.person(user_key)
        return found.user_key if found else user_key


def _folder_signature(folder: Path) -> _Signature:
    """Names, sizes and change times of a person's memory files: any write changes it."""
    try:
        with os.scandir(folder) as entries:
            stats = [(e.name, e.stat()) for e in entries if e.name.endswith(".md")]
    except FileNotFoundError:
        return ()
    return tuple(sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats))
