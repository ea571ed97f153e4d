"""The reader on the real MemoryStore + MemoryIndex, and ``familiars memory search``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from typer.testing import CliRunner

from familiars.config import load_settings
from familiars.memory import DialogTrees, MemoryReader, make_record, open_workspace
from familiars.memory import _workspace as workspace_mod
from tests.fakes import HashEmbedder

NOW = datetime(2026, 6, 1, tzinfo=UTC)


async def test_reader_follows_the_store(tmp_path, memory_home: str) -> None:
    settings = load_settings(None, workspace=tmp_path)
    emb = HashEmbedder(dim=64)
    async with open_workspace(settings, embedder=emb) as mw:
        first = await mw.store.append(
            make_record(
                "Ana loves sourdough baking", scope="user", category="preference", user_key="ana"
            )  # fmt: skip
        )
        reader = MemoryReader.from_settings(
            settings, emb, trees=DialogTrees(tmp_path), access_sink=mw.store, ablated=[]
        )
        assert await reader.attach_index(mw.index, mw.index.subscribe) == 1
        res = await reader.build_rag_context("sourdough", user_key="ana", now=NOW, k=3)
        assert [i.record.id for i in res.items if i.record] == [first.id]

        second = await mw.store.append(
            make_record(
                "Ana is learning the cello", scope="user", category="knowledge", user_key="ana"
            )  # fmt: skip
        )
        res = await reader.build_rag_context("cello lessons", user_key="ana", now=NOW, k=1)
        assert res.items[0].record.id == second.id

        await mw.store.deprecate(second.id)
        res = await reader.build_rag_context("cello lessons", user_key="ana", now=NOW, k=5)
        assert second.id not in [i.key for i in res.items]

        assert await reader.flush_access() == 2  # one batch for both recalled records
        stored = await mw.store.get(first.id)
        assert stored.access_count >= 1 and stored.last_accessed_ts


def test_memory_search_cli(tmp_path, monkeypatch, memory_home: str) -> None:
    from familiars.cli import app

    monkeypatch.setattr(workspace_mod, "embedder_from_settings", lambda s: HashEmbedder(dim=64))
    runner = CliRunner()
    base = ["--workspace", str(tmp_path)]
    added = runner.invoke(
        app, [*base, "memory", "add", "--user", "ana", "--scope", "user", "--category",
              "preference", "Ana loves sourdough baking"],
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    out = runner.invoke(app, [*base, "memory", "search", "sourdough", "--user", "ana", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["items"][0]["text"] == "Ana loves sourdough baking"
    assert "dense" in data["items"][0]["parts"]

    # Without --user a person's memories are not searched: said, not an empty table alone.
    anyone = runner.invoke(app, [*base, "memory", "search", "sourdough"])
    assert anyone.exit_code == 0 and "sourdough" not in anyone.stdout.split("\n", 1)[1]
    assert "without --user only the agent's own memories are searched (people: ana)" in (
        " ".join(anyone.stdout.split())
    )

    bad = runner.invoke(app, [*base, "memory", "search", "  "])
    assert bad.exit_code == 1 and "empty" in bad.output
    missing = runner.invoke(app, [*base, "memory", "search", "x", "--dialogue", "dialogue_9"])
    assert missing.exit_code == 1 and "does not exist" in missing.output
    badk = runner.invoke(app, [*base, "memory", "search", "x", "--k", "0"])
    assert badk.exit_code == 1
    badp = runner.invoke(app, [*base, "memory", "search", "x", "--profile", "turbo"])
    assert badp.exit_code == 1 and "profile" in badp.output
