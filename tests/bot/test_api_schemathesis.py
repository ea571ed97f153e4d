"""Fuzz the served API against its own OpenAPI document with schemathesis' engine (what
``st run`` does: examples, coverage and fuzzing phases, every built-in check): no request may
get a server error, and every response must conform to the schema (status code, content
type, headers, body), with a token and without one."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema

from familiars.bot import StatusSources
from familiars.config import AgentSettings, Settings
from tests.bot.test_api_fixtures import AUTH, ServedApi, build_workspace


class FakeGate:
    """Residents that come back after each release, so every call has work to do."""

    def snapshot(self) -> dict[str, Any]:
        return {
            "budget_mb": 8192.0,
            "committed_mb": 1300.0,
            "free_mb": 6892.0,
            "residents": [
                {"model_id": "embedder", "estimated_mb": 700.0, "priority": 1},
                {"model_id": "decider:agent_0", "estimated_mb": 500.0, "priority": 3},
                {"model_id": "writer:agent_1", "estimated_mb": 100.0, "priority": 3},
            ],
        }

    async def evict(self, model_id: str, *, reason: str = "manual") -> bool:
        if model_id == "embedder":
            raise ValueError("'embedder' is CRITICAL and is never evicted")
        return True


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedApi]:
    workspace: Path = tmp_path_factory.mktemp("api-ws")
    asyncio.run(build_workspace(workspace))
    cfg = Settings(
        workspace=workspace, agents=[AgentSettings(id="agent_0"), AgentSettings(id="agent_1")]
    )
    sources = StatusSources(
        cfg,
        writer_stats=lambda: {"queued": 0, "applied": 3},
        recall_stats=lambda: {"recalls": 4, "items_per_recall": 2.5, "hit_rate": 0.5},
        gate=FakeGate(),
        providers=lambda: [{"name": "local", "model": "m", "status": "ok"}],
    )
    api = ServedApi(sources).start()
    yield api
    api.stop()


@dataclass
class RunResult:
    scenarios: int = 0
    failures: list[str] = field(default_factory=list)
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    checks_run: int = 0
    check_names: set[str] = field(default_factory=set)

    @property
    def server_errors(self) -> int:
        return sum(n for (_, code), n in self.statuses.items() if code >= 500)


def _record(result: RunResult, ev: events.ScenarioFinished) -> None:
    result.scenarios += 1
    for interaction in ev.recorder.interactions.values():
        if interaction.response is not None:
            key = (str(ev.label), interaction.response.status_code)
            result.statuses[key] += 1
    for checks in ev.recorder.checks.values():
        for check in checks:
            result.checks_run += 1
            result.check_names.add(check.name)
            if check.status == Status.FAILURE:
                info = check.failure_info
                detail = f"{info.failure.title}: {info.failure.message}" if info else ""
                result.failures.append(f"{ev.phase} {ev.label} {check.name} {detail}")


def run_schemathesis(url: str, headers: dict[str, str], max_examples: int) -> RunResult:
    config = SchemathesisConfig.from_dict(
        {"headers": headers, "generation": {"max-examples": max_examples}, "seed": 20261130}
    )
    schema = schemathesis.openapi.from_url(f"{url}/openapi.json", config=config, headers=AUTH)
    result = RunResult()
    for ev in from_schema(schema).execute():
        if isinstance(ev, events.ScenarioFinished):
            _record(result, ev)
        elif isinstance(ev, events.NonFatalError | events.FatalError):
            result.failures.append(f"engine error: {ev!r}")
    return result


@pytest.mark.slow
def test_schemathesis_with_a_token_finds_no_server_error_and_no_nonconformance(
    served: ServedApi,
) -> None:
    result = run_schemathesis(served.url, AUTH, max_examples=30)
    print(f"\nschemathesis (token): {result.scenarios} scenarios, {result.checks_run} checks")
    print(f"  checks: {', '.join(sorted(result.check_names))}")
    for (label, code), n in sorted(result.statuses.items()):
        print(f"  {label:45} {code}: {n}")
    assert result.failures == []
    assert {"not_a_server_error", "response_schema_conformance", "status_code_conformance",
            "content_type_conformance"} <= result.check_names  # fmt: skip
    assert result.server_errors == 0
    # It reached the app: accepted and refused requests on every data route.
    for label in ("GET /api/memory", "POST /api/agents/{agent_id}/release-memory"):
        assert result.statuses[(label, 200)] > 0, label
        assert result.statuses[(label, 422)] > 0, label
    assert result.statuses[("POST /api/agents/{agent_id}/release-memory", 404)] > 0
    assert result.statuses[("GET /api/memory_status", 200)] > 0


@pytest.mark.slow
def test_schemathesis_without_a_token_gets_401_everywhere_but_healthz(
    served: ServedApi,
) -> None:
    result = run_schemathesis(served.url, {}, max_examples=10)
    assert result.failures == []
    assert result.server_errors == 0
    codes = {code for (label, code) in result.statuses if label != "GET /healthz"}
    assert 401 in codes
    assert codes == {401}, codes
