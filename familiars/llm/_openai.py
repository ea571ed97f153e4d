"""A client for the OpenAI-compatible chat API (OpenAI, Ollama, LM Studio, vLLM, llama.cpp
server, hosted APIs) over httpx. HTTP failures become :mod:`familiars.llm._errors` here."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from familiars.config import ProviderSettings
from familiars.llm._base import (
    ChatMessage,
    ChatModel,
    ChatResult,
    ToolCall,
    ToolSpec,
    cut_mark,
    cut_output,
    output_limit,
    reply_stop,
)
from familiars.llm._errors import (
    BadRequestError,
    BadResponseError,
    ProviderAuthError,
    ProviderConnectionError,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitedError,
    StreamCutError,
    UnsupportedFeatureError,
)

logger = logging.getLogger(__name__)

#: The most bytes of one answer read at all (whatever ``max_tokens``): a body past it is
#: not a chat completion this bot can use, and is not read further.
MAX_BODY_BYTES = 8 * 1024 * 1024

_SENT_AS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
_FEATURE_WORDS = ("response_format", "json_schema", "json_object")
_TOOL_WORDS = ("tool", "function")


def parse_retry_after(value: str | None, *, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError, IndexError):
        return None


def _error_text(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300]
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        return str(err.get("message") or err.get("code") or err)[:300]
    return str(err or data)[:300]


def _is_quota(response: httpx.Response) -> bool:
    text = response.text.lower()
    return "insufficient_quota" in text or "quota" in text


class _KeyRing:
    """API keys used round-robin; a key that hit a rate limit rests until its time is up."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = [k for k in keys if k]
        self._next = 0
        self._resting: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def pick(self, now: float) -> int | None:
        """Index of the next usable key, None if every key rests (or there are none)."""
        for step in range(len(self.keys)):
            idx = (self._next + step) % len(self.keys)
            if self._resting.get(idx, 0.0) <= now:
                self._next = (idx + 1) % len(self.keys)
                return idx
        return None

    def rest(self, idx: int, until: float) -> None:
        self._resting[idx] = until

    def earliest_back(self) -> float | None:
        return min(self._resting.values()) if self._resting else None


