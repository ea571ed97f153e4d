"""``familiars memory ...``: inspect, add, pin and forget what is remembered."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, TypeVar

import typer
from rich.progress import Progress

from familiars.cli import _memory_forget as memory_forget
from familiars.cli import _memory_recall as memory_recall
from familiars.cli import _memory_writer as memory_writer
from familiars.cli._memory_route import run_write
from familiars.cli._run import run_memory
from familiars.memory import (
    CATEGORIES,
    SCOPES,
    EntryParseError,
    MemoryError_,
    MemoryRecord,
    MemoryWorkspace,
    OverLimit,
    check_agent_id,
    check_dialogue_id,
    check_record_length,
    check_user_key,
    cut_text,
    is_live,
    make_record,
    over_limit,
    record_json,
    utcnow,
)
from familiars.terminal import (
    console,
    err_console,
    fail,
    get_ctx,
    print_json,
    print_table,
    want_json,
)

app = typer.Typer(help="Inspect, add, pin, forget and search memories.", no_args_is_help=True)

T = TypeVar("T")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (one record per line).")]
UserOpt = Annotated[str | None, typer.Option("--user", "-u", help="Person (user key).")]
AgentOpt = Annotated[str, typer.Option("--agent", "-a", help="Agent id.")]
DialogueOpt = Annotated[str | None, typer.Option("--dialogue", "-d", help="Dialogue id.")]


def _owner_text(rec: MemoryRecord) -> str:
    if rec.scope == "user":
        return f"user:{rec.user_key}"
    if rec.scope == "identity":
        return f"agent:{rec.agent_id}"
    return f"{rec.agent_id}/{rec.dialogue_id}"


def _flags(rec: MemoryRecord) -> str:
    return "".join(
        (
            "P" if rec.pinned else "",
            "D" if rec.deprecated else "",
            "L" if rec.open_loop and rec.open_loop.get("status") == "open" else "",
        )
    )


@app.command("add")
def add(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="What to remember (markdown).")],
    scope: Annotated[str, typer.Option("--scope", "-s", help="user|identity|dialogue|ephemeral")],
    category: Annotated[str, typer.Option("--category", "-C", help="Category within the scope.")],
    user: UserOpt = None,
    agent: AgentOpt = "agent_0",
    dialogue: DialogueOpt = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Tag (repeatable).")] = None,
    salience: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.5,
    pin: Annotated[bool, typer.Option("--pin", help="Pin it (never consolidated).")] = False,
) -> None:
    """Remember TEXT; prints the new id (or the id of the identical memory already kept)."""
    from familiars.memory import check_cell

    try:
        check_cell(scope, category)
        check_record_length(text, get_ctx(ctx).settings.memory.max_record_chars)
        record = make_record(
            text,
            scope=scope,
            category=category,
            user_key=user,
            agent_id=agent,
            dialogue_id=dialogue,
            tags=list(tag or []),
            salience=salience,
            pinned=pin,
        )
    except (MemoryError_, ValueError) as exc:
        fail(str(exc))

    request = {
        "op": "add",
        "content": record.content,
        "scope": record.scope,
        "category": record.category,
        "user_key": user,
        "agent_id": agent,
        "dialogue_id": dialogue,
        "tags": record.tags,
        "salience": record.salience,
        "pinned": record.pinned,
    }
    stored = run_write(ctx, request)
    typer.echo(stored["id"])


#: Words, and two-character terms of Chinese, Japanese, Thai ... (``records_terms``).
QueryOpt = Annotated[str | None, typer.Option("--query", "-q", help="Sharing a keyword with it.")]


def _check_filters(
    scope: str | None,
    category: str | None,
    user: str | None,
    agent: str | None,
    dialogue: str | None,
) -> None:
    """An unknown scope or category, or an id that could escape the workspace, is said in one
    line (an empty list would say nothing)."""
    for value, known, what in ((scope, SCOPES, "scope"), (category, CATEGORIES, "category")):
        if value is not None and value not in known:
            fail(f"unknown {what} {value!r}: one of {', '.join(known)}")
    for value, check in (
        (user, check_user_key),
        (agent, check_agent_id),
        (dialogue, check_dialogue_id),
    ):
        if value is not None:
            try:
                check(value)
            except MemoryError_ as exc:
                fail(str(exc))


@app.command("list")
def list_(
    ctx: typer.Context,
    scope: Annotated[str | None, typer.Option("--scope", "-s")] = None,
    category: Annotated[str | None, typer.Option("--category", "-C")] = None,
    user: UserOpt = None,
    agent: Annotated[str | None, typer.Option("--agent", "-a")] = None,
    dialogue: DialogueOpt = None,
    all_: Annotated[bool, typer.Option("--all", help="Include deprecated and expired.")] = False,
    query: QueryOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """List memories (live ones unless --all), oldest first (--query: sharing a keyword)."""
    as_json = want_json(ctx, json_out)
    _check_filters(scope, category, user, agent, dialogue)

    async def action(mw: MemoryWorkspace) -> list[MemoryRecord]:
        # The index was just reconciled with the files, so it is read instead of parsing
        # every file; JSON lines stream out as they come (``| head -1`` returns at once).
        now = utcnow()
        found: list[MemoryRecord] = []
        async for rec in mw.index.iter_records(
            scope=scope,
            category=category,
            user_key=user,
            agent_id=agent,
            dialogue_id=dialogue,
            include_deprecated=all_,
            query=query,
        ):
            if not all_ and not is_live(rec, now=now):
                continue
            if as_json:
                print_json(record_json(rec))
            else:
                found.append(rec)
        return found

    try:
        records = run_memory(ctx, action)
    except BrokenPipeError:
        raise typer.Exit(0) from None
    if as_json:
        return
    rows = [
        [r.id, r.scope, r.category, _owner_text(r), _flags(r), r.content[:80].replace("\n", " ")]
        for r in records
    ]
    print_table(
        f"{len(records)} memories", ["id", "scope", "category", "owner", "flags", "content"], rows
    )


@app.command("show")
def show(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(metavar="ID")],
    history: Annotated[
        bool, typer.Option("--history", help="Show the edit history chain.")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Show one memory, and with --history what it replaced and what replaced it."""

    async def action(mw: MemoryWorkspace) -> tuple[MemoryRecord, list[dict[str, Any]]]:
        rec = await mw.store.get(record_id)
        events = await mw.store.history(record_id) if history else []
        return rec, events

    rec, events = run_memory(ctx, action)
    if want_json(ctx, json_out):
        out = record_json(rec)
        if history:
            out["history"] = events
        print_json(out)
        return
    console.print(f"[bold]{rec.id}[/bold]  {rec.scope}/{rec.category}  {_owner_text(rec)}")
    console.print(
        f"ts {rec.ts}  salience {rec.salience}  pinned {rec.pinned}  deprecated {rec.deprecated}"
        f"  status {rec.epistemic_status}"
    )
    if rec.supersedes:
        console.print(f"supersedes {rec.supersedes}")
    if rec.tags:
        console.print("tags " + ", ".join(rec.tags))
    if rec.open_loop:
        console.print(f"open loop {rec.open_loop}")
    console.print()
    console.print(
        cut_text(rec.content, get_ctx(ctx).settings.memory.max_record_chars),
        markup=False,
        highlight=False,
    )
    if history:
        rows = [
            [
                e.get("ts"),
                e.get("event"),
                e.get("id"),
                _event_text(e)[:70],
            ]
            for e in events
        ]
        print_table("history", ["ts", "event", "id", "content"], rows)


