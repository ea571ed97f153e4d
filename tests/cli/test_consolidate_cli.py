"""``familiars memory consolidate`` keeps look-alikes apart, names its pass, ``--undo PASS``
puts it back, and ``familiars status`` shows the last pass."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from familiars.cli import app
from familiars.memory import MemoryStore, make_record

runner = CliRunner()
TEXTS = [
    "The user likes green tea",
    "The user loves green tea",
    "Ria plays tennis",
    "Ria plays table tennis",
    "The user likes white wine",
    "The user likes red wine",
    "The user lives in Lisbon",
    "The user has a cat called Miso",
]


async def seed(workspace: Path) -> None:
    async with MemoryStore(workspace) as store:
        for text in TEXTS:
            rec = make_record(text, scope="user", category="preference", user_key="ana")
            await store.append(rec, dedupe=False)


async def live(workspace: Path) -> list[str]:
    async with MemoryStore(workspace) as store:
        return sorted(r.content for r in await store.list())


def cli(workspace: Path, *args: str) -> str:
    result = runner.invoke(app, ["-w", str(workspace), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_consolidate_then_undo_from_the_command_line(workspace: Path) -> None:
    asyncio.run(seed(workspace))
    report = json.loads(cli(workspace, "memory", "consolidate", "--offline", "--json"))
    assert [c["source_texts"] for c in report["clusters"]] == [
        ["The user loves green tea", "The user likes green tea"]
    ] or [sorted(c["source_texts"]) for c in report["clusters"]] == [
        ["The user likes green tea", "The user loves green tea"]
    ]
    after = asyncio.run(live(workspace))
    core = [t for t in after if t.startswith("Core profile: ")]  # the full pass: stages too
    assert len(core) == 1 and report["pass"]["core_profiles"] == 1
    after = [t for t in after if t not in core]
    assert len(after) == len(TEXTS) - 1 and "Ria plays table tennis" in after
    assert "last consolidation pass " + report["pass_id"] in cli(workspace, "status")
    undone = json.loads(
        cli(workspace, "memory", "consolidate", "--undo", report["pass_id"], "--json")
    )
    assert undone["undo"] == report["pass_id"]
    assert asyncio.run(live(workspace)) == sorted(TEXTS)


def test_a_damaged_pass_file_is_refused_in_one_line_and_left_as_it_is(workspace: Path) -> None:
    asyncio.run(seed(workspace))
    pass_id = json.loads(cli(workspace, "memory", "consolidate", "--offline", "--json"))["pass_id"]
    path = workspace / "consolidation" / "passes" / f"{pass_id}.json"
    before = asyncio.run(live(workspace))
    for damaged in ["{broken", '{"pass_id": 5}', "[1, 2]",
                    json.dumps({"pass_id": pass_id, "started_at": "x", "cores": ["a"]}),
                    json.dumps({"pass_id": pass_id, "started_at": "x",
                                "merges": [{"created": 3, "sources": []}]})]:  # fmt: skip
        path.write_text(damaged, encoding="utf-8")
        result = runner.invoke(
            app, ["-w", str(workspace), "memory", "consolidate", "--undo", pass_id]
        )
        assert result.exit_code != 0
        assert f"{pass_id}.json is damaged" in result.output and "Traceback" not in result.output
        assert path.read_text(encoding="utf-8") == damaged
        assert asyncio.run(live(workspace)) == before


def test_status_reads_a_damaged_jobs_file_without_a_traceback(workspace: Path) -> None:
    jobs = workspace / "scheduler" / "jobs.json"
    jobs.parent.mkdir(parents=True, exist_ok=True)
    for damaged in ['{"jobs": 5}', '{"jobs": [1, "x"]}', "{broken", "[1, 2]"]:
        jobs.write_text(damaged, encoding="utf-8")
        assert "scheduler: not running here" in cli(workspace, "status")
    jobs.write_text('{"jobs": [7, {"id": "ttl_sweep", "next_run": "2026-12-03T04:00"}]}')
    assert "job ttl_sweep: next run 2026-12-03T04:00" in cli(workspace, "status")


def test_status_with_no_process_does_not_call_the_last_saved_scheduler_running(
    workspace: Path,
) -> None:
    """The scheduler's last snapshot says ``running: true`` (a bot that stopped, or was
    killed); with no process owning the workspace, status says it is not running and that
    the jobs are as last saved."""
    jobs = workspace / "scheduler" / "jobs.json"
    jobs.parent.mkdir(parents=True, exist_ok=True)
    jobs.write_text(
        '{"running": true, "jobs": [{"id": "ttl_sweep", "next_run": "2026-12-03T04:00"}]}',
        encoding="utf-8",
    )
    out = cli(workspace, "status")
    assert "owner: none" in out
    assert "scheduler: not running (jobs as last saved)" in out
    assert "job ttl_sweep: next run 2026-12-03T04:00" in out
    data = json.loads(cli(workspace, "status", "--json"))
    assert data["scheduler"]["running"] is False
