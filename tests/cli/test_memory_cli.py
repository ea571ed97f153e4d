from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from familiars.cli import app

runner = CliRunner()


def _run(ws: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--workspace", str(ws), *args])
    return result.exit_code, result.output


def test_add_pin_unpin_forget_and_bad_input(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    code, out = _run(ws, "memory", "add", "-s", "user", "-C", "profile", "-u", "al", "Al is here")
    assert code == 0
    rid = out.strip()
    assert _run(ws, "memory", "pin", rid) == (0, f"pinned {rid}\n")
    listed = [json.loads(line) for line in _run(ws, "memory", "list", "--json")[1].splitlines()]
    assert [(r["id"], r["pinned"]) for r in listed] == [(rid, True)]
    assert _run(ws, "memory", "unpin", rid) == (0, f"unpinned {rid}\n")
    assert _run(ws, "memory", "forget", rid) == (0, f"forgot {rid}\n")
    code, out = _run(ws, "memory", "forget", rid)
    assert code == 1 and "no memory with id" in out
    code, out = _run(ws, "memory", "add", "-s", "identity", "-C", "profile", "x")
    assert code == 1 and "preference, procedure, directive" in out
    code, out = _run(ws, "memory", "pin", "../../etc/passwd")
    assert code == 1 and "invalid memory id" in out
    # An empty memory is refused (it was kept, a record that says nothing).
    code, out = _run(ws, "memory", "add", "-s", "user", "-C", "profile", "-u", "al", "  ")
    assert (code, out) == (1, "error: empty: a memory needs some text\n")
    # An unknown category or scope is said, not listed as "0 memories".
    code, out = _run(ws, "memory", "list", "--category", "profiles")
    assert code == 1 and "unknown category 'profiles': one of profile," in out
    code, out = _run(ws, "memory", "list", "--scope", "../../x")
    assert code == 1 and "unknown scope '../../x'" in out


def test_list_query_finds_chinese_and_japanese_words(tmp_path: Path) -> None:
    """`memory list --query 烤鸭` finds the record that says it inside a longer run."""
    ws = tmp_path / "ws"
    ids = {}
    texts = ("李明最喜欢北京烤鸭", "李明的女儿在上海读大学", "由美は来月東京へ出張する")
    texts += ("Li likes tea",)
    for text in texts:
        code, out = _run(ws, "memory", "add", "-s", "user", "-C", "preference", "-u", "li", text)
        assert code == 0, out
        ids[text] = out.strip()

    def listed(query: str) -> list[str]:
        code, out = _run(ws, "memory", "list", "--json", "--query", query)
        assert code == 0, out
        return [json.loads(line)["id"] for line in out.splitlines()]

    assert listed("烤鸭") == [ids["李明最喜欢北京烤鸭"]]
    assert listed("東京") == [ids["由美は来月東京へ出張する"]]
    assert listed("上海 tea") == [ids["李明的女儿在上海读大学"], ids["Li likes tea"]]
    assert listed("寿司") == []
