"""DiscordAdapter: builds the discord.py bot, connects it, and sends proactive messages."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

import aiohttp
import discord
import yarl
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import PlatformAdapter, TurnHandler, split_message
from familiars.bot._adapters.discord._errors import (
    MESSAGE_CONTENT_INTENT_HELP,
    DiscordSendError,
    DiscordStartError,
)
from familiars.bot._adapters.discord._inflight import InFlight
from familiars.bot._adapters.discord._messages import DiscordTurns, SentMessages
from familiars.bot._adapters.discord._retry import RetryPolicy, Sleep
from familiars.bot._adapters.discord._sending import LIMIT, ChannelSink
from familiars.bot._adapters.discord._slash import SlashCommands
from familiars.config import DiscordSettings, Settings

logger = logging.getLogger(__name__)


class _Endpoints:
    """Points discord.py's REST base and gateway URL elsewhere (a test server) while the
    adapter runs; both are class attributes in discord.py, restored on stop."""

    def __init__(self, api_base: str | None, gateway_url: str | None) -> None:
        self._saved: tuple[str, yarl.URL] | None = None
        self._api_base = api_base
        self._gateway_url = gateway_url

    def apply(self) -> None:
        self._saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        if self._api_base is not None:
            Route.BASE = self._api_base.rstrip("/")
        if self._gateway_url is not None:
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self._gateway_url)

    def restore(self) -> None:
        if self._saved is not None:
            Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None


class _Familiar:
    """What the familiar's bot adds to discord.py's, sharded or not: its cogs come from the
    adapter in ``setup_hook``, and no prefix commands (the DiscordTurns cog listens)."""

    _adapter: DiscordAdapter

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        self._adapter = adapter
        super().__init__(  # type: ignore[call-arg]  # discord.py's Bot, after this mixin
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=intents,
            allowed_mentions=discord.AllowedMentions.none(),
            **options,
        )

    async def setup_hook(self) -> None:
        await self._adapter._setup(self)  # type: ignore[arg-type]

    async def on_message(self, message: discord.Message, /) -> None:
        """No prefix commands: the DiscordTurns cog listens instead."""


class _FamiliarsBot(_Familiar, commands.Bot):
    pass


class _ShardedFamiliarsBot(_Familiar, commands.AutoShardedBot):
    """Several gateway connections (``discord.shard_ids`` of ``shard_count``); discord.py
    routes each guild's events to its shard."""


def build_bot(adapter: DiscordAdapter, settings: DiscordSettings, **options: Any) -> commands.Bot:
    """One connection, or the shards the settings name (all of ``shard_count`` when no
    ``shard_ids``): the settings were checked when read (ids in range, no repeats)."""
    if settings.shard_count is None:
        return _FamiliarsBot(adapter, **options)
    sharded = _ShardedFamiliarsBot(
        adapter, shard_count=settings.shard_count, shard_ids=settings.shard_ids, **options
    )
    # AutoShardedBot is BotBase over AutoShardedClient, not a subclass of Bot (BotBase over
    # Client), but it offers all the adapter uses of one.
    return cast(commands.Bot, sharded)


