"""One-time import of the tables older versions kept in ``familiars.db`` (``people``,
``identities``, ``dialogues``, ``link_codes``) into the state files.

Runs at the first start of a workspace without ``state/format.json``: what the database still
holds becomes files (a file that exists already is never overwritten), then the marker is
written and the tables are not read again. A workspace whose database is already gone has
nothing to import; its dialogue folders are still never reused (see
:meth:`~familiars.bot._state_files.StateFiles.take_dialogue_folder`).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from familiars.bot._state_files import (
    VERSION,
    ChatFile,
    PersonFile,
    StateFiles,
    ensure_dir,
    write_json,
)
from familiars.memory import AGENT_ID_RE, DB_NAME, DIALOGUE_ID_RE, USER_KEY_RE

logger = logging.getLogger(__name__)

FORMAT_FILE = "format.json"
_TABLES = {"people", "identities", "dialogues", "link_codes"}


def import_legacy_tables(files: StateFiles) -> int:
    """Import once (see the module docstring); returns how many files were written."""
    marker = files.state_dir / FORMAT_FILE
    if marker.exists():
        return 0
    ensure_dir(files.people_dir)
    db = files.workspace / DB_NAME
    written = _import(files, db) if db.exists() else 0
    write_json(marker, {"version": VERSION, "imported_from_db": written})
    if written:
        logger.info("bot state: %d files imported from the tables in %s", written, db)
    return written


def _import(files: StateFiles, db: Path) -> int:
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not found >= _TABLES:
            return 0
        people = _people(conn)
        chats = _chats(conn)
        codes = {
            str(c): (str(k), str(e))
            for c, k, e in conn.execute("SELECT code, user_key, expires_at FROM link_codes")
            if USER_KEY_RE.fullmatch(str(k))
        }
    finally:
        conn.close()
    return _write_missing(files, people, chats, codes)


def _people(conn: sqlite3.Connection) -> dict[str, PersonFile]:
    people = {
        str(k): PersonFile(str(k), str(n or ""), tz, bool(p), str(c or ""))
        for k, n, tz, p, c in conn.execute(
            "SELECT user_key, display_name, timezone, proactive, created_at FROM people"
        )
        if USER_KEY_RE.fullmatch(str(k))
    }
    rows = conn.execute("SELECT platform, platform_user_id, user_key, display_name FROM identities")
    for platform, user_id, key, name in rows:
        person = people.setdefault(str(key), PersonFile(str(key)))
        person.identities[(str(platform), str(user_id))] = str(name or "")
    return {k: p for k, p in people.items() if USER_KEY_RE.fullmatch(k)}


def _chats(conn: sqlite3.Connection) -> list[ChatFile]:
    rows = conn.execute(
        "SELECT agent_id, dialogue_id, platform, chat_id, thread_id, is_group, user_key, "
        "created_at, last_user_at, last_bot_at FROM dialogues"
    )
    return [
        ChatFile(str(a), str(d), str(p), str(c), str(t or ""), bool(g), u, str(at or ""), lu, lb)
        for a, d, p, c, t, g, u, at, lu, lb in rows
        if AGENT_ID_RE.fullmatch(str(a)) and DIALOGUE_ID_RE.fullmatch(str(d))
    ]


def _write_missing(
    files: StateFiles,
    people: dict[str, PersonFile],
    chats: list[ChatFile],
    codes: dict[str, tuple[str, str]],
) -> int:
    written = 0
    for person in people.values():
        if not files.person_path(person.user_key).exists():
            files.write_person(person)
            written += 1
    for chat in chats:
        if not files.chat_path(chat.agent_id, chat.dialogue_id).exists():
            ensure_dir(files.chat_path(chat.agent_id, chat.dialogue_id).parent)
            files.write_chat(chat)
            files.write_activity(chat)
            written += 1
    if codes and not files.link_codes_path.exists():
        files.write_link_codes(codes)
        written += 1
    return written
