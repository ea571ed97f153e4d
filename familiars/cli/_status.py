"""``familiars status`` and ``familiars api``: the memory's state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.terminal import console, fail, get_ctx, print_json, print_table, want_json


def _collect(settings: Any) -> dict[str, Any]:
    from familiars.bot import StatusSources, collect_status

    async def run() -> dict[str, Any]:
        from familiars.memory import index_view, repair_index

        await repair_index(settings)  # a damaged index is moved aside and rebuilt (one line)
        reader = index_view(settings)
        try:
            status = await collect_status(StatusSources(settings), reader)
        finally:
            await reader.close()
        # The API shows the folder's name only; on this machine the whole path helps.
        status["workspace"] = str(Path(settings.workspace).resolve())
        status["database"] = await asyncio.to_thread(_database, settings)
        status["unreadable_entries"] = await _unreadable(settings)
        return status

    return asyncio.run(run())


async def _unreadable(settings: Any) -> int:
    """How many hand-edited memory entries do not parse (left out of everything until fixed;
    ``memory check`` says where and why)."""
    from familiars.memory import MemoryStore

    async with MemoryStore(Path(settings.workspace)) as store:
        return len(await store.parse_errors())


def _database(settings: Any) -> dict[str, Any] | None:
    """The database home's own counts when ``FAMILIARS_DATABASE_URL`` is set (the record
    counts above are the workspace's SQLite index, which then holds none)."""
    from familiars.memory import database_status, database_url

    return database_status(settings) if database_url(settings) is not None else None


def _owner(settings: Any) -> dict[str, Any] | None:
    """Who serves the workspace now (pid, command, start time), or None."""
    from dataclasses import asdict
    from pathlib import Path

    from familiars.memory import read_owner

    owner = read_owner(Path(settings.workspace))
    return asdict(owner) if owner is not None else None


