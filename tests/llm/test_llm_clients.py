"""The OpenAI-compatible client, the router's cooldowns and the offline responder, against a
local fake server on 127.0.0.1."""

from __future__ import annotations

import pytest

from familiars.config import LLMSettings, ProviderSettings
from familiars.llm import (
    BadRequestError,
    ChatMessage,
    NoProviderAvailableError,
    OfflineResponder,
    OpenAIChatModel,
    ProviderRouter,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitedError,
    StreamCutError,
    build_chat_model,
    extract_json,
    parse_retry_after,
)
from tests.fake_openai import FakeOpenAI, Reply

MSGS = [ChatMessage("system", "be brief"), ChatMessage("user", "hello")]


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
async def server():
    async with FakeOpenAI() as srv:
        yield srv


def client(server: FakeOpenAI, name: str = "a", **kw) -> OpenAIChatModel:
    kw.setdefault("timeout_s", 5.0)
    return OpenAIChatModel(name=name, base_url=server.base_url, model="m", **kw)


async def test_chat_returns_text_and_sends_model_and_key(server):
    server.script(Reply.text("hi there"))
    model = client(server, api_keys=["k1"])
    result = await model.chat(MSGS, max_tokens=10)
    await model.aclose()
    assert result.text == "hi there"
    seen = server.requests[0]
    assert seen.body["model"] == "m" and seen.body["max_tokens"] == 10
    assert seen.body["messages"][1] == {"role": "user", "content": "hello"}
    assert seen.headers["Authorization"] == "Bearer k1"


async def test_keys_rotate_round_robin(server):
    model = client(server, api_keys=["k1", "k2", "k3"])
    for _ in range(4):
        await model.chat(MSGS)
    await model.aclose()
    auth = [r.headers["Authorization"] for r in server.requests]
    assert auth == ["Bearer k1", "Bearer k2", "Bearer k3", "Bearer k1"]


async def test_rate_limited_key_rests_and_next_key_answers(server):
    clock = Clock()
    server.script(Reply.status(429, retry_after=30), Reply.text("from k2"))
    model = client(server, api_keys=["k1", "k2"], clock=clock)
    assert (await model.chat(MSGS)).text == "from k2"
    # k1 rests for 30 s: the next two calls both use k2.
    await model.chat(MSGS)
    await model.chat(MSGS)
    auth = [r.headers["Authorization"] for r in server.requests]
    assert auth == ["Bearer k1", "Bearer k2", "Bearer k2", "Bearer k2"]
    clock.t += 31
    await model.chat(MSGS)
    assert server.requests[-1].headers["Authorization"] == "Bearer k1"
    await model.aclose()


async def test_http_errors_map_to_typed_errors(server):
    model = client(server)
    server.script(Reply.status(500))
    with pytest.raises(ProviderServerError):
        await model.chat(MSGS)
    server.script(Reply.status(429, retry_after=12))
    with pytest.raises(RateLimitedError) as info:
        await model.chat(MSGS)
    assert info.value.retry_after == 12
    server.script(Reply.status(404, message="no such model"))
    with pytest.raises(BadRequestError):
        await model.chat(MSGS)
    await model.aclose()


async def test_timeout_maps_to_timeout_error(server):
    server.script(Reply.hang())
    model = client(server, timeout_s=0.3)
    with pytest.raises(ProviderTimeoutError):
        await model.chat(MSGS)
    await model.aclose()


async def test_streaming_yields_chunks(server):
    server.script(Reply.text("one two three"))
    model = client(server)
    chunks = [c async for c in model.stream(MSGS)]
    await model.aclose()
    assert len(chunks) == 3
    assert "".join(chunks).split() == ["one", "two", "three"]
    assert server.requests[0].body["stream"] is True