class OpenAIChatModel(ChatModel):
    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        model: str,
        api_keys: Sequence[str] = (),
        timeout_s: float = 60.0,
        structured_output: str = "auto",
        tools: str = "auto",
        key_rest_s: float = 3600.0,
        max_wait_s: float = 3600.0,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.name = name
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.structured_output = structured_output
        self.tools = tools
        self.timeout_s = timeout_s
        self.key_rest_s = min(key_rest_s, max_wait_s)
        #: A server's Retry-After is obeyed up to this many seconds, never beyond.
        self.max_wait_s = max_wait_s
        self._keys = _KeyRing(api_keys)
        self._transport = transport
        self._clock = clock
        self._client: httpx.AsyncClient | None = None

    @classmethod
    def from_settings(
        cls,
        provider: ProviderSettings,
        *,
        env: Mapping[str, str] | None = None,
        key_rest_s: float = 3600.0,
        max_wait_s: float = 3600.0,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
    ) -> OpenAIChatModel:
        environ = os.environ if env is None else env
        keys = [environ.get(n, "").strip() for n in provider.api_key_envs]
        missing = [n for n, k in zip(provider.api_key_envs, keys, strict=True) if not k]
        if missing:
            logger.warning("provider %s: key variables not set: %s", provider.name, missing)
        return cls(
            name=provider.name,
            base_url=provider.base_url,
            model=provider.model,
            api_keys=[k for k in keys if k],
            timeout_s=provider.timeout_s,
            structured_output=provider.structured_output,
            tools=provider.tools,
            key_rest_s=key_rest_s,
            max_wait_s=max_wait_s,
            transport=transport,
            clock=clock,
        )

    @property
    def key_count(self) -> int:
        return len(self._keys)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            timeout = httpx.Timeout(self.timeout_s, connect=min(10.0, self.timeout_s))
            self._client = httpx.AsyncClient(timeout=timeout, transport=self._transport)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _body(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int | None,
        temperature: float | None,
        response_format: dict[str, Any] | None,
        stream: bool = False,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": [m.as_dict() for m in messages]}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if temperature is not None:
            body["temperature"] = temperature
        if response_format is not None:
            body["response_format"] = response_format
        if stream:
            body["stream"] = True
        return body

    def _headers(self, key_idx: int | None) -> dict[str, str]:
        if key_idx is None:
            return {}
        return {"Authorization": f"Bearer {self._keys.keys[key_idx]}"}

    def _key_for_request(self) -> int | None:
        if not len(self._keys):
            return None
        idx = self._keys.pick(self._clock())
        if idx is None:
            back = self._keys.earliest_back()
            wait = None if back is None else max(0.0, back - self._clock())
            raise RateLimitedError(self.name, "every API key is rate limited", retry_after=wait)
        return idx

    async def _send(self, body: dict[str, Any]) -> httpx.Response:
        """POST with key rotation: a rate-limited key rests and the next key is tried."""
        attempts = max(1, len(self._keys))
        for _ in range(attempts):
            idx = self._key_for_request()
            response = await self._post(body, idx)
            if response.status_code == 429 and idx is not None and len(self._keys) > 1:
                wait = self._retry_after(response)
                self._keys.rest(
                    idx, self._clock() + (wait if wait is not None else self.key_rest_s)
                )
                logger.info("%s: key %d rate limited, rotating", self.name, idx)
                continue
            return response
        return response

    async def _post(self, body: dict[str, Any], key_idx: int | None) -> httpx.Response:
        url = f"{self.base_url}/chat/completions"
        http = self._http()
        try:
            request = http.build_request("POST", url, json=body, headers=self._headers(key_idx))
            response = await http.send(request, stream=True)
            try:
                data = await self._read_capped(response)
            finally:
                await response.aclose()
            # The body as read (decoded): what said how it was sent no longer applies.
            headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _SENT_AS]
            return httpx.Response(
                response.status_code, headers=headers, content=data, request=request
            )
        except httpx.TimeoutException as exc:
            raise ProviderTimeoutError(self.name, f"no answer in {self.timeout_s:g}s") from exc
        except httpx.TransportError as exc:
            raise ProviderConnectionError(self.name, f"cannot reach {url}: {exc}") from exc

    async def _read_capped(self, response: httpx.Response) -> bytes:
        data = bytearray()
        async for chunk in response.aiter_bytes():  # decoded: a zip bomb counts whole
            data += chunk
            if len(data) > MAX_BODY_BYTES:
                raise BadResponseError(self.name, f"the answer ran past {MAX_BODY_BYTES} bytes")
        return bytes(data)

    def _raise_for_status(self, response: httpx.Response, body: dict[str, Any]) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = _error_text(response)
        if status == 429:
            wait = self._retry_after(response)
            reason = "quota exhausted" if _is_quota(response) else "rate limited"
            raise RateLimitedError(self.name, f"{reason}: {detail}", retry_after=wait)
        if status in (401, 403):
            raise ProviderAuthError(self.name, f"key refused ({status}): {detail}")
        if status >= 500:
            raise ProviderServerError(self.name, f"server error {status}: {detail}")
        if "response_format" in body and any(w in detail.lower() for w in _FEATURE_WORDS):
            raise UnsupportedFeatureError(self.name, body["response_format"]["type"], detail)
        if "tools" in body and any(w in detail.lower() for w in _TOOL_WORDS):
            raise UnsupportedFeatureError(self.name, "tools", detail)
        raise BadRequestError(self.name, status, detail)

    def _retry_after(self, response: httpx.Response) -> float | None:
        """The server's Retry-After in seconds, capped: one ``Retry-After: 999999999`` must not
        silence the bot for decades."""
        wait = parse_retry_after(response.headers.get("retry-after"), now=self._clock())
        return None if wait is None else min(wait, self.max_wait_s)

    def _parse(
        self, response: httpx.Response, max_tokens: int | None, *, tools: bool = False
    ) -> ChatResult:
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice["message"]
            content = message.get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise BadResponseError(
                self.name, f"not a chat completion: {response.text[:200]}"
            ) from exc
        calls = _tool_calls(message.get("tool_calls")) if tools else ()
        if content is None and calls:
            content = ""
        if not isinstance(content, str):
            raise BadResponseError(self.name, "the completion has no text content")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        result = ChatResult(
            text=content, provider=self.name, model=self.model, usage=usage, tool_calls=calls
        )
        return self._within(self._stopped(result, choice), output_limit(max_tokens))

    def _stopped(self, result: ChatResult, choice: Any) -> ChatResult:
        """A whole answer that ended short (its ``finish_reason``: :func:`reply_stop`, as a
        stream's) is marked cut off as a stream's is, never passed off as complete (a tool
        path's answer was: review s37)."""
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        stop = reply_stop(reason)
        if stop is None or not result.text.strip():
            return result
        logger.warning("%s: the answer stopped short (%s): marked cut off", self.name, reason)
        text = result.text.rstrip()
        return replace(result, text=text + cut_mark(text), cut=True)

    def _within(self, result: ChatResult, room: int) -> ChatResult:
        """The answer held to ``room`` characters, text and tool arguments together: past
        it the text is cut (:func:`cut_output`) and the calls that do not fit get no
        arguments (the caller tells the model they are broken)."""
        size = len(result.text) + sum(len(c.arguments) for c in result.tool_calls)
        if size <= room:
            return result
        logger.warning(
            "%s: the answer ran past its max_tokens (%d characters, %d kept): cut",
            self.name, size, room,
        )  # fmt: skip
        text = cut_output(result.text, room) if len(result.text) > room else result.text
        left, calls = room - len(text), []
        for call in result.tool_calls:
            fits = len(call.arguments) <= left
            left -= len(call.arguments) if fits else 0
            calls.append(call if fits else ToolCall(call.id, call.name, "", cut=True))
        return replace(result, text=text, tool_calls=tuple(calls), cut=True)

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:
        body = self._body(messages, max_tokens, temperature, response_format)
        response = await self._send(body)
        self._raise_for_status(response, body)
        return self._parse(response, max_tokens)

    async def chat_tools(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ChatResult:
        if not self.supports_tools:
            raise UnsupportedFeatureError(self.name, "tools", "not offered to this provider")
        body = self._body(messages, max_tokens, temperature, None)
        body["tools"] = [tool.as_dict() for tool in tools]
        body["tool_choice"] = "auto"
        response = await self._send(body)
        try:
            self._raise_for_status(response, body)
        except UnsupportedFeatureError:
            self.tools_refused()
            raise
        return self._parse(response, max_tokens, tools=True)

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        body = self._body(messages, max_tokens, temperature, None, stream=True)
        idx = self._key_for_request()
        url = f"{self.base_url}/chat/completions"
        try:
            async with self._http().stream(
                "POST", url, json=body, headers=self._headers(idx)
            ) as response:
                if response.status_code >= 400:
                    await response.aread()
                    self._raise_for_status(response, body)
                room = output_limit(max_tokens)
                async for chunk in _sse_text(response, self.name):
                    if len(chunk) > room:  # past max_tokens: the rest is not read
                        logger.warning("%s: the stream ran past its max_tokens: cut", self.name)
                        yield cut_output(chunk, room)
                        return
                    room -= len(chunk)
                    yield chunk
        except httpx.TimeoutException as exc:
            raise ProviderTimeoutError(self.name, f"no answer in {self.timeout_s:g}s") from exc
        except httpx.TransportError as exc:
            raise ProviderConnectionError(self.name, f"cannot reach {url}: {exc}") from exc


def _tool_calls(raw: Any) -> tuple[ToolCall, ...]:
    """The tool calls of a completion message; malformed entries are kept with what can be
    read (an empty name or arguments), so the caller can tell the model what was wrong."""
    if not isinstance(raw, list):
        return ()
    calls = []
    for i, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        function = function if isinstance(function, dict) else {}
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        call_id = item.get("id") if isinstance(item, dict) else None
        calls.append(
            ToolCall(
                id=str(call_id or f"call_{i}"),
                name=str(function.get("name") or ""),
                arguments=arguments,
            )
        )
    return tuple(calls)


async def _sse_text(response: httpx.Response, provider: str) -> AsyncIterator[str]:
    """The text deltas of a server-sent event stream. A stream that ends with neither
    ``[DONE]`` nor a ``finish_reason``, says it failed (an error event, a ``finish_reason``
    :func:`reply_stop` reads as given up, as it reads a whole answer's) or stops at a token
    limit (``length``) was cut: so the reply is never shown as if it were complete (tester
    s36: a reply cut by the server came with no word of it). A failure is
    :class:`StreamCutError` (the provider rests); a token limit is marked as the client's
    own cut is (:func:`cut_mark`)."""
    finished, last = False, ""
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        choice, text = _sse_choice(payload, provider)
        reason = choice.get("finish_reason")
        finished = finished or bool(reason)
        if text:
            last = text
            yield text
        stop = reply_stop(reason)
        if stop == "failed":
            raise StreamCutError(provider, f"the server stopped the reply ({reason})")
        if stop == "length":
            logger.info("%s: the reply stopped at its token limit: cut", provider)
            yield cut_mark(last)
            return
    if not finished:
        raise StreamCutError(provider, "the stream ended before the reply was complete")


def _sse_choice(payload: str, provider: str) -> tuple[dict[str, Any], str]:
    """One event's choice and its text; an error event (a generation that failed under
    way) is :class:`StreamCutError`, anything else unreadable :class:`BadResponseError`."""
    try:
        event = json.loads(payload)
        if isinstance(event, dict) and "error" in event and "choices" not in event:
            raise StreamCutError(provider, f"the server failed mid-reply: {payload[:200]}")
        choice = event["choices"][0]
        delta = choice.get("delta") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise BadResponseError(provider, f"bad stream chunk: {payload[:200]}") from exc
    text = delta.get("content") if isinstance(delta, dict) else None
    return choice, text if isinstance(text, str) else ""