def _event_text(e: dict[str, Any]) -> str:
    """An event's text for the history table; a hand edit shows what it changed."""
    content = (e.get("record") or {}).get("content") or "(forgotten)"
    if e.get("event") == "edit":
        change = e.get("change", "changed")
        if change == "changed" and e.get("old") is not None:
            return f"by hand: {e['old']} -> {content}"
        return f"{change} by hand: {content}"
    return str(content)


def _register_record_action(name: str, past: str, doc: str) -> None:
    """``memory pin|unpin ID``: one store call on one record, then say what was done."""

    def command(
        ctx: typer.Context, record_id: Annotated[str, typer.Argument(metavar="ID")]
    ) -> None:
        rec = run_write(ctx, {"op": name, "id": record_id})
        typer.echo(f"{past} {rec['id']}")

    command.__doc__ = doc
    app.command(name)(command)


_register_record_action("pin", "pinned", "Pin a memory: it is never consolidated away.")
_register_record_action("unpin", "unpinned", "Unpin a memory.")


#: How :class:`EntryParseError` words a broken entry.
_BROKEN = str(EntryParseError(None, 1, "")).split(": ", 1)[1].rstrip(": ")


class _ParseWarnings(logging.Filter):
    """Drops the warnings for a broken entry (``memory check`` lists each itself): the
    store's and the index reconcile's, both worded as :class:`EntryParseError`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return _BROKEN not in record.getMessage()


@app.command("check")
def check(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Report hand-edited entries that do not parse (file and line) or are longer than
    memory.max_record_chars (shown cut); exit 1 if any."""
    limit = get_ctx(ctx).settings.memory.max_record_chars

    async def action(mw: MemoryWorkspace) -> tuple[list[Any], list[OverLimit]]:
        records = await mw.store.list(live_only=False)
        return await mw.store.parse_errors(), over_limit(records, limit, mw.store.path_of)

    said_below = _ParseWarnings()  # each broken entry is listed below: not also logged
    for handler in logging.getLogger().handlers:
        handler.addFilter(said_below)
    try:
        errors, too_long = run_memory(ctx, action)
    finally:
        for handler in logging.getLogger().handlers:
            handler.removeFilter(said_below)
    if want_json(ctx, json_out):
        # each shown as told: the opening of a paragraph held with it quoted (not logged)
        found = [{"path": str(e.path), "line": e.line, "reason": e.told} for e in errors]
        found += [{"path": str(o.path), "id": o.record_id, "reason": str(o)} for o in too_long]
        print_json(found)
    else:
        for item in [*errors, *too_long]:
            typer.echo(item.shown() if isinstance(item, EntryParseError) else str(item))
        if not errors and not too_long:
            typer.echo("all memory files parse")
    if errors or too_long:
        raise typer.Exit(1)


