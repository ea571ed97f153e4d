"""The running bot's hold on its workspace, and the control socket other processes write by.

Map:

- :func:`own_workspace` - take the workspace lock for the whole life of the application; a
  second ``run`` or ``chat`` on the same workspace is refused (WorkspaceBusyError naming the
  running one: pid, command, start time).
- :class:`ControlServer` - a Unix socket (``<workspace>/state/control.sock``, 0600, JSON
  lines) through which ``familiars memory add|pin|unpin|forget|reindex|consolidate`` reach the
  running process, so that a CLI write never races the bot: the bot's own store writes it.
- :func:`serve_control` - start the server for an application and announce its socket in the
  lock file (removed again on exit).

``Application.initialize`` takes the lock before it opens storage (migrations and start-up
clean-up run only under it) and serves the socket once the memory is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import shlex
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from familiars.llm import ChatModel
from familiars.memory import (
    Forgetter,
    MemoryError_,
    MemoryWorkspace,
    WorkspaceLock,
    apply_write,
)

logger = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
#: AF_UNIX paths longer than this do not fit ``sockaddr_un`` on Linux.
_MAX_SOCKET_PATH = 100
#: How long start-up waits for a short-lived holder (a CLI command) to let go.
OWNER_WAIT_S = 15.0

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


def command_line() -> str:
    """How this process was started, as the lock file names it (``familiars chat --user a``)."""
    return shlex.join(["familiars", *sys.argv[1:]])


@contextlib.contextmanager
def own_workspace(workspace: Path, command: str | None = None) -> Iterator[WorkspaceLock]:
    lock = WorkspaceLock(Path(workspace), command or command_line())
    lock.acquire(wait_s=OWNER_WAIT_S)
    logger.debug("holding %s as pid %d", workspace, os.getpid())
    try:
        yield lock
    finally:
        lock.release()


def socket_path(workspace: Path) -> Path:
    """``state/control.sock``, or (when that path is too long for a Unix socket) one in a
    private temp folder named after the workspace; the lock file says which."""
    path = Path(workspace).resolve() / "state" / SOCKET_NAME
    if len(str(path)) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    folder = Path(tempfile.mkdtemp(prefix=f"familiars-{digest}-"))
    return folder / SOCKET_NAME


class ControlServer:
    """JSON lines over a Unix socket: one request line in, one answer line out."""

    def __init__(self, path: Path, handler: Handler) -> None:
        self.path = path
        self.handler = handler
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a killed owner's socket; we hold the lock, so it is ours
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=64 * 1024 * 1024
        )
        os.chmod(self.path, 0o600)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            answer = await self._answer(line)
            writer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            logger.debug("control client went away")
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            return {"ok": True, "result": await self.handler(request)}
        except (MemoryError_, ValueError, KeyError, TypeError) as exc:
            return {"ok": False, "error": str(exc) or type(exc).__name__}
        except Exception as exc:  # noqa: BLE001 - the client gets one line, the log the rest
            logger.exception("control request failed")
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


@contextlib.asynccontextmanager
async def serve_control(
    memory: MemoryWorkspace,
    model: ChatModel | None,
    lock: WorkspaceLock,
    *,
    forgetter: Forgetter,
) -> AsyncIterator[ControlServer]:
    """Serve ``memory`` on the workspace's control socket and announce it in ``lock``'s file
    (``model`` answers the writes that need one: consolidation; ``forgetter``, the bot's,
    forgets in its open trees and recall caches too)."""

    async def handle(request: dict[str, Any]) -> Any:
        return await apply_write(memory, request, model=model, forgetter=forgetter)

    server = ControlServer(socket_path(lock.workspace), handle)
    await server.start()
    lock.set_control(str(server.path))
    try:
        yield server
    finally:
        lock.set_control(None)
        await server.stop()
