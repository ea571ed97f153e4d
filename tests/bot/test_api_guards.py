"""The API bounds what it reads and hides where the workspace lies (issue 19: a 50 MB body
was read on a route that takes none; status showed the absolute workspace path).

A body over ``api.max_body_bytes`` is answered 413 before it is read: at once when its
``Content-Length`` says so (not one chunk pulled), after the limit when streamed, and over a
real socket the sender finds the connection closed long before its 50 MB are out. No answer
of any route holds the workspace's absolute path, a persisted error message that named a
file in it included.
"""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from familiars.bot._api import ApiToken, StatusSources, create_app
from familiars.bot._api.guards import without_workspace
from familiars.config import AgentSettings, Settings
from familiars.memory import WriterStats, save_writer_status
from tests.bot.test_api_fixtures import AUTH, TOKEN, ServedApi, build_workspace

pytestmark = pytest.mark.timeout(60)

LIMIT = 65_536
TOO_LARGE = {"detail": "request body too large: over 65,536 bytes (api.max_body_bytes)"}
FIFTY_MB = 50 * 1024 * 1024


def _settings(workspace: Path) -> Settings:
    return Settings(workspace=workspace, agents=[AgentSettings(id="agent_0")])


class Body:
    """A streamed request body that counts the chunks the server pulled."""

    def __init__(self, total: int, chunk: int = 65_536) -> None:
        self.total, self.chunk, self.pulled = total, chunk, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.total // self.chunk):
            self.pulled += 1
            yield b"x" * self.chunk


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(StatusSources(_settings(tmp_path / "ws")), token=ApiToken(TOKEN, "test"))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://api") as c,
    ):
        yield c


@pytest.mark.parametrize("path", ["/healthz", "/api/memory_status", "/api/memory"])
async def test_a_declared_50_mb_body_is_refused_before_one_byte_is_read(
    client: httpx.AsyncClient, path: str
) -> None:
    body = Body(FIFTY_MB)
    headers = {**AUTH, "Content-Length": str(FIFTY_MB)}
    response = await client.request("GET", path, headers=headers, content=body)
    assert response.status_code == 413 and response.json() == TOO_LARGE
    assert response.headers["connection"] == "close"
    assert body.pulled == 0


async def test_a_streamed_body_is_cut_off_at_the_limit(client: httpx.AsyncClient) -> None:
    body = Body(FIFTY_MB, chunk=4096)
    url = "/api/agents/agent_0/release-memory"
    response = await client.post(url, headers=AUTH, content=body)  # chunked: no length
    assert response.status_code == 413 and response.json() == TOO_LARGE
    assert body.pulled == LIMIT // 4096 + 1  # the chunk that went over, and no more
    # Without the token too: the size is refused before anything else is looked at.
    body = Body(FIFTY_MB, chunk=4096)
    assert (await client.post(url, content=body)).status_code == 413


async def test_a_body_within_the_limit_still_reaches_the_route(client: httpx.AsyncClient) -> None:
    url = "/api/agents/agent_0/release-memory"
    response = await client.post(url, headers=AUTH, content=b"{}" * 100)
    assert response.status_code == 200
    assert (await client.get("/healthz", headers={"Content-Length": "12abc"})).status_code == 400


def _send_all(url: str, total: int) -> tuple[int, bytes]:
    host, port = url.removeprefix("http://").split(":")
    sent = 0
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        head = f"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: {total}\r\n\r\n"
        sock.sendall(head.encode())
        chunk = b"x" * 65_536
        try:
            while sent < total:
                sent += sock.send(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while part := sock.recv(65_536):
                answer += part
        except ConnectionResetError:
            pass
    return sent, answer


def test_over_a_real_socket_the_50_mb_are_not_read(tmp_path: Path) -> None:
    served = ServedApi(StatusSources(_settings(tmp_path / "ws"))).start()
    try:
        sent, answer = _send_all(served.url, FIFTY_MB)
    finally:
        served.stop()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == TOO_LARGE
    assert sent < FIFTY_MB // 4  # the server closed the connection long before the end


async def test_no_answer_holds_the_workspace_path(tmp_path: Path) -> None:
    built = await build_workspace(tmp_path / "src")
    workspace = tmp_path / "deep" / "private" / "familiar-home"
    shutil.copytree(built.workspace, workspace)
    error = f"OSError: [Errno 28] No space left on device: '{workspace}/state/writer_queue/t.json'"
    save_writer_status(workspace, WriterStats(failures=1, last_error=error))
    app = create_app(StatusSources(_settings(workspace)), token=ApiToken(TOKEN, "test"))
    transport = httpx.ASGITransport(app=app)
    answers = []
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://api") as c,
    ):
        for method, path in [
            ("GET", "/healthz"),
            ("GET", "/api/memory_status"),
            ("GET", "/api/memory?limit=200"),
            ("GET", "/api/memory?limit=200&include_deprecated=true&q=hiking"),
            ("GET", "/api/memory?cursor=bad"),
            ("POST", "/api/agents/agent_0/release-memory"),
            ("POST", "/api/agents/agent_9/release-memory"),
            ("GET", "/openapi.json"),
            ("GET", "/nope"),
        ]:
            response = await c.request(method, path, headers=AUTH)
            answers.append(response.text)
        status = (await c.get("/api/memory_status", headers=AUTH)).json()
    for text in answers:
        assert str(tmp_path) not in text and str(tmp_path.resolve()) not in text
    assert status["workspace"] == "familiar-home"
    assert status["storage"]["index_path"] == "familiars.db"
    assert status["writer"]["data"]["last_error"].endswith("'state/writer_queue/t.json'")
    assert any('"path":"users/' in text for text in answers)  # records say where, relatively


def test_without_workspace_keeps_other_text() -> None:
    ws = Path("/srv/fam/ws")
    data = {"a": ["/srv/fam/ws/users/x.md", "/srv/fam/wsx", "/srv/fam/ws"], "n": 3, "b": "hi"}
    assert without_workspace(data, ws) == {
        "a": ["users/x.md", "wsx", "ws"],
        "n": 3,
        "b": "hi",
    }
