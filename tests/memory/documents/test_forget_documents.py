"""Forgetting a person's documents, or one of them, leaves no trace of the text or the bytes
in any ``doc_*`` table, in ``familiars.db``'s file, or in the workspace; another worker's
finder (its search matrix loaded before the forget) stops returning them."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.memory import InvalidIdError
from familiars.memory._documents import DocumentFinder
from tests.fakes import HashEmbedder

pytestmark = pytest.mark.usefixtures("memory_home")

SECRET = "zanzibarquokka"
NOTE = f"The {SECRET} safe code is QX4471, kept in the blue drawer.\n".encode()
DIARY = f"Diary: told nobody about the {SECRET} trip to the coast.\n".encode()
KEPT = b"Bob's shopping list: apples, bread and cheese.\n"


def _finder(ws: Path) -> DocumentFinder:
    return DocumentFinder(ws, HashEmbedder(), load_settings(workspace=ws), ablate=())


def _doc_tables_text(ws: Path) -> bytes:
    """Every row of every ``doc_*`` table, as bytes (the database's, or familiars.db's, and
    then familiars.db's file itself with its WAL)."""
    url = os.environ.get("FAMILIARS_DATABASE_URL")
    if url:
        import psycopg

        schema = os.environ["FAMILIARS_DATABASE__SCHEMA_NAME"]
        out = b""
        with psycopg.connect(url, autocommit=True) as conn:
            tables = conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = %s AND table_name LIKE 'doc\\_%%'",
                (schema,),
            ).fetchall()
            assert {t for (t,) in tables} >= {"doc_files", "doc_chunks", "doc_edits", "doc_blobs"}
            for (table,) in tables:
                rows = conn.execute(f"SELECT t::text FROM {schema}.{table} t").fetchall()  # type: ignore[arg-type]
                out += "".join(r[0] for r in rows).encode()
                if table == "doc_blobs":
                    out += b"".join(bytes(r[0]) for r in conn.execute(
                        f"SELECT data FROM {schema}.doc_blobs").fetchall())  # type: ignore[arg-type]  # fmt: skip
        return out
    with sqlite3.connect(ws / "familiars.db") as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = [
            repr(conn.execute(f"SELECT * FROM {n}").fetchall())
            for n in names
            if n.startswith("doc_")
        ]
    return "".join(rows).encode()


def _workspace_bytes(ws: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(ws.rglob("*")) if p.is_file())


async def test_forgetting_a_person_leaves_no_trace_of_their_documents(
    workspace: Path, tmp_path: Path
) -> None:
    on_db = bool(os.environ.get("FAMILIARS_DATABASE_URL"))
    other = tmp_path / "worker2" if on_db else workspace  # a second worker of one home
    async with _finder(workspace) as one, _finder(other) as two:
        await one.add_attachment("ann", "safe.txt", NOTE)
        await one.add_attachment("ann", "diary.txt", DIARY)
        await one.add_attachment("bob", "shopping.txt", KEPT)
        assert SECRET.encode() in _doc_tables_text(workspace)
        assert [f.name for f in await one.find(f"{SECRET} code", user_key="ann")]
        assert [f.name for f in await two.find(f"{SECRET} code", user_key="ann")]

        forgotten = await two.forget("ann")  # not the worker that stored them

        assert sorted(Path(p).name for p in forgotten) == ["diary.txt", "safe.txt"]
        assert await one.find(f"{SECRET} code", user_key="ann") == []
        assert await one.find("safe code drawer diary coast", user_key="ann") == []
        assert await one.list_files("ann") == [] and await two.list_files("ann") == []
        assert [f.name for f in await two.find("shopping apples", user_key="bob")] == [
            "shopping.txt"
        ]
        assert (await two.rebuild()).files == 1  # the history cannot bring them back
    seen = _doc_tables_text(workspace) + _workspace_bytes(workspace) + _workspace_bytes(other)
    for trace in (SECRET.encode(), NOTE, DIARY, b"QX4471", b"coast"):
        assert trace not in seen
    assert KEPT in _workspace_bytes(workspace) + _doc_tables_text(workspace)


async def test_forgetting_one_document_keeps_the_rest(workspace: Path) -> None:
    async with _finder(workspace) as finder:
        safe = await finder.add_attachment("ann", "safe.txt", NOTE)
        await finder.add_attachment("ann", "diary.txt", DIARY)
        assert safe.file_id is not None
        with pytest.raises(InvalidIdError):
            await finder.forget("bob", safe.file_id)  # not his: nothing goes

        assert [Path(p).name for p in await finder.forget("ann", safe.file_id)] == ["safe.txt"]

        assert [f.name for f in await finder.list_files("ann")] == ["diary.txt"]
        assert [f.name for f in await finder.find(f"{SECRET} safe code", user_key="ann")] == [
            "diary.txt"
        ]
    seen = _doc_tables_text(workspace) + _workspace_bytes(workspace)
    assert NOTE not in seen and b"QX4471" not in seen and b"drawer" not in seen
    assert DIARY in seen
