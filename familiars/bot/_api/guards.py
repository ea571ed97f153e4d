"""What the API refuses before reading, and what it never shows.

- :class:`BodyLimitMiddleware` - a request body over ``api.max_body_bytes`` is answered 413
  and the connection closed: at once when ``Content-Length`` says so, else as soon as the
  streamed bytes pass the limit. A body within it is read here (bounded) and handed on, so
  a route that takes none never leaves uvicorn draining megabytes after its answer.
- :func:`without_workspace` - an answer's strings with the workspace's absolute path made
  relative to it (the folder itself shows as its name): the API says where things are in
  the workspace, never where the workspace is on the machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SETTING = "api.max_body_bytes"


class BodyLimitMiddleware:
    """Pure ASGI, outermost: nothing behind it sees a body over ``max_bytes``."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send, 400 if not declared.isdigit() else 413)
            return
        messages: list[Message] = []
        total = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client went away: the app learns it as it would have
            total += len(message.get("body", b""))
            if total > self.max_bytes:
                await self._refuse(send, 413)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send, status: int) -> None:
        detail = (
            f"request body too large: over {self.max_bytes:,} bytes ({SETTING})"
            if status == 413
            else "malformed Content-Length"
        )
        body = json.dumps({"detail": detail}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),  # the rest of the body is never read
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def without_workspace(data: Any, workspace: Path) -> Any:
    """``data`` (JSON-able) with every absolute path inside ``workspace`` made relative to it,
    and the workspace's own path shown as its folder name."""
    roots = sorted({str(Path(workspace)), str(Path(workspace).resolve())}, key=len, reverse=True)
    name = Path(workspace).resolve().name

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            for root in roots:
                if root in value:
                    value = value.replace(root + "/", "").replace(root, name)
            return value
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    return clean(data)
