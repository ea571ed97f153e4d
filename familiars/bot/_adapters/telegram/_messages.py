"""The conversation: incoming messages -> access check -> a command or ``handler.respond`` ->
streamed replies, each chat (forum topic) in its own lane.

Private chats are always answered; groups only on a mention, a reply to the bot, or a
command. A reply shows the typing action, is streamed by editing at most once per
``edit_interval_s`` and split at 4,096 characters. Attachments are handed over with their
bytes (up to ``files.max_file_mb``), so the handler never needs the token-bearing file URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Message

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    Attachment,
    IncomingMessage,
    TurnHandler,
    closing_reply,
)
from familiars.bot._adapters.telegram._access import allows
from familiars.bot._adapters.telegram._convert import (
    is_command,
    is_group,
    parse_command,
    should_answer,
    thread_id,
    to_incoming,
)
from familiars.bot._adapters.telegram._errors import TelegramSendError
from familiars.bot._adapters.telegram._inflight import ChatLanes
from familiars.bot._adapters.telegram._layout import CommandMenu
from familiars.bot._adapters.telegram._retry import Clock, Sleep
from familiars.bot._adapters.telegram._sending import Sender
from familiars.bot._adapters.telegram._slash import CommandAnswers
from familiars.bot._adapters.telegram._stream import ReplyStream
from familiars.bot._adapters.telegram._webhook import Receipt
from familiars.bot._errors import SOMETHING_WENT_WRONG

logger = logging.getLogger(__name__)

TYPING_EVERY_S = 4.5  # Telegram shows a chat action for about five seconds
SORRY = SOMETHING_WENT_WRONG
NOT_ALLOWED = "Sorry, I'm not allowed to talk with you here."


@dataclass
class Me:
    """Who the bot is on Telegram and what its menu holds; filled in at start."""

    bot_id: int = 0
    username: str = ""
    menu: CommandMenu = dataclasses.field(default_factory=CommandMenu)


@dataclass(frozen=True)
class Pacing:
    clock: Clock
    sleep: Sleep
    edit_interval_s: float
    max_file_bytes: int


class TelegramTurns:
    def __init__(
        self,
        handler: TurnHandler,
        access: AccessPolicy,
        *,
        me: Me,
        sender: Sender,
        lanes: ChatLanes,
        pacing: Pacing,
        on_turn_done: Callable[[IncomingMessage], None] | None = None,
    ) -> None:
        self._handler = handler
        self._access = access
        self._me = me
        self._sender = sender
        self._lanes = lanes
        self._pacing = pacing
        self._on_turn_done = on_turn_done
        self._answers = CommandAnswers(
            handler, sender, menu=lambda: me.menu, username=lambda: me.username
        )
        self._background: set[asyncio.Future[None]] = set()

    def receive(
        self, message: Message, receipt: Receipt | None = None
    ) -> asyncio.Future[None] | None:
        """Queue what ``message`` asks for in its chat's lane (or nothing); the future is
        done once it was handled. ``receipt`` (webhook mode): told the moment the answer
        went out; a silent one's turn runs without sending."""
        if message.from_user is None or message.from_user.is_bot:
            return None
        key = (str(message.chat_id), thread_id(message))
        if not allows(self._access, message):
            return self._lanes.submit(key, lambda: self._refuse(message))
        invocation = parse_command(message, self._me.username, self._me.menu.known)
        if invocation is not None:  # answered once too (the same receipt as a message)
            return self._lanes.submit(key, lambda: self._answers.run(invocation, receipt))
        if is_command(message):
            return None  # a command for another bot, or an unknown one not addressed to us
        incoming = to_incoming(message, self._me.bot_id, self._me.username)
        if should_answer(incoming) and (incoming.text.strip() or incoming.attachments):
            return self._lanes.submit(key, lambda: self._run_turn(incoming, receipt))
        return None

    async def drain(self, timeout: float) -> None:
        """Wait (up to ``timeout``) for the typing loops still running."""
        if self._background:
            await asyncio.wait(set(self._background), timeout=timeout)

    async def _refuse(self, message: Message) -> None:
        logger.info(
            "Telegram: ignoring user %s in chat %s (access)", message.from_user, message.chat_id
        )
        if not is_group(message):
            with contextlib.suppress(TelegramSendError):
                await self._sender.text(str(message.chat_id), NOT_ALLOWED)

    async def _run_turn(self, incoming: IncomingMessage, receipt: Receipt | None = None) -> None:
        # The typing loop is told to stop rather than cancelled: cancelling a request in
        # flight would close its pooled connection.
        typing_done = asyncio.Event()
        self._spawn(self._keep_typing(incoming.chat_id, incoming.thread_id, typing_done))
        try:
            incoming = await self._with_file_data(incoming)
            await self._stream_reply(incoming, receipt)
        except Exception:
            # Reported here, with the message that caused it; the person gets a short apology
            # instead of silence.
            logger.exception(
                "Telegram: handler failed on message %s in chat %s",
                incoming.message_id,
                incoming.chat_id,
            )
            if receipt is None or not receipt.silent:  # answered before: not even a sorry
                with contextlib.suppress(TelegramSendError):
                    await self._sender.text(incoming.chat_id, SORRY, thread_id=incoming.thread_id)
        finally:
            typing_done.set()
            if self._on_turn_done is not None:
                self._on_turn_done(incoming)

    async def _with_file_data(self, incoming: IncomingMessage) -> IncomingMessage:
        if not incoming.attachments:
            return incoming
        fetched = [await self._fetch(a) for a in incoming.attachments]
        return dataclasses.replace(incoming, attachments=tuple(fetched))

    async def _fetch(self, attachment: Attachment) -> Attachment:
        if attachment.data is not None or (attachment.size or 0) > self._pacing.max_file_bytes:
            return attachment
        try:
            data = await self._sender.download(attachment)
        except TelegramSendError as exc:
            logger.info("Telegram: could not fetch %s: %s", attachment.filename, exc)
            return attachment
        return dataclasses.replace(attachment, data=data, size=len(data))

    def _stream_for(self, incoming: IncomingMessage) -> ReplyStream:
        reply_to = incoming.message_id if incoming.is_group else None

        async def send(piece: str, first: bool) -> int:
            return await self._sender.text(
                incoming.chat_id,
                piece,
                thread_id=incoming.thread_id,
                reply_to=reply_to if first else None,
            )

        async def edit(message_id: int, piece: str) -> None:
            await self._sender.edit(incoming.chat_id, message_id, piece)

        p = self._pacing
        return ReplyStream(send, edit, clock=p.clock, sleep=p.sleep, interval=p.edit_interval_s)

    async def _stream_reply(self, incoming: IncomingMessage, receipt: Receipt | None) -> None:
        if receipt is not None and receipt.silent:  # answered by a worker that then died
            async with closing_reply(self._handler.respond(incoming)) as deltas:
                async for _ in deltas:
                    pass
            logger.info(
                "Telegram: message %s answered before; its turn ran again, silent",
                incoming.message_id,
            )
            return
        stream = self._stream_for(incoming)
        broken: TelegramSendError | None = None
        async with closing_reply(self._handler.respond(incoming)) as deltas:
            async for delta in deltas:
                if broken is None:
                    broken = await _capture(stream.add(delta))
        if broken is None:
            broken = await _capture(stream.finish())
        if broken is None and stream.message_ids and receipt is not None:
            # The whole answer is shown (its first piece is not the answer: a worker killed
            # mid-stream leaves the update to be answered again, not a fragment as its
            # answer); said before anything else.
            await receipt.sent()
        if broken is not None:
            # The handler ran to the end, so the dialogue holds the full reply; only the
            # delivery failed.
            logger.error(
                "Telegram: reply to message %s in chat %s not delivered: %s",
                incoming.message_id,
                incoming.chat_id,
                broken,
            )

    async def _keep_typing(self, chat_id: str, thread: str | None, done: asyncio.Event) -> None:
        while not done.is_set():
            await self._sender.typing(chat_id, thread)
            with contextlib.suppress(TimeoutError):  # not wait_for: it can drop a cancel
                async with asyncio.timeout(TYPING_EVERY_S):
                    await done.wait()

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


async def _capture(step: Awaitable[None]) -> TelegramSendError | None:
    try:
        await step
    except TelegramSendError as exc:
        return exc
    return None
