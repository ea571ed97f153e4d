"""The conversation cog: incoming messages -> ``handler.respond`` -> streamed replies."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

import discord
from discord.ext import commands

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    CommandInvocation,
    IncomingMessage,
    TurnHandler,
    closing_reply,
)
from familiars.bot._adapters.discord._access import allows
from familiars.bot._adapters.discord._convert import (
    PLATFORM,
    is_text_command,
    message_place,
    parse_text_command,
    should_answer,
    to_incoming,
)
from familiars.bot._adapters.discord._errors import DiscordSendError
from familiars.bot._adapters.discord._inflight import InFlight
from familiars.bot._adapters.discord._retry import RetryPolicy, Sleep
from familiars.bot._adapters.discord._sending import (
    LIMIT,
    ChannelSink,
    send_command_response,
    typing,
)
from familiars.bot._adapters.discord._stream import ReplyStream

logger = logging.getLogger(__name__)

NOT_ALLOWED = "Sorry, you are not allowed to use this bot."
APOLOGY = "Sorry, something went wrong while answering. Please try again."
_ANSWERED_TYPES = (discord.MessageType.default, discord.MessageType.reply)


class SentMessages:
    """Ids of the bot's recent messages, so a reply to one is known without a lookup."""

    def __init__(self, keep: int = 5000) -> None:
        self._order: deque[int] = deque()
        self._ids: set[int] = set()
        self._keep = keep

    def add(self, message_id: int) -> None:
        self._order.append(message_id)
        self._ids.add(message_id)
        while len(self._order) > self._keep:
            self._ids.discard(self._order.popleft())

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._ids)


class DiscordTurns(commands.Cog):
    def __init__(
        self,
        bot: commands.Bot,
        handler: TurnHandler,
        access: AccessPolicy,
        *,
        always_answer: frozenset[str],
        sent: SentMessages,
        retry: RetryPolicy,
        sleep: Sleep,
        clock: Callable[[], float],
        in_flight: InFlight,
        edit_interval_s: float = 1.0,
    ) -> None:
        self.bot = bot
        self._handler = handler
        self._access = access
        self._always_answer = always_answer
        self._sent = sent
        self._retry = retry
        self._sleep = sleep
        self._clock = clock
        self._edit_interval_s = edit_interval_s
        self._in_flight = in_flight

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        me = self.bot.user
        if not self._in_flight.accepting or me is None or message.author.bot:
            return
        if message.type not in _ANSWERED_TYPES:
            return
        incoming = to_incoming(message, me.id, self._sent)
        if not (incoming.text or incoming.attachments):
            return
        if not should_answer(incoming, self._always_answer):
            return
        with self._in_flight.track():
            await self._handle(message, incoming)

    async def _handle(self, message: discord.Message, incoming: IncomingMessage) -> None:
        place = message_place(message)
        if not allows(self._access, incoming.user_id, place):
            logger.info("ignoring message from user %s (not allowed)", incoming.user_id)
            if not incoming.is_group:
                await self._deliver_quietly(self._sink(message, reply=False).send(NOT_ALLOWED))
            return
        if is_text_command(incoming):
            await self._run_text_command(message, incoming)
        else:
            await self._answer(message, incoming)

    def _sink(self, message: discord.Message, *, reply: bool) -> ChannelSink:
        reference = message.to_reference(fail_if_not_exists=False) if reply else None
        return ChannelSink(
            message.channel,
            policy=self._retry,
            sleep=self._sleep,
            remember=self._sent.add,
            reference=reference,
        )

    async def _answer(self, message: discord.Message, incoming: IncomingMessage) -> None:
        sink = self._sink(message, reply=incoming.is_group)
        stream: ReplyStream[discord.Message] = ReplyStream(
            sink, limit=LIMIT, min_interval_s=self._edit_interval_s, clock=self._clock
        )
        async with typing(message.channel):
            delivering = True
            try:
                async with closing_reply(self._handler.respond(incoming)) as deltas:
                    async for delta in deltas:
                        # After a failed send keep consuming: the handler finishes its turn.
                        delivering = delivering and await self._deliver_quietly(stream.feed(delta))
            except Exception:  # the person gets an apology; the cause goes to the log
                logger.exception("answering message %s failed", incoming.message_id)
                await self._deliver_quietly(stream.finish())
                await self._deliver_quietly(sink.send(APOLOGY))
                return
            if delivering:
                await self._deliver_quietly(stream.finish())

    async def _run_text_command(self, message: discord.Message, incoming: IncomingMessage) -> None:
        name, args = parse_text_command(incoming.text)
        invocation = CommandInvocation(
            platform=PLATFORM,
            chat_id=incoming.chat_id,
            user_id=incoming.user_id,
            display_name=incoming.display_name,
            name=name,
            args=args,
            is_group=incoming.is_group,
            thread_id=incoming.thread_id,
            ts=incoming.ts,
        )
        sink = self._sink(message, reply=False)
        try:
            response = await self._handler.command(invocation)
        except Exception:  # the person gets an apology; the cause goes to the log
            logger.exception("command /%s failed", name)
            await self._deliver_quietly(sink.send(APOLOGY))
            return
        await self._deliver_quietly(send_command_response(sink, response))

    @staticmethod
    async def _deliver_quietly(sending: object) -> bool:
        """Await a send; a send that failed for good was logged by the retry loop."""
        try:
            await sending  # type: ignore[misc]
        except DiscordSendError:
            return False
        return True
