"""The Discord adapter end to end: the real discord.py client against the fake Discord server
in fake_discord.py (127.0.0.1 only), with a scripted TurnHandler and a test clock."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route
from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
    split_message,
)
from familiars.bot._adapters.discord import DiscordAdapter, DiscordSendError, DiscordStartError
from familiars.bot._adapters.discord._stream import ReplyStream
from familiars.bot._commands import Caller, CommandSet, default_commands
from familiars.config import AccessSettings, DiscordSettings, Settings, load_settings
from tests.bot.fake_discord import (
    ALICE,
    ALWAYS_ID,
    BOB,
    BOT_ID,
    BOT_ROLE_ID,
    BOT_USER,
    GENERAL_ID,
    THREAD_ID,
    FakeDiscord,
    Request,
)

USAGE = (
    "Usage: /memory list [category] | search QUERY | show ID | forget ID | pin ID | export | why"
)
MENTION = f"<@{BOT_ID}>"


async def _no_find(query: str, caller: Caller) -> CommandResponse:
    raise AssertionError("specs never run a command")


BOT_COMMANDS = CommandSet(
    default_commands(cast(Any, None), cast(Any, None), find=_no_find, forgetter=cast(Any, None))
)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class ScriptedHandler:
    """A TurnHandler whose replies are scripted as (seconds to advance the clock, delta)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.messages: list[IncomingMessage] = []
        self.invocations: list[CommandInvocation] = []
        self.completions: list[tuple[CommandInvocation, str]] = []
        self.finished = 0
        self.gate: asyncio.Event | None = None  # respond waits for it when set
        self.script: Callable[[IncomingMessage], list[tuple[float, str]]] = lambda m: [
            (0.0, f"echo: {m.text}")
        ]

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        self.messages.append(message)
        if self.gate is not None:
            await self.gate.wait()
        for advance, delta in self.script(message):
            self.clock.t += advance
            yield delta
        self.finished += 1

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        self.invocations.append(invocation)
        if self.gate is not None:
            await self.gate.wait()
        name, args = invocation.name, invocation.args
        if name == "memory" and args == ("export",):
            return CommandResponse("Your memory.", file_name="memory.md", file_data=b"# Alice\n")
        if name == "memory" and args[:1] in {("show",), ("list",), ("search",)}:
            return CommandResponse(f"memory {' '.join(args)}")
        if name == "link" and len(args) <= 1:
            return CommandResponse("Your code: 123456" if not args else "Linked.")
        return CommandResponse(USAGE if name == "memory" else f"Usage: /{name} ...")

    def command_specs(self) -> list[CommandSpec]:
        # The bot's own declarations (their services are never called for a spec), then
        # specs that declare only a usage line.
        return [
            *BOT_COMMANDS.specs(),
            CommandSpec("remind", "Reminders", "/remind WHEN TEXT | list"),
            CommandSpec("Not A Name", "Discord refuses this name", "/Not A Name"),
        ]

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        self.completions.append((invocation, partial))
        return [i for i in ("m_aaa", "m_abc", "m_bcd") if i.startswith(partial)]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def handler(clock: Clock) -> ScriptedHandler:
    return ScriptedHandler(clock)


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make_adapter(
    fake: FakeDiscord, handler: ScriptedHandler, clock: Clock, sleeps: list[float]
) -> Callable[..., DiscordAdapter]:
    async def record_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def make(
        settings: Settings | None = None, token: str | None = None, **options: Any
    ) -> DiscordAdapter:
        return DiscordAdapter(
            handler,
            settings or Settings(),
            fake.token if token is None else token,
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            clock=clock,
            sleep=record_sleep,
            guild_ready_timeout_s=0.05,
            ready_timeout_s=10.0,
            **options,
        )

    return make


@pytest.fixture
async def adapter(make_adapter: Callable[..., DiscordAdapter]) -> AsyncIterator[DiscordAdapter]:
    bot = make_adapter()
    await bot.start()
    yield bot
    await bot.stop()


def dm_channel(author: dict[str, Any]) -> int:
    return int(FakeDiscord().dm_message(author, "")["channel_id"])


async def replies(fake: FakeDiscord, channel_id: int, count: int = 1) -> list[dict[str, Any]]:
    """The bot's messages in ``channel_id`` once there are ``count`` of them."""
    return await fake.wait_for(
        lambda: (found := fake.created_messages(channel_id)) and len(found) >= count and found
    )


# -- conversations ----------------------------------------------------------------------------


