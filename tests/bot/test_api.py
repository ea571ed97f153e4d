"""The HTTP API: auth, status, listing with filters and cursors, release-memory, errors."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from familiars.bot._api import ApiToken, StatusSources, create_app, resolve_token
from familiars.bot._api.auth import TOKEN_FILE, token_matches
from familiars.bot._api.server import ApiServer, ApiServerError, bind_socket
from familiars.bot._api.status import default_agent_models
from familiars.cli import app as cli_app
from familiars.config import AgentSettings, Settings
from familiars.memory import WriterStats, save_writer_status
from familiars.scheduler import Priority, VRAMGate, save_snapshot, snapshot_path
from tests.bot.test_api_fixtures import AUTH, TOKEN, Built, build_workspace

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Built once; tests only read it (one that writes works on a copy)."""
    return asyncio.run(build_workspace(tmp_path_factory.mktemp("api") / "ws"))


def _settings(workspace: Path) -> Settings:
    return Settings(
        workspace=workspace, agents=[AgentSettings(id="agent_0"), AgentSettings(id="agent_1")]
    )


async def _client(sources: StatusSources) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(sources, token=ApiToken(TOKEN, "test"))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://api") as client,
    ):
        yield client


@pytest.fixture
async def client(built: Built) -> AsyncIterator[httpx.AsyncClient]:
    sources = StatusSources(_settings(built.workspace), clock=lambda: NOW)
    async for c in _client(sources):
        yield c


# ----------------------------------------------------------------------------------- auth


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
        {"Authorization": "Bearer "},
        {"Authorization": f"Bearer {TOKEN}x"},
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/memory_status"),
        ("GET", "/api/memory?limit=-5"),
        ("POST", "/api/agents/../release-memory"),
        ("GET", "/openapi.json"),
        ("GET", "/nope"),
    ],
)
async def test_without_the_right_token_everything_but_healthz_is_401_without_detail(
    client: httpx.AsyncClient, headers: dict[str, str], method: str, path: str
) -> None:
    response = await client.request(method, path, headers=headers)
    assert response.status_code == 401
    assert response.json() == {"detail": "unauthorized"}
    assert response.headers["www-authenticate"] == "Bearer"


async def test_healthz_needs_no_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_token_matching_is_exact() -> None:
    assert token_matches("Bearer abc", "abc")
    assert token_matches("bearer abc", "abc")
    assert not token_matches("Bearer abcd", "abc")
    assert not token_matches("Bearer", "abc")
    assert not token_matches(None, "abc")


def test_token_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_API_TOKEN", "from-env")
    settings = Settings(workspace=tmp_path, api={"token_env": "MY_API_TOKEN"})
    token = resolve_token(settings)
    assert token == ApiToken("from-env", "env:MY_API_TOKEN")
    assert not (tmp_path / TOKEN_FILE).exists()


def test_token_generated_to_a_private_file_when_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("FAMILIARS_API_TOKEN", raising=False)
    token = resolve_token(Settings(workspace=tmp_path))
    path = tmp_path / TOKEN_FILE
    assert token.path == path
    assert path.read_text().strip() == token.value
    assert len(token.value) >= 32
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert str(path) in caplog.text
    # Tester F20: each start wrote a new one, so a second server (or a restart) left the
    # first one's clients with a token no longer on disk. A valid private one is kept.
    again = resolve_token(Settings(workspace=tmp_path))
    assert again.value == token.value and again.path == path
    assert path.read_text().strip() == token.value


@pytest.mark.parametrize(
    ("content", "mode"),
    [("short\n", 0o600), ("", 0o600), ("x" * 43 + " y\n", 0o600), (None, 0o644)],
    ids=["short", "empty", "two-words", "readable-by-others"],
)
def test_a_token_file_that_is_not_a_valid_private_token_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, mode: int
) -> None:
    monkeypatch.delenv("FAMILIARS_API_TOKEN", raising=False)
    path = tmp_path / TOKEN_FILE
    resolve_token(Settings(workspace=tmp_path))
    if content is not None:
        path.write_text(content)
    os.chmod(path, mode)
    old = path.read_text().strip()
    again = resolve_token(Settings(workspace=tmp_path))
    assert again.value != old and len(again.value) >= 32
    assert path.read_text().strip() == again.value
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


# ----------------------------------------------------------------------------------- status


