"""PgMemoryStore: the records and their history in PostgreSQL, behind ``MemoryStore``.

Everything a write does is ``MemoryStore``'s own (dedupe, supersedes, deprecation, pins,
forget, the one writer task, the listeners); only where a cell is kept changes. A cell
(``users/<key>/profile.md`` as a name, no file) is read from its rows in ``pos`` order and
cached by its ``version``; a batch writes the rows that changed, the history lines, the new
version and one ``record_changes`` row per record, in one transaction that holds a
transaction advisory lock per cell it touches, so two workers never interleave in one cell.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import json
import logging
import uuid
import zlib
from pathlib import Path
from typing import Any

import psycopg

from familiars.config import PrivacySettings
from familiars.memory._embeddings import content_hash
from familiars.memory._entries import ParsedFile, Segment, record_header
from familiars.memory._errors import RecordNotFoundError
from familiars.memory._history import Quotes, chain_events, unquote_line
from familiars.memory._limits import DEFAULT_MAX_RECORD_CHARS
from familiars.memory._paths import check_record_id, owner_from_path
from familiars.memory._pg._connect import notify_channel
from familiars.memory._records import MemoryRecord, iso_now
from familiars.memory._store import (
    MemoryStore,
    StoreListener,
    _BatchLog,
    _BatchResults,
    _Cached,
    _OpGroup,
)
from familiars.memory._text import no_space_terms

logger = logging.getLogger(__name__)

_CELL_LOCK = 0x6365  # the first key of a cell's advisory lock ("ce"); the second: its hash

_RECORD_COLUMNS = (
    "id, cell, scope, category, user_key, agent_id, dialogue_id, ts, content, content_hash, "
    "deprecated, pinned, salience, data, terms"
)
#: One placeholder per column of :data:`_RECORD_COLUMNS`.
RECORD_VALUES = "(" + ", ".join(["%s"] * 15) + ")"


_UPSERT = (
    f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES {RECORD_VALUES} "
    "ON CONFLICT (id) DO UPDATE SET scope = excluded.scope, "
    "category = excluded.category, user_key = excluded.user_key, "
    "agent_id = excluded.agent_id, dialogue_id = excluded.dialogue_id, "
    "ts = excluded.ts, content = excluded.content, "
    "content_hash = excluded.content_hash, deprecated = excluded.deprecated, "
    "pinned = excluded.pinned, salience = excluded.salience, data = excluded.data, "
    "terms = excluded.terms"
)


def header_json(rec: MemoryRecord) -> str:
    return json.dumps(record_header(rec), ensure_ascii=False)


def record_row(cell: str, rec: MemoryRecord) -> tuple[Any, ...]:
    return (
        rec.id,
        cell,
        rec.scope,
        rec.category,
        rec.user_key,
        rec.agent_id if rec.scope != "user" else None,
        rec.dialogue_id,
        rec.ts,
        rec.content,
        content_hash(rec.content),
        rec.deprecated,
        rec.pinned,
        float(rec.salience),
        header_json(rec),
        no_space_terms(rec.content),
    )


def history_row(cell: str, line: str) -> tuple[str, str, str | None, str]:
    item = json.loads(line)
    record = item.get("record") if isinstance(item, dict) else None
    sup = record.get("supersedes") if isinstance(record, dict) else None
    return cell, str(item.get("id", "")), sup if isinstance(sup, str) else None, line


def history_line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


class PgMemoryStore(MemoryStore):
    """``MemoryStore`` over one database schema (see the module docstring)."""

    def __init__(
        self,
        workspace: Path,
        conn: psycopg.Connection[Any],
        *,
        schema: str,
        listeners: list[StoreListener] | None = None,
        max_record_chars: int = DEFAULT_MAX_RECORD_CHARS,
        origin: str | None = None,
        privacy: PrivacySettings | None = None,
    ) -> None:
        super().__init__(
            workspace,
            listeners=listeners or (),
            max_record_chars=max_record_chars,
            privacy=privacy,
        )
        self.conn = conn
        self.schema = schema
        #: This worker's name in ``record_changes`` (its own changes are not fed back to it).
        self.origin = origin or uuid.uuid4().hex
        #: cell -> {record id: (header json, content)} as last read or written.
        self._rows: dict[str, dict[str, tuple[str, str]]] = {}
        #: cell -> version, read with a listing's cells and used once by its loads.
        self._versions: dict[str, int] = {}

    # ----------------------------------------------------------------- cells

    def cell_of(self, path: Path) -> str:
        return Path(path).relative_to(self.workspace).as_posix()

    def memory_files(self) -> builtins.list[Path]:
        with self._lock:
            rows = self.conn.execute("SELECT cell, version FROM cells ORDER BY cell").fetchall()
            self._versions = {cell: int(version) for cell, version in rows}
        return [self.workspace / r[0] for r in rows]

    def _candidate_files(
        self,
        scope: str | None,
        category: str | None,
        user_key: str | None,
        agent_id: str | None,
        dialogue_id: str | None,
    ) -> builtins.list[Path]:
        prefix = ""
        if scope == "user" and user_key is not None:
            prefix = f"users/{user_key}/"
        elif scope == "identity" and agent_id is not None:
            prefix = f"agents/{agent_id}/identity/"
        elif scope in ("dialogue", "ephemeral") and agent_id and dialogue_id:
            prefix = f"agents/{agent_id}/{dialogue_id}/{scope}/"
        with self._lock:
            rows = self.conn.execute(
                "SELECT cell, version FROM cells WHERE starts_with(cell, %s) ORDER BY cell",
                (prefix,),
            ).fetchall()
            # The versions just read serve the loads of this same listing (one query, not
            # one per cell); _load takes each once, and a write batch drops them all.
            self._versions = {cell: int(version) for cell, version in rows}
        paths = [self.workspace / r[0] for r in rows]
        if category is not None:
            paths = [p for p in paths if p.name == f"{category}.md"]
        return [p for p in paths if owner_from_path(self.workspace, p)]

    def _load(self, path: Path) -> ParsedFile:
        """The cell's records (and kept raw text) in order, re-read when its version moved."""
        with self._lock:
            cell = self.cell_of(path)
            known = self._versions.pop(cell, None)
            row = (
                (known,)
                if known is not None
                else self.conn.execute(
                    "SELECT version FROM cells WHERE cell = %s", (cell,)
                ).fetchone()
            )
            if row is None:
                self._forget_path(path)
                self._rows.pop(cell, None)
                return ParsedFile(path=path)
            sig = (int(row[0]), 0)
            cached = self._cache.get(path)
            if cached is not None and cached.sig == sig:
                return cached.parsed
            self._forget_path(path)  # first: it drops the rows _read_cell notes
            parsed = self._read_cell(path, cell)
            self._annotate(path, parsed)
            self._cache[path] = _Cached(sig, parsed)
            for rec in parsed.records:
                self._id_paths[rec.id] = path
            return parsed

    def _read_cell(self, path: Path, cell: str) -> ParsedFile:
        from familiars.memory._index import record_from_row

        rows = self.conn.execute(
            "SELECT pos, data::text, content, NULL FROM records WHERE cell = %s "
            "UNION ALL SELECT pos, NULL, NULL, text FROM raw_segments WHERE cell = %s "
            "ORDER BY 1",
            (cell, cell),
        ).fetchall()
        parsed = ParsedFile(path=path)
        known: dict[str, tuple[str, str]] = {}
        for _, data, content, raw in rows:
            if data is None:
                parsed.segments.append(Segment(text=raw, line=0))
                continue
            rec = record_from_row(data, content, None, None, None)
            parsed.segments.append(Segment(text="", line=0, record=rec))
            known[rec.id] = (header_json(rec), rec.content)
        self._rows[cell] = known
        return parsed

    def _forget_path(self, path: Path) -> None:
        super()._forget_path(path)
        with contextlib.suppress(ValueError):
            self._rows.pop(self.cell_of(path), None)

    def _locate(self, record_id: str) -> tuple[Path, ParsedFile, int]:
        with self._lock:
            self._versions = {}  # not a listing: the version is read now
            row = self.conn.execute(
                "SELECT cell FROM records WHERE id = %s", (record_id,)
            ).fetchone()
            if row is not None:
                path = self.workspace / row[0]
                parsed = self._load(path)
                for i, seg in enumerate(parsed.segments):
                    if seg.record is not None and seg.record.id == record_id:
                        return path, parsed, i
        raise RecordNotFoundError(record_id)

    def _scan_sync(self) -> None:
        self._scanned = True  # nothing to scan: ids are looked up in the database

    # ----------------------------------------------------------------- writing

    def _apply_groups(self, groups: builtins.list[_OpGroup], log: _BatchLog) -> _BatchResults:
        """``MemoryStore``'s batch inside one transaction that holds every touched cell's
        advisory lock: what is read under it is what the batch writes over."""
        cells = sorted({self.cell_of(op.path) for g in groups for op in g.ops})
        with self._lock, self.conn.transaction():
            self._versions = {}  # a write reads each cell's version under its lock
            for cell in cells:
                self.conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, %s)",
                    (_CELL_LOCK, zlib.crc32(cell.encode()) - 2**31),
                )
            result = super()._apply_groups(groups, log)
            if log.dirty:
                self.conn.execute(psycopg.sql.SQL("NOTIFY {}").format(notify_channel(self.schema)))
            return result

    def _write_file(
        self, path: Path, parsed: ParsedFile, events: builtins.list[dict[str, Any]]
    ) -> None:
        """Write what differs between ``parsed`` and the rows last read: new, changed and
        removed records, the events, the cell's new version, the change feed."""
        cell = self.cell_of(path)
        new, upserts, removed = self._diff(cell, parsed)
        cur = self.conn.cursor()
        if removed:
            cur.execute("DELETE FROM records WHERE id = ANY(%s)", (removed,))
        if upserts:
            cur.executemany(_UPSERT, upserts)
        if events:
            cur.executemany(
                "INSERT INTO history (cell, record_id, supersedes, line) VALUES (%s, %s, %s, %s)",
                [history_row(cell, history_line(e)) for e in events],
            )
        changes = [(self.origin, row[0], False) for row in upserts]
        changes += [(self.origin, rid, True) for rid in removed]
        if changes:
            cur.executemany(
                "INSERT INTO record_changes (origin, record_id, removed) VALUES (%s, %s, %s)",
                changes,
            )
        row = cur.execute(
            "INSERT INTO cells (cell, version) VALUES (%s, 1) ON CONFLICT (cell) "
            "DO UPDATE SET version = cells.version + 1 RETURNING version",
            (cell,),
        ).fetchone()
        assert row is not None
        self._forget_path(path)
        self._cache[path] = _Cached((int(row[0]), 0), parsed)
        self._rows[cell] = new
        for rec in parsed.records:
            self._id_paths[rec.id] = path
        self._annotate(path, parsed)

    def _diff(
        self, cell: str, parsed: ParsedFile
    ) -> tuple[dict[str, tuple[str, str]], list[tuple[Any, ...]], list[str]]:
        """The cell's records as they are now, the rows to upsert, the ids removed."""
        old = self._rows.get(cell)
        if old is None:  # never without a read first; if so, diff against the rows as stored
            stored = self.conn.execute(
                "SELECT id, data::text, content FROM records WHERE cell = %s", (cell,)
            ).fetchall()
            old = {rid: (data, content) for rid, data, content in stored}
        new: dict[str, tuple[str, str]] = {}
        upserts: list[tuple[Any, ...]] = []
        for seg in parsed.segments:
            rec = seg.record
            if rec is None:
                continue
            state = (header_json(rec), rec.content)
            new[rec.id] = state
            if old.get(rec.id) != state:
                upserts.append(record_row(cell, rec))
        return new, upserts, [rid for rid in old if rid not in new]

    def _holding_history(self, record_ids: builtins.list[str]) -> dict[Path, builtins.list[str]]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT DISTINCT cell, record_id FROM history WHERE record_id = ANY(%s)"
                " AND line NOT LIKE '%%\"forgotten\":true%%'",
                (record_ids,),
            ).fetchall()
        out: dict[Path, builtins.list[str]] = {}
        for cell, record_id in rows:
            out.setdefault(self.workspace / cell, []).append(str(record_id))
        return out

    def _history_ids(self, path: Path) -> builtins.list[str]:
        rows = self.conn.execute(
            "SELECT DISTINCT record_id FROM history WHERE cell = %s"
            " AND line NOT LIKE '%%\"forgotten\":true%%'",
            (self.cell_of(path),),
        ).fetchall()
        return sorted(str(r[0]) for r in rows)

    def _purge_history(self, path: Path, record_ids: builtins.list[str]) -> None:
        for record_id in record_ids:
            tombstone = {"event": "delete", "ts": iso_now(), "id": record_id, "forgotten": True}
            self.conn.execute("DELETE FROM history WHERE record_id = %s", (record_id,))
            self.conn.execute(
                "INSERT INTO history (cell, record_id, supersedes, line) VALUES (%s, %s, NULL, %s)",
                (self.cell_of(path), record_id, json.dumps(tombstone, separators=(",", ":"))),
            )

    def _unquote_history(self, path: Path, quotes: Quotes) -> None:
        """The history rows of the ids without the quotes (see ``history.unquote``)."""
        rows = self.conn.execute(
            "SELECT seq, line FROM history WHERE record_id = ANY(%s)", (list(quotes),)
        ).fetchall()
        for seq, line in rows:
            new = unquote_line(line, quotes)
            if new is None:
                self.conn.execute("DELETE FROM history WHERE seq = %s", (seq,))
            elif new != line:
                self.conn.execute("UPDATE history SET line = %s WHERE seq = %s", (new, seq))

    # ----------------------------------------------------------------- reading

    async def history(self, record_id: str) -> builtins.list[dict[str, Any]]:
        """The events of the record's ``supersedes`` chain, oldest first (as the file
        store answers), found by following the chain in the database."""
        check_record_id(record_id)
        return await asyncio.to_thread(self._history_sync, record_id)

    def _history_sync(self, record_id: str) -> builtins.list[dict[str, Any]]:
        with self._lock:
            chain = {record_id}
            frontier = [record_id]
            while frontier:
                rows = self.conn.execute(
                    "SELECT record_id, supersedes FROM history "
                    "WHERE record_id = ANY(%s) OR supersedes = ANY(%s)",
                    (frontier, frontier),
                ).fetchall()
                found = {x for r in rows for x in r if x} - chain
                chain |= found
                frontier = list(found)
            lines = self.conn.execute(
                "SELECT line FROM history WHERE record_id = ANY(%s) ORDER BY seq", (list(chain),)
            ).fetchall()
        return chain_events([json.loads(r[0]) for r in lines], record_id)

    async def parse_errors(self) -> builtins.list[Any]:
        return []  # rows are checked when they are written; nothing to parse

    async def close(self) -> None:
        """Finish the queued writes, then close the connection."""
        await super().close()
        if not self.conn.closed:
            self.conn.close()
