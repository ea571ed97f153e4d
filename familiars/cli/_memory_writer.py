"""``familiars memory consolidate`` and ``familiars memory writer-status``."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import typer

from familiars.config import Settings
from familiars.terminal import console, get_ctx, print_json, print_table, want_json

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def register(app: typer.Typer) -> None:
    app.command("consolidate")(consolidate)
    app.command("writer-status")(writer_status)


def consolidate(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be merged; write nothing.")
    ] = False,
    threshold: Annotated[
        float,
        typer.Option(
            "--threshold", min=0.0, max=1.0, help="Cosine gate before the fact-identity rules."
        ),
    ] = 0.85,
    max_share: Annotated[
        float,
        typer.Option(
            "--max-share",
            min=0.0,
            max=1.0,
            help="Most of a person's live records one pass may deprecate.",
        ),
    ] = 0.25,
    undo: Annotated[
        str | None, typer.Option("--undo", metavar="PASS", help="Restore what pass PASS changed.")
    ] = None,
    offline: Annotated[
        bool, typer.Option("--offline", help="Do not ask a language model for merged text.")
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """Merge live memories that say the same fact (pinned ones never); --undo PASS puts a
    pass back."""
    from familiars.cli._memory_route import run_write

    if undo is not None:
        report = run_write(ctx, {"op": "consolidate", "undo": undo})
        if want_json(ctx, json_output):
            print_json(report)
            return
        console.print(
            f"Undid pass {report['undo']}: {report['merged']} merged records deprecated, "
            f"{report['deprecated']} sources live again.",
            highlight=False,
        )
        return
    request = {"op": "consolidate", "dry_run": dry_run, "threshold": threshold}
    request["max_share"] = max_share
    report = run_write(ctx, {**request, "offline": offline}, embedder=True)
    if want_json(ctx, json_output):
        print_json(report)
        return
    _print_consolidation(report)


def _print_consolidation(report: dict[str, Any]) -> None:
    clusters = report["clusters"]
    verb = "would merge" if report["dry_run"] else "merged"
    rows = [
        [
            f"{c['scope']}/{c['category']}",
            c["user_key"] or f"{c['agent_id']}/{c['dialogue_id'] or ''}".rstrip("/"),
            "\n".join(c["source_texts"]),
            c["content"],
            c["min_similarity"],
        ]
        for c in clusters
    ]
    if rows:
        print_table(None, ["cell", "owner", "sources", "merged text", "min cos"], rows)
    console.print(
        f"{report['records_seen']} records in {report['groups']} groups; {verb} "
        f"{sum(len(c['sources']) for c in clusters)} records into {len(clusters)}."
    )
    done = report.get("pass") or {}
    if done:
        console.print(
            f"{done.get('expired', 0)} expired, {done.get('episodes', 0)} episodes, "
            f"{done.get('core_profiles', 0)} core profiles made.",
            highlight=False,
        )
    for stop in report.get("stopped") or []:
        console.print(f"{stop['owner']}: {stop['reason']}", highlight=False, markup=False)
    if report.get("pass_id"):
        console.print(
            f"pass {report['pass_id']} (undo: familiars memory consolidate --undo "
            f"{report['pass_id']})",
            highlight=False,
        )
    if report["finished_interrupted"]:
        console.print(f"Finished an interrupted run: {report['finished_interrupted']} deprecated.")


def writer_status(ctx: typer.Context, json_output: JsonOpt = False) -> None:
    """The memory writer's queue and counters, as the last writer process saved them."""
    from familiars.memory import database_url, load_status, open_state_home

    settings = get_ctx(ctx).settings
    data = load_status(settings.workspace).as_dict()
    if database_url(settings) is not None:  # the queue every worker shares
        home = open_state_home(settings)
        data["queue_depth"] = len(home.queued_turns())
        asyncio.run(home.close())
    data["providers"] = _providers(settings, data.get("providers") or [])
    if want_json(ctx, json_output):
        print_json(data)
        return
    counters = [
        "mode",
        "queue_depth",
        "turns_processed",
        "added",
        "updated",
        "skipped",
        "rejected",
        "budget_truncations",
        "repairs",
        "failures",
        "closed_loops",
        "offline_fallbacks",
        "failed_turns",
        "last_error",
        "last_error_at",
        "last_turn_at",
        "updated_at",
    ]
    print_table("memory writer", ["counter", "value"], [[k, data.get(k)] for k in counters])
    rows = [
        [p["name"], p.get("model"), p.get("status"), p.get("cooldown_left_s"), p.get("last_error")]
        for p in data["providers"]
    ]
    if rows:
        print_table(
            "providers", ["name", "model", "status", "cooldown left (s)", "last error"], rows
        )
    else:
        console.print("No language model provider configured: the offline writer is used.")


def _providers(settings: Settings, saved: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every configured provider with its last saved state; a cooldown that has ended since
    shows as ok."""
    by_name = {p.get("name"): p for p in saved}
    now = time.time()
    out = []
    for prov in settings.llm.providers:
        state = dict(by_name.get(prov.name) or {"name": prov.name, "status": "ok"})
        state["model"] = prov.model
        until = state.get("cooling_until")
        if isinstance(until, int | float) and until > now:
            state["status"], state["cooldown_left_s"] = "cooling", round(until - now, 1)
        else:
            state["status"], state["cooldown_left_s"] = "ok", None
        out.append(state)
    return out