async def test_memory_status_counts_per_scope_and_category(
    client: httpx.AsyncClient, built: Built
) -> None:
    response = await client.get("/api/memory_status", headers=AUTH)
    assert response.status_code == 200
    data = response.json()
    cells = {(c["scope"], c["category"]): c for c in data["records"]["cells"]}
    # user0..2: 7 records each, i odd -> preference (3), even -> knowledge (4).
    assert cells[("user", "knowledge")] == {
        "scope": "user", "category": "knowledge",
        "live": 12, "deprecated": 0, "expired": 0, "pinned": 2,
    }  # fmt: skip
    assert cells[("user", "preference")]["deprecated"] == 1
    assert cells[("user", "preference")]["live"] == 8
    assert cells[("dialogue", "knowledge")]["expired"] == 1
    assert cells[("dialogue", "knowledge")]["live"] == 0
    assert data["records"]["totals"] == {
        "total": len(built.records), "live": len(built.records) - 2,
        "deprecated": 1, "expired": 1, "pinned": 2,
    }  # fmt: skip
    storage = data["storage"]
    assert storage["index_present"] and storage["index_bytes"] > 0
    assert storage["memory_files"] == 10  # 3 users x 2 + 2 identity + 2 dialogue files
    assert storage["history_files"] == storage["memory_files"]
    assert data["embedding"]["model"] == "test-hash"
    assert data["embedding"]["dim"] == 64
    assert data["embedding"]["spaces"][0]["vectors"] == len(built.records)
    assert data["recall"] == {
        "available": False, "source": "absent", "recalls": None, "items_per_recall": None,
        "hit_rate": None, "latency_p50_ms": None, "latency_p95_ms": None, "detail": {},
    }  # fmt: skip
    assert data["gate"]["available"] is False
    assert data["generated_at"] == "2026-06-01T00:00:00+00:00"


async def test_memory_status_with_live_sources(built: Built) -> None:
    gate = VRAMGate(4096)
    lease = await gate.acquire("decider:agent_0", 500, Priority.NICE)
    lease.release()
    sources = StatusSources(
        _settings(built.workspace),
        writer_stats=lambda: {"queued": 2, "applied": 10},
        recall_stats=_async_stats,
        gate=gate,
        providers=lambda: [
            {"name": "local", "model": "llama", "status": "cooling", "cooling_until": 2e9}
        ],
    )
    async for c in _client(sources):
        data = (await c.get("/api/memory_status", headers=AUTH)).json()
    assert data["writer"] == {
        "available": True,
        "source": "live",
        "data": {"queued": 2, "applied": 10},
    }
    recall = data["recall"]
    assert (recall["recalls"], recall["items_per_recall"], recall["hit_rate"]) == (12, 3.5, 0.25)
    assert (recall["latency_p50_ms"], recall["latency_p95_ms"]) == (8.0, 20.0)
    assert data["providers"]["providers"][0]["status"] == "cooling"
    assert data["providers"]["providers"][0]["cooldown_left_s"] > 0
    assert [r["model_id"] for r in data["gate"]["residents"]] == ["decider:agent_0"]
    assert data["gate"]["committed_mb"] == 500.0


async def _async_stats() -> dict[str, Any]:
    """The shape DialogueManager's TurnStats.as_dict() reports."""
    return {
        "recalls": 12,
        "items_per_recall": 3.5,
        "hit_rate": 0.25,
        "latency_ms": {"p50": 8.0, "p95": 20.0},
    }


async def test_status_reads_what_a_running_bot_persisted(built: Built, tmp_path: Path) -> None:
    workspace = tmp_path / "copy"
    shutil.copytree(built.workspace, workspace)
    save_snapshot(
        {"budget_mb": 100.0, "committed_mb": 40.0, "free_mb": 60.0,
         "residents": [{"model_id": "embedder", "estimated_mb": 40.0}]},
        snapshot_path(workspace),
    )  # fmt: skip
    async for c in _client(StatusSources(_settings(workspace))):
        gate = (await c.get("/api/memory_status", headers=AUTH)).json()["gate"]
    assert gate["source"] == "persisted"
    assert gate["residents"] == [{"model_id": "embedder", "estimated_mb": 40.0}]


async def test_status_reads_the_writers_saved_counters_and_provider_states(
    built: Built, tmp_path: Path
) -> None:
    workspace = tmp_path / "copy"
    shutil.copytree(built.workspace, workspace)
    provider = {"name": "local", "model": "m", "status": "cooling", "cooling_until": 1.0}
    save_writer_status(workspace, WriterStats(added=3, providers=[provider]))
    async for c in _client(StatusSources(_settings(workspace))):
        data = (await c.get("/api/memory_status", headers=AUTH)).json()
    assert data["writer"]["source"] == "persisted"
    assert data["writer"]["data"]["added"] == 3
    assert data["writer"]["data"]["queue_depth"] == 0
    assert data["providers"]["source"] == "persisted"
    assert data["providers"]["providers"][0]["name"] == "local"
    assert data["providers"]["providers"][0]["cooldown_left_s"] == 0.0