async def test_dm_is_answered_with_typing_first(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    sent = fake.dm_message(ALICE, "hello there")
    await fake.dispatch_message(sent)
    channel = dm_channel(ALICE)
    (reply,) = await replies(fake, channel)
    assert reply["content"] == "echo: hello there"
    (message,) = handler.messages
    assert (message.platform, message.chat_id, message.thread_id) == ("discord", str(channel), None)
    assert (message.user_id, message.display_name) == (ALICE["id"], "Alice")
    assert (message.is_group, message.message_id, message.text) == (
        False,
        sent["id"],
        "hello there",
    )
    paths = [r.path for r in fake.requests if r.method == "POST"]
    assert paths.index(f"/api/v10/channels/{channel}/typing") < paths.index(
        f"/api/v10/channels/{channel}/messages"
    )


async def test_group_messages_are_answered_only_when_mentioned_or_replied_to(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    await fake.dispatch_message(fake.guild_message(BOB, "just chatting with Alice"))
    mention = fake.guild_message(BOB, f"{MENTION} what is up?", mentions=(BOT_USER,))
    await fake.dispatch_message(mention)
    (reply,) = await replies(fake, GENERAL_ID)
    assert reply["content"] == "echo: what is up?"
    assert str(reply["message_reference"]["message_id"]) == mention["id"]

    human = fake.guild_message(ALICE, "a message by Alice")
    await fake.dispatch_message(fake.guild_message(BOB, "replying to Alice", reply_to=human))
    await fake.dispatch_message(fake.guild_message(BOB, "and to you", reply_to=reply))
    await replies(fake, GENERAL_ID, 2)

    assert [m.text for m in handler.messages] == ["what is up?", "and to you"]
    first, second = handler.messages
    assert (first.is_group, first.mentions_bot, first.reply_to_bot) == (True, True, False)
    assert (second.mentions_bot, second.reply_to_bot, second.reply_to) == (False, True, reply["id"])
    assert first.chat_id == str(GENERAL_ID)


async def test_always_answer_channel_and_threads(
    fake: FakeDiscord, make_adapter: Callable[..., DiscordAdapter], handler: ScriptedHandler
) -> None:
    settings = Settings(discord=DiscordSettings(always_answer_channels=[str(ALWAYS_ID)]))
    bot = make_adapter(settings)
    await bot.start()
    try:
        await fake.dispatch_message(fake.guild_message(ALICE, "no mention", channel_id=ALWAYS_ID))
        await replies(fake, ALWAYS_ID)
        in_thread = fake.guild_message(
            ALICE, f"{MENTION} in a thread", channel_id=THREAD_ID, mentions=(BOT_USER,)
        )
        await fake.dispatch_message(in_thread)
        (reply,) = await replies(fake, THREAD_ID)
    finally:
        await bot.stop()
    assert reply["content"] == "echo: in a thread"
    always, threaded = handler.messages
    assert (always.chat_id, always.mentions_bot) == (str(ALWAYS_ID), False)
    assert (threaded.chat_id, threaded.thread_id) == (str(GENERAL_ID), str(THREAD_ID))


async def test_long_reply_is_split_without_breaking_code_blocks(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    code = "\n".join(f"x_{i} = {i} * 2" for i in range(400))
    text = f"Here you go:\n```python\n{code}\n```\nThat is all."
    handler.script = lambda m: [(0.0, text)]
    await fake.dispatch_message(fake.dm_message(ALICE, "write code"))
    pieces = await fake.wait_for(
        lambda: (
            (found := fake.created_messages(dm_channel(ALICE)))
            and found[-1]["content"].endswith("That is all.")
            and found
        )
    )
    assert len(pieces) >= 3
    assert all(len(p["content"]) <= 2000 for p in pieces)
    for piece in pieces[:-1]:
        assert sum(line.startswith("```") for line in piece["content"].split("\n")) % 2 == 0
    for piece in pieces[1:]:
        assert piece["content"].startswith("```python\n")


async def test_streamed_reply_is_edited_at_most_once_a_second(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler, clock: Clock
) -> None:
    steps = [(0.0, "One"), (0.3, " two"), (0.3, " three"), (0.5, " four"), (0.2, " five")]
    steps += [(0.4, " six"), (0.5, " seven"), (0.1, " eight.")]
    handler.script = lambda m: steps
    writes: list[tuple[str, float]] = []
    fake.observers.append(
        lambda r: writes.append((r.method, clock.t)) if "/messages" in r.path else None
    )
    await fake.dispatch_message(fake.dm_message(ALICE, "count"))
    (reply,) = await fake.wait_for(
        lambda: (
            (found := fake.created_messages(dm_channel(ALICE)))
            and found[0]["content"].endswith("eight.")
            and found
        )
    )
    assert reply["content"] == "".join(delta for _, delta in steps)
    # Sent at once, edited when a second has passed since the last update (clock at 1.1 and
    # 2.2), and edited once more at the end with the whole text (2.3).
    assert [method for method, _ in writes] == ["POST", "PATCH", "PATCH", "PATCH"]
    assert [t for _, t in writes] == pytest.approx([0.0, 1.1, 2.2, 2.3])


async def test_bad_input_never_crashes(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    await fake.dispatch_message(fake.dm_message(ALICE, ""))  # nothing to say: ignored
    attachment = {
        "id": "5",
        "filename": "notes.pdf",
        "size": 1234,
        "url": "https://cdn.example/notes.pdf",
        "proxy_url": "https://cdn.example/notes.pdf",
        "content_type": "application/pdf",
    }
    await fake.dispatch_message(fake.dm_message(ALICE, "", attachments=(attachment,)))
    huge = "\x00\x01binary" + "w" * 100_000
    await fake.dispatch_message(fake.dm_message(BOB, huge))
    await fake.dispatch_message(fake.dm_message(BOT_USER | {"id": "42"}, "another bot"))
    await replies(fake, dm_channel(ALICE))
    await fake.wait_for(lambda: len(fake.created_messages(dm_channel(BOB))) >= 51)
    assert sorted(m.user_id for m in handler.messages) == [ALICE["id"], BOB["id"]]
    (from_alice,) = [m for m in handler.messages if m.user_id == ALICE["id"]]
    (file,) = from_alice.attachments
    assert (file.filename, file.content_type, file.size) == ("notes.pdf", "application/pdf", 1234)


async def test_handler_failure_gets_an_apology(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    def broken(message: IncomingMessage) -> list[tuple[float, str]]:
        raise RuntimeError("model exploded")

    handler.script = broken
    await fake.dispatch_message(fake.dm_message(ALICE, "hi"))
    (reply,) = await replies(fake, dm_channel(ALICE))
    assert reply["content"].startswith("Sorry, something went wrong")

    async def broken_command(invocation: CommandInvocation) -> CommandResponse:
        raise RuntimeError("store exploded")

    handler.command = broken_command  # type: ignore[method-assign]
    await fake.dispatch_message(fake.dm_message(BOB, "/memory list"))
    (reply,) = await replies(fake, dm_channel(BOB))
    assert reply["content"].startswith("Sorry, something went wrong")
    request = await callback(fake, fake.interaction(ALICE, "memory", subcommand("why")))
    assert request.json["data"]["content"].startswith("Sorry, that command failed")
    assert request.json["data"]["flags"] == 64


# -- platform errors --------------------------------------------------------------------------


async def test_429_on_send_is_retried_after_retry_after(
    fake: FakeDiscord, adapter: DiscordAdapter, sleeps: list[float]
) -> None:
    fake.fail(
        "POST",
        r"/channels/\d+/messages$",
        429,
        body={"message": "You are being rate limited.", "retry_after": 2.5, "global": False},
        headers={"Retry-After": "2.5"},
    )
    await fake.dispatch_message(fake.dm_message(ALICE, "hello"))
    (reply,) = await replies(fake, dm_channel(ALICE))
    assert reply["content"] == "echo: hello"
    assert sleeps == [2.5]
    assert len(fake.calls("POST", r"/channels/\d+/messages$")) == 2


async def test_429_seen_by_discord_py_is_waited_out_by_it(
    fake: FakeDiscord, adapter: DiscordAdapter, sleeps: list[float]
) -> None:
    body = {"message": "You are being rate limited.", "retry_after": 0.0, "global": False}
    fake.fail("POST", r"/channels/\d+/messages$", 429, body=body, headers={"Via": "1.1 google"})
    await fake.dispatch_message(fake.dm_message(ALICE, "hello"))
    await replies(fake, dm_channel(ALICE))
    assert sleeps == []
    assert len(fake.calls("POST", r"/channels/\d+/messages$")) == 2


async def test_server_errors_back_off_then_give_up_and_the_turn_still_completes(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler, sleeps: list[float]
) -> None:
    fake.fail("POST", r"/channels/\d+/messages$", 503, times=2)
    await fake.dispatch_message(fake.dm_message(ALICE, "first"))
    await replies(fake, dm_channel(ALICE))
    assert sleeps == [1.0, 2.0]

    fake.fail("POST", r"/channels/\d+/messages$", 403, times=1)
    await fake.dispatch_message(fake.dm_message(BOB, "second"))
    await fake.wait_for(lambda: handler.finished == 2)
    await fake.dispatch_message(fake.dm_message(BOB, "third"))
    (reply,) = await replies(fake, dm_channel(BOB))
    assert reply["content"] == "echo: third"
    await fake.wait_for(
        lambda: handler.finished == 3
    )  # the failed delivery did not cut the handler's turn short


async def test_disconnect_loses_no_incoming_message(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    await fake.dispatch_message(fake.dm_message(ALICE, "lost on the wire"), deliver=False)
    await fake.drop_connection()
    await fake.dispatch_message(fake.dm_message(ALICE, "sent while disconnected"))
    await fake.wait_connected(identifies=1, resumes=1)
    await replies(fake, dm_channel(ALICE), 2)
    await fake.dispatch_message(fake.dm_message(ALICE, "after the resume"))
    await replies(fake, dm_channel(ALICE), 3)
    # Each exactly once (the two replayed on RESUME are answered concurrently).
    assert sorted(m.text for m in handler.messages) == [
        "after the resume",
        "lost on the wire",
        "sent while disconnected",
    ]
    assert (fake.identifies, fake.resumes) == (1, 1)


# -- proactive send ---------------------------------------------------------------------------


async def test_send_to_channel_and_thread(fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    first_id = await adapter.send(str(GENERAL_ID), "Good morning!")
    await adapter.send(str(GENERAL_ID), "In the thread.", thread_id=str(THREAD_ID))
    long_id = await adapter.send(str(ALWAYS_ID), "word " * 1000)
    (morning,) = fake.created_messages(GENERAL_ID)
    assert (morning["id"], morning["content"]) == (first_id, "Good morning!")
    assert fake.created_messages(THREAD_ID)[0]["content"] == "In the thread."
    pieces = fake.created_messages(ALWAYS_ID)
    assert len(pieces) == 3 and pieces[0]["id"] == long_id


async def test_send_refuses_bad_input_and_reports_failure(
    fake: FakeDiscord, adapter: DiscordAdapter, sleeps: list[float]
) -> None:
    with pytest.raises(ValueError, match="channel id"):
        await adapter.send("general", "hi")
    with pytest.raises(ValueError, match="empty"):
        await adapter.send(str(GENERAL_ID), "")
    fake.fail("POST", r"/channels/\d+/messages$", 429, times=2, headers={"Retry-After": "3"})
    fake.fail("POST", r"/channels/\d+/messages$", 503, times=10)
    with pytest.raises(DiscordSendError, match="send failed"):
        await adapter.send(str(GENERAL_ID), "hi")
    assert sleeps == [3.0, 3.0, 4.0]  # retry_after honoured, then exponential backoff
    assert fake.created_messages(GENERAL_ID) == []


# -- slash commands ---------------------------------------------------------------------------


def subcommand(name: str, **values: str) -> list[dict[str, Any]]:
    options = [{"type": 3, "name": k, "value": v} for k, v in values.items()]
    return [{"type": 1, "name": name, "options": options}]


async def callback(fake: FakeDiscord, interaction: dict[str, Any]) -> Request:
    path = f"/interactions/{interaction['id']}/{interaction['token']}/callback"
    await fake.dispatch("INTERACTION_CREATE", interaction)
    (found,) = await fake.wait_for(lambda: fake.calls("POST", path))
    return found


async def test_slash_commands_are_registered_for_every_spec(
    fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    by_name = {c["name"]: c for c in fake.synced_commands}
    # Every spec but the one whose name Discord would refuse (skipped with a warning).
    assert set(by_name) == {
        *("memory", "forget", "link", "proactive", "reminders", "timezone", "help", "find"),
        "remind",
    }
    subs = {o["name"]: o for o in by_name["memory"]["options"]}
    assert set(subs) == {
        "list",
        "search",
        "show",
        "forget",
        "edit",
        "pin",
        "unpin",
        "export",
        "why",
        "people",
        "web",
    }
    (show_id,) = subs["show"]["options"]
    assert (show_id["name"], show_id["required"], show_id["autocomplete"]) == ("id", True, True)
    assert {o["name"] for o in by_name["proactive"]["options"]} == {"on", "off"}
    reminders = {o["name"]: o for o in by_name["reminders"]["options"]}
    assert list(reminders) == ["list", "cancel", "move", "snooze"]
    assert [(o["name"], o["required"]) for o in reminders["move"]["options"]] == [
        ("reminder", True),
        ("when", True),
    ]

    def options(name: str) -> list[tuple[str, bool]]:
        return [(o["name"], o.get("required", False)) for o in by_name[name].get("options", [])]

    # Simple usage lines give named options; others one free-text option.
    assert options("find") == [("query", True)]
    assert options("link") == [("code", False)]
    assert options("help") == []
    assert options("remind") == [("arguments", False)]


async def test_slash_command_is_answered_ephemerally(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    request = await callback(fake, fake.interaction(ALICE, "memory", subcommand("show", id="m_1")))
    assert request.json["type"] == 4
    assert request.json["data"]["flags"] == 64
    assert request.json["data"]["content"] == "memory show m_1"
    (invocation,) = handler.invocations
    assert (invocation.platform, invocation.name, invocation.args) == (
        "discord",
        "memory",
        ("show", "m_1"),
    )
    assert (invocation.user_id, invocation.is_group) == (ALICE["id"], False)

    in_guild = fake.interaction(
        BOB, "memory", subcommand("search", query="hiking trips"), in_guild=True
    )
    request = await callback(fake, in_guild)
    assert request.json["data"]["flags"] == 64
    assert handler.invocations[-1].args == ("search", "hiking", "trips")
    assert (handler.invocations[-1].is_group, handler.invocations[-1].chat_id) == (
        True,
        str(GENERAL_ID),
    )


async def test_memory_export_sends_a_file(fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    request = await callback(fake, fake.interaction(ALICE, "memory", subcommand("export")))
    assert request.files == {"memory.md": b"# Alice\n"}
    assert request.json["data"]["flags"] == 64

    # Typed as text in a DM, the file comes as an attachment of the answer.
    await fake.dispatch_message(fake.dm_message(ALICE, "/memory export"))
    (answer,) = await replies(fake, dm_channel(ALICE))
    assert answer["content"] == "Your memory."
    (upload,) = fake.calls("POST", rf"/channels/{dm_channel(ALICE)}/messages$")
    assert upload.files == {"memory.md": b"# Alice\n"}


async def test_bad_arguments_get_the_handlers_usage_text(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    options = [{"type": 3, "name": "arguments", "value": "too many words"}]
    request = await callback(fake, fake.interaction(ALICE, "remind", options))
    assert request.json["data"]["content"] == "Usage: /remind ..."
    assert handler.invocations[-1].args == ("too", "many", "words")

    options = [{"type": 3, "name": "code", "value": "12 34"}]
    request = await callback(fake, fake.interaction(ALICE, "link", options))
    assert request.json["data"]["content"] == "Usage: /link ..."
    assert handler.invocations[-1].args == ("12", "34")

    await fake.dispatch_message(fake.dm_message(ALICE, "/memry list"))
    (reply,) = await replies(fake, dm_channel(ALICE))
    assert reply["content"] == "Usage: /memry ..."
    assert handler.invocations[-1].name == "memry"
    assert handler.messages == []


async def test_autocomplete_offers_the_handlers_choices(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    options = [
        {
            "type": 1,
            "name": "show",
            "options": [{"type": 3, "name": "id", "value": "m_a", "focused": True}],
        }
    ]
    request = await callback(fake, fake.interaction(ALICE, "memory", options, autocomplete=True))
    assert request.json["type"] == 8
    assert [c["value"] for c in request.json["data"]["choices"]] == ["m_aaa", "m_abc"]
    ((invocation, partial),) = handler.completions
    assert (invocation.args, partial) == (("show",), "m_a")


# -- access control and start-up --------------------------------------------------------------


async def test_access_lists_are_enforced(
    fake: FakeDiscord, make_adapter: Callable[..., DiscordAdapter], handler: ScriptedHandler
) -> None:
    settings = Settings(
        access=AccessSettings(allowed_users=[f"discord:{ALICE['id']}", "telegram:5"]),
        discord=DiscordSettings(allowed_guilds=["123"]),
    )
    bot = make_adapter(settings)
    await bot.start()
    try:
        await fake.dispatch_message(fake.dm_message(BOB, "let me in"))
        (refusal,) = await replies(fake, dm_channel(BOB))
        mention = fake.guild_message(ALICE, f"{MENTION} hi", mentions=(BOT_USER,))
        await fake.dispatch_message(mention)  # a server not in allowed_guilds: silence
        await fake.dispatch_message(fake.dm_message(ALICE, "hi"))
        await replies(fake, dm_channel(ALICE))
        request = await callback(fake, fake.interaction(BOB, "memory", subcommand("why")))
    finally:
        await bot.stop()
    assert "not allowed" in refusal["content"]
    assert [(m.user_id, m.is_group) for m in handler.messages] == [(ALICE["id"], False)]
    assert fake.created_messages(GENERAL_ID) == []
    assert "not allowed" in request.json["data"]["content"]
    assert request.json["data"]["flags"] == 64
    assert handler.invocations == []


def test_nobody_allowed_is_detected() -> None:
    only_telegram = Settings(access=AccessSettings(allowed_users=["telegram:5"]))
    assert "nobody" in (AccessPolicy.from_settings(only_telegram).nobody_allowed("discord") or "")
    owner = Settings(access=AccessSettings(allowed_users=["telegram:5"], owners=["discord:7"]))
    assert AccessPolicy.from_settings(owner).nobody_allowed("discord") is None
    assert AccessPolicy.from_settings(Settings()).nobody_allowed("discord") is None


async def test_nobody_allowed_is_said_at_start_up(
    make_adapter: Callable[..., DiscordAdapter], caplog: pytest.LogCaptureFixture
) -> None:
    bot = make_adapter(Settings(access=AccessSettings(allowed_users=["telegram:5"])))
    with caplog.at_level(logging.WARNING, logger="familiars.bot._adapters.discord"):
        await bot.start()
    await bot.stop()
    assert any("nobody may use the bot" in r.getMessage() for r in caplog.records)


async def test_missing_message_content_intent_is_a_clear_start_error(
    make_adapter: Callable[..., DiscordAdapter], fake: FakeDiscord
) -> None:
    fake.close_code_on_identify = 4014
    default_base = Route.BASE
    with pytest.raises(DiscordStartError, match="MESSAGE CONTENT INTENT") as caught:
        await make_adapter().start()
    assert "developers/applications" in str(caught.value)
    assert Route.BASE == default_base == "https://discord.com/api/v10"
    assert str(DiscordWebSocket.DEFAULT_GATEWAY) == "wss://gateway.discord.gg/"


async def test_bad_or_missing_token_is_a_clear_start_error(
    make_adapter: Callable[..., DiscordAdapter],
) -> None:
    with pytest.raises(DiscordStartError, match="DISCORD_BOT_TOKEN"):
        await make_adapter(token="wrong-token").start()
    with pytest.raises(DiscordStartError, match="set DISCORD_BOT_TOKEN"):
        await make_adapter(token="  ").start()


async def test_mentioning_the_bots_role_counts_as_a_mention(
    fake: FakeDiscord, adapter: DiscordAdapter, handler: ScriptedHandler
) -> None:
    text = f"<@&{BOT_ROLE_ID}> are you there?"
    await fake.dispatch_message(fake.guild_message(ALICE, text, mention_roles=(BOT_ROLE_ID,)))
    await replies(fake, GENERAL_ID)
    (message,) = handler.messages
    assert (message.mentions_bot, message.text) == (True, "are you there?")


async def test_slow_command_is_deferred_then_answered_ephemerally(
    fake: FakeDiscord, make_adapter: Callable[..., DiscordAdapter], handler: ScriptedHandler
) -> None:
    bot = make_adapter(command_defer_s=0.0)
    await bot.start()
    handler.gate = asyncio.Event()  # the handler takes longer than command_defer_s
    try:
        interaction = fake.interaction(ALICE, "memory", subcommand("list", category="facts"))
        deferred = await callback(fake, interaction)
        handler.gate.set()
        path = f"/webhooks/{BOT_ID}/{interaction['token']}"
        (follow_up,) = await fake.wait_for(lambda: fake.calls("POST", path))
    finally:
        await bot.stop()
    assert (deferred.json["type"], deferred.json["data"]["flags"]) == (5, 64)
    assert follow_up.json["content"] == "memory list facts"
    assert follow_up.json["flags"] == 64


async def test_stop_lets_a_reply_in_progress_finish(
    fake: FakeDiscord, make_adapter: Callable[..., DiscordAdapter], handler: ScriptedHandler
) -> None:
    bot = make_adapter()
    await bot.start()
    handler.gate = asyncio.Event()
    await fake.dispatch_message(fake.dm_message(ALICE, "take your time"))
    await fake.wait_for(lambda: handler.messages)
    stopping = asyncio.create_task(bot.stop())
    for _ in range(20):  # let stop() run as far as it can
        await asyncio.sleep(0)
    assert not stopping.done()
    handler.gate.set()
    await stopping
    (reply,) = fake.created_messages(dm_channel(ALICE))
    assert reply["content"] == "echo: take your time"


def test_from_env_needs_the_configured_token_variable(handler: ScriptedHandler) -> None:
    settings = Settings(discord=DiscordSettings(token_env="MY_DISCORD"))
    assert DiscordAdapter.from_env(handler, settings, {"DISCORD_BOT_TOKEN": "x"}) is None
    assert DiscordAdapter.from_env(handler, settings, {"MY_DISCORD": " "}) is None
    assert isinstance(
        DiscordAdapter.from_env(handler, settings, {"MY_DISCORD": "t"}), DiscordAdapter
    )


# -- with the real DialogueManager (offline mode) ---------------------------------------------


if TYPE_CHECKING:
    from familiars.bot import Application


@pytest.fixture
async def app(workspace: Path) -> AsyncIterator[Application]:
    # Imported here so the adapter tests above do not depend on the whole runtime importing.
    from tests.harness import make_app

    settings = load_settings(workspace=workspace)
    application = make_app(settings, model=None)
    async with application:
        yield application


@pytest.fixture
async def live(fake: FakeDiscord, app: Application) -> AsyncIterator[DiscordAdapter]:
    assert app.dialogues is not None
    bot = DiscordAdapter(
        app.dialogues,
        app.settings,
        fake.token,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
        guild_ready_timeout_s=0.05,
    )
    await bot.start()
    yield bot
    await bot.stop()


async def test_live_a_fact_told_in_a_dm_is_used_later_and_kept_from_others(
    fake: FakeDiscord, live: DiscordAdapter, app: Application
) -> None:
    await fake.dispatch_message(fake.dm_message(ALICE, "My name is Alice and I love hiking."))
    await replies(fake, dm_channel(ALICE))
    await app.settle()
    await fake.dispatch_message(fake.dm_message(ALICE, "What is my name?"))
    later = await replies(fake, dm_channel(ALICE), 2)
    assert "name is Alice" in later[-1]["content"]
    mine = await callback(fake, fake.interaction(ALICE, "memory", subcommand("list")))
    listed = re.findall(r"`(m_[0-9a-z]+)` \[\w+\] (.+)", mine.json["data"]["content"])
    assert listed
    record_id = listed[0][0]
    secrets = [part for pair in listed for part in pair]  # ids and contents

    # Bob, in the server, asks and tries every command: nothing of Alice's comes back.
    question = f"{MENTION} what is the name of the person who spoke to you before me?"
    await fake.dispatch_message(fake.guild_message(BOB, question, mentions=(BOT_USER,)))
    (to_bob,) = await replies(fake, GENERAL_ID)
    answers = [to_bob["content"]]
    for options in [
        subcommand("list"),
        subcommand("search", query="name Alice"),
        subcommand("show", id=record_id),
        subcommand("forget", id=record_id, confirm="confirm"),
        subcommand("export"),
        subcommand("why"),
    ]:
        request = await callback(fake, fake.interaction(BOB, "memory", options, in_guild=True))
        assert request.json["data"]["flags"] == 64
        answers.append(request.json["data"].get("content") or "")
        answers += [data.decode() for data in request.files.values()]
    leaks = [(a, secret) for a in answers for secret in secrets if secret in a]
    assert leaks == []
    assert not any("hiking" in a.lower() for a in answers)

    # Alice herself still has it and sees it, privately, in the same server.
    in_server = fake.interaction(ALICE, "memory", subcommand("list"), in_guild=True)
    request = await callback(fake, in_server)
    assert request.json["data"]["flags"] == 64
    assert record_id in request.json["data"]["content"]


# -- the reply stream on its own --------------------------------------------------------------


class MemorySink:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.shown: list[str] = []
        self.writes: list[float] = []

    async def send(self, text: str) -> int:
        self.shown.append(text)
        self.writes.append(self.clock.t)
        return len(self.shown) - 1

    async def edit(self, message: int, text: str) -> None:
        self.shown[message] = text
        self.writes.append(self.clock.t)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1.5),
            st.text(st.sampled_from("ab \n`"), max_size=700) | st.just("\n```py\n"),
        ),
        max_size=25,
    )
)
async def test_reply_stream_shows_exactly_the_split_text_and_keeps_its_pace(
    steps: list[tuple[float, str]],
) -> None:
    clock = Clock()
    sink = MemorySink(clock)
    stream: ReplyStream[int] = ReplyStream(sink, limit=300, min_interval_s=1.0, clock=clock)
    pushes: list[float] = []
    for advance, delta in steps:
        clock.t += advance
        before = len(sink.writes)
        await stream.feed(delta)
        if len(sink.writes) > before:
            pushes.append(clock.t)
    await stream.finish()
    text = "".join(delta for _, delta in steps)
    assert sink.shown == (split_message(text, 300) if text.strip() else [])
    assert all(b - a >= 1.0 for a, b in zip(pushes, pushes[1:], strict=False))


async def test_endpoints_can_come_from_settings(
    fake: FakeDiscord, handler: ScriptedHandler
) -> None:
    discord = DiscordSettings(api_base=fake.api_base, gateway_url=fake.gateway_url)
    bot = DiscordAdapter(handler, Settings(discord=discord), fake.token, guild_ready_timeout_s=0.05)
    await bot.start()
    try:
        assert await bot.send(str(GENERAL_ID), "hello from settings")
    finally:
        await bot.stop()
    assert fake.created_messages(GENERAL_ID)[0]["content"] == "hello from settings"
    assert Route.BASE == "https://discord.com/api/v10"


@pytest.mark.slow
async def test_the_runtime_starts_discord_when_its_token_is_set(
    fake: FakeDiscord, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.harness import make_app

    monkeypatch.setenv("DISCORD_BOT_TOKEN", fake.token)
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    settings = load_settings(workspace=workspace)
    discord = DiscordSettings(api_base=fake.api_base, gateway_url=fake.gateway_url)
    settings = settings.model_copy(update={"discord": discord})
    application = make_app(settings, model=None, platforms=True)
    async with application:
        await fake.dispatch_message(fake.dm_message(ALICE, "Hello, I am Alice."))
        (reply,) = await replies(fake, dm_channel(ALICE))
    assert "Offline mode" in reply["content"]
    assert fake.identifies == 1


async def test_refused_slash_commands_do_not_stop_the_bot(
    fake: FakeDiscord, make_adapter: Callable[..., DiscordAdapter], caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail("PUT", r"/applications/\d+/commands$", 400, body={"message": "bad", "code": 50035})
    bot = make_adapter()
    with caplog.at_level(logging.ERROR, logger="familiars.bot._adapters.discord"):
        await bot.start()
    try:
        await fake.dispatch_message(fake.dm_message(ALICE, "still there?"))
        (reply,) = await replies(fake, dm_channel(ALICE))
    finally:
        await bot.stop()
    assert reply["content"] == "echo: still there?"
    assert any("could not be registered" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("owner", ["bare", "prefixed"])
async def test_an_owner_by_bare_or_prefixed_id_passes_the_allow_list(
    owner: str,
    fake: FakeDiscord,
    make_adapter: Callable[..., DiscordAdapter],
    handler: ScriptedHandler,
) -> None:
    alice = ALICE["id"] if owner == "bare" else f"discord:{ALICE['id']}"
    settings = Settings(access=AccessSettings(owners=[alice], allowed_users=["discord:1"]))
    bot = make_adapter(settings)
    await bot.start()
    try:
        assert bot.access.is_owner("discord", ALICE["id"])
        await fake.dispatch_message(fake.dm_message(ALICE, "hi"))
        (answer,) = await replies(fake, dm_channel(ALICE))
    finally:
        await bot.stop()
    assert answer["content"] == "echo: hi"


# -- /find sends the file ------------------------------------------------------------------


FOUND_PDF = b"%PDF-1.4 the lease"


async def _found(invocation: CommandInvocation) -> CommandResponse:
    return CommandResponse(
        "1. lease.pdf, page 2\n   \u201crent is due on the first\u201d",
        file_name="lease.pdf",
        file_data=FOUND_PDF,
        file_path="/ws/users/alice/files/lease.pdf",
    )


async def test_find_sends_the_file_as_an_attachment(
    fake: FakeDiscord,
    adapter: DiscordAdapter,
    handler: ScriptedHandler,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(handler, "command", _found)
    query = [{"type": 3, "name": "query", "value": "the lease"}]
    request = await callback(fake, fake.interaction(ALICE, "find", query))
    assert request.files == {"lease.pdf": FOUND_PDF}
    assert "rent is due" in request.json["data"]["content"]


async def test_find_names_a_file_over_discords_limit_instead_of_sending_it(
    fake: FakeDiscord,
    adapter: DiscordAdapter,
    handler: ScriptedHandler,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from familiars.bot._adapters.discord import _sending

    monkeypatch.setattr(handler, "command", _found)
    monkeypatch.setattr(_sending, "FILE_LIMIT", len(FOUND_PDF) - 1)
    query = [{"type": 3, "name": "query", "value": "the lease"}]
    request = await callback(fake, fake.interaction(ALICE, "find", query))
    assert request.files == {}
    content = request.json["data"]["content"]
    assert "rent is due" in content and "more than Discord takes" in content
    assert "/ws/users/alice/files/lease.pdf" in content
