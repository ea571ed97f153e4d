"""The control socket's limits (issue 19: 1,500 idle connections were held, any size read).

An idle connection is answered and dropped after ``control.read_timeout_s``; beyond
``control.max_connections`` a new one is answered "busy" and closed at once, and served
again once one ends; a request over ``control.max_message_bytes`` is refused without being
read to its end (the sender finds the socket closed part way) and never reaches the handler.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from familiars.bot._control import ControlLimits, ControlServer
from familiars.config import load_settings

pytestmark = pytest.mark.timeout(60)


class Handler:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        return {"echo": request.get("op")}


async def _server(tmp_path: Path, **limits: Any) -> tuple[ControlServer, Handler]:
    handler = Handler()
    server = ControlServer(tmp_path / "c.sock", handler, ControlLimits(**limits))
    await server.start()
    return server, handler


async def _answer(reader: asyncio.StreamReader) -> dict[str, Any]:
    """The one answer line, then the end of the stream (the server closed)."""
    line = await reader.readline()
    assert await reader.read() == b""
    answer: dict[str, Any] = json.loads(line)
    return answer


async def _ask(server: ControlServer, request: dict[str, Any]) -> dict[str, Any]:
    reader, writer = await asyncio.open_unix_connection(str(server.path))
    writer.write(json.dumps(request).encode() + b"\n")
    await writer.drain()
    try:
        return await _answer(reader)
    finally:
        writer.close()


async def _until(predicate: Any) -> None:
    for _ in range(10_000):
        if predicate():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the server never got there")


async def test_an_idle_connection_is_answered_and_dropped(tmp_path: Path) -> None:
    server, handler = await _server(tmp_path, read_timeout_s=0.2)
    try:
        reader, writer = await asyncio.open_unix_connection(str(server.path))
        answer = await _answer(reader)  # sent nothing: the server gives up on it
        writer.close()
        assert answer == {
            "ok": False,
            "error": "no request within 0.2 s (control.read_timeout_s); closing",
        }
        await _until(lambda: server.connections == 0)
        assert handler.requests == []
        assert await _ask(server, {"op": "add"}) == {"ok": True, "result": {"echo": "add"}}
    finally:
        await server.stop()


async def test_connections_over_the_cap_are_told_busy_and_closed(tmp_path: Path) -> None:
    server, _ = await _server(tmp_path, read_timeout_s=30.0, max_connections=16)
    idle = []
    try:
        busy = 0
        for _ in range(200):  # the attack held 1,500; the first 16 are held, the rest told
            reader, writer = await asyncio.open_unix_connection(str(server.path))
            idle.append(writer)
            if len(idle) > 16:
                answer = await _answer(reader)
                assert answer["error"] == (
                    "busy: 16 connections already open (control.max_connections); "
                    "try again in a moment"
                )
                busy += 1
            else:
                held = len(idle)
                await _until(lambda: server.connections == held)  # noqa: B023
        assert busy == 184
        assert server.connections == 16
        idle[0].close()  # one held connection ends: the next request is served
        await _until(lambda: server.connections == 15)
        assert (await _ask(server, {"op": "pin"}))["ok"] is True
    finally:
        for writer in idle:
            writer.close()
        await server.stop()


def _blast(path: Path, total: int) -> tuple[int, bytes]:
    """Send ``total`` bytes of one unfinished line; how many got out, and the answer."""
    sent = 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(path))
        chunk = b'{"op": "add", "content": "' + b"x" * 65_536
        try:
            while sent < total:
                sent += sock.send(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        while not answer.endswith(b"\n"):
            part = sock.recv(65_536)
            if not part:
                break
            answer += part
    return sent, answer


async def test_an_oversized_request_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    limit = 64 * 1024
    server, handler = await _server(tmp_path, max_message_bytes=limit)
    try:
        total = 3_000_000
        sent, answer = await asyncio.to_thread(_blast, server.path, total)
        assert json.loads(answer) == {
            "ok": False,
            "error": "request too large: over 65,536 bytes (control.max_message_bytes)",
        }
        assert sent < total  # the socket was closed on the sender part way
        assert handler.requests == []
        assert (await _ask(server, {"op": "add", "content": "x" * 1000}))["ok"] is True
    finally:
        await server.stop()


def test_the_limits_come_from_the_settings() -> None:
    settings = load_settings(
        control={"read_timeout_s": 3, "max_connections": 2, "max_message_bytes": 4096}
    )
    assert ControlLimits.from_settings(settings) == ControlLimits(3.0, 2, 4096)
    assert ControlLimits.from_settings(load_settings()) == ControlLimits()
