"""The FastAPI application: routes, auth and error mapping. The OpenAPI document it serves
(``/openapi.json``) is the contract, and the tests fuzz the app against it. Bodies are
bounded and answers carry no absolute path (``guards.py``)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError

from familiars.bot._api import schemas as s
from familiars.bot._api.auth import ApiToken, BearerAuthMiddleware, require_token, resolve_token
from familiars.bot._api.guards import BodyLimitMiddleware, without_workspace
from familiars.bot._api.queries import (
    CursorError,
    IndexReader,
    RecordFilter,
    decode_cursor,
    encode_cursor,
)
from familiars.bot._api.queries import record_out as _record_out
from familiars.bot._api.release import release_agent_memory
from familiars.bot._api.status import StatusSources, collect_status
from familiars.memory import InvalidIdError, RecordNotFoundError, index_view

if TYPE_CHECKING:
    from familiars.bot._adapters.base import WebhookReceiver
    from familiars.bot._web.backend import WebBackend

logger = logging.getLogger(__name__)

#: The one route reachable without the token.
OPEN_PATHS = ("/healthz",)
#: The memory page signs people in with its own cookie (``familiars.bot._web``).
OPEN_PREFIXES = ("/web",)

_AUTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": s.Problem, "description": "Missing or wrong bearer token."}
}


def _invalid(location: str, name: str, message: str, value: object) -> RequestValidationError:
    """A 422 in FastAPI's own shape, naming the field."""
    return RequestValidationError(
        [{"type": "value_error", "loc": (location, name), "msg": message, "input": value}]
    )


def create_app(
    sources: StatusSources,
    *,
    token: ApiToken | None = None,
    web: WebBackend | None = None,
    webhooks: Sequence[WebhookReceiver] = (),
) -> FastAPI:
    """The API over ``sources``. Without ``token`` one is resolved from the settings
    (environment variable, else generated and written to ``workspace/.api_token``). With
    ``web``, the memory page is served under ``/web`` too; each of ``webhooks`` takes its
    platform's updates on its path (checked by its own secret, not the bearer token)."""
    api_token = token or resolve_token(sources.settings)
    reader = index_view(sources.settings)  # the files' SQLite index, or the database

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await reader.close()

    app = FastAPI(
        title="familiars",
        version="1",
        summary="Look inside a familiar's memory.",
        lifespan=lifespan,
    )
    app.add_middleware(
        BearerAuthMiddleware,
        token=api_token,
        open_paths=frozenset((*OPEN_PATHS, *(hook.path for hook in webhooks))),
        open_prefixes=OPEN_PREFIXES if web is not None else (),
    )
    # Added last, so outermost: a body over the limit is refused before auth reads anything.
    app.add_middleware(BodyLimitMiddleware, max_bytes=sources.settings.api.max_body_bytes)
    app.state.api_token = api_token
    app.state.sources = sources
    app.state.reader = reader
    _add_routes(app, sources, reader)
    for hook in webhooks:
        _add_webhook_route(app, hook)
    if web is not None:
        from familiars.bot._web.routes import add_web_routes

        async def status() -> dict[str, Any]:
            return await collect_status(sources, reader)

        add_web_routes(app, web, status)
    return app


def _add_routes(app: FastAPI, sources: StatusSources, reader: IndexReader) -> None:
    """Health and status, the record listing, the agents' actions."""
    _add_status_routes(app, sources, reader)
    _add_memory_routes(app, sources, reader)
    _add_forget_route(app, sources)
    _add_agent_routes(app, sources)


def _add_webhook_route(app: FastAPI, hook: WebhookReceiver) -> None:
    """POST ``hook.path``: the platform's updates (not in the OpenAPI document: Telegram,
    not a person, is its client)."""

    async def receive(request: Request) -> Response:
        status = await hook.deliver(request.headers, await request.body())
        return Response(status_code=status)

    app.add_api_route(hook.path, receive, methods=["POST"], include_in_schema=False)


def _add_status_routes(app: FastAPI, sources: StatusSources, reader: IndexReader) -> None:
    protected = [Depends(require_token)]

    @app.get("/healthz", response_model=s.Health, tags=["health"])
    async def healthz() -> dict[str, str]:
        """Liveness; the only route without a token."""
        return {"status": "ok"}

    @app.get(
        "/api/memory_status",
        response_model=s.MemoryStatus,
        dependencies=protected,
        responses=_AUTH_RESPONSES,
        tags=["memory"],
    )
    async def memory_status() -> dict[str, Any]:
        """Counts per scope and category, sizes, embedding space, recall and writer
        statistics, provider cooldowns and gate residents."""
        return await collect_status(sources, reader)


