"""``familiars gate ...``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from familiars.scheduler import configured_snapshot, load_snapshot, snapshot_path
from familiars.terminal import console, get_ctx, print_json, print_table, want_json

app = typer.Typer(help="The VRAM gate: residents, budget, history.")


@app.command("status")
def status(
    ctx: typer.Context,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    history: Annotated[int, typer.Option(min=0, help="Recent events to show.")] = 10,
) -> None:
    """Budget, resident models and recent events, as last written by the running bot (or the
    configured budget when nothing has run)."""
    settings = get_ctx(ctx).settings
    path = snapshot_path(settings.workspace)
    snap = load_snapshot(path)
    if snap is None:
        snap = configured_snapshot(settings.gate)
    snap["snapshot_file"] = str(path)
    if want_json(ctx, json_output):
        print_json(snap)
        return
    _print_status(snap, history)


def _print_status(snap: dict[str, Any], history: int) -> None:
    state = f"written {snap.get('at')}" if snap.get("running") else "nothing running: configured"
    console.print(
        f"gate ({snap['source']}, {state}): {snap['committed_mb']} MB of "
        f"{snap['budget_mb']} MB committed, {snap['free_mb']} MB free, "
        f"idle eviction after {snap['idle_evict_sec']} s",
        highlight=False,
    )
    if snap.get("gpu"):
        console.print(f"GPU: {snap['gpu']['free_mb']} MB free of {snap['gpu']['total_mb']} MB")
    rows = [
        [
            r["model_id"],
            r["priority_name"],
            r["category"],
            r["estimated_mb"],
            "working" if r["is_working"] else f"idle {r['idle_s']} s",
        ]
        for r in snap.get("residents", [])
    ]
    print_table("residents", ["model", "priority", "category", "MB", "state"], rows)
    events = snap.get("history", [])[-history:] if history else []
    if events:
        print_table(
            "recent events",
            ["at", "event", "model", "MB", "detail"],
            [[e["at"], e["event"], e["model_id"], e["estimated_mb"], e["detail"]] for e in events],
        )
