"""The bot's own state: people, their platform identities, link codes, and which dialogue of
which agent a chat maps to, kept as files in the workspace (see
:mod:`familiars.bot._state_files` for the layout); nothing of it lives in ``familiars.db``,
so losing the database loses none of it.

(platform, user id) -> person (``user_key``); identities linked with ``/link`` share one person
and so one user scope. (platform, chat, thread, agent) -> ``dialogue_<n>`` of that agent.

Everything is read once at :meth:`BotState.open` into memory; each change is written to its
file (atomically, off the event loop) before the call returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from familiars.bot._state_files import (
    ACTIVITY_FILE,
    CHAT_FILE,
    ChatFile,
    ChatKey,
    PersonFile,
    StateFileError,
    StateFiles,
)
from familiars.bot._state_legacy import import_legacy_tables
from familiars.memory import USER_KEY_RE, StateHome, check_agent_id, check_user_key

logger = logging.getLogger(__name__)

LINK_CODE_TTL = timedelta(minutes=10)
#: The database home: the documents whose change by another worker is read again (not the
#: activity times, which change twice a turn; ``dialogues()`` reads those too).
_SHARED = ("state/people/%", "state/link_codes.json", f"agents/%/{CHAT_FILE}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class DialogueInfo:
    agent_id: str
    dialogue_id: str
    platform: str
    chat_id: str
    thread_id: str | None
    is_group: bool
    user_key: str | None
    last_user_at: str | None = None
    last_bot_at: str | None = None


@dataclass(frozen=True)
class Person:
    user_key: str
    display_name: str
    timezone: str | None
    proactive: bool


def user_key_for(platform: str, user_id: str) -> str:
    """A stable, path-safe person key for a platform identity (console names are kept)."""
    if platform == "console" and USER_KEY_RE.fullmatch(user_id):
        return user_id
    raw = f"{platform}_{user_id}"
    safe = _UNSAFE.sub("", raw)
    if safe == raw and USER_KEY_RE.fullmatch(safe):
        return safe
    digest = hashlib.sha256(raw.encode()).hexdigest()[:16]
    return f"{_UNSAFE.sub('', platform)[:12] or 'p'}_{digest}"


class BotState:
    """People, links and chats in memory, each change saved through the workspace's
    :class:`~familiars.memory.StateHome`. In the database home other workers change them
    too: a find-or-create that misses, a link code and its redeeming read them again under a
    lock every worker shares, so a person or a chat is created once."""

    def __init__(self, workspace: Path, home: StateHome | None = None) -> None:
        self.files = StateFiles(Path(workspace), home)
        self._people: dict[str, PersonFile] = {}
        self._holder: dict[tuple[str, str], str] = {}  # identity -> the file that lists it
        self._chats: dict[ChatKey, ChatFile] = {}
        self._by_id: dict[tuple[str, str], ChatFile] = {}
        self._codes: dict[str, tuple[str, str]] = {}
        self._open = False
        # Find-or-create must not interleave between concurrent turns (two first messages
        # would race on one person; the folder itself is taken with mkdir, so two creators
        # never share a number even without this lock).
        self._create_lock = asyncio.Lock()
        self._write_locks: dict[Path, asyncio.Lock] = {}
        #: The database home: what the shared documents' stamp was at the last read.
        self._stamps: dict[bool, str] = {}

    async def open(self) -> None:
        """Read every state file (importing the tables an older version kept in
        ``familiars.db`` the first time); raises StateFileError naming a broken file."""
        if self.files.on_files:
            await asyncio.to_thread(import_legacy_tables, self.files)
        people, chats = await self._reload()
        self._open = True
        logger.info(
            "bot state: %d people, %d dialogues (%s)",
            len(people),
            len(chats),
            self.files.state_dir if self.files.on_files else "database",
        )

    async def _fresh(self, *, activity: bool = False) -> None:
        """The database home: read people and chats again when another worker changed them
        (``activity``: their last message times too, for the scheduler's pacing)."""
        if self.files.on_files:
            return
        patterns = [*_SHARED, *((f"agents/%/{ACTIVITY_FILE}",) if activity else ())]
        stamp = await asyncio.to_thread(self.files.home.stamp_like, *patterns)
        if stamp != self._stamps.get(activity):
            async with self._create_lock:
                await self._reload()
            self._stamps[activity] = stamp

    async def _reload(self) -> tuple[dict[str, PersonFile], list[ChatFile]]:
        people, chats, codes = await asyncio.to_thread(self._load)
        holder = _holders(self.files, people)
        _check_links(self.files, people)
        self._chats, self._by_id = _index_chats(self.files, chats)
        self._people, self._codes, self._holder = people, codes, holder
        return people, chats

    @contextlib.asynccontextmanager
    async def _creating(self) -> AsyncIterator[None]:
        """Find-or-create and link codes, one at a time: in this process, and in the
        database across workers (what others made meanwhile is read first)."""
        async with self._create_lock:
            if self.files.on_files:
                yield
                return
            async with self.files.home.dialogue_lock("state", "people-and-chats"):
                await self._reload()
                yield

    def _load(self) -> tuple[dict[str, PersonFile], list[ChatFile], dict[str, tuple[str, str]]]:
        return self.files.load_people(), self.files.load_chats(), self.files.load_link_codes()

    async def close(self) -> None:
        self._open = False

    def _check_open(self) -> None:
        if not self._open:
            raise RuntimeError("BotState is not open")

    # ------------------------------------------------------------------ writing

    async def _write(self, path: Path, write: Callable[[], None]) -> None:
        """Run ``write`` off the event loop; writes of one file run in call order, and each
        serialises the state as it is when its turn comes (so the last write is the newest)."""
        lock = self._write_locks.setdefault(path, asyncio.Lock())
        async with lock:
            await asyncio.to_thread(write)

    async def _save_person(self, person: PersonFile) -> None:
        data = PersonFile(**{**person.__dict__, "identities": dict(person.identities)})
        path = self.files.person_path(person.user_key)
        await self._write(path, lambda: self.files.write_person(data))

    async def _change_person(
        self, person: PersonFile, change: Callable[[PersonFile], None]
    ) -> None:
        """One change to a person known here, made on what is stored (``StateFiles.change_person``:
        in the database under the document's lock, so two workers' changes both stay)."""
        path = self.files.person_path(person.user_key)
        async with self._write_locks.setdefault(path, asyncio.Lock()):
            fresh = await asyncio.to_thread(self.files.change_person, person, change)
        self._people[person.user_key] = fresh

    async def _save_chat(self, chat: ChatFile) -> None:
        data = ChatFile(**chat.__dict__)
        path = self.files.chat_path(chat.agent_id, chat.dialogue_id)
        await self._write(path, lambda: self.files.write_chat(data))

    async def _save_activity(self, chat: ChatFile) -> None:
        data = ChatFile(**chat.__dict__)
        path = self.files.activity_path(chat.agent_id, chat.dialogue_id)
        await self._write(path, lambda: self.files.write_activity(data))

    async def _save_codes(self) -> None:
        data = dict(self._codes)
        await self._write(self.files.link_codes_path, lambda: self.files.write_link_codes(data))

    # ------------------------------------------------------------------ people

    def _canonical(self, user_key: str) -> str:
        """The person a key stands for now: ``linked_to`` followed to its end."""
        seen = {user_key}
        person = self._people.get(user_key)
        while person is not None and person.linked_to and person.linked_to not in seen:
            user_key = person.linked_to
            seen.add(user_key)
            person = self._people.get(user_key)
        return user_key

    async def person_for(self, platform: str, user_id: str, display_name: str = "") -> str:
        """The person behind a platform identity, created on first sight."""
        self._check_open()
        ident = (platform, user_id)
        holder = self._holder.get(ident)
        if holder is not None and display_name in ("", self._people[holder].identities[ident]):
            return self._canonical(holder)  # known, nothing to change
        async with self._creating():
            return await self._person_for(platform, user_id, display_name)

    async def _person_for(self, platform: str, user_id: str, display_name: str) -> str:
        ident = (platform, user_id)
        holder = self._holder.get(ident)
        if holder is not None:
            person = self._people[holder]
            if display_name and person.identities.get(ident) != display_name:

                def rename(stored: PersonFile) -> None:
                    stored.identities[ident] = display_name

                await self._change_person(person, rename)
            return self._canonical(holder)
        user_key = user_key_for(platform, user_id)
        person = self._people.get(user_key) or PersonFile(
            user_key, display_name=display_name, created_at=_now_iso()
        )
        person.identities[ident] = display_name
        await self._save_person(person)
        self._people[user_key] = person
        self._holder[ident] = user_key
        return self._canonical(user_key)

    async def person(self, user_key: str) -> Person | None:
        self._check_open()
        await self._fresh()
        p = self._people.get(user_key)
        return None if p is None else Person(p.user_key, p.display_name, p.timezone, p.proactive)

    async def set_proactive(self, user_key: str, enabled: bool) -> None:
        await self._update_person(user_key, proactive=enabled)

    async def set_timezone(self, user_key: str, tz: str | None) -> None:
        await self._update_person(user_key, timezone=tz)

    async def _update_person(self, user_key: str, **changes: Any) -> None:
        self._check_open()
        await self._fresh()  # another worker's change to this person is not written over
        person = self._people.get(user_key)
        if person is None:
            logger.warning("no person %r to change (%s)", user_key, ", ".join(changes))
            return

        def change(stored: PersonFile) -> None:
            for name, value in changes.items():
                setattr(stored, name, value)

        await self._change_person(person, change)

    async def identities_of(self, user_key: str) -> list[tuple[str, str]]:
        self._check_open()
        await self._fresh()
        return sorted(i for i, h in self._holder.items() if self._canonical(h) == user_key)

    async def keys_of(self, user_key: str) -> list[str]:
        """Every key of the person ``user_key`` is one of: it, the key it is linked into,
        and every key linked into that (``/link``); [] when no person has this key."""
        self._check_open()
        await self._fresh()
        if user_key not in self._people:
            return []
        canonical = self._canonical(user_key)
        return sorted({user_key, *(k for k in self._people if self._canonical(k) == canonical)})

    async def forget_people(self, keys: list[str]) -> list[str]:
        """A whole person forgotten (``Forgetter``, ``person:KEY``): each of their keys
        stays an account with no name, time zone or link (each on its own again), and with
        ``/proactive off`` when any of them had set it, so none is contacted again; their
        private chats forget when they last spoke (no check-in follows the silence); their
        link codes go. What was dropped, in words."""
        self._check_open()
        gone: list[str] = []
        async with self._creating():
            people = [self._people[k] for k in keys if k in self._people]
            opted_out = any(not p.proactive for p in people)

            def bare(stored: PersonFile) -> None:
                stored.display_name, stored.timezone, stored.linked_to = "", None, None
                stored.identities = dict.fromkeys(stored.identities, "")
                stored.proactive = stored.proactive and not opted_out

            for person in people:
                if person.display_name or person.timezone or person.linked_to:
                    gone.append(f"person:{person.user_key}")
                await self._change_person(person, bare)
            for chat in [c for c in self._by_id.values() if c.user_key in keys]:
                chat.last_user_at = chat.last_bot_at = None  # no check-in after the silence
                await self._save_activity(chat)
            codes = [c for c, (owner, _) in self._codes.items() if owner in keys]
            for code in codes:
                del self._codes[code]
            if codes:
                await self._save_codes()
                gone.append(f"link codes: {len(codes)}")
        return gone

    # ------------------------------------------------------------------ linking

    async def new_link_code(self, user_key: str, now: datetime) -> str:
        self._check_open()
        code = secrets.token_hex(4).upper()
        async with self._creating():
            self._drop_expired(now)
            self._codes[code] = (user_key, (now + LINK_CODE_TTL).isoformat())
            await self._save_codes()
        return code

    def _drop_expired(self, now: datetime) -> None:
        for code, (_, expires_at) in list(self._codes.items()):
            if expires_at < now.isoformat():
                del self._codes[code]

    async def redeem_link_code(
        self, code: str, platform: str, user_id: str, now: datetime
    ) -> tuple[str, str] | None:
        """Join this identity to the person who asked for ``code``; returns (old, new)
        user keys, or None when the code is unknown or expired. One use per code.

        The join is one write: the old person's file gets ``linked_to``, and every identity
        and DM that pointed at the old person points at the new one from then on."""
        self._check_open()
        code = code.strip().upper()
        async with self._creating():
            entry = self._codes.get(code)
            if entry is None or entry[1] < now.isoformat():
                return None
            target = self._canonical(entry[0])
            old = await self._person_for(platform, user_id, "")
            del self._codes[code]
            await self._save_codes()
            if old != target and old in self._people:
                self._people[old].linked_to = target
                await self._save_person(self._people[old])
            return old, target

    # ------------------------------------------------------------------ dialogues

    def _info(self, chat: ChatFile) -> DialogueInfo:
        return DialogueInfo(
            agent_id=chat.agent_id,
            dialogue_id=chat.dialogue_id,
            platform=chat.platform,
            chat_id=chat.chat_id,
            thread_id=chat.thread_id or None,
            is_group=chat.is_group,
            user_key=self._canonical(chat.user_key) if chat.user_key else None,
            last_user_at=chat.last_user_at,
            last_bot_at=chat.last_bot_at,
        )

    async def dialogue_for(
        self,
        agent_id: str,
        platform: str,
        chat_id: str,
        thread_id: str | None,
        *,
        is_group: bool,
        user_key: str | None,
    ) -> DialogueInfo:
        self._check_open()
        check_agent_id(agent_id)
        key = (platform, chat_id, thread_id or "", agent_id)
        chat = self._chats.get(key)
        if chat is None:
            async with self._creating():
                chat = self._chats.get(key) or await self._create_dialogue(
                    key, is_group=is_group, user_key=user_key
                )
        return self._info(chat)

    async def _create_dialogue(
        self, key: ChatKey, *, is_group: bool, user_key: str | None
    ) -> ChatFile:
        platform, chat_id, thread_id, agent_id = key
        if user_key is not None and not is_group:
            check_user_key(user_key)
        dialogue_id = await asyncio.to_thread(self.files.take_dialogue_folder, agent_id)
        chat = ChatFile(
            agent_id=agent_id,
            dialogue_id=dialogue_id,
            platform=platform,
            chat_id=chat_id,
            thread_id=thread_id,
            is_group=is_group,
            user_key=None if is_group else user_key,
            created_at=_now_iso(),
        )
        await self._save_chat(chat)
        self._chats[key] = chat
        self._by_id[(agent_id, dialogue_id)] = chat
        logger.info("new dialogue %s/%s for %s chat %s", agent_id, dialogue_id, platform, chat_id)
        return chat

    async def dialogue(self, agent_id: str, dialogue_id: str) -> DialogueInfo | None:
        self._check_open()
        chat = self._by_id.get((agent_id, dialogue_id))
        return self._info(chat) if chat is not None else None

    async def dialogues(self) -> list[DialogueInfo]:
        self._check_open()
        await self._fresh(activity=True)
        return [self._info(self._by_id[k]) for k in sorted(self._by_id, key=_dialogue_order)]

    async def touch_dialogue(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        user_at: str | None = None,
        bot_at: str | None = None,
        save: bool = True,
    ) -> None:
        """The chat's last message times; ``save=False`` keeps them in memory only, for a
        turn that saves both with its reply's time (one file write a turn, not two)."""
        self._check_open()
        chat = self._by_id.get((agent_id, dialogue_id))
        if chat is None or not (user_at or bot_at):
            return
        chat.last_user_at = user_at or chat.last_user_at
        chat.last_bot_at = bot_at or chat.last_bot_at
        if save:
            await self._save_activity(chat)


# ---------------------------------------------------------------------------- loading checks


def _holders(files: StateFiles, people: dict[str, PersonFile]) -> dict[tuple[str, str], str]:
    holder: dict[tuple[str, str], str] = {}
    for key, person in people.items():
        for ident in person.identities:
            if ident in holder:
                raise StateFileError(
                    files.person_path(key),
                    f"lists identity {ident[0]}:{ident[1]}, which "
                    f"{files.person_path(holder[ident])} lists too",
                )
            holder[ident] = key
    return holder


def _check_links(files: StateFiles, people: dict[str, PersonFile]) -> None:
    for start in people:
        seen = [start]
        person = people.get(start)
        while person is not None and person.linked_to:
            if person.linked_to in seen:
                raise StateFileError(
                    files.person_path(start), f"is linked in a circle: {' -> '.join(seen)}"
                )
            seen.append(person.linked_to)
            person = people.get(person.linked_to)


def _index_chats(
    files: StateFiles, chats: list[ChatFile]
) -> tuple[dict[ChatKey, ChatFile], dict[tuple[str, str], ChatFile]]:
    by_key: dict[ChatKey, ChatFile] = {}
    by_id: dict[tuple[str, str], ChatFile] = {}
    for chat in chats:
        other = by_key.get(chat.key)
        if other is not None:
            raise StateFileError(
                files.chat_path(chat.agent_id, chat.dialogue_id),
                f"claims {chat.platform} chat {chat.chat_id}, which "
                f"{files.chat_path(other.agent_id, other.dialogue_id)} claims too",
            )
        by_key[chat.key] = chat
        by_id[(chat.agent_id, chat.dialogue_id)] = chat
    return by_key, by_id


def _dialogue_order(key: tuple[str, str]) -> tuple[str, int, str]:
    agent_id, dialogue_id = key
    suffix = dialogue_id.removeprefix("dialogue_")
    return (agent_id, int(suffix) if suffix.isdigit() else -1, dialogue_id)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


__all__ = [
    "BotState",
    "DialogueInfo",
    "Person",
    "StateFileError",
    "check_user_key",
    "user_key_for",
]