async def test_structured_output_falls_back_schema_then_json_mode_then_prompt(server):
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    server.script(Reply.refuse_format(), Reply.refuse_format(), Reply.json({"a": 1}))
    model = client(server)
    result = await model.chat_json(MSGS, schema=schema, name="thing")
    assert extract_json(result.text) == {"a": 1}
    assert result.structured_mode == "prompt"
    formats = [r.body.get("response_format", {}).get("type") for r in server.requests]
    assert formats == ["json_schema", "json_object", None]
    # The prompt carries the schema in every mode; refused modes are not asked for again.
    assert '"a"' in server.requests[-1].body["messages"][0]["content"]
    await model.chat_json(MSGS, schema=schema)
    assert "response_format" not in server.requests[-1].body
    await model.aclose()


async def test_structured_output_uses_json_schema_when_supported(server):
    server.script(Reply.json({"a": 2}))
    model = client(server)
    result = await model.chat_json(MSGS, schema={"type": "object"}, name="thing")
    await model.aclose()
    assert result.structured_mode == "json_schema"
    fmt = server.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "thing"


def test_extract_json_tolerates_fences_and_prose():
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! Here it is: {"a": [1, 2]} hope that helps') == {"a": [1, 2]}
    with pytest.raises(ValueError, match="not JSON"):
        extract_json('{"a": 1,,}')


def test_parse_retry_after_seconds_and_date():
    assert parse_retry_after("7", now=0) == 7
    assert parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", now=40) == 60
    assert parse_retry_after("soon", now=0) is None
    assert parse_retry_after(None, now=0) is None


async def test_router_cools_failed_provider_and_uses_next():
    clock = Clock()
    async with FakeOpenAI() as first, FakeOpenAI() as second:
        first.script(Reply.status(500))
        second.default = Reply.text("second")
        router = ProviderRouter(
            [client(first, "first", clock=clock), client(second, "second", clock=clock)],
            cooldown_quota_s=3600,
            cooldown_error_s=60,
            clock=clock,
        )
        assert (await router.chat(MSGS)).text == "second"
        states = {s.name: s for s in router.states()}
        assert states["first"].status == "cooling"
        assert states["first"].cooling_until == clock.t + 60
        assert "ProviderServerError" in (states["first"].last_error or "")
        # While cooling, the first provider gets no requests at all.
        await router.chat(MSGS)
        assert len(first.requests) == 1
        clock.t += 61
        first.default = Reply.text("first again")
        assert (await router.chat(MSGS)).text == "first again"
        assert router.states()[0].status == "ok"
        await router.aclose()


async def test_router_429_honours_retry_after_and_quota_is_long():
    clock = Clock()
    async with FakeOpenAI() as first, FakeOpenAI() as second:
        first.script(Reply.status(429, retry_after=120))
        router = ProviderRouter(
            [client(first, "first", clock=clock), client(second, "second", clock=clock)],
            cooldown_quota_s=3600,
            cooldown_error_s=60,
            clock=clock,
        )
        await router.chat(MSGS)
        assert router.states()[0].cooling_until == clock.t + 120
        clock.t += 121
        first.script(Reply.status(429, message="insufficient_quota"))
        await router.chat(MSGS)
        assert router.states()[0].cooling_until == clock.t + 3600
        await router.aclose()


async def test_router_timeout_is_short_cooldown_and_all_cooling_raises():
    clock = Clock()
    seen: list[list] = []
    async with FakeOpenAI() as only:
        only.script(Reply.hang())
        router = ProviderRouter(
            [client(only, "only", clock=clock, timeout_s=0.3)],
            cooldown_error_s=45,
            clock=clock,
            on_change=seen.append,
        )
        with pytest.raises(NoProviderAvailableError) as info:
            await router.chat(MSGS)
        assert info.value.retry_at == clock.t + 45
        with pytest.raises(NoProviderAvailableError, match="cooling down"):
            await router.chat(MSGS)
        assert len(only.requests) == 1
        assert seen and seen[-1][0].status == "cooling"
        await router.aclose()


