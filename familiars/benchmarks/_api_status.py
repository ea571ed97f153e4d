"""Time ``GET /api/memory_status`` on a large workspace next to ``familiars memory list
--json | head -1`` on the same workspace.

    familiars bench api-status --records 100000 [--workspace DIR] [--runs 5] [--json]

Builds the workspace (through MemoryStore + MemoryIndex, no embedder) unless it already
holds that many records, serves the API on 127.0.0.1 in this process, and runs the CLI in a
subprocess (so its figure includes interpreter start-up, as a person typing it would see).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from familiars.bot import ApiServer, ApiToken, StatusSources, create_app
from familiars.config import Settings
from familiars.memory import MemoryIndex, MemoryRecord, MemoryStore, make_record, valid_categories

_WORDS = [
    "hiking",
    "tea",
    "piano",
    "garden",
    "sister",
    "Berlin",
    "coffee",
    "chess",
    "novel",
    "river",
    "dog",
    "running",
    "jazz",
    "mountains",
    "bread",
    "cinema",
    "kayak",
    "violin",
    "recipe",
    "yoga",
    "tram",
    "museum",
    "rain",
    "winter",
    "spring",
]


def _records(n: int) -> list[MemoryRecord]:
    """About 90% user scope over 200 people, the rest identity and dialogue scope."""
    out: list[MemoryRecord] = []
    user_cats = valid_categories("user")
    dlg_cats = valid_categories("dialogue")
    id_cats = valid_categories("identity")
    for i in range(n):
        text = f"note {i}: likes {_WORDS[i % len(_WORDS)]} and {_WORDS[(i * 7) % len(_WORDS)]}"
        kind = i % 10
        if kind < 9:
            rec = make_record(
                text,
                scope="user",
                category=user_cats[i % len(user_cats)],
                user_key=f"person{i % 200}",
            )
        elif i % 20 == 9:
            rec = make_record(text, scope="identity", category=id_cats[i % len(id_cats)])
        else:
            rec = make_record(
                text,
                scope="dialogue",
                category=dlg_cats[i % len(dlg_cats)],
                dialogue_id=f"dialogue_{i % 20}",
            )
        rec.pinned = i % 97 == 0
        rec.deprecated = i % 31 == 0
        out.append(rec)
    return out


async def build(workspace: Path, n: int, chunk: int = 25000) -> float:
    started = time.perf_counter()
    index = MemoryIndex(workspace, None)
    await index.open()
    store = MemoryStore(workspace, listeners=[index])
    await store.start()
    try:
        recs = _records(n)
        for start in range(0, n, chunk):
            await store.append_many(recs[start : start + chunk], dedupe=False)
            print(f"  built {min(start + chunk, n)}/{n}", file=sys.stderr, flush=True)
    finally:
        await store.close()
        await index.close()
    return time.perf_counter() - started


async def _count(workspace: Path) -> int:
    db = workspace / "familiars.db"
    if not db.exists():
        return 0
    import aiosqlite

    async with aiosqlite.connect(db) as conn, conn.execute("SELECT COUNT(*) FROM records") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def time_status(workspace: Path, runs: int) -> dict[str, Any]:
    sources = StatusSources(Settings(workspace=workspace))
    server = ApiServer(create_app(sources, token=ApiToken("bench", "bench")), port=0)
    times: list[float] = []
    async with server, httpx.AsyncClient(base_url=server.url, timeout=120) as client:
        headers = {"Authorization": "Bearer bench"}
        first = time.perf_counter()
        response = await client.get("/api/memory_status", headers=headers)
        first_ms = (time.perf_counter() - first) * 1000
        response.raise_for_status()
        for _ in range(runs):
            t = time.perf_counter()
            (await client.get("/api/memory_status", headers=headers)).raise_for_status()
            times.append((time.perf_counter() - t) * 1000)
    body = response.json()
    return {
        "first_ms": round(first_ms, 1),
        "p50_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
        "server_elapsed_ms": body["elapsed_ms"],
        "records_total": body["records"]["totals"]["total"],
    }


def time_cli_list(workspace: Path, runs: int) -> dict[str, Any]:
    return _time_cli(workspace, ["memory", "list", "--json"], " | head -1", runs)


def time_cli_status(workspace: Path, runs: int) -> dict[str, Any]:
    return _time_cli(workspace, ["status", "--json"], "", runs)


def _time_cli(workspace: Path, args: list[str], pipe: str, runs: int) -> dict[str, Any]:
    exe = shutil.which("familiars") or ""
    base = [exe] if exe else [sys.executable, "-m", "familiars"]
    cmd = " ".join([*base, "--workspace", str(workspace), *args]) + pipe
    times = []
    line = ""
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(
            ["bash", "-c", cmd], capture_output=True, text=True, env=dict(os.environ)
        )
        times.append((time.perf_counter() - t) * 1000)
        line = proc.stdout.strip()
    return {
        "command": cmd,
        "p50_ms": round(statistics.median(times), 1),
        "min_ms": round(min(times), 1),
        "first_line_is_a_record": line.startswith("{") and '"id"' in line,
    }


def time_cli_startup(runs: int) -> float:
    """``familiars --help``: the interpreter and import cost inside the CLI figure."""
    exe = shutil.which("familiars")
    cmd = [exe, "--help"] if exe else [sys.executable, "-m", "familiars", "--help"]
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True)
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1)


def run(workspace: Path | None, records: int, runs: int) -> dict[str, Any]:
    """Build (or reuse) the workspace, then time the API and the CLI on it."""
    workspace = workspace or Path(tempfile.gettempdir()) / f"familiars-bench-{records}"
    have = asyncio.run(_count(workspace))
    build_s = None
    if have != records:
        shutil.rmtree(workspace, ignore_errors=True)
        build_s = round(asyncio.run(build(workspace, records)), 1)
    result: dict[str, Any] = {
        "records": records,
        "workspace": str(workspace),
        "build_s": build_s,
        "api_memory_status": asyncio.run(time_status(workspace, runs)),
        "cli_memory_list_head_1": time_cli_list(workspace, max(1, runs // 2)),
        "cli_status_json": time_cli_status(workspace, max(1, runs // 2)),
        "cli_startup_ms": time_cli_startup(3),
    }
    api_ms = result["api_memory_status"]["p50_ms"]
    cli_ms = result["cli_memory_list_head_1"]["p50_ms"]
    result["ratio_cli_over_api"] = round(cli_ms / api_ms, 1) if api_ms else None
    return result


def command(
    records: Annotated[int, typer.Option(min=1, help="Records in the workspace.")] = 100_000,
    workspace: Annotated[
        Path | None, typer.Option(help="Reuse or build this workspace (default: a temp dir).")
    ] = None,
    runs: Annotated[int, typer.Option(min=1, help="Timed requests per figure.")] = 5,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON on one line.")] = False,
) -> None:
    """GET /api/memory_status on a large workspace next to `familiars memory list | head -1`."""
    result = run(workspace, records, runs)
    print(json.dumps(result) if json_output else json.dumps(result, indent=1))
