"""``familiars memory consolidate`` and ``familiars memory writer-status`` end to end."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from typer.testing import CliRunner

from familiars.cli import app
from familiars.memory import MemoryStore, MemoryWriter, TurnContext, WriterQueue, make_record

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


def cli(ws, *args):
    result = CliRunner().invoke(app, ["-w", str(ws), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_consolidate_dry_run_then_run_then_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("FAMILIARS_EMBEDDING__MODEL", "bundled")

    async def seed() -> None:
        async with MemoryStore(tmp_path) as store:
            for text, sal in [
                ("The user likes green tea.", 0.5),
                ("The user likes green tea a lot.", 0.8),
                ("The user plays chess on Sundays.", 0.5),
            ]:
                rec = make_record(
                    text, scope="user", category="preference", user_key="u1", salience=sal
                )
                await store.append(rec)
            pinned = make_record(
                "The user really likes green tea.",
                scope="user",
                category="preference",
                user_key="u1",
                pinned=True,
            )
            await store.append(pinned)

    asyncio.run(seed())
    # --max-share 1: three live records, two merged (the default 25% rail would stop it)
    dry = json.loads(
        cli(tmp_path, "memory", "consolidate", "--dry-run", "--max-share", "1", "--json")
    )
    assert dry["dry_run"] and len(dry["clusters"]) == 1
    assert sorted(dry["clusters"][0]["source_texts"]) == [
        "The user likes green tea a lot.",
        "The user likes green tea.",
    ]
    assert dry["created"] == []
    done = json.loads(
        cli(tmp_path, "memory", "consolidate", "--offline", "--max-share", "1", "--json")
    )
    assert len(done["created"]) == 1 and done["deprecated"] == 2
    again = json.loads(
        cli(tmp_path, "memory", "consolidate", "--offline", "--max-share", "1", "--json")
    )
    assert again["clusters"] == [] and again["created"] == []
    text = cli(tmp_path, "memory", "consolidate", "--dry-run")
    assert "into 0" in text


def test_writer_status_reads_what_the_writer_saved(tmp_path):
    async def run() -> None:
        async with MemoryStore(tmp_path) as store:
            queue = WriterQueue(MemoryWriter(store))
            for text in ["My name is Ann", "I like tea", "I like tea"]:
                await queue.enqueue(
                    TurnContext(
                        agent_id="agent_0",
                        dialogue_id="dialogue_1",
                        user_key="u1",
                        user_text=text,
                        now=NOW.isoformat(),
                    )
                )
            await queue.process_pending()
            await queue.enqueue(
                TurnContext(
                    agent_id="agent_0",
                    dialogue_id=None,
                    user_key="u1",
                    user_text="queued",
                    now=NOW.isoformat(),
                )
            )

    asyncio.run(run())
    data = json.loads(cli(tmp_path, "memory", "writer-status", "--json"))
    assert data["turns_processed"] == 3 and data["added"] == 2 and data["skipped"] == 1
    assert data["queue_depth"] == 1 and data["mode"] == "offline"
    table = cli(tmp_path, "memory", "writer-status")
    assert "turns_processed" in table and "offline writer" in table