async def test_router_restore_rechecks_a_saved_cooldown_once():
    clock = Clock()
    async with FakeOpenAI() as srv:
        srv.script(Reply.status(429))
        router = ProviderRouter([client(srv, "a", clock=clock)], clock=clock)
        router.restore([{"name": "a", "cooling_until": clock.t + 10, "last_error": "x"}])
        assert router.states()[0].status == "cooling"
        with pytest.raises(NoProviderAvailableError):
            await router.chat(MSGS)  # the restart's one re-check, which fails again
        with pytest.raises(NoProviderAvailableError):
            await router.chat(MSGS)  # now it rests: no second request
        assert len(srv.requests) == 1
        await router.aclose()


async def test_router_back_in_service_when_the_restored_cooldown_was_stale():
    clock = Clock()
    async with FakeOpenAI() as srv:
        router = ProviderRouter([client(srv, "a", clock=clock)], clock=clock)
        router.restore([{"name": "a", "cooling_until": clock.t + 10**9, "last_error": "x"}])
        assert router.states()[0].cooling_until == clock.t + router.cooldown_max_s
        assert (await router.chat(MSGS)).text == "ok"
        assert router.states()[0].status == "ok"
        await router.aclose()


async def test_a_huge_retry_after_is_capped_at_the_ceiling():
    clock = Clock()
    async with FakeOpenAI() as srv:
        srv.script(Reply.status(429, retry_after=999999999))
        router = ProviderRouter(
            [client(srv, "a", clock=clock, max_wait_s=600)], cooldown_max_s=600, clock=clock
        )
        with pytest.raises(NoProviderAvailableError) as info:
            await router.chat(MSGS)
        assert info.value.retry_at == clock.t + 600
        clock.t += 601
        assert (await router.chat(MSGS)).text == "ok"
        await router.aclose()


async def test_a_cut_stream_raises_after_the_text_it_gave():
    async with FakeOpenAI() as srv:
        srv.script(Reply.cut("half a thought"))
        model = client(srv)
        seen: list[str] = []
        with pytest.raises(StreamCutError):
            async for chunk in model.stream(MSGS):
                seen.append(chunk)
        assert "".join(seen).split() == ["half", "a", "thought"]
        await model.aclose()


async def test_router_does_not_cool_on_our_bad_request():
    async with FakeOpenAI() as srv:
        srv.script(Reply.status(400, message="bad field"))
        router = ProviderRouter([client(srv, "a")])
        with pytest.raises(BadRequestError):
            await router.chat(MSGS)
        assert router.states()[0].status == "ok"
        await router.aclose()


async def test_router_stream_fails_over_before_first_chunk():
    async with FakeOpenAI() as first, FakeOpenAI() as second:
        first.script(Reply.status(503))
        second.script(Reply.text("streamed reply"))
        router = ProviderRouter([client(first, "first"), client(second, "second")])
        text = "".join([c async for c in router.stream(MSGS)])
        assert text.split() == ["streamed", "reply"]
        assert router.states()[0].status == "cooling"
        await router.aclose()


async def test_build_chat_model_reads_keys_from_env():
    assert build_chat_model(LLMSettings()) is None
    async with FakeOpenAI() as srv:
        settings = LLMSettings(
            providers=[
                ProviderSettings(
                    name="local", base_url=srv.base_url, model="m", api_key_envs=["K1", "K2"]
                )
            ]
        )
        router = build_chat_model(settings, env={"K1": "one", "K2": "two"})
        assert router is not None
        await router.chat(MSGS)
        await router.chat(MSGS)
        assert [r.headers["Authorization"] for r in srv.requests] == ["Bearer one", "Bearer two"]
        await router.aclose()


async def test_offline_responder_says_so_and_uses_recalled_items():
    responder = OfflineResponder()
    empty = await responder.chat(MSGS)
    assert "no language model is configured" in empty.text
    prompt = [
        ChatMessage("system", "You are kind.\n\nWhat you remember:\n- The user's name is Ann\n"),
        ChatMessage("user", "who am I?"),
    ]
    reply = await responder.chat(prompt)
    assert "no language model is configured" in reply.text
    assert "- The user's name is Ann" in reply.text
    assert "You are kind" not in reply.text
