"""Moving a workspace's records into the database and back out, losslessly.

:func:`move_in` copies every memory file of a workspace (each entry with its id, timestamps
and every field as written, the text of a file that is not an entry in its place, and the
history sidecar line by line) into the schema, in one transaction. :func:`move_out` writes
the cells back as markdown files and history sidecars. Out after in gives the same bytes for
every file the store wrote (a header typed by hand comes back in the store's field order; a
BOM or CRLF line ends are dropped, as the store drops them on its next write).

The workspace's SQLite index, when there is one, gives its vectors too (every model's, each
in its own space), so a large workspace is not embedded again; what has no vector there is
embedded by the first worker with an embedder.

The state beside the records (people, chats, trees, the writer queue, the reminder ledger)
moves with them, in the same transaction (``_move_state``), and so does the document index
(``_move_docs``).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from familiars.memory._atomic import atomic_write_text
from familiars.memory._entries import ParsedFile, Segment, read_file, render_file
from familiars.memory._history import history_path
from familiars.memory._paths import MEMORY_GLOBS
from familiars.memory._pg._connect import DatabaseError
from familiars.memory._pg._move_docs import move_docs_in, move_docs_out
from familiars.memory._pg._move_state import (
    check_export_names,
    move_state_in,
    move_state_out,
)
from familiars.memory._pg._store import _RECORD_COLUMNS, RECORD_VALUES, record_row
from familiars.memory._records import MemoryRecord

_HISTORY_INSERT = "INSERT INTO history (cell, record_id, supersedes, line) VALUES (%s, %s, %s, %s)"


@dataclass
class MoveReport:
    files: int = 0
    records: int = 0
    raw_segments: int = 0
    history_lines: int = 0
    vectors: int = 0
    errors: list[str] = field(default_factory=list)
    #: What of the state beside the records moved (``_move_state``).
    state: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "records": self.records,
            "raw_segments": self.raw_segments,
            "history_lines": self.history_lines,
            "vectors": self.vectors,
            **self.state,
            "errors": self.errors,
        }


def memory_files(workspace: Path) -> list[Path]:
    from familiars.memory._paths import owner_from_path

    found = {p for g in MEMORY_GLOBS for p in workspace.glob(g)}
    return sorted(p for p in found if owner_from_path(workspace, p))


def _history_lines(path: Path) -> list[str]:
    hist = history_path(path)
    if not hist.exists():
        return []
    text = hist.read_bytes().decode("utf-8", "surrogateescape")
    return [line for line in text.split("\n") if line]


def _clean(text: str, report: MoveReport, where: str) -> str:
    """PostgreSQL text is UTF-8: bytes that are not (kept by the parser as surrogate escapes)
    become U+FFFD, and the report says where."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        report.errors.append(f"{where}: bytes that are not UTF-8 were replaced")
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _history_row(cell: str, line: str) -> tuple[str, str, str | None, str]:
    try:
        item = json.loads(line)
    except json.JSONDecodeError:
        return cell, "", None, line  # kept as it was: a line nobody could read stays one
    if not isinstance(item, dict):
        return cell, "", None, line
    record = item.get("record")
    sup = record.get("supersedes") if isinstance(record, dict) else None
    return cell, str(item.get("id", "")), sup if isinstance(sup, str) else None, line


def move_in(conn: psycopg.Connection[Any], workspace: Path) -> MoveReport:
    """Copy the workspace's records and history into the (migrated) schema. Refuses when
    one of its record ids is in the database already: a move never overwrites."""
    from familiars.memory._paths import cell_of_file, owner_from_path

    workspace = Path(workspace)
    report = MoveReport()
    files = memory_files(workspace)
    vectors = _sqlite_vectors(workspace)
    parsed_files = [(p, read_file(p, cell_of_file(workspace, p))) for p in files]
    ids = [r.id for _, parsed in parsed_files for r in parsed.records]
    clash = conn.execute("SELECT count(*) FROM records WHERE id = ANY(%s)", (ids,)).fetchone()
    if clash and clash[0]:
        raise DatabaseError(
            f"{clash[0]} of this workspace's records are in the database already; "
            "a move never overwrites (export them, or move into an empty schema)"
        )
    with conn.transaction(), conn.cursor() as cur:
        for path, parsed in parsed_files:
            cell = path.relative_to(workspace).as_posix()
            info = owner_from_path(workspace, path) or {}
            _insert_cell(cur, cell, parsed, info, report)
            lines = _history_lines(path)
            rows = [_history_row(cell, _clean(line, report, f"{cell} history")) for line in lines]
            cur.executemany(_HISTORY_INSERT, rows)
            report.history_lines += len(lines)
            cur.execute("INSERT INTO cells (cell, version) VALUES (%s, 1)", (cell,))
            report.files += 1
            report.errors += [str(e) for e in parsed.errors]
        report.vectors = _insert_vectors(cur, vectors)
        report.state = move_state_in(cur, workspace)
        report.state.update(move_docs_in(cur, workspace))
    return report