def _mb(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB"


def _print_status(status: dict[str, Any]) -> None:
    totals = status["records"]["totals"]
    storage = status["storage"]
    emb = status["embedding"]
    console.print(f"[bold]workspace[/bold] {status['workspace']}")
    db = status.get("database")
    if db:
        console.print(
            f"memory home: {db['database']} schema {db['schema']}: {db['live']} live of "
            f"{db['records']} records in {db['cells']} cells (the counts below are the "
            "workspace's own files)",
            highlight=False,
            markup=False,
        )
    owner = status.get("owner")
    console.print(
        f"owner: pid {owner['pid']} ({owner['command']}, since {owner['started_at']})"
        if owner
        else "owner: none (no familiars process serves this workspace)",
        highlight=False,
        markup=False,
    )
    console.print(
        f"records: {totals['live']} live, {totals['deprecated']} deprecated, "
        f"{totals['expired']} expired, {totals['pinned']} pinned ({totals['total']} in all)"
    )
    rows = [
        [c["scope"], c["category"], c["live"], c["deprecated"], c["expired"], c["pinned"]]
        for c in status["records"]["cells"]
    ]
    if rows:
        print_table(None, ["scope", "category", "live", "deprecated", "expired", "pinned"], rows)
    _print_unreadable(status.get("unreadable_entries") or 0)
    index = _mb(storage["index_bytes"]) if storage["index_present"] else "not built yet"
    console.print(
        f"files: {storage['memory_files']} memory files ({_mb(storage['memory_bytes'])}), "
        f"{storage['history_files']} history files ({_mb(storage['history_bytes'])}); "
        f"index: {index}"
    )
    model = emb["model"] or "none loaded"
    note = f" (fallback from {emb['fallback_from']})" if emb.get("fallback_from") else ""
    note += f" on {emb['backend']}" if emb.get("backend") else ""
    console.print(
        f"embedding: configured {emb['configured_model']}, in use {model}{_dim(emb)}{note}"
    )
    _print_recall(status["recall"])
    for name in ("writer", "providers", "gate"):
        block = status[name]
        state = block["source"] if block["available"] else "not running here"
        console.print(f"{name}: {state}")
    for p in status["providers"]["providers"]:
        left = p.get("cooldown_left_s")
        cooling = f", cooling {left}s" if p.get("status") == "cooling" else ""
        console.print(f"  provider {p['name']} ({p.get('model', '')}): {p.get('status')}{cooling}")
    for r in status["gate"]["residents"]:
        console.print(f"  resident {r.get('model_id')}: {r.get('estimated_mb')} MB")
    _print_jobs(status.get("scheduler") or {}, status.get("consolidation"))


def _print_unreadable(broken: int) -> None:
    if broken:
        console.print(
            f"⚠ {broken} memory {'entry' if broken == 1 else 'entries'} could not be read "
            "(left out until fixed): run familiars memory check",
            highlight=False,
            markup=False,
        )


def _print_jobs(scheduler: dict[str, Any], last: dict[str, Any] | None) -> None:
    """The scheduler's jobs with their next run, and what the last consolidation pass did."""
    jobs = scheduler.get("jobs") or []
    if scheduler.get("running"):
        said = "running"
    else:
        said = (
            "not running (jobs as last saved)" if scheduler.get("as_saved") else "not running here"
        )
    console.print("scheduler: " + said)
    for job in jobs:
        console.print(f"  job {job['id']}: next run {job.get('next_run') or '-'}", highlight=False)
    if last is None:
        console.print("last consolidation pass: none yet")
        return
    undone = f", undone {last['undone_at']}" if last.get("undone_at") else ""
    console.print(
        f"last consolidation pass {last['pass_id']} ({last['finished_at']}): "
        f"{last['merged']} merged from {last['deprecated']} records, {last['expired']} expired, "
        f"{last.get('episodes', 0)} episodes, {last.get('core_profiles', 0)} core profiles, "
        f"{last['stopped']} people stopped by the share limit{undone}",
        highlight=False,
    )


def _dim(emb: dict[str, Any]) -> str:
    return "" if emb["dim"] is None else f", dim {emb['dim']}"


def _print_recall(recall: dict[str, Any]) -> None:
    if not recall["available"]:
        console.print("recall: no statistics here (the bot is not running in this process)")
        return
    console.print(
        f"recall ({_recall_span(recall.get('detail') or {})}): "
        f"{recall['recalls']} recalls, {recall['items_per_recall']} items each, "
        f"hit rate {recall['hit_rate']}, p50 {recall['latency_p50_ms']} ms, "
        f"p95 {recall['latency_p95_ms']} ms"
    )


def _recall_span(detail: dict[str, Any]) -> str:
    """What the recall counts cover: the running (or last) bot's run since it started, as
    last saved (every 30 s and at the stop), not every recall the workspace has seen (T32:
    "3 recalls" after dozens of questions read as a count of all of them)."""
    since, saved = detail.get("since"), detail.get("saved_at")
    span = f"this run since {since}" if since else "the bot's current or last run"
    return f"{span}, as saved {saved}" if saved else span


def register(app: typer.Typer) -> None:
    @app.command("status")
    def status(
        ctx: typer.Context,
        json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """The memory's state: counts, sizes, embedding model, recall and writer statistics."""
        settings = get_ctx(ctx).settings
        data = _collect(settings)
        data["owner"] = _owner(settings)
        scheduler = data.get("scheduler") or {}
        if data["owner"] is None and scheduler.get("running"):
            # The last snapshot of a bot that stopped (or was killed) still says running.
            scheduler.update(running=False, as_saved=True)
        if want_json(ctx, json_output):
            print_json(data)
        else:
            _print_status(data)

    @app.command("api")
    def api(
        ctx: typer.Context,
        host: Annotated[str | None, typer.Option(help="Address (default: api.host).")] = None,
        port: Annotated[int | None, typer.Option(help="Port (default: api.port).")] = None,
    ) -> None:
        """Serve the HTTP API alone (without the bot): status, records and the memory page
        (familiars memory link --user KEY signs a person in). While a bot owns the
        workspace the page only reads; otherwise this process owns it while it serves."""
        import logging

        from familiars.bot import ApiServerError, StatusSources, serve_alone

        settings = get_ctx(ctx).settings
        changes: dict[str, Any] = {}
        if host is not None:
            changes["host"] = host
        if port is not None:
            changes["port"] = port
        if changes:
            settings = settings.model_copy(update={"api": settings.api.model_copy(update=changes)})
        logging.getLogger("familiars").setLevel(logging.INFO)
        try:
            asyncio.run(serve_alone(StatusSources(settings)))
        except ApiServerError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            pass
