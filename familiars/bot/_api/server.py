"""Serving the API with uvicorn: inside the bot's running event loop, or alone.

Inside the bot, :class:`ApiServer` leaves signal handling to the runtime (uvicorn would
otherwise take over Ctrl-C); alone (``familiars api``), uvicorn handles the signals itself.
The socket is bound here first, so a busy port is a clear error at start and port 0 works.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import uvicorn
from fastapi import FastAPI

from familiars.bot._api.app import create_app
from familiars.bot._api.auth import ApiToken, resolve_token
from familiars.bot._api.status import StatusSources

if TYPE_CHECKING:
    from familiars.bot._adapters.base import WebhookReceiver
    from familiars.bot._web.backend import WebBackend

logger = logging.getLogger(__name__)


class ApiServerError(RuntimeError):
    """The API could not start (address in use, bad host)."""


class _EmbeddedServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the host application owns the signals


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say they are TCP;
    # without it a small response waits ~40 ms for a delayed ACK (measured: /healthz 45 ms
    # instead of 1.5 ms on loopback). The listener's own TCP_NODELAY is inherited too.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ApiServerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.listen(128)
    sock.setblocking(False)
    return sock


class ApiServer:
    """The API on uvicorn. ``await start()`` returns once it accepts connections;
    ``await stop()`` finishes open requests and closes it."""

    def __init__(
        self,
        app: FastAPI,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        embedded: bool = True,
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.embedded = embedded
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._sock: socket.socket | None = None

    @classmethod
    def from_sources(
        cls,
        sources: StatusSources,
        *,
        token: ApiToken | None = None,
        embedded: bool = True,
        web: WebBackend | None = None,
        webhooks: Sequence[WebhookReceiver] = (),
    ) -> ApiServer:
        """The API on ``Settings.api.host`` / ``port`` for these sources (with the memory
        page when ``web`` is given, and the platforms' ``webhooks``)."""
        api = sources.settings.api
        token = token or resolve_token(sources.settings)
        app = create_app(sources, token=token, web=web, webhooks=webhooks)
        return cls(app, host=api.host, port=api.port, embedded=embedded)

    @property
    def token(self) -> ApiToken | None:
        token: ApiToken | None = getattr(self.app.state, "api_token", None)
        return token

    @property
    def bound_port(self) -> int:
        if self._sock is None:
            raise RuntimeError("the API server is not started")
        return int(self._sock.getsockname()[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.bound_port}"

    def _config(self) -> uvicorn.Config:
        return uvicorn.Config(
            self.app,
            lifespan="on",
            log_config=None,
            access_log=False,
            server_header=False,
            timeout_graceful_shutdown=5,
        )

    async def start(self) -> None:
        if self._task is not None:
            return
        if not _is_loopback(self.host):
            logger.warning("the API listens on %s, reachable from other machines", self.host)
        self._sock = bind_socket(self.host, self.port)
        server_cls = _EmbeddedServer if self.embedded else uvicorn.Server
        self._server = server_cls(self._config())
        self._task = asyncio.create_task(self._serve(), name="familiars-api")
        try:
            await self._wait_started()
        except BaseException:
            await self.stop()
            raise
        source = self.token.source if self.token is not None else "none"
        logger.info("API listening on %s (token: %s)", self.url, source)

    async def _wait_started(self) -> None:
        assert self._server is not None and self._task is not None
        while not self._server.started:
            if self._task.done():
                await self._task  # raises what stopped it
                raise ApiServerError("the API server stopped during start-up")
            await asyncio.sleep(0.01)

    async def _serve(self) -> None:
        assert self._server is not None and self._sock is not None
        try:
            await self._server.serve(sockets=[self._sock])
        except SystemExit as exc:  # uvicorn exits when the app's start-up fails
            raise ApiServerError(f"the API server failed to start ({exc.code})") from exc

    async def wait(self) -> None:
        """Until the server stops (a signal, when not embedded)."""
        if self._task is not None:
            await self._task

    async def close(self) -> None:
        """Stop serving if it serves, and close the index it reads (opened on the first
        status read, served or not: a page asked in-process leaves it open)."""
        await self.stop()
        reader = getattr(self.app.state, "reader", None)
        if reader is not None:
            await reader.close()

    async def stop(self) -> None:
        if self._task is None or self._server is None:
            return
        self._server.should_exit = True
        try:
            await self._task
        finally:
            self._task = None
            if self._sock is not None:
                self._sock.close()
                self._sock = None

    async def __aenter__(self) -> ApiServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def serve_alone(sources: StatusSources) -> None:
    """``familiars api``: serve until Ctrl-C / SIGTERM, with the memory page (this process
    owns the workspace while it serves, unless another one does: then the page only reads)."""
    from familiars.bot._web.standalone import standalone_backend

    async with standalone_backend(sources.settings) as web:
        server = ApiServer.from_sources(sources, embedded=False, web=web)
        await server.start()
        try:
            await server.wait()
        finally:
            await server.stop()
