"""The memory page's routes, added to the API's FastAPI app under ``/web``.

- :func:`add_web_routes` - everything: sign-in by link, the memory pages (here), reminders,
  dialogues, people and the owner's pages (``routes_more.py``), the static files.
- :class:`Pages` - what every route shares: the backend, the templates, who is signed in,
  the checks a change passes (Origin, session, CSRF, in that order), one-shot notices.

A GET that needs a session and has none answers 401 with how to get a link; another person's
record, reminder or dialogue (or one that does not exist) answers 404, the same page.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from starlette.responses import RedirectResponse, Response

from familiars.bot._web import guard
from familiars.bot._web.backend import ActionRefused, NotYours, WebBackend
from familiars.bot._web.render import Renderer, StaticFiles
from familiars.bot._web.sessions import Session
from familiars.bot._web.views import dialogue_href, history_rows, record_view
from familiars.memory import CATEGORIES, valid_categories

logger = logging.getLogger(__name__)

StatusFn = Callable[[], Awaitable[dict[str, Any]]]

NO_SESSION = (
    "You are not signed in, or your sign-in has ended. Ask the familiar for a link: send "
    "/memory web in a private chat (or run familiars memory link --user YOU)."
)
NOT_FOUND = "There is nothing here that is yours to see."
BAD_LINK = (
    "This sign-in link was already used or has expired (links last 10 minutes and work "
    "once). Ask for a new one with /memory web."
)


class Pages:
    def __init__(self, backend: WebBackend, status: StatusFn | None = None) -> None:
        self.backend = backend
        self.render = Renderer()
        self.static = StaticFiles()
        self.status = status
        self._notices: dict[str, str] = {}

    # ------------------------------------------------------------------ who is asking

    def person(self, request: Request) -> tuple[str, Session]:
        found = guard.signed_in(request, self.backend.sessions)
        if found is None:
            raise guard.Refused(401, NO_SESSION)
        return found

    async def change(self, request: Request) -> tuple[str, Session, dict[str, str]]:
        """A change's checks: its origin, then the session, then the form's CSRF token."""
        guard.check_origin(request, self.backend.settings.api.public_url)
        cookie, session = self.person(request)
        form = await guard.read_form(request)
        guard.check_csrf(form, cookie)
        return cookie, session, form

    # ------------------------------------------------------------------ answers

    def notice(self, cookie: str, text: str) -> None:
        self._notices[hashlib.sha256(cookie.encode()).hexdigest()] = text

    def take_notice(self, cookie: str) -> str | None:
        return self._notices.pop(hashlib.sha256(cookie.encode()).hexdigest(), None)

    def page(self, name: str, request: Request, **values: Any) -> Response:
        cookie, session = self.person(request)
        return self.render.page(
            name, session=session, cookie=cookie, flash=self.take_notice(cookie), **values
        )

    def done(self, cookie: str, text: str, to: str) -> Response:
        self.notice(cookie, text.replace("`", ""))  # the commands' answers are markdown
        return RedirectResponse(to, status_code=303)

    def refused(self, request: Request, status: int, text: str) -> Response:
        found = guard.signed_in(request, self.backend.sessions)
        cookie, session = found if found is not None else (None, None)
        title = {401: "Please sign in", 404: "Not found"}.get(status, "Not done")
        return self.render.message(title, text, status=status, session=session, cookie=cookie)

    async def dialogue_links(self, session: Session) -> dict[str, str]:
        """The person's dialogue ids and their pages (provenance links only to those)."""
        return {
            info.dialogue_id: dialogue_href(info.agent_id, info.dialogue_id)
            for info, _ in await self.backend.dialogues(session)
        }


