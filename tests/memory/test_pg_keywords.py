"""Keyword search for scripts written without spaces on the PostgreSQL home (issue 24): the
same character bigrams as SQLite's m005 (``_pg/_keywords``, PostgreSQL's m006)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from familiars.cli import app
from familiars.config import load_settings
from familiars.memory import make_record, open_workspace
from familiars.memory._pg._connect import connect
from familiars.memory._pg._schema import MIGRATIONS, migrate
from familiars.memory._text import no_space_terms

runner = CliRunner()
TEXTS = ("李明最喜欢北京烤鸭", "李明的女儿在上海读大学", "由美は来月東京へ出張する", "Li likes tea")


def test_memory_list_query_finds_chinese_and_japanese_words(tmp_path: Path, pg_url: str) -> None:
    """`memory list --query 烤鸭` on the database finds the record that says it inside a
    longer run (``tsv`` alone kept '李明最喜欢北京烤鸭' as one word and found nothing)."""
    base = ["--workspace", str(tmp_path / "ws")]
    ids = {}
    for text in TEXTS:
        out = runner.invoke(app, [*base, "memory", "add", "-s", "user", "-C", "preference",
                                  "-u", "li", text])  # fmt: skip
        assert out.exit_code == 0, out.output
        ids[text] = out.output.strip()

    def listed(query: str) -> list[str]:
        out = runner.invoke(app, [*base, "memory", "list", "--json", "--query", query])
        assert out.exit_code == 0, out.output
        return [json.loads(line)["id"] for line in out.output.splitlines()]

    assert listed("烤鸭") == [ids["李明最喜欢北京烤鸭"]]
    assert listed("東京") == [ids["由美は来月東京へ出張する"]]
    both = [ids["李明的女儿在上海读大学"], ids["Li likes tea"]]
    assert sorted(listed("上海 tea")) == sorted(both)
    assert listed("寿司") == []


async def test_keyword_search_ranks_shared_bigrams(tmp_path: Path, pg_url: str) -> None:
    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=False) as home:
        made = {}
        for text in (*TEXTS, "Alice likes roast duck"):
            rec = make_record(text, scope="user", category="preference", user_key="li")
            made[text] = (await home.store.append(rec)).id
        duck = made["李明最喜欢北京烤鸭"]
        assert [h[0] for h in await home.index.keyword_search("烤鸭")] == [duck]
        hits = await home.index.keyword_search("北京烤鸭 duck")
        assert {h[0] for h in hits} == {duck, made["Alice likes roast duck"]}
        assert hits[0][0] == duck  # three shared bigrams outscore one English word
        sushi = await home.store.update(duck, content="李明最喜欢寿司")  # the terms follow
        assert await home.index.keyword_search("烤鸭") == []
        assert [h[0] for h in await home.index.keyword_search("寿司")] == [sushi.id]


def test_the_migration_fills_the_records_already_there(pg_url: str) -> None:
    """A database made before m006 gets its rows' terms when it is migrated."""
    schema = load_settings().database.schema_name
    names = [name for name, _ in MIGRATIONS]
    every, old = list(MIGRATIONS), MIGRATIONS[: names.index("m006_no_space_terms")]
    with connect(pg_url, schema) as conn:
        MIGRATIONS[:] = old
        try:
            migrate(conn, schema, pg_url)
        finally:
            MIGRATIONS[:] = every
        conn.execute(
            "INSERT INTO cells (cell, version) VALUES ('users/li/preference.md', 1);"
            "INSERT INTO records (id, cell, scope, category, user_key, ts, content,"
            " content_hash, deprecated, pinned, salience, data) VALUES"
            " ('m_1', 'users/li/preference.md', 'user', 'preference', 'li', '2026-01-01',"
            " '李明最喜欢北京烤鸭', 'h', false, false, 0.5, '{}'),"
            " ('m_2', 'users/li/preference.md', 'user', 'preference', 'li', '2026-01-01',"
            " 'Li likes tea', 'h2', false, false, 0.5, '{}')"
        )
        conn.commit()
        assert migrate(conn, schema, pg_url)[0] == "m006_no_space_terms"
        rows = dict(conn.execute("SELECT id, terms FROM records ORDER BY id").fetchall())
        assert rows == {"m_1": no_space_terms("李明最喜欢北京烤鸭"), "m_2": ""}
        found = conn.execute(
            "SELECT id FROM records WHERE terms_tsv @@ %s::tsquery", ("'烤鸭'",)
        ).fetchall()
        assert found == [("m_1",)]
