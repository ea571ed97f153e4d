"""The bot's own tables in ``familiars.db``: people, their platform identities, link codes,
and which dialogue of which agent a chat maps to.

(platform, user id) -> person (``user_key``); identities linked with ``/link`` share one person
and so one user scope. (platform, chat, thread, agent) -> ``dialogue_<n>`` of that agent.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite

from familiars.memory import (
    USER_KEY_RE,
    MigrationSet,
    check_agent_id,
    check_user_key,
    open_database,
)

migrations = MigrationSet("bot")

LINK_CODE_TTL = timedelta(minutes=10)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@migrations
def m001_people_and_dialogues(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE TABLE people (
            user_key TEXT PRIMARY KEY,
            display_name TEXT NOT NULL DEFAULT '',
            timezone TEXT,
            proactive INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL
        );
        CREATE TABLE identities (
            platform TEXT NOT NULL,
            platform_user_id TEXT NOT NULL,
            user_key TEXT NOT NULL REFERENCES people(user_key),
            display_name TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (platform, platform_user_id)
        );
        CREATE INDEX identities_user ON identities(user_key);
        CREATE TABLE link_codes (
            code TEXT PRIMARY KEY,
            user_key TEXT NOT NULL,
            expires_at TEXT NOT NULL
        );
        CREATE TABLE dialogues (
            agent_id TEXT NOT NULL,
            dialogue_id TEXT NOT NULL,
            platform TEXT NOT NULL,
            chat_id TEXT NOT NULL,
            thread_id TEXT NOT NULL DEFAULT '',
            is_group INTEGER NOT NULL,
            user_key TEXT,
            created_at TEXT NOT NULL,
            last_user_at TEXT,
            last_bot_at TEXT,
            PRIMARY KEY (agent_id, dialogue_id),
            UNIQUE (platform, chat_id, thread_id, agent_id)
        );
        """
    )


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
    def __init__(self, workspace: Path) -> None:
        self.path = Path(workspace) / "familiars.db"
        self._db: aiosqlite.Connection | None = None
        # Find-or-create must not interleave between concurrent turns (two new chats would
        # both pick the same dialogue number; two first messages would race on one person).
        self._create_lock = asyncio.Lock()

    async def open(self) -> None:
        self._db = await open_database(self.path, [migrations])

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("BotState is not open")
        return self._db

    # A read runs to its end in one call: a cursor left open across an await keeps a read
    # transaction that another turn's write on this connection cannot then upgrade while the
    # index's connection writes ("database is locked" at once, with no busy wait).
    async def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(await self.db.execute_fetchall(sql, params))

    async def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = await self._all(sql, params)
        return rows[0] if rows else None

    # ------------------------------------------------------------------ people

    async def person_for(self, platform: str, user_id: str, display_name: str = "") -> str:
        """The person behind a platform identity, created on first sight."""
        async with self._create_lock:
            return await self._person_for(platform, user_id, display_name)

    async def _person_for(self, platform: str, user_id: str, display_name: str) -> str:
        row = await self._one(
            "SELECT user_key FROM identities WHERE platform = ? AND platform_user_id = ?",
            (platform, user_id),
        )
        if row is not None:
            if display_name:
                await self.db.execute(
                    "UPDATE identities SET display_name = ? WHERE platform = ? "
                    "AND platform_user_id = ? AND display_name != ?",
                    (display_name, platform, user_id, display_name),
                )
                await self.db.commit()
            return str(row[0])
        user_key = user_key_for(platform, user_id)
        await self.db.execute(
            "INSERT OR IGNORE INTO people (user_key, display_name, created_at) VALUES (?, ?, ?)",
            (user_key, display_name, _now_iso()),
        )
        await self.db.execute(
            "INSERT OR IGNORE INTO identities (platform, platform_user_id, user_key, display_name) "
            "VALUES (?, ?, ?, ?)",
            (platform, user_id, user_key, display_name),
        )
        await self.db.commit()
        return user_key

    async def person(self, user_key: str) -> Person | None:
        row = await self._one(
            "SELECT user_key, display_name, timezone, proactive FROM people WHERE user_key = ?",
            (user_key,),
        )
        if row is None:
            return None
        return Person(row[0], row[1], row[2], bool(row[3]))

    async def set_proactive(self, user_key: str, enabled: bool) -> None:
        await self.db.execute(
            "UPDATE people SET proactive = ? WHERE user_key = ?", (int(enabled), user_key)
        )
        await self.db.commit()

    async def set_timezone(self, user_key: str, tz: str | None) -> None:
        await self.db.execute("UPDATE people SET timezone = ? WHERE user_key = ?", (tz, user_key))
        await self.db.commit()

    async def identities_of(self, user_key: str) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT platform, platform_user_id FROM identities WHERE user_key = ? ORDER BY 1, 2",
            (user_key,),
        )
        return [(str(p), str(u)) for p, u in rows]

    # ------------------------------------------------------------------ linking

    async def new_link_code(self, user_key: str, now: datetime) -> str:
        code = secrets.token_hex(4).upper()
        await self.db.execute("DELETE FROM link_codes WHERE expires_at < ?", (now.isoformat(),))
        await self.db.execute(
            "INSERT INTO link_codes (code, user_key, expires_at) VALUES (?, ?, ?)",
            (code, user_key, (now + LINK_CODE_TTL).isoformat()),
        )
        await self.db.commit()
        return code

    async def redeem_link_code(
        self, code: str, platform: str, user_id: str, now: datetime
    ) -> tuple[str, str] | None:
        """Join this identity to the person who asked for ``code``; returns (old, new)
        user keys, or None when the code is unknown or expired. One use per code."""
        code = code.strip().upper()
        row = await self._one("SELECT user_key, expires_at FROM link_codes WHERE code = ?", (code,))
        if row is None or row[1] < now.isoformat():
            return None
        target = str(row[0])
        old = await self.person_for(platform, user_id)
        await self.db.execute("DELETE FROM link_codes WHERE code = ?", (code,))
        await self.db.execute(
            "UPDATE identities SET user_key = ? WHERE user_key = ?", (target, old)
        )
        await self.db.execute("UPDATE dialogues SET user_key = ? WHERE user_key = ?", (target, old))
        await self.db.commit()
        return old, target

    # ------------------------------------------------------------------ dialogues

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
        check_agent_id(agent_id)
        key = (platform, chat_id, thread_id or "", agent_id)
        info = await self._find_dialogue(*key)
        if info is not None:
            return info
        async with self._create_lock:
            return await self._create_dialogue(key, is_group=is_group, user_key=user_key)

    async def _create_dialogue(
        self, key: tuple[str, str, str, str], *, is_group: bool, user_key: str | None
    ) -> DialogueInfo:
        platform, chat_id, thread_id, agent_id = key
        info = await self._find_dialogue(*key)
        if info is not None:
            return info
        rows = await self._all("SELECT dialogue_id FROM dialogues WHERE agent_id = ?", (agent_id,))
        numbers = [int(r[0].split("_", 1)[1]) for r in rows if r[0].split("_", 1)[1].isdigit()]
        dialogue_id = f"dialogue_{max(numbers, default=-1) + 1}"
        await self.db.execute(
            "INSERT OR IGNORE INTO dialogues (agent_id, dialogue_id, platform, chat_id, thread_id, "
            "is_group, user_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                agent_id,
                dialogue_id,
                platform,
                chat_id,
                thread_id or "",
                int(is_group),
                None if is_group else user_key,
                _now_iso(),
            ),
        )
        await self.db.commit()
        found = await self._find_dialogue(*key)
        assert found is not None
        return found

    async def _find_dialogue(
        self, platform: str, chat_id: str, thread_id: str, agent_id: str
    ) -> DialogueInfo | None:
        row = await self._one(
            "SELECT agent_id, dialogue_id, platform, chat_id, thread_id, is_group, user_key, "
            "last_user_at, last_bot_at FROM dialogues "
            "WHERE platform = ? AND chat_id = ? AND thread_id = ? AND agent_id = ?",
            (platform, chat_id, thread_id, agent_id),
        )
        return _dialogue(row) if row else None

    async def dialogue(self, agent_id: str, dialogue_id: str) -> DialogueInfo | None:
        row = await self._one(
            "SELECT agent_id, dialogue_id, platform, chat_id, thread_id, is_group, user_key, "
            "last_user_at, last_bot_at FROM dialogues WHERE agent_id = ? AND dialogue_id = ?",
            (agent_id, dialogue_id),
        )
        return _dialogue(row) if row else None

    async def dialogues(self) -> list[DialogueInfo]:
        rows = await self._all(
            "SELECT agent_id, dialogue_id, platform, chat_id, thread_id, is_group, user_key, "
            "last_user_at, last_bot_at FROM dialogues ORDER BY agent_id, dialogue_id"
        )
        return [_dialogue(r) for r in rows]

    async def touch_dialogue(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        user_at: str | None = None,
        bot_at: str | None = None,
    ) -> None:
        if user_at:
            await self.db.execute(
                "UPDATE dialogues SET last_user_at = ? WHERE agent_id = ? AND dialogue_id = ?",
                (user_at, agent_id, dialogue_id),
            )
        if bot_at:
            await self.db.execute(
                "UPDATE dialogues SET last_bot_at = ? WHERE agent_id = ? AND dialogue_id = ?",
                (bot_at, agent_id, dialogue_id),
            )
        await self.db.commit()


def _dialogue(row: Any) -> DialogueInfo:
    return DialogueInfo(
        agent_id=row[0],
        dialogue_id=row[1],
        platform=row[2],
        chat_id=row[3],
        thread_id=row[4] or None,
        is_group=bool(row[5]),
        user_key=row[6],
        last_user_at=row[7],
        last_bot_at=row[8],
    )


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


__all__ = ["BotState", "DialogueInfo", "Person", "check_user_key", "user_key_for"]
