"""The memory page's other routes: reminders, dialogues (timeline and tree), people, and the owner's
pages (the agent's identity, the status with its charts). Shared helpers are
:class:`~familiars.bot._web.routes.Pages`'."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from starlette.responses import Response

from familiars.bot._forget_texts import NOTHING_OF_YOURS, holdings_text
from familiars.bot._home_zone import zone_of
from familiars.bot._web.backend import AGENT_CATEGORIES, NotYours
from familiars.bot._web.people import people_drawing, people_rows
from familiars.bot._web.svg import Chart, bar_chart, score_text, tree_drawing
from familiars.bot._web.views import dialogue_view, record_view, reminder_view
from familiars.memory import PERSON_KEPT, is_forgotten, is_node_ref, parse_node_ref

if TYPE_CHECKING:
    from familiars.bot._web.routes import Pages

SNOOZES = (("10m", "10 minutes"), ("30m", "30 minutes"), ("1h", "an hour"), ("1d", "a day"))
REMINDER_ACTIONS = ("cancel", "move", "snooze")


def add_reminder_routes(app: FastAPI, pages: Pages) -> None:
    backend = pages.backend

    @app.get("/web/reminders", include_in_schema=False)
    async def reminders(request: Request) -> Response:
        _, session = pages.person(request)
        zone = (
            await zone_of(
                backend.state, backend.book.store, session.user_key, backend.book.default_timezone
            )
        ).info
        mine = [reminder_view(r, zone) for r in await backend.reminders(session)]
        return pages.page("reminders.html", request, reminders=mine, zone=zone.key, snoozes=SNOOZES)

    @app.post("/web/reminders/{record_id}/{action}", include_in_schema=False)
    async def change(request: Request, record_id: str, action: str) -> Response:
        cookie, session, form = await pages.change(request)
        if action not in REMINDER_ACTIONS:
            raise NotYours(action)
        reminder = await backend.reminder(session, record_id)
        args = [action, "#" + reminder.short_id]
        if action == "move":
            args += form.get("when", "").split() or ["?"]
        elif action == "snooze":
            args += form.get("duration", "10m").split()
        said = await backend.run(session, "reminders", *args)
        return pages.done(cookie, said, "/web/reminders")


def add_forget_everything_routes(app: FastAPI, pages: Pages) -> None:
    """Forgetting everything about the signed-in person: the question with its counts, and
    on the button ``/memory forget everything confirm`` (the one Forgetter; every sign-in
    of theirs ends with it, so the answer is shown on a page of its own)."""
    backend = pages.backend

    @app.get("/web/forget-everything", include_in_schema=False)
    async def ask(request: Request) -> Response:
        _, session = pages.person(request)
        held = await backend.everything(session)
        what = holdings_text(held) if held is not None else None
        return pages.page("forget_everything.html", request, what=what, kept=PERSON_KEPT,
                          nothing=NOTHING_OF_YOURS)  # fmt: skip

    @app.post("/web/forget-everything", include_in_schema=False)
    async def forget(request: Request) -> Response:
        _, session, _ = await pages.change(request)
        said = await backend.run(session, "memory", "forget", "everything", "confirm")
        return pages.render.message("Forgotten", said, status=200)


def add_dialogue_routes(app: FastAPI, pages: Pages) -> None:
    backend = pages.backend

    @app.get("/web/dialogues", include_in_schema=False)
    async def dialogues(request: Request) -> Response:
        _, session = pages.person(request)
        found = [dialogue_view(info, tree) for info, tree in await backend.dialogues(session)]
        return pages.page("dialogues.html", request, dialogues=found)

    @app.get("/web/dialogues/{agent_id}/{dialogue_id}", include_in_schema=False)
    async def dialogue(request: Request, agent_id: str, dialogue_id: str) -> Response:
        _, session = pages.person(request)
        info, tree = await backend.dialogue(session, agent_id, dialogue_id)
        recalled = backend.recalled(session, agent_id, dialogue_id)
        nodes, memories = _split_recalled(recalled, agent_id, dialogue_id)
        messages = [
            {
                "id": n.id,
                "kind": "person" if n.node_type == "Q" else "familiar",
                "text": "(forgotten)" if is_forgotten(n) else n.content,
                "parent": n.parent,
            }
            for n in tree.node_list[-300:]
        ]
        return pages.page(
            "tree.html",
            request,
            view=dialogue_view(info, tree),
            drawing=tree_drawing(tree, nodes),
            messages=messages,
            recalled_memories=memories,
            recalled_any=bool(recalled),
        )


def add_people_routes(app: FastAPI, pages: Pages) -> None:
    backend = pages.backend

    @app.get("/web/people", include_in_schema=False)
    async def people(request: Request) -> Response:
        _, session = pages.person(request)
        graph = await backend.people_graph(session)
        now = backend.clock()
        return pages.page(
            "people.html",
            request,
            drawing=people_drawing(graph, now),
            people=people_rows(graph, now),
        )


def _split_recalled(
    items: list[dict[str, Any]], agent_id: str, dialogue_id: str
) -> tuple[dict[int, str], list[dict[str, str]]]:
    """The last reply's recalled items: this tree's nodes (id -> score) and memories."""
    nodes: dict[int, str] = {}
    memories: list[dict[str, str]] = []
    for item in items:
        key = str(item.get("id", ""))
        if is_node_ref(key):
            ref = parse_node_ref(key)
            if (ref.agent_id, ref.dialogue_id) == (agent_id, dialogue_id):
                nodes[ref.node_id] = score_text(item)
        else:
            memories.append(
                {"id": key, "text": str(item.get("text", "")), "score": score_text(item)}
            )
    return nodes, memories


def add_owner_routes(app: FastAPI, pages: Pages) -> None:
    backend = pages.backend

    @app.get("/web/agent", include_in_schema=False)
    async def agent(request: Request, q: str = "") -> Response:
        _, session = pages.person(request)
        records = await backend.agent_records(session, q[:200] or None)
        groups = [
            (cat, [record_view(r) for r in records if r.category == cat])
            for cat in AGENT_CATEGORIES
        ]
        return pages.page(
            "memories.html",
            request,
            groups=[(c, views) for c, views in groups if views],
            records=records,
            categories=[],
            category="",
            q=q[:200],
            heading=f"{session.agent_id}: identity and directives",
            action="/web/agent",
        )

    @app.get("/web/status", include_in_schema=False)
    async def status(request: Request) -> Response:
        _, session = pages.person(request)
        if not session.is_owner or pages.status is None:
            raise NotYours("status")
        data = await pages.status()
        return pages.page("status.html", request, data=data, charts=status_charts(data))


def status_charts(data: dict[str, Any]) -> list[Chart]:
    """Live records per cell; recall latency; the writer's queue and counters."""
    cells = [
        (f"{c['scope']}/{c['category']}", float(c["live"]), str(c["live"]))
        for c in data["records"]["cells"]
    ]
    recall = data["recall"]
    latency = [
        (name, float(recall.get(key) or 0.0), f"{recall.get(key) or 0:.1f} ms")
        for name, key in (("p50", "latency_p50_ms"), ("p95", "latency_p95_ms"))
    ]
    writer = data["writer"]["data"]
    queue = [
        (name.replace("_", " "), float(writer.get(name) or 0), str(writer.get(name) or 0))
        for name in ("queue_depth", "turns_processed", "added", "updated", "failures")
    ]
    return [
        bar_chart("Live records per scope/category", cells),
        bar_chart("Recall latency", latency),
        bar_chart("Writer", queue),
    ]