@app.command("reindex")
def reindex(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Rebuild the SQLite index from the markdown files (vectors are reused by content).
    A running bot rebuilds its own index; a damaged database is moved aside first."""

    async def direct(mw: MemoryWorkspace) -> dict[str, Any]:
        with Progress(console=console, transient=True, disable=want_json(ctx, json_out)) as bar:
            task = bar.add_task("re-indexing", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = await mw.index.rebuild(mw.store, progress=progress)
            embedded = await mw.index.embed_missing()
        out = report.as_dict()
        out["embedded"] = embedded
        return out

    out = run_write(ctx, {"op": "reindex"}, embedder=True, direct=direct)
    if want_json(ctx, json_out):
        print_json(out)
    else:
        typer.echo(
            f"indexed {out['records']} records from {out['new_files']} files; "
            f"embedded {out['embedded']} new texts"
        )
        for err in out["errors"]:
            typer.echo(f"warning: {err}")


@app.command("link")
def link(
    ctx: typer.Context,
    user: Annotated[str, typer.Option("--user", "-u", help="Person (user key).")],
    agent: Annotated[str | None, typer.Option("--agent", "-a", help="Agent id.")] = None,
) -> None:
    """Print a one-time link to USER's memory page (valid 10 minutes, works once). The
    person is an owner on the page when one of their identities is in access.owners."""
    from familiars.bot import sign_in_link

    settings = get_ctx(ctx).settings
    try:
        check_user_key(user)
        agent_id = agent or settings.agents[0].id
        check_agent_id(agent_id)
        url = asyncio.run(sign_in_link(settings, user, agent_id))
    except (MemoryError_, ValueError) as exc:
        fail(str(exc))
    if not settings.api.enabled:
        err_console.print(
            "note: [api] enabled is false; the page is served by familiars api "
            "(or by familiars run once the API is on).",
            highlight=False,
            markup=False,
        )
    typer.echo(url)


# Commands that other modules contribute to this group: search (recall), consolidate and
# writer-status (writer).
memory_recall.register(app)
memory_writer.register(app)
memory_forget.register(app)
