"""Moving the state beside the records in and out (``familiars db migrate`` / ``export``).

In: people, link codes, chat and activity files, dialogue trees (``dialogue.json`` as a
document, its journal line by line), the writer's queued and set-aside turns, the reminder
ledger (each loop's fate a ``reminder_fates`` row, the rest the ``scheduler/state.json``
document), consolidation passes (for ``--undo``) and every dialogue number taken. Out: the
same files by the same names; trees, people and chat files come back byte for byte. The
ledger is written back whole with its loops in id order, and a set-aside turn's reason as its
``.reason.txt`` held it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

import psycopg

from familiars.memory._atomic import atomic_write_bytes
from familiars.memory._pg._url import DatabaseError

#: Documents copied as they are (globs under the workspace).
DOC_GLOBS = (
    "state/people/*.json",
    "state/link_codes.json",
    "state/format.json",
    "agents/*/dialogue_*/chat.json",
    "agents/*/dialogue_*/activity.json",
    "agents/*/dialogue_*/dialogue.json",
    "consolidation/passes/p_*.json",
)
JOURNAL_GLOB = "agents/*/dialogue_*/dialogue.journal.jsonl"
LEDGER = "scheduler/state.json"
QUEUE = "state/writer_queue"
_DIALOGUE = re.compile(r"^dialogue_(\d+)$")


def move_state_in(cur: psycopg.Cursor[Any], workspace: Path) -> dict[str, int]:
    """Copy the workspace's state into the (migrated) schema, in the caller's transaction."""
    counts = {"state_documents": 0, "journal_lines": 0, "queued_turns": 0, "reminder_fates": 0}
    for path in sorted({p for g in DOC_GLOBS for p in workspace.glob(g) if p.is_file()}):
        _doc(cur, path.relative_to(workspace).as_posix(), path.read_bytes())
        counts["state_documents"] += 1
    for path in sorted(workspace.glob(JOURNAL_GLOB)):
        lines = path.read_bytes().decode("utf-8", "replace").split("\n")
        name = path.relative_to(workspace).as_posix()
        rows = [(name, line) for line in lines if line]
        cur.executemany("INSERT INTO state_lines (name, line) VALUES (%s, %s)", rows)
        counts["journal_lines"] += len(rows)
    counts["queued_turns"] = _queue_in(cur, workspace / QUEUE)
    counts["reminder_fates"] = _ledger_in(cur, workspace / LEDGER)
    for folder in sorted(workspace.glob("agents/*/dialogue_*")):
        found = _DIALOGUE.match(folder.name)
        if found and folder.is_dir():
            cur.execute(
                "INSERT INTO dialogue_numbers (agent_id, number) VALUES (%s, %s) "
                "ON CONFLICT DO NOTHING",
                (folder.parent.name, int(found.group(1))),
            )
    return counts


def _doc(cur: psycopg.Cursor[Any], name: str, data: bytes) -> None:
    cur.execute(
        "INSERT INTO state_docs (name, body) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE "
        "SET body = excluded.body, updated_at = now()",
        (name, data),
    )


def _queue_in(cur: psycopg.Cursor[Any], folder: Path) -> int:
    done = 0
    for failed, where in ((False, folder), (True, folder / "failed")):
        # A held turn (h_) is a cut-off turn's writer work: queued, as the next start would.
        for path in [*sorted(where.glob("t_*.json")), *sorted(where.glob("h_*.json"))]:
            reason_file = path.with_suffix(".reason.txt")
            reason = reason_file.read_text("utf-8", "replace") if reason_file.exists() else ""
            cur.execute(
                "INSERT INTO writer_queue (name, body, failed, reason) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                ("t_" + path.name[2:], path.read_text("utf-8", "replace"), failed, reason or None),
            )
            done += 1
    return done


def _ledger_in(cur: psycopg.Cursor[Any], path: Path) -> int:
    if not path.is_file():
        return 0
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("loops", {}), dict):
        return 0
    loops = data.get("loops", {})
    for rid, entry in loops.items():
        cur.execute(
            "INSERT INTO reminder_fates (record_id, entry) VALUES (%s, %s) "
            "ON CONFLICT (record_id) DO UPDATE SET entry = excluded.entry",
            (rid, json.dumps(entry, ensure_ascii=False)),
        )
    _doc(cur, LEDGER, _ledger_bytes({**data, "loops": {}}))
    return len(loops)


def _ledger_bytes(data: Any) -> bytes:
    """As the scheduler writes its ledger (``scheduler/_files.json_bytes``)."""
    return (json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n").encode()


def move_state_out(conn: psycopg.Connection[Any], workspace: Path) -> dict[str, int]:
    """Write the schema's state back as the workspace's files."""
    counts = {"state_documents": 0, "journal_lines": 0, "queued_turns": 0, "reminder_fates": 0}
    docs = conn.execute("SELECT name, body FROM state_docs ORDER BY name").fetchall()
    journals: dict[str, list[str]] = {}
    for name, line in conn.execute("SELECT name, line FROM state_lines ORDER BY seq"):
        journals.setdefault(name, []).append(line)
    ledger: dict[str, Any] | None = None
    for name, body in docs:
        if name == LEDGER:
            ledger = json.loads(bytes(body))
            continue
        if not name.startswith(f"{QUEUE}/"):
            atomic_write_bytes(workspace / name, bytes(body))
            counts["state_documents"] += 1
    for name, lines in journals.items():
        atomic_write_bytes(workspace / name, "".join(f"{ln}\n" for ln in lines).encode())
        counts["journal_lines"] += len(lines)
    counts["queued_turns"] = _queue_out(conn, workspace / QUEUE)
    fates = conn.execute("SELECT record_id, entry FROM reminder_fates ORDER BY record_id")
    loops = {rid: entry for rid, entry in fates}
    if ledger is not None or loops:
        data = ledger or {"version": 1, "dialogues": {}}
        atomic_write_bytes(workspace / LEDGER, _ledger_bytes({**data, "loops": loops}))
        counts["reminder_fates"] = len(loops)
    return counts


def check_export_names(conn: psycopg.Connection[Any], cells: list[str]) -> None:
    """Before an export writes anything: every name it will write under (a record file's
    cell, a state row's name) is a relative path that stays inside the new workspace; a
    database others write to may hold any text there."""
    names = [r[0] for r in conn.execute("SELECT name FROM state_docs").fetchall()]
    names += [r[0] for r in conn.execute("SELECT DISTINCT name FROM state_lines").fetchall()]
    names += [f"{QUEUE}/{r[0]}" for r in conn.execute("SELECT name FROM writer_queue")]
    for name in [*cells, *names]:
        path = PurePosixPath(name)
        if not name or path.is_absolute() or ".." in path.parts or "\\" in name:
            raise DatabaseError(
                f"the database holds a row named {name!r}, which is not a path inside a "
                "workspace; nothing was exported (remove or rename that row)"
            )


def _queue_out(conn: psycopg.Connection[Any], folder: Path) -> int:
    rows = conn.execute("SELECT name, body, failed, reason FROM writer_queue ORDER BY name")
    done = 0
    for name, body, failed, reason in rows:
        path = (folder / "failed" if failed else folder) / name
        atomic_write_bytes(path, body.encode("utf-8"))
        if reason:
            text = reason if reason.endswith("\n") else f"{reason}\n"
            atomic_write_bytes(path.with_suffix(".reason.txt"), text.encode("utf-8"))
        done += 1
    return done
