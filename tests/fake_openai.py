"""A local OpenAI-compatible chat server for tests, on 127.0.0.1, with scripted replies.

    async with FakeOpenAI() as server:
        server.script(Reply.json({"writes": []}), Reply.status(429, retry_after=30))
        model = OpenAIChatModel(name="fake", base_url=server.base_url, model="m")

Each request takes the next scripted reply; when the script is empty, ``default`` answers.
Every request body and its headers are kept in ``requests`` for assertions.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    kind: str = "text"  # text | status | hang | refuse_format | cut | stall | tools
    content: str = ""
    status_code: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    #: A streamed reply's last chunk (a whole one's choice) says this ``finish_reason``
    #: ("length", "error").
    finish: str | None = None
    #: A streamed reply's last event is this error object instead (then [DONE]).
    error: dict[str, Any] | None = None

    @classmethod
    def text(cls, content: str) -> Reply:
        return cls(kind="text", content=content)

    @classmethod
    def json(cls, data: Any) -> Reply:
        return cls(kind="text", content=json.dumps(data))

    @classmethod
    def status(
        cls, code: int, *, retry_after: float | str | None = None, message: str = "error"
    ) -> Reply:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        body = {"error": {"message": message, "type": "server_error", "code": code}}
        return cls(kind="status", status_code=code, headers=headers, body=body)

    @classmethod
    def cut(cls, content: str) -> Reply:
        """Stream ``content`` and close the connection with neither [DONE] nor a
        finish_reason, as a server that dies mid-reply does."""
        return cls(kind="cut", content=content)

    @classmethod
    def stops(cls, content: str, reason: str) -> Reply:
        """Stream ``content``, then a chunk whose ``finish_reason`` is ``reason`` ("length":
        a token limit; "error", "abort": the server gave up) and [DONE]."""
        return cls(kind="text", content=content, finish=reason)

    @classmethod
    def fails_midway(cls, content: str, message: str = "CUDA out of memory") -> Reply:
        """Stream ``content``, then an error event (as llama.cpp and vLLM send one when a
        generation fails under way) and [DONE]."""
        return cls(kind="text", content=content, error={"message": message, "code": 500})

    @classmethod
    def tools(cls, *calls: tuple[str, Any]) -> Reply:
        """A completion asking for tools: each call is (name, arguments); arguments that are
        not a string are sent as JSON, a string is sent as is (so it may be broken JSON)."""
        raw = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for i, (name, args) in enumerate(calls)
        ]
        return cls(kind="tools", body={"tool_calls": raw})

    @classmethod
    def refuse_tools(cls) -> Reply:
        """A 400 naming tools, as servers without tool support send."""
        body = {"error": {"message": "this model does not support tools"}}
        return cls(kind="status", status_code=400, body=body)

    @classmethod
    def stalls(cls, content: str) -> Reply:
        """Stream ``content``, then send nothing more until the server stops (a reply the
        person stops half-way: the words so far are on their screen)."""
        return cls(kind="stall", content=content)

    @classmethod
    def hang(cls) -> Reply:
        """Never answer (until the server stops): the client's timeout must fire."""
        return cls(kind="hang")

    @classmethod
    def refuse_format(cls) -> Reply:
        """A 400 naming response_format, as servers without structured output send."""
        body = {"error": {"message": "response_format json_schema is not supported"}}
        return cls(kind="status", status_code=400, body=body)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeOpenAI:
    def __init__(self, default: Reply | Callable[[dict[str, Any]], Reply] | None = None) -> None:
        self.default = default or Reply.text("ok")
        self.queue: deque[Reply] = deque()
        self.requests: list[Seen] = []
        self._stop = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def _next(self, body: dict[str, Any]) -> Reply:
        if self.queue:
            return self.queue.popleft()
        return self.default(body) if callable(self.default) else self.default

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(Seen(request.path, dict(request.headers), body))
        reply = self._next(body)
        if reply.kind == "hang":
            await self._stop.wait()
            return web.Response(status=503)
        if reply.kind == "status":
            return web.json_response(reply.body, status=reply.status_code, headers=reply.headers)
        if reply.kind == "tools":
            completion = _completion(body.get("model", ""), "")
            message = completion["choices"][0]["message"]
            message["content"], message["tool_calls"] = None, (reply.body or {})["tool_calls"]
            completion["choices"][0]["finish_reason"] = "tool_calls"
            return web.json_response(completion)
        if body.get("stream"):
            return await self._stream(request, reply, complete=reply.kind != "cut")
        whole = _completion(body.get("model", ""), reply.content)
        if reply.finish is not None:  # a whole answer that says it stopped short
            whole["choices"][0]["finish_reason"] = reply.finish
        return web.json_response(whole)

    async def _stream(
        self, request: web.Request, reply: Reply, *, complete: bool = True
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        content = reply.content
        for word in content.split(" ") if content else []:
            piece = {"choices": [{"index": 0, "delta": {"content": word + " "}}]}
            await response.write(f"data: {json.dumps(piece)}\n\n".encode())
        if reply.kind == "stall":
            await self._stop.wait()
            return response
        if reply.finish is not None:
            last = {"choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish}]}
            await response.write(f"data: {json.dumps(last)}\n\n".encode())
        if reply.error is not None:
            await response.write(f"data: {json.dumps({'error': reply.error})}\n\n".encode())
        if complete:
            await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def __aenter__(self) -> FakeOpenAI:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        if self._runner is not None:
            await self._runner.cleanup()


def _completion(model: str, content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