class DiscordAdapter(PlatformAdapter):
    name = "discord"

    def __init__(
        self,
        handler: TurnHandler,
        settings: Settings,
        token: str,
        *,
        access: AccessPolicy | None = None,
        api_base: str | None = None,
        gateway_url: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        retry: RetryPolicy | None = None,
        ready_timeout_s: float = 60.0,
        stop_timeout_s: float = 30.0,
        guild_ready_timeout_s: float = 2.0,
        command_defer_s: float = 2.0,
    ) -> None:
        super().__init__(handler, access or AccessPolicy.from_settings(settings))
        self.settings = settings
        self._token = token.strip()
        self._endpoints = _Endpoints(
            api_base or settings.discord.api_base, gateway_url or settings.discord.gateway_url
        )
        self._clock = clock
        self._sleep = sleep
        self._retry = retry or RetryPolicy()
        self._ready_timeout_s = ready_timeout_s
        self._stop_timeout_s = stop_timeout_s
        self._guild_ready_timeout_s = guild_ready_timeout_s
        self._command_defer_s = command_defer_s
        self._in_flight = InFlight()
        self._sent = SentMessages()
        self._bot: commands.Bot | None = None
        self._connection: asyncio.Task[None] | None = None

    @classmethod
    def from_env(
        cls,
        handler: TurnHandler,
        settings: Settings,
        environ: Mapping[str, str] = os.environ,
        **options: Any,
    ) -> DiscordAdapter | None:
        """The adapter when the variable ``settings.discord.token_env`` holds a token."""
        token = environ.get(settings.discord.token_env, "").strip()
        return cls(handler, settings, token, **options) if token else None

    @property
    def bot(self) -> commands.Bot:
        if self._bot is None:
            raise RuntimeError("the Discord adapter is not started")
        return self._bot

    @property
    def connection(self) -> asyncio.Task[None] | None:
        """The task running the gateway connection (for the runtime to watch)."""
        return self._connection

    async def start(self) -> None:
        """Log in, register the slash commands and connect; returns once the bot is ready.
        Raises :class:`DiscordStartError` with what to do when that is impossible."""
        if not self._token:
            env = self.settings.discord.token_env
            raise DiscordStartError(f"no Discord bot token: set {env} to the bot's token")
        if reason := self.nobody_allowed():
            logger.warning("Discord: %s", reason)
        self._endpoints.apply()
        self._bot = build_bot(
            self, self.settings.discord, guild_ready_timeout=self._guild_ready_timeout_s
        )
        try:
            await self._log_in(self._bot)
            await self._connect(self._bot)
        except BaseException:
            await self._close()
            raise
        assert self.bot.user is not None
        logger.info("Discord: connected as %s (%s)", self.bot.user, self.bot.user.id)

    async def _log_in(self, bot: commands.Bot) -> None:
        try:
            await bot.login(self._token)
        except discord.LoginFailure as exc:
            env = self.settings.discord.token_env
            raise DiscordStartError(f"Discord rejected the bot token in {env}: {exc}") from exc
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            raise DiscordStartError(f"could not log in to Discord: {exc}") from exc

    async def _connect(self, bot: commands.Bot) -> None:
        self._connection = asyncio.create_task(bot.connect(reconnect=True), name="discord-gateway")
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._connection, ready},
            timeout=self._ready_timeout_s,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if ready not in done:
            ready.cancel()
            if self._connection in done:
                raise _start_error(self._connection.exception())
            raise DiscordStartError(
                f"Discord did not get ready within {self._ready_timeout_s:.0f}s"
            )
        self._connection.add_done_callback(_log_connection_end)

    async def _setup(self, bot: commands.Bot) -> None:
        """discord.py's ``setup_hook``: add the cogs, sync the slash commands."""
        conversation = DiscordTurns(
            bot,
            self.handler,
            self.access,
            always_answer=frozenset(self.settings.discord.always_answer_channels),
            sent=self._sent,
            retry=self._retry,
            sleep=self._sleep,
            clock=self._clock,
            in_flight=self._in_flight,
        )
        slash = SlashCommands(
            bot,
            self.handler,
            self.access,
            retry=self._retry,
            sleep=self._sleep,
            in_flight=self._in_flight,
            defer_after_s=self._command_defer_s,
        )
        await bot.add_cog(conversation)
        await bot.add_cog(slash)
        if self.settings.discord.sync_commands:
            await _sync_commands(bot)

    async def stop(self) -> None:
        """Finish the replies in progress (up to ``stop_timeout_s``), then disconnect."""
        await self._in_flight.drain(self._stop_timeout_s)
        await self._close()

    async def _close(self) -> None:
        if self._bot is not None and not self._bot.is_closed():
            await self._bot.close()
        if self._connection is not None:
            await asyncio.wait({self._connection}, timeout=self._stop_timeout_s)
            self._connection = None
        self._endpoints.restore()

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        """Send a message the familiar starts itself (to a thread when ``thread_id`` is
        given); returns the id of the first message. Raises :class:`DiscordSendError`."""
        target = thread_id or chat_id
        if not target.isdigit():
            raise ValueError(f"not a Discord channel id: {target!r}")
        pieces = split_message(text, LIMIT)
        if not pieces:
            raise ValueError("refusing to send an empty message")
        channel = self.bot.get_partial_messageable(int(target))
        sink = ChannelSink(channel, policy=self._retry, sleep=self._sleep, remember=self._sent.add)
        ids = [(await sink.send(piece)).id for piece in pieces]
        return str(ids[0])


async def _sync_commands(bot: commands.Bot) -> None:
    """Register the slash commands; if Discord refuses them the bot still converses."""
    try:
        synced = await bot.tree.sync()
    except discord.HTTPException as exc:
        logger.error("Discord: the slash commands could not be registered: %s", exc)
        return
    logger.info("Discord: %d slash command(s) registered", len(synced))


def _start_error(exc: BaseException | None) -> BaseException:
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return DiscordStartError(MESSAGE_CONTENT_INTENT_HELP)
    if isinstance(exc, discord.ConnectionClosed):
        return DiscordStartError(f"Discord closed the gateway connection (code {exc.code})")
    if isinstance(exc, (discord.DiscordException, aiohttp.ClientError, OSError)):
        return DiscordStartError(f"could not connect to Discord's gateway: {exc}")
    return exc or DiscordStartError("the Discord gateway connection ended at start-up")


def _log_connection_end(task: asyncio.Task[None]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        error = _start_error(exc)
        logger.error("Discord: the gateway connection ended: %s", error, exc_info=exc)


__all__ = ["DiscordAdapter", "DiscordSendError", "DiscordStartError"]
