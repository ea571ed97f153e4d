"""A fake Discord (REST API + gateway websocket) on 127.0.0.1 for the real discord.py client.

    fake = FakeDiscord()
    await fake.start()
    adapter = DiscordAdapter(handler, settings, fake.token,
                             api_base=fake.api_base, gateway_url=fake.gateway_url)
    await fake.dispatch_message(fake.dm_message(ALICE, "hello"))
    sent = await fake.wait_for(lambda: fake.created_messages(channel_id))

What it models: log-in (``/users/@me``, ``/oauth2/applications/@me``), the gateway handshake
(HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME replaying every dispatch the
client has not seen), messages (create/edit, JSON or multipart), typing, slash-command sync,
interaction callbacks and follow-ups. Failures are injected with :meth:`fail`; a dropped
connection with :meth:`drop_connection` (events dispatched meanwhile wait in the session log).
Every JSON answer carries ``Content-Type: application/json`` exactly, as discord.py wants.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import BodyPartReader, WSMsgType, web

T = TypeVar("T")
Json = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000
BOT_ID = 900000000000000001
GUILD_ID = 900000000000000100
GENERAL_ID = 900000000000000101  # a text channel
ALWAYS_ID = 900000000000000102  # a text channel tests configure as always-answer
THREAD_ID = 900000000000000103  # a thread under GENERAL
BOT_ROLE_ID = 900000000000000150  # the bot's managed role

OP_DISPATCH, OP_HEARTBEAT, OP_IDENTIFY, OP_RESUME = 0, 1, 2, 6
OP_HELLO, OP_HEARTBEAT_ACK, OP_INVALID_SESSION = 10, 11, 9


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def user(user_id: int, name: str, *, bot: bool = False) -> Json:
    return {
        "id": str(user_id),
        "username": name.lower(),
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


ALICE = user(800000000000000001, "Alice")
BOB = user(800000000000000002, "Bob")
BOT_USER = user(BOT_ID, "Familiar", bot=True)


@dataclass
class Request:
    method: str
    path: str
    json: Any = None
    files: dict[str, bytes] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)


@dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    status: int
    body: Json
    headers: dict[str, str]
    times: int


class FakeDiscord:
    def __init__(self, *, token: str = "fake-token", close_code_on_identify: int | None = None):
        self.token = token
        self.close_code_on_identify = close_code_on_identify
        self.requests: list[Request] = []
        #: Called with each REST request as it arrives (tests note their clock there).
        self.observers: list[Callable[[Request], None]] = []
        self.messages: dict[str, Json] = {}  # every message the bot created, as edited last
        self.synced_commands: list[Json] = []
        self.identifies = 0
        self.resumes = 0
        self.shards: list[list[int] | None] = []  # each IDENTIFY's [shard_id, shard_count]
        self._faults: list[Fault] = []
        self._ids = itertools.count(1)
        self._seq = 0
        self._session_log: list[Json] = []  # dispatches of this session, with their "s"
        self._session_id = "fake-session-1"
        self._ws: web.WebSocketResponse | None = None
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(middlewares=[self._record_and_fault])
        app.router.add_get("/gateway", self._gateway)
        api = "/api/v10"
        app.router.add_get(api + "/users/@me", self._me)
        app.router.add_get(api + "/oauth2/applications/@me", self._application)
        app.router.add_get(api + "/gateway/bot", self._gateway_bot)
        app.router.add_put(api + "/applications/{app}/commands", self._sync_commands)
        app.router.add_post(api + "/channels/{channel}/messages", self._create_message)
        app.router.add_patch(api + "/channels/{channel}/messages/{message}", self._edit_message)
        app.router.add_post(api + "/channels/{channel}/typing", self._typing)
        app.router.add_post(api + "/interactions/{id}/{token}/callback", self._callback)
        app.router.add_post(api + "/webhooks/{app}/{token}", self._follow_up)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # -- what tests use ---------------------------------------------------------------------

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        *,
        body: Json | None = None,
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the ``path`` regex
        with ``status`` (e.g. 429 with ``{"retry_after": 0.5}``)."""
        body = body if body is not None else {"message": "injected failure", "code": 0}
        self._faults.append(Fault(method, re.compile(path), status, body, headers or {}, times))

    async def wait_for(self, probe: Callable[[], T], timeout: float = 10.0) -> T:
        """Wait until ``probe()`` is truthy (re-checked whenever the fake sees traffic)."""

        async def until() -> T:
            async with self._changed:
                while not (value := probe()):
                    # Also re-check now and then: some probes watch state outside the fake.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), 0.05)
                return value

        return await asyncio.wait_for(until(), timeout)

    def calls(self, method: str, path_regex: str) -> list[Request]:
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r.method == method and pattern.search(r.path)]

    def created_messages(self, channel_id: int) -> list[Json]:
        return [m for m in self.messages.values() if m["channel_id"] == str(channel_id)]

    def snowflake(self) -> int:
        ms = int(datetime.now(UTC).timestamp() * 1000) - DISCORD_EPOCH_MS
        return (ms << 22) + next(self._ids)

    async def dispatch(self, event: str, data: Json, *, deliver: bool = True) -> int:
        """Add a dispatch to the session and send it; ``deliver=False`` keeps it only in the
        log, as if it was lost on the wire (a RESUME will replay it)."""
        self._seq += 1
        payload = {"op": OP_DISPATCH, "t": event, "s": self._seq, "d": data}
        self._session_log.append(payload)
        if deliver and self._ws is not None and not self._ws.closed:
            await self._ws.send_str(json.dumps(payload))
        return self._seq

    async def dispatch_message(self, message: Json, *, deliver: bool = True) -> int:
        return await self.dispatch("MESSAGE_CREATE", message, deliver=deliver)

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the gateway socket as a network failure would; the client resumes."""
        if self._ws is not None:
            await self._ws.close(code=code)
            self._ws = None

    async def wait_connected(self, identifies: int = 1, resumes: int = 0) -> None:
        await self.wait_for(
            lambda: (
                self._ws is not None and self.identifies >= identifies and self.resumes >= resumes
            )
        )

    # -- payload builders -------------------------------------------------------------------

    def dm_message(self, author: Json, content: str, **extra: Any) -> Json:
        channel = 700000000000000000 + int(author["id"]) % 1000
        return self.message(channel, author, content, **extra)

    def message(
        self,
        channel_id: int,
        author: Json,
        content: str,
        *,
        guild_id: int | None = None,
        mentions: tuple[Json, ...] = (),
        mention_roles: tuple[int, ...] = (),
        reply_to: Json | None = None,
        attachments: tuple[Json, ...] = (),
    ) -> Json:
        data: Json = {
            "id": str(self.snowflake()),
            "channel_id": str(channel_id),
            "author": author,
            "content": content,
            "timestamp": now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": list(mentions),
            "mention_roles": [str(r) for r in mention_roles],
            "attachments": list(attachments),
            "embeds": [],
            "pinned": False,
            "type": 19 if reply_to else 0,
            "flags": 0,
            "components": [],
        }
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
            data["member"] = self._member(None)
        if reply_to is not None:
            data["message_reference"] = {
                "type": 0,
                "message_id": reply_to["id"],
                "channel_id": reply_to["channel_id"],
                **({"guild_id": str(guild_id)} if guild_id else {}),
            }
            data["referenced_message"] = reply_to
        return data

    def guild_message(
        self, author: Json, content: str, *, channel_id: int = GENERAL_ID, **kw: Any
    ) -> Json:
        return self.message(channel_id, author, content, guild_id=GUILD_ID, **kw)

    def interaction(
        self,
        author: Json,
        name: str,
        options: list[Json],
        *,
        autocomplete: bool = False,
        channel_id: int | None = None,
        in_guild: bool = False,
    ) -> Json:
        """A slash command (``options`` as Discord sends them) or, with ``autocomplete``, the
        autocomplete request for the option marked ``"focused": True``."""
        interaction_id = self.snowflake()
        data: Json = {
            "id": str(interaction_id),
            "application_id": str(BOT_ID),
            "type": 4 if autocomplete else 2,
            "token": f"itoken{interaction_id}",
            "version": 1,
            "data": {"id": str(BOT_ID + 7), "name": name, "type": 1, "options": options},
            "locale": "en-US",
            "app_permissions": "0",
            "entitlements": [],
            "attachment_size_limit": 8 * 1024 * 1024,
        }
        if in_guild:
            channel = channel_id or GENERAL_ID
            data |= {
                "guild_id": str(GUILD_ID),
                "channel_id": str(channel),
                "channel": {"id": str(channel), "type": 0, "guild_id": str(GUILD_ID)},
                "member": self._member(author) | {"permissions": "0"},
                "authorizing_integration_owners": {"0": str(GUILD_ID)},
                "context": 0,
            }
        else:
            channel = channel_id or 700000000000000000 + int(author["id"]) % 1000
            data |= {
                "channel_id": str(channel),
                "channel": {"id": str(channel), "type": 1, "recipients": [author]},
                "user": author,
                "authorizing_integration_owners": {"1": author["id"]},
                "context": 1,
            }
        return data

    def _member(self, who: Json | None) -> Json:
        member: Json = {
            "roles": [],
            "joined_at": now_iso(),
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
        }
        if who is not None:
            member["user"] = who
        return member

    def _guild(self) -> Json:
        def text_channel(channel_id: int, name: str, position: int) -> Json:
            return {
                "id": str(channel_id),
                "type": 0,
                "guild_id": str(GUILD_ID),
                "name": name,
                "position": position,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
                "topic": None,
                "last_message_id": None,
                "rate_limit_per_user": 0,
            }

        thread = {
            "id": str(THREAD_ID),
            "type": 11,
            "guild_id": str(GUILD_ID),
            "parent_id": str(GENERAL_ID),
            "owner_id": ALICE["id"],
            "name": "a thread",
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": now_iso(),
                "locked": False,
            },
            "message_count": 0,
            "member_count": 2,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        everyone = {
            "id": str(GUILD_ID),
            "name": "@everyone",
            "permissions": str((1 << 41) - 1),
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        bot_role = everyone | {"id": str(BOT_ROLE_ID), "name": "Familiar", "managed": True}
        return {
            "id": str(GUILD_ID),
            "name": "Fake Server",
            "icon": None,
            "owner_id": ALICE["id"],
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "system_channel_flags": 0,
            "features": [],
            "roles": [everyone, bot_role],
            "emojis": [],
            "stickers": [],
            "member_count": 3,
            "members": [self._member(BOT_USER) | {"roles": [str(BOT_ROLE_ID)]}],
            "channels": [
                text_channel(GENERAL_ID, "general", 0),
                text_channel(ALWAYS_ID, "familiar", 1),
            ],
            "threads": [thread],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            "unavailable": False,
            "joined_at": now_iso(),
        }

    # -- REST -------------------------------------------------------------------------------

    @web.middleware
    async def _record_and_fault(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path == "/gateway":
            return await handler(request)
        token_auth = "/interactions/" in request.path or "/webhooks/" in request.path
        if not token_auth and request.headers.get("Authorization") != f"Bot {self.token}":
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        record = await _record(request)
        self.requests.append(record)
        for observe in self.observers:
            observe(record)
        try:
            fault = self._take_fault(record)
            if fault is not None:
                return _json(fault.body, status=fault.status, headers=fault.headers)
            return await handler(request)
        finally:
            await self._notify()

    def _take_fault(self, record: Request) -> Fault | None:
        for fault in self._faults:
            if fault.times > 0 and fault.method == record.method and fault.path.search(record.path):
                fault.times -= 1
                return fault
        return None

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _me(self, request: web.Request) -> web.Response:
        return _json(BOT_USER)

    async def _application(self, request: web.Request) -> web.Response:
        return _json(
            {
                "id": str(BOT_ID),
                "name": "Familiar",
                "icon": None,
                "description": "",
                "summary": "",
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "owner": ALICE,
                "team": None,
                "flags": 1 << 19,  # GATEWAY_MESSAGE_CONTENT
                "interactions_endpoint_url": None,
            }
        )

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return _json({"url": self.gateway_url, "shards": 1, "session_start_limit": limit})

    async def _sync_commands(self, request: web.Request) -> web.Response:
        commands = []
        for index, command in enumerate(self.requests[-1].json or []):
            commands.append(
                {
                    "id": str(BOT_ID + 10 + index),
                    "application_id": str(BOT_ID),
                    "version": "1",
                    "default_member_permissions": None,
                    "type": 1,
                    "nsfw": False,
                    "options": [],
                    **command,
                }
            )
        self.synced_commands = commands
        return _json(commands)

    async def _create_message(self, request: web.Request) -> web.Response:
        record = self.requests[-1]
        body = record.json or {}
        message = self.message(
            int(request.match_info["channel"]), BOT_USER, body.get("content") or ""
        )
        if "guild_id" in body:
            message["guild_id"] = body["guild_id"]
        if body.get("message_reference"):
            message["message_reference"] = body["message_reference"]
        message["attachments"] = [
            {
                "id": str(self.snowflake()),
                "filename": name,
                "size": len(data),
                "url": "http://x/",
                "proxy_url": "http://x/",
            }
            for name, data in record.files.items()
        ]
        self.messages[message["id"]] = message
        return _json(message)

    async def _edit_message(self, request: web.Request) -> web.Response:
        message = self.messages.get(request.match_info["message"])
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, status=404)
        message["content"] = (self.requests[-1].json or {}).get("content", message["content"])
        message["edited_timestamp"] = now_iso()
        return _json(message)

    async def _typing(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def _callback(self, request: web.Request) -> web.Response:
        interaction = {"id": request.match_info["id"], "type": 2}
        flags = ((self.requests[-1].json or {}).get("data") or {}).get("flags", 0)
        interaction["response_message_ephemeral"] = bool(flags & 64)
        return _json({"interaction": interaction})

    async def _follow_up(self, request: web.Request) -> web.Response:
        body = self.requests[-1].json or {}
        message = self.message(0, BOT_USER, body.get("content") or "")
        message["webhook_id"] = str(BOT_ID)
        message["flags"] = body.get("flags", 0)
        return _json(message)

    # -- gateway ----------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": OP_HELLO, "d": {"heartbeat_interval": 41250}}))
        try:
            async for frame in ws:
                if frame.type is not WSMsgType.TEXT:
                    break
                await self._on_gateway_frame(ws, json.loads(frame.data))
        finally:
            if self._ws is ws:
                self._ws = None
            await self._notify()
        return ws

    async def _on_gateway_frame(self, ws: web.WebSocketResponse, frame: Json) -> None:
        op, data = frame.get("op"), frame.get("d") or {}
        if op == OP_HEARTBEAT:
            await ws.send_str(json.dumps({"op": OP_HEARTBEAT_ACK, "d": None}))
        elif op == OP_IDENTIFY:
            await self._identify(ws, data)
        elif op == OP_RESUME:
            await self._resume(ws, data)

    async def _identify(self, ws: web.WebSocketResponse, data: Json) -> None:
        if data.get("token") != self.token:
            await ws.close(code=4004)
            return
        if self.close_code_on_identify is not None:
            await ws.close(code=self.close_code_on_identify)
            return
        self.identifies += 1
        self.shards.append(data.get("shard"))
        self._session_id = f"fake-session-{self.identifies}"
        self._session_log.clear()
        self._seq = 0
        self._ws = ws
        await self.dispatch(
            "READY",
            {
                "v": 10,
                "user": BOT_USER,
                "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
                "session_id": self._session_id,
                "resume_gateway_url": self.gateway_url,
                "application": {"id": str(BOT_ID), "flags": 1 << 19},
                "private_channels": [],
                "relationships": [],
                **({"shard": data["shard"]} if data.get("shard") else {}),
            },
        )
        await self.dispatch("GUILD_CREATE", self._guild())
        await self._notify()

    async def _resume(self, ws: web.WebSocketResponse, data: Json) -> None:
        if data.get("session_id") != self._session_id or data.get("token") != self.token:
            await ws.send_str(json.dumps({"op": OP_INVALID_SESSION, "d": False}))
            return
        self.resumes += 1
        self._ws = ws
        missed = [event for event in self._session_log if event["s"] > (data.get("seq") or 0)]
        for event in missed:
            await ws.send_str(json.dumps(event))
        await self.dispatch("RESUMED", {})
        await self._notify()


def _json(body: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        body=json.dumps(body).encode(),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


async def _record(request: web.Request) -> Request:
    record = Request(request.method, request.path, query=dict(request.query))
    content_type = request.headers.get("Content-Type", "")
    if content_type.startswith("multipart/"):
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "payload_json":
                record.json = json.loads(await part.text())
            elif part.filename:
                record.files[part.filename] = bytes(await part.read())
    elif request.can_read_body:
        raw = await request.read()
        record.json = json.loads(raw) if raw else None
    return record
