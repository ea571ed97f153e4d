"""``familiars memory search QUERY``: what the familiar would recall, with every score part."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from familiars.cli._run import run_memory
from familiars.terminal import fail, print_json, print_table, want_json


def register(app: typer.Typer) -> None:
    app.command("search")(search)


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to recall.")],
    user: Annotated[str | None, typer.Option("--user", "-u", help="Person (user key).")] = None,
    agent: Annotated[str, typer.Option("--agent", "-a", help="Agent id.")] = "agent_0",
    dialogue: Annotated[str | None, typer.Option("--dialogue", "-d", help="Dialogue id.")] = None,
    k: Annotated[int, typer.Option("--k", "-k", help="How many items.")] = 8,
    profile: Annotated[
        str | None, typer.Option("--profile", help="lite | standard | full (config default).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Recall QUERY as the familiar would: records and dialogue messages, each with its score
    parts. Nothing is written (access counters are not touched by a search)."""
    if not query.strip():
        fail("the query is empty")
    if k <= 0:
        fail("--k must be at least 1")
    from familiars.memory import DialogTrees, MemoryReader, MemoryWorkspace

    async def action(mw: MemoryWorkspace) -> dict[str, Any]:
        assert mw.embedder is not None
        reader = MemoryReader.from_settings(
            mw.settings, mw.embedder, trees=DialogTrees(mw.path, home=mw.home)
        )
        await reader.attach_index(mw.index)
        result = await reader.build_rag_context(
            query, agent_id=agent, dialogue_id=dialogue, user_key=user, k=k, profile=profile
        )
        people = (
            [] if user else sorted({r.user_key or "" for r in await mw.store.list(scope="user")})
        )
        return {**result.as_dict(), "people": [p for p in people if p]}

    data = run_memory(ctx, action, embedder=True)
    people = data.pop("people")
    if want_json(ctx, json_out):
        print_json(data)
        return
    rows = []
    for item in data["items"]:
        parts = " ".join(f"{name}={value:.2f}" for name, value in item["parts"].items())
        where = item.get("scope") or f"{item.get('dialogue_id')}#{item.get('node_id')}"
        rows.append([f"{item['score']:.3f}", item["kind"], where, item["text"][:120], parts])
    print_table(
        f"recall for {query!r} ({data['profile']})",
        ["score", "kind", "where", "text", "parts"],
        rows,
    )
    if data["dropped"]:
        print(f"stages dropped for time: {', '.join(data['dropped'])}")
    if people:  # a person's memories are recalled only for them: say so, never silently empty
        names = ", ".join(people)
        print(f"without --user only the agent's own memories are searched (people: {names})")