async def test_status_reads_recall_stats_the_runtime_saved(built: Built, tmp_path: Path) -> None:
    workspace = tmp_path / "copy"
    shutil.copytree(built.workspace, workspace)
    (workspace / "state").mkdir(exist_ok=True)
    (workspace / "state" / "recall_stats.json").write_text(json.dumps(await _async_stats()))
    async for c in _client(StatusSources(_settings(workspace))):
        recall = (await c.get("/api/memory_status", headers=AUTH)).json()["recall"]
    assert recall["source"] == "persisted"
    assert (recall["recalls"], recall["hit_rate"], recall["latency_p95_ms"]) == (12, 0.25, 20.0)
    (workspace / "state" / "recall_stats.json").write_text("{broken")
    async for c in _client(StatusSources(_settings(workspace))):
        recall = (await c.get("/api/memory_status", headers=AUTH)).json()["recall"]
    assert recall["source"] == "absent"


async def test_status_of_a_workspace_without_an_index(tmp_path: Path) -> None:
    async for c in _client(StatusSources(_settings(tmp_path / "empty"))):
        data = (await c.get("/api/memory_status", headers=AUTH)).json()
        page = (await c.get("/api/memory", headers=AUTH)).json()
    assert data["records"]["totals"]["total"] == 0
    assert data["storage"]["index_present"] is False
    assert page == {"items": [], "limit": 50, "next_cursor": None}
    assert not (tmp_path / "empty" / "familiars.db").exists()


# ----------------------------------------------------------------------------------- listing


async def _all_pages(
    client: httpx.AsyncClient, params: dict[str, Any]
) -> tuple[list[dict[str, Any]], int]:
    items: list[dict[str, Any]] = []
    cursor = None
    pages = 0
    while True:
        query = dict(params, **({"cursor": cursor} if cursor else {}))
        response = await client.get("/api/memory", params=query, headers=AUTH)
        assert response.status_code == 200, response.text
        body = response.json()
        items.extend(body["items"])
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            return items, pages


async def test_cursor_pagination_is_complete_stable_and_without_duplicates(
    client: httpx.AsyncClient, built: Built
) -> None:
    items, pages = await _all_pages(client, {"limit": 4, "include_deprecated": True})
    ids = [i["id"] for i in items]
    assert len(ids) == len(set(ids)) == len(built.records)
    assert ids == sorted(ids, reverse=True)
    assert pages == -(-len(built.records) // 4)
    again, _ = await _all_pages(client, {"limit": 4, "include_deprecated": True})
    assert [i["id"] for i in again] == ids


async def test_deprecated_records_are_hidden_unless_asked_for(
    client: httpx.AsyncClient, built: Built
) -> None:
    live, _ = await _all_pages(client, {"limit": 500})
    assert built.deprecated[0] not in {i["id"] for i in live}
    everything, _ = await _all_pages(client, {"limit": 500, "include_deprecated": "true"})
    assert built.deprecated[0] in {i["id"] for i in everything}
    expired = next(i for i in everything if i["id"] == built.expired[0])
    assert expired["expired"] is True and expired["deprecated"] is False


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"user_key": "user1"}, lambda r: r.user_key == "user1"),
        ({"agent_id": "agent_1"}, lambda r: r.scope != "user" and r.agent_id == "agent_1"),
        ({"dialogue_id": "dialogue_1"}, lambda r: r.dialogue_id == "dialogue_1"),
        ({"scope": "identity"}, lambda r: r.scope == "identity"),
        ({"category": "preference"}, lambda r: r.category == "preference"),
        (
            {"user_key": "user2", "category": "knowledge"},
            lambda r: r.user_key == "user2" and r.category == "knowledge",
        ),
        ({"q": "hike"}, lambda r: "hiking" in r.content),  # porter stemming
        ({"q": "trip channel"}, lambda r: "trip" in r.content),
        ({"q": "!!!"}, lambda r: False),
    ],
)
async def test_filters(
    client: httpx.AsyncClient, built: Built, params: dict[str, str], expected: Any
) -> None:
    items, _ = await _all_pages(client, dict(params, include_deprecated=True, limit=7))
    want = {r.id for r in built.records if expected(r)}
    assert {i["id"] for i in items} == want
    if params.get("q") != "!!!":
        assert want