def _sqlite_vectors(workspace: Path) -> list[tuple[str, int, str, bytes]]:
    """(model, dim, content hash, float32 bytes) of every vector the workspace's SQLite
    index holds; [] without one (or one that cannot be read: the vectors are a cache)."""
    import sqlite3

    from familiars.memory._index import DB_NAME

    path = workspace / DB_NAME
    if not path.is_file():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return list(
                db.execute(
                    "SELECT s.model, s.dim, v.content_hash, v.vector FROM vectors v "
                    "JOIN embedding_spaces s ON s.space_id = v.space_id"
                )
            )
    except sqlite3.Error:
        return []


def _insert_vectors(cur: psycopg.Cursor[Any], rows: list[tuple[str, int, str, bytes]]) -> int:
    import numpy as np

    spaces: dict[tuple[str, int], int] = {}
    batch = []
    for model, dim, digest, blob in rows:
        if (model, dim) not in spaces:
            found = cur.execute(
                "INSERT INTO embedding_spaces (model, dim) VALUES (%s, %s) ON CONFLICT "
                "(model, dim) DO UPDATE SET dim = excluded.dim RETURNING space_id",
                (model, dim),
            ).fetchone()
            assert found is not None
            spaces[(model, dim)] = int(found[0])
        vec = np.frombuffer(blob, dtype=np.float32)
        if vec.shape == (dim,):
            batch.append((spaces[(model, dim)], digest, vec))
    cur.executemany(
        "INSERT INTO vectors (space_id, content_hash, embedding) VALUES (%s, %s, %s) "
        "ON CONFLICT DO NOTHING",
        batch,
    )
    return len(batch)


def _insert_cell(
    cur: psycopg.Cursor[Any],
    cell: str,
    parsed: ParsedFile,
    info: dict[str, str | None],
    report: MoveReport,
) -> None:
    for seg in parsed.segments:
        if seg.record is None:
            text = _clean(seg.text, report, f"{cell} line {seg.line}")
            cur.execute("INSERT INTO raw_segments (cell, text) VALUES (%s, %s)", (cell, text))
            report.raw_segments += 1
            continue
        rec: MemoryRecord = seg.record
        rec.user_key = info.get("user_key")
        rec.agent_id = info.get("agent_id") or "agent_0"
        rec.dialogue_id = info.get("dialogue_id")
        cur.execute(
            f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES {RECORD_VALUES}",
            record_row(cell, rec),
        )
        report.records += 1


def move_out(conn: psycopg.Connection[Any], workspace: Path) -> MoveReport:
    """Write every cell of the schema as a markdown file (and its history sidecar) under
    ``workspace``. Refuses a workspace that already holds memory files."""
    from familiars.memory._index import record_from_row

    workspace = Path(workspace)
    if memory_files(workspace):
        raise DatabaseError(f"{workspace} already holds memory files; export into a new folder")
    report = MoveReport()
    cells = [r[0] for r in conn.execute("SELECT cell FROM cells ORDER BY cell").fetchall()]
    check_export_names(conn, cells)
    for cell in cells:
        rows = conn.execute(
            "SELECT pos, data::text, content, NULL FROM records WHERE cell = %s "
            "UNION ALL SELECT pos, NULL, NULL, text FROM raw_segments WHERE cell = %s "
            "ORDER BY 1",
            (cell, cell),
        ).fetchall()
        parsed = ParsedFile(path=workspace / cell)
        for _, data, content, raw in rows:
            if data is None:
                parsed.segments.append(Segment(text=raw, line=0))
                report.raw_segments += 1
            else:
                rec = record_from_row(data, content, None, None, None)
                parsed.segments.append(Segment(text="", line=0, record=rec))
                report.records += 1
        path = workspace / cell
        text = render_file(parsed)
        atomic_write_text(path, text)
        lines = conn.execute(
            "SELECT line FROM history WHERE cell = %s ORDER BY seq", (cell,)
        ).fetchall()
        if lines:
            atomic_write_text(history_path(path), "".join(f"{r[0]}\n" for r in lines))
            report.history_lines += len(lines)
        report.files += 1
    report.state = move_state_out(conn, workspace)
    report.state.update(move_docs_out(conn, workspace))
    return report
