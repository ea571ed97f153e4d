"""``familiars files ...``: add documents, find them, list what is indexed.

Files added here belong to the owner scope (the same scope as watched folders); ``--user``
reads a person's attachments instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from familiars.config import Settings
from familiars.terminal import console, fail, get_ctx, print_json, print_table, want_json

app = typer.Typer(help="Documents and watched folders: add, find, list.", no_args_is_help=True)

T = TypeVar("T")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
UserOpt = Annotated[
    str | None, typer.Option("--user", "-u", help="A person's user key (default: the owner).")
]


def _run(settings: Settings, action: Callable[[Any], Awaitable[T]]) -> T:
    from familiars.memory import (
        DocumentError,
        DocumentFinder,
        InvalidIdError,
        LazyEmbedder,
        embedder_from_settings,
    )

    async def go() -> T:
        # loaded only by what embeds: ``list`` never does
        embedder = LazyEmbedder(lambda: embedder_from_settings(settings))
        async with DocumentFinder(settings.workspace, embedder, settings) as finder:
            return await action(finder)

    try:
        return asyncio.run(go())
    except (DocumentError, InvalidIdError, ValueError) as exc:
        fail(str(exc))


@app.command("add")
def add(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A file or a folder to index.")],
    json_output: JsonOpt = False,
) -> None:
    """Index a file, or every file under a folder; bad files are skipped with a reason."""
    settings = get_ctx(ctx).settings
    if not path.exists() and not path.is_symlink():
        fail(f"no such file or folder: {path}")

    async def action(finder: Any) -> list[Any]:
        if path.is_dir():
            return list(await finder.add_folder(path))
        return [await finder.add_file(path)]

    results = _run(settings, action)
    if want_json(ctx, json_output):
        print_json([r.to_dict() for r in results])
        return
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
        if r.status == "skipped":
            console.print(f"[yellow]skipped[/yellow] {r.path}: {r.reason}", highlight=False)
        elif r.note:
            console.print(f"{r.status} {r.path} ({r.note})", highlight=False)
    console.print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "nothing to add")


@app.command("find")
def find(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help='What to look for, e.g. "the lease PDF".')],
    k: Annotated[int, typer.Option("-k", min=1, max=50, help="How many files.")] = 5,
    user: UserOpt = None,
    history: Annotated[
        bool | None,
        typer.Option("--history/--no-history", help="Search earlier versions too."),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """Find files: name, page, passage, and the score with its parts."""
    settings = get_ctx(ctx).settings

    async def action(finder: Any) -> list[Any]:
        return list(await finder.find(query, user_key=user, k=k, history=history))

    found = _run(settings, action)
    if want_json(ctx, json_output):
        print_json([f.to_dict() for f in found])
        return
    if not found:
        console.print("no matching files")
        return
    rows = [
        [
            i,
            f.name + (" (earlier version)" if f.is_history else ""),
            f.page or "",
            f"{f.score:.3f}",
            f.passage[:160],
            f.path,
        ]
        for i, f in enumerate(found, start=1)
    ]
    print_table(None, ["#", "file", "page", "score", "passage", "path"], rows)


@app.command("list")
def list_files(
    ctx: typer.Context,
    user: UserOpt = None,
    skipped: Annotated[bool, typer.Option("--skipped", help="Show skipped files.")] = False,
    json_output: JsonOpt = False,
) -> None:
    """Indexed files (or, with --skipped, the files left out and why)."""
    settings = get_ctx(ctx).settings

    async def action(finder: Any) -> list[Any]:
        if skipped:
            return list(await finder.skipped(user))
        return [f.to_dict() for f in await finder.list_files(user)]

    items = _run(settings, action)
    if want_json(ctx, json_output):
        print_json(items)
        return
    if skipped:
        print_table(
            None, ["path", "code", "reason"], [[i["path"], i["code"], i["reason"]] for i in items]
        )
        return
    rows = [
        [i["name"], i["kind"], i["size"], i["chunks"], i["versions"], i["indexed_at"], i["path"]]
        for i in items
    ]
    print_table(None, ["name", "kind", "bytes", "chunks", "versions", "indexed", "path"], rows)


@app.command("rebuild")
def rebuild(ctx: typer.Context, json_output: JsonOpt = False) -> None:
    """Rebuild the document index from the edit-history sidecars (after a model change)."""
    settings = get_ctx(ctx).settings

    async def action(finder: Any) -> Any:
        return await finder.rebuild()

    report = _run(settings, action)
    data = {
        "files": report.files,
        "versions": report.versions,
        "history_versions": report.history_versions,
        "bad_lines": report.bad_lines,
        "reindexed": len(report.reindexed),
    }
    if want_json(ctx, json_output):
        print_json(data)
    else:
        console.print(", ".join(f"{k}: {v}" for k, v in data.items()))
