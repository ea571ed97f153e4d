"""The running bot's hold on its workspace, and the control socket other processes write by.

Map:

- :func:`own_workspace` - take the workspace lock for the whole life of the application; a
  second ``run`` or ``chat`` on the same workspace is refused (WorkspaceBusyError naming the
  running one: pid, command, start time).
- :class:`ControlServer` - a Unix socket (``<workspace>/state/control.sock``, 0600, JSON
  lines) through which ``familiars memory add|pin|unpin|forget|reindex|consolidate`` reach the
  running process, so that a CLI write never races the bot: the bot's own store writes it.
  Bounded by :class:`ControlLimits` (``control.*``): a read timeout, a connection cap, a
  request size; each refusal is one answer line that names its setting.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from familiars.llm import ChatModel
from familiars.memory import (
    Forgetter,
    MemoryError_,
    MemoryWorkspace,
    WorkspaceLock,
    apply_write,
    held_lock,
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
    """The workspace's lock for as long as the block runs: the one this process already
    holds (``run`` and ``chat`` take it first, before their slow start),
    left held after the block; else taken here and let go after it."""
    if (held := held_lock(Path(workspace))) is not None:
        yield held
        return
    lock = WorkspaceLock(Path(workspace), command or command_line(), serving=True)
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


@dataclass(frozen=True)
class ControlLimits:
    """``control.*`` in the settings: a connection that sends no request line within
    ``read_timeout_s`` is answered and closed; beyond ``max_connections`` open at once a new
    one is answered "busy" and closed; a request line over ``max_message_bytes`` is refused
    without reading the rest of it."""

    read_timeout_s: float = 10.0
    max_connections: int = 16
    max_message_bytes: int = 1_048_576

    @classmethod
    def from_settings(cls, settings: Any) -> ControlLimits:
        c = settings.control
        return cls(c.read_timeout_s, c.max_connections, c.max_message_bytes)


class ControlServer:
    """JSON lines over a Unix socket: one request line in, one answer line out."""

    def __init__(self, path: Path, handler: Handler, limits: ControlLimits | None = None):
        self.path = path
        self.handler = handler
        self.limits = limits or ControlLimits()
        self._server: asyncio.AbstractServer | None = None
        self._open = 0  # connections being served now

    async def start(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a killed owner's socket; we hold the lock, so it is ours
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=self.limits.max_message_bytes + 1
        )
        os.chmod(self.path, 0o600)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    @property
    def connections(self) -> int:
        return self._open

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        busy = self._open >= self.limits.max_connections
        self._open += 1
        try:
            if busy:
                answer = _refusal(
                    f"busy: {self.limits.max_connections} connections already open "
                    "(control.max_connections); try again in a moment"
                )
            else:
                answer = await self._read_and_answer(reader)
            writer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            logger.debug("control client went away")
        finally:
            self._open -= 1
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _read_and_answer(self, reader: asyncio.StreamReader) -> dict[str, Any]:
        limits = self.limits
        try:
            line = await asyncio.wait_for(reader.readline(), limits.read_timeout_s)
        except TimeoutError:
            return _refusal(
                f"no request within {limits.read_timeout_s:g} s (control.read_timeout_s); closing"
            )
        except ValueError:  # the line is longer than the reader's limit: not read further
            return _refusal(
                f"request too large: over {limits.max_message_bytes:,} bytes "
                "(control.max_message_bytes)"
            )
        return await self._answer(line)

    async def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            return {"ok": True, "result": await self.handler(request)}
        except (MemoryError_, ValueError, KeyError, TypeError) as exc:
            return _refusal(str(exc) or type(exc).__name__)
        except Exception as exc:  # noqa: BLE001 - the client gets one line, the log the rest
            logger.exception("control request failed")
            return _refusal(f"{type(exc).__name__}: {exc}")


def _refusal(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


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

    limits = ControlLimits.from_settings(memory.settings)
    server = ControlServer(socket_path(lock.workspace), handle, limits)
    await server.start()
    lock.set_control(str(server.path))
    try:
        yield server
    finally:
        lock.set_control(None)
        await server.stop()
