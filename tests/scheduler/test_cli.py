"""``familiars reminders list`` and ``familiars gate status``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from familiars.cli import app
from familiars.memory import MemoryStore, make_record
from familiars.scheduler import Priority, VRAMGate, save_snapshot, snapshot_path

runner = CliRunner()


async def seed(workspace: Path) -> None:
    async with MemoryStore(workspace) as store:
        await store.append(
            make_record(
                "Remind the user to call mom on Tuesday 1 December 2026 at 09:00 (UTC).",
                scope="user",
                category="event",
                user_key="ana",
                extra={
                    "open_loop": {
                        "kind": "reminder",
                        "due": "2026-12-01T09:00:00+00:00",
                        "status": "open",
                    }
                },
            )
        )
        await store.append(
            make_record("Ben likes tea.", scope="user", category="preference", user_key="ben")
        )


def test_reminders_list_json_and_user_filter(workspace: Path) -> None:
    asyncio.run(seed(workspace))
    result = runner.invoke(app, ["-w", str(workspace), "reminders", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["status"], r["kind"], r["task"], r["user_key"]) for r in rows] == [
        ("open", "reminder", "call mom", "ana")
    ]
    assert rows[0]["due"] == "2026-12-01T09:00:00+00:00"
    other = runner.invoke(
        app, ["-w", str(workspace), "reminders", "list", "--user", "ben", "--json"]
    )
    assert json.loads(other.stdout) == []
    table = runner.invoke(app, ["-w", str(workspace), "reminders", "list"])
    assert "call mom" in table.stdout and "user:ana" in table.stdout


def test_reminders_list_refuses_a_bad_user_key(workspace: Path) -> None:
    result = runner.invoke(app, ["-w", str(workspace), "reminders", "list", "--user", "../x"])
    assert result.exit_code == 1 and "invalid user_key" in result.output


def test_gate_status_shows_the_configured_budget_when_nothing_ran(
    workspace: Path, monkeypatch
) -> None:
    monkeypatch.setenv("FAMILIARS_GATE__BUDGET_MB", "2048")
    monkeypatch.setenv("FAMILIARS_GATE__USE_NVML", "false")
    result = runner.invoke(app, ["-w", str(workspace), "gate", "status", "--json"])
    assert result.exit_code == 0, result.output
    snap = json.loads(result.stdout)
    assert (snap["running"], snap["budget_mb"], snap["residents"]) == (False, 2048, [])
    table = runner.invoke(app, ["-w", str(workspace), "gate", "status"])
    assert "nothing running" in table.stdout and "2048" in table.stdout


def test_gate_status_reads_the_running_process_snapshot(workspace: Path) -> None:
    async def one_resident() -> dict:
        gate = VRAMGate(1000)
        (await gate.acquire("embedder", 700, Priority.IMPORTANT)).release()
        return gate.snapshot()

    snap = asyncio.run(one_resident())
    snap["running"] = True
    save_snapshot(snap, snapshot_path(workspace))
    result = runner.invoke(app, ["-w", str(workspace), "gate", "status", "--json"])
    data = json.loads(result.stdout)
    assert data["running"] and data["residents"][0]["model_id"] == "embedder"
    table = runner.invoke(app, ["-w", str(workspace), "gate", "status"])
    assert "embedder" in table.stdout and "IMPORTANT" in table.stdout and "admit" in table.stdout


def test_bench_gate_small_run_never_over_commits() -> None:
    result = runner.invoke(app, ["bench", "gate", "--json", "--cycles", "500", "--tasks", "10"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["cycles"] == 500 and data["overcommits"] == 0
    assert data["critical_evictions"] == 0 and data["evictions"] > 0
    assert data["max_committed_mb"] <= data["budget_mb"]
    for key in ("p95_us", "lock_p95_us", "ratio_p95"):
        assert data[key] > 0


def test_settings_accept_the_seed_env_name(monkeypatch) -> None:
    from familiars.config import load_settings

    monkeypatch.setenv("VRAM_GATE_IDLE_EVICT_SEC", "42")
    gate = VRAMGate.from_settings(load_settings(None).gate.model_copy(update={"use_nvml": False}))
    assert gate.idle_evict_sec == 42