async def test_record_fields(client: httpx.AsyncClient, built: Built) -> None:
    page = (await client.get("/api/memory", params={"scope": "user"}, headers=AUTH)).json()
    item = page["items"][0]
    assert item["user_key"].startswith("user") and item["agent_id"] is None
    assert item["path"].startswith("users/")
    pinned = (await client.get("/api/memory", params={"limit": 500}, headers=AUTH)).json()["items"]
    assert {i["id"] for i in pinned if i["pinned"]} == set(built.pinned)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"),
        ("limit=-1", "limit"),
        ("limit=1000000", "limit"),
        ("limit=abc", "limit"),
        ("cursor=bogus", "cursor"),
        ("cursor=c1.m_x%2F..", "cursor"),
        ("cursor=", "cursor"),
        ("user_key=..%2F..%2Fetc", "user_key"),
        ("user_key=a%2Fb", "user_key"),
        ("agent_id=..", "agent_id"),
        ("dialogue_id=dialogue_..%2Fx", "dialogue_id"),
        ("dialogue_id=notadialogue", "dialogue_id"),
        ("scope=galaxy", "scope"),
        ("category=secrets", "category"),
        ("include_deprecated=perhaps", "include_deprecated"),
        ("q=" + "x" * 501, "q"),
    ],
)
async def test_bad_listing_parameters_are_422_naming_the_field(
    client: httpx.AsyncClient, query: str, field: str
) -> None:
    response = await client.get(f"/api/memory?{query}", headers=AUTH)
    assert response.status_code == 422
    assert [e["loc"] for e in response.json()["detail"]] == [["query", field]]


# ----------------------------------------------------------------------------------- release


async def test_release_memory_evicts_the_agents_residents_through_the_gate(
    built: Built,
) -> None:
    gate = VRAMGate(4096)
    evicted: list[str] = []
    for model_id, mb, prio in [
        ("embedder", 700, Priority.CRITICAL),
        ("decider:agent_0", 500, Priority.NICE),
        ("writer:agent_0", 300, Priority.BACKGROUND),
        ("decider:agent_1", 200, Priority.NICE),
        ("consolidator", 50, Priority.BACKGROUND),
        ("agent_0/busy", 100, Priority.IMPORTANT),
    ]:
        lease = await gate.acquire(
            model_id, mb, prio, on_evict=lambda m=model_id: evicted.append(m)
        )
        if model_id != "agent_0/busy":
            lease.release()
    sources = StatusSources(_settings(built.workspace), gate=gate)
    async for c in _client(sources):
        response = await c.post("/api/agents/agent_0/release-memory", headers=AUTH)
    assert response.status_code == 200
    body = response.json()
    assert body["gate_available"] is True
    freed = {f["model_id"]: f for f in body["freed"]}
    assert set(freed) == {"decider:agent_0", "writer:agent_0", "consolidator"}
    assert freed["consolidator"]["shared"] is True
    assert freed["decider:agent_0"]["shared"] is False
    assert body["freed_mb"] == 850.0
    assert sorted(r["model_id"] for r in body["refused"]) == ["agent_0/busy", "embedder"]
    assert sorted(evicted) == ["consolidator", "decider:agent_0", "writer:agent_0"]
    assert set(gate.residents()) == {"embedder", "decider:agent_1", "agent_0/busy"}


