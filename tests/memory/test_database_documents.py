"""Documents (``familiars files``, attachments) move into the database home and back with
``familiars db migrate`` / ``db export``: the edit history byte for byte, the index's rows,
and an attachment's bytes (any worker sends it back; the export writes it under the person)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app
from familiars.config import load_settings
from familiars.memory._documents import DocumentFinder
from tests.fakes import HashEmbedder
from tests.memory.documents.builders import make_pdf

LEASE = ["Residential lease for the flat on Elm Street.", "Pets: the tenant may keep one cat."]


def _sidecars(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*.jsonl"))
        if "edits" in p.parent.name
    }


async def _finder_on_files(ws: Path, docs: Path) -> bytes:
    recipes = docs / "recipes.md"
    recipes.write_text("# Pancakes\nFlour, eggs and milk.\n")
    lease = make_pdf(LEASE)
    async with DocumentFinder(ws, HashEmbedder(), load_settings(workspace=ws)) as finder:
        await finder.add_file(recipes)
        recipes.write_text("# Pancakes\nFlour, eggs, milk and a pinch of salt.\n")
        os.utime(recipes, (1, 1))
        await finder.add_file(recipes)  # a second version: the first is history
        await finder.add_attachment("ann", "lease.pdf", lease)
    return lease


async def test_documents_move_in_and_out(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, out, docs = tmp_path / "ws", tmp_path / "out", tmp_path / "docs"
    docs.mkdir()
    monkeypatch.delenv("FAMILIARS_DATABASE_URL")  # the bot lives on files first
    lease = await _finder_on_files(ws, docs)
    monkeypatch.setenv("FAMILIARS_DATABASE_URL", pg_url)
    runner = CliRunner()
    moved = runner.invoke(app, ["--json", "db", "migrate", "--from", str(ws)])
    assert moved.exit_code == 0, moved.output
    shown = json.loads(moved.output)
    assert (shown["document_files"], shown["attachments"], shown["document_edits"]) == (2, 1, 3)
    status = json.loads(runner.invoke(app, ["--json", "db", "status"]).output)
    assert (status["documents"], status["attachments"]) == (2, 1)
    assert status["document_chunks"] >= 3  # two versions of recipes.md, the lease

    worker = tmp_path / "worker"  # a worker of the database, the files never on its disk
    async with DocumentFinder(worker, HashEmbedder(), load_settings(workspace=worker)) as db:
        assert [f.name for f in await db.find("pancakes salt")] == ["recipes.md"]
        assert (await db.list_files())[0].versions == 2
        found = await db.find("lease cat", user_key="ann")
        assert (await db.open_file(found[0].file_id, user_key="ann")).data == lease

    exported = runner.invoke(app, ["db", "export", "--to", str(out)])
    assert exported.exit_code == 0, exported.output
    assert _sidecars(out) == _sidecars(ws) and len(_sidecars(ws)) == 2
    monkeypatch.delenv("FAMILIARS_DATABASE_URL")
    async with DocumentFinder(out, HashEmbedder(), load_settings(workspace=out)) as files:
        assert [f.name for f in await files.find("pancakes salt")] == ["recipes.md"]
        found = await files.find("lease cat", user_key="ann")
        blob = await files.open_file(found[0].file_id, user_key="ann")
        assert blob.data == lease and Path(blob.path) == out / "users/ann/files/lease.pdf"
        history = await files.find("pancakes", history=True)
        assert {f.is_history for f in history} == {True, False}
