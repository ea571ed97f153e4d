"""``familiars files add | find | list`` end to end, with the bundled model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app
from tests.memory.documents.builders import make_pdf


@pytest.fixture
def cli_env(workspace: Path, monkeypatch: pytest.MonkeyPatch, real_embedder: object) -> Path:
    monkeypatch.setenv("FAMILIARS_EMBEDDING__MODEL", "bundled")
    return workspace


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_add_find_list(cli_env: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lease.pdf").write_bytes(make_pdf(["Tenancy for 12 Elm St", "One cat is allowed."]))
    (docs / "shopping.md").write_text("- oat milk\n- coffee\n")
    (docs / "empty.txt").write_text("")
    added = json.loads(_run("--json", "files", "add", str(docs)))
    assert sorted(r["status"] for r in added) == ["indexed", "indexed", "skipped"]
    found = json.loads(_run("files", "find", "--json", "can I keep a cat in my flat"))
    assert found[0]["name"] == "lease.pdf" and found[0]["page"] == 2
    listed = json.loads(_run("files", "list", "--json"))
    assert sorted(f["name"] for f in listed) == ["lease.pdf", "shopping.md"]
    skipped = json.loads(_run("files", "list", "--skipped", "--json"))
    assert [s["code"] for s in skipped] == ["empty"]
    table = _run("files", "find", "oat milk")
    assert "shopping.md" in table


def test_errors_are_clear(cli_env: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["files", "add", str(tmp_path / "missing.pdf")])
    assert result.exit_code == 1
    assert "no such file" in result.output
    bad_user = CliRunner().invoke(app, ["files", "list", "--user", "../x"])
    assert bad_user.exit_code == 1 and "invalid user_key" in bad_user.output