async def test_release_memory_without_a_gate_frees_nothing(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/agents/agent_1/release-memory", headers=AUTH)
    assert response.status_code == 200
    assert response.json() == {
        "agent_id": "agent_1", "gate_available": False, "freed": [], "freed_mb": 0.0,
        "refused": [],
    }  # fmt: skip


async def test_unknown_agent_is_404(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/agents/agent_7/release-memory", headers=AUTH)
    assert response.status_code == 404
    assert response.json() == {"detail": "unknown agent"}


# (httpx resolves a literal "../" itself, so the escapes are percent-encoded here.)
@pytest.mark.parametrize(
    "agent", ["%2E%2E", "..%2F..%2Fetc", "a%2Fb", "%2Fetc%2Fpasswd", "-x", "x" * 65, "a%00b"]
)
async def test_agent_ids_escaping_the_workspace_are_422(
    client: httpx.AsyncClient, agent: str
) -> None:
    response = await client.post(f"/api/agents/{agent}/release-memory", headers=AUTH)
    assert response.status_code == 422, response.text
    assert [e["loc"] for e in response.json()["detail"]] == [["path", "agent_id"]]


def test_agent_model_ownership() -> None:
    ids = ["decider:agent_1", "agent_1/writer", "writer@agent_1", "agent_10:x", "embedder"]
    agents = ["agent_1", "agent_10"]
    assert default_agent_models("agent_1", ids, agents) == [*ids[:3], "embedder"]
    assert default_agent_models("agent_10", ids, agents) == ["agent_10:x", "embedder"]
    # An id naming an agent that is not configured counts as shared.
    assert default_agent_models("agent_1", ["x:agent_9"], agents) == ["x:agent_9"]


# ----------------------------------------------------------------------------------- serving


async def test_served_on_loopback_inside_the_running_loop(built: Built) -> None:
    sources = StatusSources(_settings(built.workspace))
    server = ApiServer(create_app(sources, token=ApiToken(TOKEN, "t")), port=0)
    async with server:
        url = server.url
        assert url.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient(base_url=url) as c:
            assert (await c.get("/healthz")).status_code == 200
            assert (await c.get("/api/memory_status", headers=AUTH)).status_code == 200
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient(base_url=url) as c:
            await c.get("/healthz")


async def test_a_busy_port_is_a_clear_error(built: Built) -> None:
    sources = StatusSources(_settings(built.workspace))
    first = ApiServer(create_app(sources, token=ApiToken(TOKEN, "t")), port=0)
    async with first:
        second = ApiServer(create_app(sources, token=ApiToken(TOKEN, "t")), port=first.bound_port)
        with pytest.raises(ApiServerError, match="cannot listen on 127.0.0.1"):
            await second.start()


def test_listening_socket_is_tcp_with_nodelay() -> None:
    sock = bind_socket("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP  # asyncio then sets TCP_NODELAY per connection
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        sock.close()


def test_default_bind_address_is_loopback() -> None:
    assert Settings().api.host == "127.0.0.1"


# ----------------------------------------------------------------------------------- CLI


def test_cli_status_json_matches_the_api(built: Built) -> None:
    result = CliRunner().invoke(cli_app, ["--workspace", str(built.workspace), "status", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["records"]["totals"]["total"] == len(built.records)
    assert data["embedding"]["model"] == "test-hash"


def test_cli_status_text(built: Built) -> None:
    result = CliRunner().invoke(cli_app, ["--workspace", str(built.workspace), "status"])
    assert result.exit_code == 0, result.output
    assert f"({len(built.records)} in all)" in result.stdout
    assert "embedding: configured BAAI/bge-m3, in use test-hash, dim 64" in result.stdout


@pytest.mark.slow
def test_familiars_api_serves_alone_and_stops_on_sigint(built: Built, tmp_path: Path) -> None:
    env = dict(os.environ, FAMILIARS_API_TOKEN=TOKEN, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "familiars", "--workspace", str(built.workspace), "api",
         "--port", "0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:
            found = re.search(r"API listening on (http://127\.0\.0\.1:\d+)", line)
            if found:
                url = found.group(1)
                break
        assert url is not None
        assert "token: env:FAMILIARS_API_TOKEN" in line
        assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
        data = httpx.get(f"{url}/api/memory_status", headers=AUTH).json()
        assert data["records"]["totals"]["total"] == len(built.records)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_status_beside_a_running_bot_says_its_embedder_and_backend(tmp_path: Path) -> None:
    """``familiars status`` beside a running bot showed no embedding backend (null in
    --json): the bot says which embedder it uses in the workspace, read while it owns it."""
    from familiars.memory import WorkspaceLock
    from tests.harness import running_app

    workspace = tmp_path / "ws"
    async with running_app(workspace) as bot:
        await bot._write_embedder_in_use()
        said = json.loads((workspace / "state" / "embedder.json").read_text())
        assert said["model"] == bot.embedder.model_name and said["dim"] == bot.embedder.dim
    (workspace / "state" / "embedder.json").write_text(
        json.dumps({"model": "all-MiniLM-L6-v2", "dim": 384, "backend": "onnx"})
    )
    with WorkspaceLock(workspace, "familiars run"):
        async for c in _client(StatusSources(_settings(workspace))):
            emb = (await c.get("/api/memory_status", headers=AUTH)).json()["embedding"]
    assert (emb["model"], emb["dim"], emb["backend"]) == ("all-MiniLM-L6-v2", 384, "onnx")
    async for c in _client(StatusSources(_settings(workspace))):  # the bot stopped: not read
        emb = (await c.get("/api/memory_status", headers=AUTH)).json()["embedding"]
    assert emb["backend"] is None
