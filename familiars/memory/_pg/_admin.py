"""What ``familiars db ...`` does: move in, move out, status (each opens its own connection)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from pgvector.psycopg import register_vector

from familiars.config import Settings
from familiars.memory._pg._connect import DatabaseError, connect, explain, shown_url
from familiars.memory._pg._move import move_in, move_out
from familiars.memory._pg._schema import MIGRATIONS, check_writable, migrate
from familiars.memory._pg._url import database_url


def _open(settings: Settings, *, write: bool) -> tuple[str, psycopg.Connection[Any]]:
    url = database_url(settings)
    if url is None:
        raise DatabaseError(
            f"no database: set {settings.database.url_env} to a postgresql:// URL first"
        )
    conn = connect(url, settings.database.schema_name)
    try:
        migrate(conn, settings.database.schema_name, url)
        if write:
            check_writable(conn, url)
        register_vector(conn)
    except BaseException:
        conn.close()
        raise
    return url, conn


def migrate_workspace(settings: Settings, source: Path) -> dict[str, Any]:
    url, conn = _open(settings, write=True)
    with conn:
        try:
            report = move_in(conn, source)
        except psycopg.Error as exc:
            raise explain(exc, url) from None
    return {"database": shown_url(url), "from": str(source), **report.as_dict()}


def export_workspace(settings: Settings, target: Path) -> dict[str, Any]:
    url, conn = _open(settings, write=False)
    with conn:
        try:
            report = move_out(conn, target)
        except psycopg.Error as exc:
            raise explain(exc, url) from None
    return {"database": shown_url(url), "to": str(target), **report.as_dict()}


def database_status(settings: Settings) -> dict[str, Any]:
    url, conn = _open(settings, write=False)
    with conn:
        applied = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM records), (SELECT count(*) FROM records "
            "WHERE NOT deprecated), (SELECT count(*) FROM cells), (SELECT count(*) FROM history)"
        ).fetchone()
        state = conn.execute(
            "SELECT (SELECT count(*) FROM state_docs), (SELECT count(*) FROM state_lines), "
            "(SELECT count(*) FROM writer_queue WHERE NOT failed), "
            "(SELECT count(*) FROM writer_queue WHERE failed), "
            "(SELECT count(*) FROM reminder_fates)"
        ).fetchone()
        spaces = conn.execute(
            "SELECT s.model, s.dim, count(v.content_hash) FROM embedding_spaces s "
            "LEFT JOIN vectors v ON v.space_id = s.space_id GROUP BY s.space_id ORDER BY 1"
        ).fetchall()
        docs = (0, 0, 0)
        if "m007_documents" in applied:  # an older schema has no documents yet
            docs = (
                conn.execute(
                    "SELECT (SELECT count(*) FROM doc_files WHERE deleted_at IS NULL), "
                    "(SELECT count(*) FROM doc_chunks), (SELECT count(*) FROM doc_blobs)"
                ).fetchone()
                or docs
            )
    assert counts is not None
    return {
        "database": shown_url(url),
        "schema": settings.database.schema_name,
        "migrations": applied,
        "schema_current": applied == [name for name, _ in MIGRATIONS],
        "records": counts[0],
        "live": counts[1],
        "cells": counts[2],
        "history_events": counts[3],
        "state_documents": state[0] if state else 0,
        "journal_lines": state[1] if state else 0,
        "queued_turns": state[2] if state else 0,
        "set_aside_turns": state[3] if state else 0,
        "reminder_fates": state[4] if state else 0,
        "documents": docs[0],
        "document_chunks": docs[1],
        "attachments": docs[2],
        "spaces": [{"model": m, "dim": d, "vectors": n} for m, d, n in spaces],
    }