def add_web_routes(app: FastAPI, backend: WebBackend, status: StatusFn | None = None) -> None:
    from familiars.bot._web import routes_more

    pages = Pages(backend, status)
    app.add_middleware(guard.PageHeaders)
    _add_handlers(app, pages)
    _add_sign_in(app, pages)
    _add_memory_pages(app, pages)
    _add_memory_changes(app, pages)
    routes_more.add_reminder_routes(app, pages)
    routes_more.add_forget_everything_routes(app, pages)
    routes_more.add_dialogue_routes(app, pages)
    routes_more.add_people_routes(app, pages)
    routes_more.add_owner_routes(app, pages)

    @app.get("/web/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        found = pages.static.response(name)
        if found is None:
            raise NotYours(name)
        return found


def _add_handlers(app: FastAPI, pages: Pages) -> None:
    @app.exception_handler(guard.Refused)
    async def refused(request: Request, exc: guard.Refused) -> Response:
        return pages.refused(request, exc.status, exc.message)

    @app.exception_handler(NotYours)
    async def not_yours(request: Request, exc: NotYours) -> Response:
        return pages.refused(request, 404, NOT_FOUND)

    @app.exception_handler(ActionRefused)
    async def action_refused(request: Request, exc: ActionRefused) -> Response:
        return pages.refused(request, 409, str(exc))


def _add_sign_in(app: FastAPI, pages: Pages) -> None:
    sessions = pages.backend.sessions

    @app.get("/web/login", include_in_schema=False)
    async def login_page(request: Request, t: str = "") -> Response:
        """Asks before signing in: a link preview that fetches the URL uses nothing."""
        link = sessions.peek_link(t)
        if link is None:
            return pages.render.message("Link not valid", BAD_LINK, status=400)
        return pages.render.page("login.html", token=t, person=link.user_key)

    @app.post("/web/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        guard.check_origin(request, pages.backend.settings.api.public_url)
        form = await guard.read_form(request)
        redeemed = sessions.redeem(form.get("t", ""))
        if redeemed is None:
            return pages.render.message("Link not valid", BAD_LINK, status=400)
        token, _ = redeemed
        response = RedirectResponse("/web/memories", status_code=303)
        max_age = int(sessions.session_ttl.total_seconds())
        response.headers.append("set-cookie", guard.cookie_header(request, token, max_age))
        return response

    @app.post("/web/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        cookie, _, _ = await pages.change(request)
        sessions.end(cookie)
        response = pages.render.message(
            "Signed out", "You are signed out of your memory page.", status=200
        )
        response.headers.append("set-cookie", guard.clear_cookie_header())
        return response

    @app.get("/web", include_in_schema=False)
    @app.get("/web/", include_in_schema=False)
    async def home(request: Request) -> Response:
        pages.person(request)
        return RedirectResponse("/web/memories", status_code=303)


def _add_memory_pages(app: FastAPI, pages: Pages) -> None:
    backend = pages.backend

    @app.get("/web/memories", include_in_schema=False)
    async def memories(request: Request, category: str = "", q: str = "") -> Response:
        _, session = pages.person(request)
        cats = valid_categories("user")
        chosen = category if category in cats else None
        records = await backend.records(session, chosen, q[:200] or None)
        return pages.page(
            "memories.html",
            request,
            records=[record_view(r) for r in records],
            groups=_grouped(records, cats),
            categories=cats,
            category=chosen or "",
            q=q[:200],
            heading="Your memories",
            action="/web/memories",
        )

    @app.get("/web/memories/{record_id}", include_in_schema=False)
    async def record(request: Request, record_id: str) -> Response:
        _, session = pages.person(request)
        rec = await backend.record(session, record_id)
        events = await backend.history(session, rec)
        links = await pages.dialogue_links(session)
        return pages.page(
            "record.html",
            request,
            rec=record_view(rec, links),
            history=history_rows(events),
            read_only=backend.read_only,
        )

    @app.get("/web/memories/{record_id}/forget", include_in_schema=False)
    async def forget_page(request: Request, record_id: str) -> Response:
        _, session = pages.person(request)
        rec = await backend.record(session, record_id)
        return pages.page("forget.html", request, rec=record_view(rec))


def _grouped(records: list[Any], cats: list[str]) -> list[tuple[str, list[Any]]]:
    """Newest first within each category, categories in their usual order."""
    order = [c for c in CATEGORIES if c in cats] or list(cats)
    groups = []
    for cat in order:
        views = [record_view(r) for r in records if r.category == cat]
        if views:
            groups.append((cat, views))
    return groups


def _add_memory_changes(app: FastAPI, pages: Pages) -> None:
    backend = pages.backend

    @app.post("/web/memories/{record_id}/edit", include_in_schema=False)
    async def edit(request: Request, record_id: str) -> Response:
        cookie, session, form = await pages.change(request)
        rec = await backend.record(session, record_id)
        said = await backend.edit(session, record_id, form.get("text", ""))
        newer = await backend.successor(session, rec)
        return pages.done(cookie, said, f"/web/memories/{newer.id if newer else record_id}")

    @app.post("/web/memories/{record_id}/{action}", include_in_schema=False)
    async def pin_or_forget(request: Request, record_id: str, action: str) -> Response:
        cookie, session, _ = await pages.change(request)
        if action not in ("pin", "unpin", "forget"):
            raise NotYours(action)
        rec = await backend.record(session, record_id)
        args = (action, record_id, "confirm") if action == "forget" else (action, record_id)
        said = await backend.run(session, "memory", *args)
        if action != "forget":
            return pages.done(cookie, said, f"/web/memories/{record_id}")
        return pages.done(
            cookie, said, "/web/agent" if rec.scope == "identity" else "/web/memories"
        )
