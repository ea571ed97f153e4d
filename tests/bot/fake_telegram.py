"""A fake Telegram Bot API server on 127.0.0.1 for tests (aiohttp).

It speaks enough of https://core.telegram.org/bots/api for python-telegram-bot to run
against it unchanged: ``getMe``, ``getUpdates`` (long poll with real offset semantics: an
update stays pending until a later call's ``offset`` confirms it), ``sendMessage``,
``editMessageText``, ``sendChatAction``, ``sendDocument``, ``setMyCommands``,
``getMyCommands``, ``setWebhook``, ``deleteWebhook``, ``answerCallbackQuery``, ``getFile`` and
file downloads.

Webhook mode as Telegram's: once ``setWebhook`` is called, ``getUpdates`` answers 409 and each
pending update is POSTed to the address (with the ``X-Telegram-Bot-Api-Secret-Token`` header),
kept and posted again until it is answered 2xx. :meth:`spread_webhook` stands in for a load
balancer (updates go round the addresses given); :meth:`post_update` posts one by hand.

Request bodies are accepted form-encoded (how python-telegram-bot sends them: every non-string
value JSON-encoded), multipart (uploads) or JSON.

Tests inject traffic with :meth:`FakeTelegram.private_message` / :meth:`group_message`, inject
faults with :meth:`fail_next` (a 429 with ``retry_after``, a 5xx, or a dropped connection), make
a person unreachable in private with :meth:`block_private`, and wait for what the bot did with
:meth:`wait_for` (woken by each request, never by a timer).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, ClientError, ClientSession, web

from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
)

BOT_ID = 7000001
BOT_USERNAME = "familiar_test_bot"
TOKEN = "7000001:TEST-token"

#: Parameters whose form value is a plain string, never JSON-encoded by the client.
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "action",
        "callback_query_id",
        "file_id",
        "url",
        "language_code",
        "business_connection_id",
        "inline_message_id",
        "emoji",
        "secret_token",
    }
)


@dataclass
class Call:
    """One request the bot made."""

    method: str
    params: dict[str, Any]
    at: float  # time.monotonic() when it arrived
    status: int = 200


@dataclass
class SentMessage:
    """A message the bot sent, with every text it has had (first send, then each edit)."""

    message_id: int
    chat_id: int
    text: str
    thread_id: int | None = None
    reply_to: int | None = None
    document: dict[str, Any] | None = None
    edits: list[str] = field(default_factory=list)


@dataclass
class _Fault:
    method: str
    kind: str  # "retry_after" | "status" | "drop"
    status: int = 500
    retry_after: int = 1
    times: int = 1
    chat_id: int | None = None


class FakeTelegram:
    """The server. ``async with FakeTelegram() as tg:`` starts it on a free port."""

    def __init__(self, *, token: str = TOKEN, bot_id: int = BOT_ID) -> None:
        self.token = token
        self.bot_id = bot_id
        self.username = BOT_USERNAME
        self.calls: list[Call] = []
        self.messages: dict[int, SentMessage] = {}
        self._by_chat: dict[int, list[SentMessage]] = {}
        self.commands: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.confirmed_offset = 0
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1000)
        self._faults: list[_Fault] = []
        self._blocked_private: set[int] = set()
        self._migrated: dict[int, int] = {}
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._closing = False
        self.port = 0
        self.webhook: dict[str, str] | None = None  # url, secret_token
        self.webhook_targets: list[str] = []  # a load balancer's workers, when spread
        self.deliveries: list[tuple[int, int]] = []  # (update_id, HTTP status or 0)
        #: (update_id, chat id, address, status, time.monotonic() when answered) per post.
        self.delivery_log: list[tuple[int, int, str, int, float]] = []
        self._pump: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeTelegram:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._file)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        self._closing = True  # release pending long polls so the server can shut down
        async with self._changed:
            self._changed.notify_all()
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    # ------------------------------------------------------------------ injecting traffic

    def private_message(
        self, user_id: int, text: str, *, first_name: str = "", **extra: Any
    ) -> dict[str, Any]:
        user = self._user(user_id, first_name)
        chat = {"id": user_id, "type": "private", "first_name": user["first_name"]}
        return self.push_message(chat, user, text, **extra)

    def group_message(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        first_name: str = "",
        mention: bool = False,
        reply_to: SentMessage | dict[str, Any] | None = None,
        thread_id: int | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A supergroup message; ``mention`` prefixes ``@bot`` with a mention entity."""
        user = self._user(user_id, first_name)
        chat = {"id": chat_id, "type": "supergroup", "title": f"group {chat_id}"}
        if thread_id is not None:
            chat["is_forum"] = True
            extra.update(message_thread_id=thread_id, is_topic_message=True)
        entities = list(extra.pop("entities", []))
        if mention:
            prefix = f"@{self.username} "
            entities = [_shift(e, len(prefix)) for e in entities]
            entities.insert(0, {"type": "mention", "offset": 0, "length": len(prefix) - 1})
            text = prefix + text
        if entities:
            extra["entities"] = entities
        if reply_to is not None:
            extra["reply_to_message"] = self._reply_target(reply_to, chat)
        return self.push_message(chat, user, text, **extra)

    def command(self, chat: dict[str, Any], user_id: int, text: str) -> dict[str, Any]:
        """``text`` starts with ``/name``; adds the ``bot_command`` entity clients send."""
        name_len = len(text.split(maxsplit=1)[0])
        entity = {"type": "bot_command", "offset": 0, "length": name_len}
        return self.push_message(chat, self._user(user_id, ""), text, entities=[entity])

    def private_chat(self, user_id: int) -> dict[str, Any]:
        return {"id": user_id, "type": "private", "first_name": f"user{user_id}"}

    def group_chat(self, chat_id: int) -> dict[str, Any]:
        return {"id": chat_id, "type": "supergroup", "title": f"group {chat_id}"}

    def push_message(
        self, chat: dict[str, Any], user: dict[str, Any], text: str, **extra: Any
    ) -> dict[str, Any]:
        message = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": user,
            **extra,
        }
        if text or "caption" not in extra:
            message["text"] = text
        return self.push_update({"message": message})

    def push_update(self, update: dict[str, Any]) -> dict[str, Any]:
        update = {"update_id": next(self._update_ids), **update}
        self._updates.append(update)
        self._notify()
        return update

    def add_file(self, file_id: str, data: bytes) -> None:
        self.files[file_id] = data

    # ------------------------------------------------------------------ injecting faults

    def fail_next(
        self,
        method: str,
        *,
        kind: str = "status",
        status: int = 500,
        retry_after: int = 1,
        times: int = 1,
        chat_id: int | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (optionally only for ``chat_id``) fail:
        ``kind="status"`` answers ``status``; ``"retry_after"`` answers 429 with
        ``parameters.retry_after``; ``"drop"`` closes the connection without an answer."""
        if kind not in ("status", "retry_after", "drop"):
            raise ValueError(f"unknown fault kind {kind!r}")
        self._faults.append(_Fault(method, kind, status, retry_after, times, chat_id))

    def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup: sends to the old id answer with the new one."""
        self._migrated[old_chat_id] = new_chat_id

    def block_private(self, user_id: int) -> None:
        """The person never started the bot: private sends to them get 403."""
        self._blocked_private.add(user_id)

    # ------------------------------------------------------------------ observing

    def calls_of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def chat_messages(self, chat_id: int) -> list[SentMessage]:
        return list(self._by_chat.get(chat_id, ()))

    def chat_texts(self, chat_id: int) -> list[str]:
        return [m.text for m in self.chat_messages(chat_id)]

    @property
    def pending_updates(self) -> int:
        return sum(1 for u in self._updates if u["update_id"] >= self.confirmed_offset)

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Return once ``predicate()`` holds; it is re-checked after every request."""

        async def _wait() -> None:
            async with self._changed:
                await self._changed.wait_for(predicate)

        try:
            await asyncio.wait_for(_wait(), timeout)
        except TimeoutError:
            raise AssertionError(
                f"fake Telegram: condition not met within {timeout}s; "
                f"calls: {[c.method for c in self.calls[-20:]]}"
            ) from None

    # ------------------------------------------------------------------ HTTP

    async def _api(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        method = request.match_info["method"]
        params = await _read_params(request)
        call = Call(method, params, time.monotonic())
        self.calls.append(call)
        fault = self._take_fault(method, params)
        if fault is not None:
            return await self._apply_fault(request, call, fault)
        handler = getattr(self, "_m_" + method, None)
        if handler is None:
            call.status = 404
            self._notify()
            return _error(404, "Not Found: method not found")
        try:
            result = await handler(params)
        except _ApiError as exc:
            call.status = exc.status
            self._notify()
            return _error(exc.status, exc.description, exc.parameters)
        self._notify()
        return web.json_response({"ok": True, "result": result})

    async def _file(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["path"])
        if request.match_info["token"] != self.token or data is None:
            return web.Response(status=404)
        return web.Response(body=data)

    def _take_fault(self, method: str, params: dict[str, Any]) -> _Fault | None:
        for fault in self._faults:
            if fault.method != method:
                continue
            if fault.chat_id is not None and _int(params.get("chat_id")) != fault.chat_id:
                continue
            fault.times -= 1
            if fault.times <= 0:
                self._faults.remove(fault)
            return fault
        return None

    async def _apply_fault(
        self, request: web.Request, call: Call, fault: _Fault
    ) -> web.StreamResponse:
        if fault.kind == "drop":
            call.status = 0
            self._notify()
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        if fault.kind == "retry_after":
            call.status = 429
            self._notify()
            return web.json_response(
                {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {fault.retry_after}",
                    "parameters": {"retry_after": fault.retry_after},
                },
                status=429,
            )
        call.status = fault.status
        self._notify()
        return _error(fault.status, "Internal Server Error")

    def _notify(self) -> None:
        async def _wake() -> None:
            async with self._changed:
                self._changed.notify_all()

        asyncio.get_running_loop().create_task(_wake())

    # ------------------------------------------------------------------ API methods

    async def _m_getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": "Familiar",
            "username": self.username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def _m_setWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = {
            "url": str(params["url"]),
            "secret_token": str(params.get("secret_token") or ""),
        }
        if self._pump is None:
            self._pump = asyncio.get_running_loop().create_task(self._deliver_pending())
        return True

    async def _m_deleteWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = None
        return True

    # ------------------------------------------------------------------ webhook mode

    def spread_webhook(self, urls: list[str]) -> None:
        """Post the updates round these addresses instead of the webhook's (a load balancer
        in front of several workers)."""
        self.webhook_targets = list(urls)

    async def post_update(
        self, update: dict[str, Any], *, secret: str | None, url: str | None = None
    ) -> int:
        """POST ``update`` once to ``url`` (default: the webhook's); the status, 0 when the
        connection failed."""
        assert url or self.webhook, "no webhook set"
        target = url or (self.webhook or {})["url"]
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret is not None else {}
        try:
            async with (
                ClientSession() as session,
                session.post(target, json=update, headers=headers) as response,
            ):
                status = response.status
        except (ClientError, OSError):
            status = 0
        self.deliveries.append((int(update["update_id"]), status))
        chat = int(((update.get("message") or {}).get("chat") or {}).get("id", 0))
        self.delivery_log.append((int(update["update_id"]), chat, target, status, time.monotonic()))
        self._notify()
        return status

    async def _deliver_pending(self) -> None:
        """Post pending updates, up to ``MAX_CONNECTIONS`` at once (as Telegram does)."""
        turn = itertools.count()
        in_flight: set[int] = set()
        posts: set[asyncio.Task[None]] = set()

        def ready() -> bool:
            waiting = any(u["update_id"] not in in_flight for u in self._updates)
            return self._closing or bool(self.webhook and waiting and len(in_flight) < 40)

        try:
            while not self._closing:
                async with self._changed:
                    await self._changed.wait_for(ready)
                if self._closing or self.webhook is None:
                    continue
                update = next(u for u in self._updates if u["update_id"] not in in_flight)
                in_flight.add(update["update_id"])
                targets = self.webhook_targets or [self.webhook["url"]]
                url = targets[next(turn) % len(targets)]
                post = asyncio.get_running_loop().create_task(self._post(update, url, in_flight))
                posts.add(post)
                post.add_done_callback(posts.discard)
        finally:
            for post in posts:
                post.cancel()

    async def _post(self, update: dict[str, Any], url: str, in_flight: set[int]) -> None:
        secret = (self.webhook or {}).get("secret_token", "")
        status = await self.post_update(update, secret=secret, url=url)
        if 200 <= status < 300:
            self._updates.remove(update)
        else:
            await asyncio.sleep(0.02)  # Telegram tries again later (another worker)
        in_flight.discard(update["update_id"])
        self._notify()

    async def _m_getUpdates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook is not None:
            raise _ApiError(409, "Conflict: can't use getUpdates method while webhook is active")
        offset = _int(params.get("offset")) or 0
        if offset:
            self.confirmed_offset = max(self.confirmed_offset, offset)
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        limit = _int(params.get("limit")) or 100
        timeout = float(params.get("timeout") or 0)

        def available() -> bool:
            return bool(self._updates) or self._closing

        if not available() and timeout > 0:
            try:
                async with self._changed:
                    await asyncio.wait_for(self._changed.wait_for(available), timeout)
            except TimeoutError:
                pass
        return [] if self._closing else self._updates[:limit]

    async def _m_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = self._target_chat(params)
        text = str(params.get("text", ""))
        if not text.strip():
            raise _ApiError(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            raise _ApiError(400, "Bad Request: message is too long")
        sent = self._record(chat_id, params, text=text)
        return self._message_json(sent)

    async def _m_editMessageText(self, params: dict[str, Any]) -> dict[str, Any]:
        message = self.messages.get(_int(params.get("message_id")) or -1)
        if message is None or message.chat_id != _int(params.get("chat_id")):
            raise _ApiError(400, "Bad Request: message to edit not found")
        text = str(params.get("text", ""))
        if len(text) > 4096:
            raise _ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        if text == message.text:
            raise _ApiError(400, "Bad Request: message is not modified")
        message.text = text
        message.edits.append(text)
        return self._message_json(message)

    async def _m_sendChatAction(self, params: dict[str, Any]) -> bool:
        self._target_chat(params)
        return True

    async def _m_sendDocument(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = self._target_chat(params)
        upload = params.get("document")
        if not isinstance(upload, _Upload):
            raise _ApiError(400, "Bad Request: there is no document in the request")
        file_id = f"doc{len(self.files) + 1}"
        self.files[file_id] = upload.data
        document = {
            "file_id": file_id,
            "file_unique_id": file_id,
            "file_name": upload.filename,
            "file_size": len(upload.data),
        }
        sent = self._record(chat_id, params, text=str(params.get("caption", "")))
        sent.document = document
        return self._message_json(sent)

    async def _m_setMyCommands(self, params: dict[str, Any]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _ApiError(400, "Bad Request: commands must be a list")
        for cmd in commands:
            name = cmd.get("command", "")
            if not (1 <= len(name) <= 32) or not name.replace("_", "").isalnum():
                raise _ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
        self.commands = commands
        return True

    async def _m_getMyCommands(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return self.commands

    async def _m_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        return True

    async def _m_getFile(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise _ApiError(400, "Bad Request: invalid file_id")
        return {
            "file_id": file_id,
            "file_unique_id": file_id,
            "file_size": len(self.files[file_id]),
            "file_path": file_id,
        }

    # ------------------------------------------------------------------ helpers

    def _target_chat(self, params: dict[str, Any]) -> int:
        chat_id = _int(params.get("chat_id"))
        if chat_id is None:
            raise _ApiError(400, "Bad Request: chat_id is empty")
        if chat_id in self._blocked_private:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        if chat_id in self._migrated:
            raise _ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        return chat_id

    def _record(self, chat_id: int, params: dict[str, Any], *, text: str) -> SentMessage:
        reply = params.get("reply_parameters")
        reply_to = reply.get("message_id") if isinstance(reply, dict) else None
        sent = SentMessage(
            message_id=next(self._message_ids),
            chat_id=chat_id,
            text=text,
            thread_id=_int(params.get("message_thread_id")),
            reply_to=reply_to or _int(params.get("reply_to_message_id")),
        )
        self.messages[sent.message_id] = sent
        self._by_chat.setdefault(chat_id, []).append(sent)
        return sent

    def _message_json(self, sent: SentMessage) -> dict[str, Any]:
        chat: dict[str, Any] = (
            {"id": sent.chat_id, "type": "private", "first_name": f"user{sent.chat_id}"}
            if sent.chat_id > 0
            else {"id": sent.chat_id, "type": "supergroup", "title": f"group {sent.chat_id}"}
        )
        body: dict[str, Any] = {
            "message_id": sent.message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": self._bot_user(),
        }
        if sent.document is not None:
            body["document"] = sent.document
            if sent.text:
                body["caption"] = sent.text
        else:
            body["text"] = sent.text
        if sent.thread_id is not None:
            body["message_thread_id"] = sent.thread_id
        return body

    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": "Familiar",
            "username": self.username,
        }

    def _user(self, user_id: int, first_name: str) -> dict[str, Any]:
        return {"id": user_id, "is_bot": False, "first_name": first_name or f"user{user_id}"}

    def _reply_target(
        self, target: SentMessage | dict[str, Any], chat: dict[str, Any]
    ) -> dict[str, Any]:
        if isinstance(target, SentMessage):
            return {
                "message_id": target.message_id,
                "date": int(time.time()),
                "chat": chat,
                "from": self._bot_user(),
                "text": target.text,
            }
        return target


class _ApiError(Exception):
    def __init__(
        self, status: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


@dataclass(frozen=True)
class _Upload:
    filename: str
    data: bytes


def _error(status: int, description: str, parameters: dict[str, Any] | None = None) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if parameters:
        body["parameters"] = parameters
    return web.json_response(body, status=status)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _shift(entity: dict[str, Any], by: int) -> dict[str, Any]:
    return {**entity, "offset": entity["offset"] + by}


def _decode(name: str, value: str) -> Any:
    if name in _STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


async def _read_params(request: web.Request) -> dict[str, Any]:
    params: dict[str, Any] = {k: _decode(k, v) for k, v in request.query.items()}
    if request.method != "POST" or not request.can_read_body:
        return params
    if request.content_type == "application/json":
        body = await request.json()
        params.update(body if isinstance(body, dict) else {})
        return params
    if request.content_type == "multipart/form-data":
        return params | await _read_multipart(request)
    form = await request.post()
    params.update({k: _decode(k, str(v)) for k, v in form.items()})
    return params


async def _read_multipart(request: web.Request) -> dict[str, Any]:
    params: dict[str, Any] = {}
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader) or part.name is None:
            continue
        data = await part.read(decode=False)
        if part.filename:
            params[part.name] = _Upload(part.filename, bytes(data))
        else:
            params[part.name] = _decode(part.name, data.decode("utf-8"))
    # python-telegram-bot names the upload part and refers to it as attach://<name>
    for key, value in list(params.items()):
        if isinstance(value, str) and value.startswith("attach://"):
            params[key] = params.get(value.removeprefix("attach://"), value)
    return params


# ---------------------------------------------------------------------- a fake TurnHandler

SPECS = [
    CommandSpec("memory", "Your memories", "/memory list|search|show|forget|pin|export|why"),
    CommandSpec("link", "Link your accounts", "/link or /link CODE"),
    CommandSpec("proactive", "Let me write first", "/proactive on|off"),
    CommandSpec("find", "Find a file", "/find QUERY"),
    CommandSpec("help", "What I can do", "/help"),
]


class FakeHandler:
    """A TurnHandler that answers from a script, remembers facts per person, and records
    what it was given.

    ``reply(message)`` returns the list of deltas to stream; the default is one delta,
    ``"echo: <text>"``. A message "remember K=V" stores V under K for that person and a
    message "recall K" answers with what that person stored (never anyone else's).
    """

    def __init__(self, reply: Callable[[IncomingMessage], list[str]] | None = None) -> None:
        self._reply = reply
        self.messages: list[IncomingMessage] = []
        self.invocations: list[CommandInvocation] = []
        self.facts: dict[tuple[str, str], list[str]] = {}

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        self.messages.append(message)
        if message.text == "boom":
            raise RuntimeError("scripted handler failure")
        for delta in self._deltas(message):
            await asyncio.sleep(0)
            yield delta

    def _deltas(self, message: IncomingMessage) -> list[str]:
        if self._reply is not None:
            return self._reply(message)
        text = message.text
        if text.startswith("remember ") and "=" in text:
            key, value = text.removeprefix("remember ").split("=", 1)
            self.facts.setdefault((message.user_id, key), []).append(value)
            return [f"noted {key}"]
        if text.startswith("recall "):
            key = text.removeprefix("recall ")
            return [f"{key} is {','.join(self.facts.get((message.user_id, key), ['?']))}"]
        return [f"echo: {text}"]

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        self.invocations.append(invocation)
        if invocation.name == "memory" and invocation.args[:1] == ("export",):
            data = f"# memories of {invocation.user_id}\n".encode()
            return CommandResponse("Your memory export.", file_name="memory.md", file_data=data)
        if invocation.name == "memory":
            return CommandResponse(f"memories of {invocation.user_id}: secret-{invocation.user_id}")
        if invocation.name == "help":
            return CommandResponse("I am your familiar.", private=False)
        usage = " ".join(s.usage for s in SPECS)
        return CommandResponse(f"Unknown command /{invocation.name}. Usage: {usage}")

    def command_specs(self) -> list[CommandSpec]:
        return list(SPECS)

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        return []