def _add_memory_routes(app: FastAPI, sources: StatusSources, reader: IndexReader) -> None:
    protected = [Depends(require_token)]

    @app.get(
        "/api/memory",
        response_model=s.MemoryPage,
        dependencies=protected,
        responses=_AUTH_RESPONSES,
        tags=["memory"],
    )
    async def list_memory(
        user_key: Annotated[str | None, Query(pattern=s.USER_KEY_PATTERN, max_length=64)] = None,
        agent_id: Annotated[str | None, Query(pattern=s.AGENT_ID_PATTERN, max_length=64)] = None,
        dialogue_id: Annotated[
            str | None, Query(pattern=s.DIALOGUE_ID_PATTERN, max_length=73)
        ] = None,
        scope: s.Scope | None = None,
        category: s.Category | None = None,
        q: Annotated[
            str | None,
            Query(min_length=1, max_length=s.MAX_QUERY_CHARS, description="Full-text query."),
        ] = None,
        include_deprecated: bool = False,
        limit: Annotated[int, Query(ge=1, le=s.MAX_PAGE)] = s.DEFAULT_PAGE,
        cursor: Annotated[
            str | None,
            Query(pattern=s.CURSOR_PATTERN, description="next_cursor of the previous page."),
        ] = None,
    ) -> dict[str, Any]:
        """Records matching every filter given, newest first, a page at a time."""
        after = None
        if cursor is not None:
            try:
                after = decode_cursor(cursor)
            except CursorError as exc:
                raise _invalid("query", "cursor", str(exc), cursor) from exc
        flt = RecordFilter(
            user_key=user_key,
            agent_id=agent_id,
            dialogue_id=dialogue_id,
            scope=scope,
            category=category,
            query=q,
            include_deprecated=include_deprecated,
        )
        page, next_after = await reader.list_records(flt, limit=limit, after=after)
        now = sources.clock()
        items = [_record_out(rec, path, now) for rec, path in page]
        return {
            "items": without_workspace(items, sources.workspace),
            "limit": limit,
            "next_cursor": None if next_after is None else encode_cursor(next_after),
        }


def _add_forget_route(app: FastAPI, sources: StatusSources) -> None:
    protected = [Depends(require_token)]

    @app.delete(
        "/api/memory/{item_id:path}",
        response_model=s.ForgetResult,
        dependencies=protected,
        responses={
            **_AUTH_RESPONSES,
            404: {
                "model": s.Problem,
                "description": "No memory, turn, file or person with this id.",
            },
            409: {"model": s.Problem, "description": "No running bot to forget through."},
        },
        tags=["memory"],
    )
    async def forget_memory(
        item_id: Annotated[str, Path(pattern=s.FORGET_ID_PATTERN, max_length=160)],
    ) -> dict[str, Any]:
        """Forget a memory (``m_...``), a turn (``node:AGENT/DIALOGUE/N``), a document
        (``file:ID``) or a whole person (``person:KEY``: every account linked to KEY, all
        that is theirs) for good, through the bot's one Forgetter: its words leave every
        file of the workspace (every ``doc_*`` row and stored byte, for a document)."""
        if sources.forget is None:
            raise HTTPException(
                status_code=409,
                detail="forgetting goes through the running bot (or familiars memory forget)",
            )
        try:
            report = await sources.forget(item_id)
        except RecordNotFoundError as exc:
            raise HTTPException(
                status_code=404, detail="no memory, turn, file or person with this id"
            ) from exc
        except InvalidIdError as exc:
            raise _invalid("path", "item_id", str(exc), item_id) from exc
        return {
            "id": item_id,
            "records": list(report.records),
            "nodes": list(report.nodes),
            # the person's other messages that said a forgotten value again (in ``nodes``)
            "repeats": list(report.repeats),
            "files": list(report.files),
            "people": list(report.people),
            "state": list(report.state),
        }


def _add_agent_routes(app: FastAPI, sources: StatusSources) -> None:
    protected = [Depends(require_token)]

    @app.post(
        "/api/agents/{agent_id:path}/release-memory",
        response_model=s.ReleaseResult,
        dependencies=protected,
        responses={
            **_AUTH_RESPONSES,
            404: {"model": s.Problem, "description": "No agent with this id."},
        },
        tags=["agents"],
    )
    async def release_memory(
        agent_id: Annotated[str, Path(pattern=s.AGENT_ID_PATTERN, max_length=64)],
    ) -> dict[str, Any]:
        """Evict the agent's resident models through the gate; returns what was freed."""
        known = {a.id for a in sources.settings.agents}
        if agent_id not in known:
            raise HTTPException(status_code=404, detail="unknown agent")
        return await release_agent_memory(sources, agent_id)
