"""Telegram adapter on python-telegram-bot.

Long-polls the Bot API (``settings.telegram.base_url`` for a self-hosted server), turns private
and group messages into :class:`IncomingMessage` / :class:`CommandInvocation`, and renders
what the :class:`TurnHandler` returns:

- private chats are always answered; groups only on a mention, a reply to the bot, or a
  command (what privacy mode lets through anyway);
- each chat (forum topic) is a lane: its messages are handled strictly in order, different
  chats concurrently (``max_concurrent_turns``);
- a reply shows the typing action, is streamed by editing at most once per
  ``edit_interval_s`` and split at 4,096 characters;
- command answers marked private go to the person's private chat; in a group the group only
  hears that the answer was sent (or that they must start a private chat with the bot first);
- flood control is python-telegram-bot's ``AIORateLimiter`` (a 429 waits ``retry_after``);
  network and 5xx errors on send are retried with exponential backoff, then logged and
  raised as :class:`TelegramSendError`.

Incoming updates are confirmed to Telegram only by the next ``getUpdates`` offset, so a
dropped poll loses nothing: the same updates come again.

Attachments carry ``url="tg-file:<file_id>"`` and, when the bot answers the message, their
bytes in ``data`` (up to ``files.max_file_mb``); :meth:`TelegramAdapter.download` fetches
them (the real file URL contains the bot token, so it never leaves the adapter).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from telegram import (
    Bot,
    BotCommand,
    Message,
    MessageEntity,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatAction, ChatType, MessageEntityType
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    TelegramError,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackContext,
    CallbackQueryHandler,
    MessageHandler,
    filters,
)

from familiars.bot._adapters.base import (
    Attachment,
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
    PlatformAdapter,
    TurnHandler,
    split_message,
)
from familiars.config import AccessSettings, Settings, TelegramSettings

logger = logging.getLogger(__name__)

PLATFORM = "telegram"
MESSAGE_LIMIT = 4096
CAPTION_LIMIT = 1024
FILE_URL_PREFIX = "tg-file:"
TYPING_EVERY_S = 4.5  # Telegram shows a chat action for about five seconds
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
#: Commands whose answers are private whatever the handler says.
_ALWAYS_PRIVATE = frozenset({"memory", "link"})

T = TypeVar("T")
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
Job = Callable[[], Awaitable[None]]

START_PRIVATE_FIRST = (
    "I can only answer that in a private chat. Open a chat with @{username}, press Start, "
    "and send the command there."
)
SENT_PRIVATELY = "I've answered you in a private chat."
SORRY = "Sorry, something went wrong on my side. Please try again in a moment."
NOT_ALLOWED = "Sorry, I'm not allowed to talk with you here."


class TelegramAdapterError(RuntimeError):
    """Base of this adapter's errors."""


class TelegramStartError(TelegramAdapterError):
    """The bot could not start (bad token, server unreachable)."""


class TelegramSendError(TelegramAdapterError):
    """A send that failed for good (after retries, or one that retrying cannot fix)."""

    def __init__(
        self, message: str, *, unreachable: bool = False, migrated_to: int | None = None
    ) -> None:
        super().__init__(message)
        #: True when Telegram refuses to deliver to that chat at all (the person never
        #: started the bot, blocked it, or the chat does not exist).
        self.unreachable = unreachable
        #: The group's new id when it was upgraded to a supergroup.
        self.migrated_to = migrated_to


# ---------------------------------------------------------------------- access control


def _matches(entries: Iterable[str], value: str) -> bool:
    """Entries are "telegram:<id>" or a bare "<id>"; other platforms' entries never match."""
    return any(e == f"{PLATFORM}:{value}" or e == value for e in entries)


def _telegram_entries(entries: Iterable[str]) -> list[str]:
    return [e for e in entries if e.startswith(f"{PLATFORM}:") or ":" not in e]


def is_allowed(access: AccessSettings, user_id: str, chat_id: str, *, is_group: bool) -> bool:
    """Owners always; otherwise the user must be listed (or the list empty) and, in a group,
    the chat must be listed (or the list empty). Private chats ignore the chat list."""
    if _matches(access.owners, user_id):
        return True
    if access.allowed_users and not _matches(access.allowed_users, user_id):
        return False
    return not (is_group and access.allowed_chats and not _matches(access.allowed_chats, chat_id))


def nobody_allowed(access: AccessSettings) -> bool:
    """True when the allow lists shut every Telegram user out."""
    if _telegram_entries(access.owners):
        return False
    return bool(access.allowed_users) and not _telegram_entries(access.allowed_users)


# ---------------------------------------------------------------------- reading updates


def parse_command(
    message: Message, bot_username: str, known: Iterable[str] = ()
) -> CommandInvocation | None:
    """``/name@bot args`` as a :class:`CommandInvocation`; None when the message is not a
    command, or is one for another bot, or (in a group) an unknown one not addressed to us."""
    if not _is_command(message):
        return None
    text = message.text or ""
    entities = message.entities
    head = text[1 : entities[0].length]
    name, _, addressee = head.partition("@")
    name = name.lower()
    if addressee and addressee.lower() != bot_username.lower():
        return None
    group = _is_group(message)
    if group and not addressee and name not in set(known):
        return None
    if name == "start" and not text[entities[0].length :].strip():
        name = "help"
    user = message.from_user
    return CommandInvocation(
        platform=PLATFORM,
        chat_id=str(message.chat_id),
        user_id=str(user.id) if user else "",
        display_name=_display_name(message),
        name=name,
        args=tuple(text[entities[0].length :].split()),
        is_group=group,
        thread_id=_thread_id(message),
        ts=message.date,
    )


def to_incoming(message: Message, bot_id: int, bot_username: str) -> IncomingMessage:
    """The platform-neutral view of a text or media message."""
    reply = message.reply_to_message
    if reply is not None and reply.forum_topic_created is not None:
        reply = None  # in a forum topic every message "replies" to the topic's first message
    reply_from = reply.from_user if reply else None
    user = message.from_user
    return IncomingMessage(
        platform=PLATFORM,
        chat_id=str(message.chat_id),
        user_id=str(user.id) if user else "",
        display_name=_display_name(message),
        text=_strip_leading_mention(message.text or message.caption or "", bot_username),
        thread_id=_thread_id(message),
        message_id=str(message.message_id),
        attachments=attachments_of(message),
        is_group=_is_group(message),
        mentions_bot=mentions_bot(message, bot_id, bot_username),
        reply_to=str(reply.message_id) if reply else None,
        reply_to_bot=bool(reply_from and reply_from.id == bot_id),
        ts=message.date,
    )


def mentions_bot(message: Message, bot_id: int, bot_username: str) -> bool:
    """An ``@username`` mention of the bot, or a text mention of its user."""
    target = "@" + bot_username.lower()
    found = {**message.parse_entities(), **message.parse_caption_entities()}
    return any(_is_our_mention(entity, text, bot_id, target) for entity, text in found.items())


def _is_our_mention(entity: MessageEntity, text: str, bot_id: int, target: str) -> bool:
    if entity.type == MessageEntityType.MENTION:
        return text.lower() == target
    if entity.type == MessageEntityType.TEXT_MENTION:
        return entity.user is not None and entity.user.id == bot_id
    return False


def attachments_of(message: Message) -> tuple[Attachment, ...]:
    """Documents, the largest photo size, audio, voice notes and videos."""
    found: list[Attachment] = []
    if message.document:
        d = message.document
        found.append(_attachment(d.file_id, d.file_name or "document", d.mime_type, d.file_size))
    if message.photo:
        p = message.photo[-1]
        found.append(
            _attachment(p.file_id, f"photo_{p.file_unique_id}.jpg", "image/jpeg", p.file_size)
        )
    if message.audio:
        a = message.audio
        found.append(_attachment(a.file_id, a.file_name or "audio", a.mime_type, a.file_size))
    if message.voice:
        v = message.voice
        found.append(_attachment(v.file_id, "voice.ogg", v.mime_type or "audio/ogg", v.file_size))
    if message.video:
        v2 = message.video
        found.append(_attachment(v2.file_id, v2.file_name or "video", v2.mime_type, v2.file_size))
    return tuple(found)


def should_answer(message: IncomingMessage) -> bool:
    """Private chats always; groups only when the bot is mentioned or replied to."""
    return not message.is_group or message.mentions_bot or message.reply_to_bot


def _attachment(file_id: str, name: str, mime: str | None, size: int | None) -> Attachment:
    return Attachment(filename=name, content_type=mime, size=size, url=FILE_URL_PREFIX + file_id)


def _is_command(message: Message) -> bool:
    entities = message.entities or ()
    return (
        bool(entities)
        and entities[0].type == MessageEntityType.BOT_COMMAND
        and (entities[0].offset == 0)
    )


def _is_group(message: Message) -> bool:
    return message.chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def _thread_id(message: Message) -> str | None:
    if message.is_topic_message and message.message_thread_id is not None:
        return str(message.message_thread_id)
    return None


def _display_name(message: Message) -> str:
    user = message.from_user
    if user is None:
        return message.chat.title or ""
    return user.full_name or user.username or str(user.id)


def _strip_leading_mention(text: str, bot_username: str) -> str:
    mention = "@" + bot_username
    if text[: len(mention)].lower() == mention.lower():
        return text[len(mention) :].lstrip(" ,:")
    return text


# ---------------------------------------------------------------------- lanes


class ChatLanes:
    """One queue per chat: jobs of a chat run in order, chats run concurrently (bounded)."""

    def __init__(self, limit: int, on_error: Callable[[BaseException], None]) -> None:
        self._on_error = on_error
        self._queues: dict[tuple[str, str | None], deque[Job]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(limit)

    def submit(self, key: tuple[str, str | None], job: Job) -> None:
        queue = self._queues.get(key)
        if queue is not None:
            queue.append(job)
            return
        self._queues[key] = deque([job])
        task = asyncio.get_running_loop().create_task(self._drain(key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    async def close(self, timeout: float) -> None:
        """Let queued jobs finish for up to ``timeout`` seconds, then cancel the rest."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _run(self, job: Job) -> None:
        # The one place a failed job is caught: it is reported, and the chat's next
        # message is still handled.
        try:
            await job()
        except Exception as exc:
            self._on_error(exc)

    async def _drain(self, key: tuple[str, str | None]) -> None:
        queue = self._queues[key]
        try:
            while queue:
                job = queue.popleft()
                async with self._slots:
                    await self._run(job)
        finally:
            del self._queues[key]


# ---------------------------------------------------------------------- streaming replies


class ReplyStream:
    """Accumulates reply deltas and mirrors them into Telegram messages: the first text is
    sent at once, later growth edits the last message at most once per ``interval``, and text
    beyond 4,096 characters continues in new messages."""

    def __init__(
        self,
        send: Callable[[str, bool], Awaitable[int]],
        edit: Callable[[int, str], Awaitable[None]],
        *,
        clock: Clock,
        sleep: Sleep,
        interval: float,
    ) -> None:
        self._send = send
        self._edit = edit
        self._clock = clock
        self._sleep = sleep
        self._interval = interval
        self._text = ""
        self._shown: list[tuple[int, str]] = []  # (message id, text shown)
        self._last_edit: float | None = None

    @property
    def message_ids(self) -> list[int]:
        return [mid for mid, _ in self._shown]

    @property
    def text(self) -> str:
        return self._text

    async def add(self, delta: str) -> None:
        self._text += delta
        if not self._shown or self._edit_due():
            await self._flush()

    async def finish(self) -> None:
        if self._needs_edit() and not self._edit_due():
            assert self._last_edit is not None  # _needs_edit implies a shown message
            await self._sleep(self._interval - (self._clock() - self._last_edit))
        await self._flush()

    def _edit_due(self) -> bool:
        return self._last_edit is None or self._clock() - self._last_edit >= self._interval

    def _needs_edit(self) -> bool:
        pieces = self._pieces()
        return any(
            i < len(self._shown) and self._shown[i][1] != piece for i, piece in enumerate(pieces)
        )

    def _pieces(self) -> list[str]:
        return split_message(self._text, MESSAGE_LIMIT) if self._text.strip() else []

    async def _flush(self) -> None:
        for i, piece in enumerate(self._pieces()):
            if i >= len(self._shown):
                self._shown.append((await self._send(piece, i == 0), piece))
            elif self._shown[i][1] != piece:
                await self._edit(self._shown[i][0], piece)
                self._shown[i] = (self._shown[i][0], piece)
                self._last_edit = self._clock()
        if self._last_edit is None and self._shown:
            self._last_edit = self._clock()


# ---------------------------------------------------------------------- the adapter


class TelegramAdapter(PlatformAdapter):
    """``TelegramAdapter(handler, settings, token)``; ``await start()`` begins long polling."""

    name = PLATFORM

    def __init__(
        self,
        handler: TurnHandler,
        settings: Settings,
        token: str,
        *,
        base_url: str | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        on_turn_done: Callable[[IncomingMessage], None] | None = None,
    ) -> None:
        super().__init__(handler)
        if not token or not token.strip():
            raise ValueError(
                f"no Telegram bot token: set the environment variable "
                f"{settings.telegram.token_env} (ask @BotFather for one)"
            )
        self._settings = settings
        self._cfg: TelegramSettings = settings.telegram
        self._token = token.strip()
        self._base_url = base_url or self._cfg.base_url
        self._clock = clock
        self._sleep = sleep
        self._on_turn_done = on_turn_done
        self._app: Application[Any, Any, Any, Any, Any, Any] | None = None
        self._lanes = ChatLanes(self._cfg.max_concurrent_turns, self._on_job_error)
        self._bot_id = 0
        self._username = ""
        self._known_commands: set[str] = set()
        self._background: set[asyncio.Future[None]] = set()

    @classmethod
    def from_settings(cls, handler: TurnHandler, settings: Settings) -> TelegramAdapter | None:
        """The adapter when the token variable (``telegram.token_env``) is set, else None."""
        token = settings.secret(settings.telegram.token_env)
        return cls(handler, settings, token) if token else None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        _quiet_httpx()
        app = self._build_application()
        try:
            await app.initialize()
        except InvalidToken as exc:
            raise TelegramStartError(
                f"Telegram rejected the bot token in {self._cfg.token_env}: {exc}"
            ) from exc
        except TelegramError as exc:
            raise TelegramStartError(f"cannot reach the Telegram Bot API: {exc}") from exc
        self._app = app
        self._bot_id, self._username = app.bot.id, app.bot.username
        self._warn_if_nobody_allowed()
        if not app.bot.can_read_all_group_messages:
            logger.info(
                "Telegram: privacy mode is on: in groups @%s sees only commands, mentions "
                "and replies to it",
                self._username,
            )
        await self._set_commands()
        await app.start()
        assert app.updater is not None  # built with the default updater
        await app.updater.start_polling(
            timeout=datetime.timedelta(seconds=self._cfg.poll_timeout_s),
            allowed_updates=[Update.MESSAGE, Update.CALLBACK_QUERY],
            error_callback=self._on_poll_error,
        )
        logger.info("Telegram: polling as @%s", self._username)

    async def stop(self, *, drain_timeout: float = 30.0) -> None:
        app = self._app
        if app is None:
            return
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        # Turns in flight still need the bot to deliver their replies.
        await self._lanes.close(drain_timeout)
        if self._background:
            await asyncio.wait(set(self._background), timeout=drain_timeout)
        self._app = None
        await app.shutdown()
        logger.info("Telegram: stopped")

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        """Send a message the familiar starts itself; returns the first piece's message id.

        Raises :class:`TelegramSendError` (after retries, and logged) when it cannot go out.
        """
        pieces = split_message(text, MESSAGE_LIMIT) if text.strip() else []
        if not pieces:
            raise ValueError("refusing to send an empty message")
        try:
            ids = [await self._send_text(chat_id, p, thread_id=thread_id) for p in pieces]
        except TelegramSendError as exc:
            logger.error("Telegram: message to chat %s not sent: %s", chat_id, exc)
            raise
        return str(ids[0])

    async def download(self, attachment: Attachment) -> bytes:
        """The bytes of an attachment this adapter produced."""
        url = attachment.url or ""
        if not url.startswith(FILE_URL_PREFIX):
            raise ValueError(f"not a Telegram attachment: {attachment.filename}")
        file_id = url.removeprefix(FILE_URL_PREFIX)
        try:
            tg_file = await self._bot.get_file(file_id)
            return bytes(await tg_file.download_as_bytearray())
        except TelegramError as exc:
            raise TelegramSendError(f"cannot download {attachment.filename}: {exc}") from exc

    @property
    def username(self) -> str:
        return self._username

    @property
    def _bot(self) -> Bot:
        if self._app is None:
            raise RuntimeError("the Telegram adapter is not started")
        return self._app.bot

    def _build_application(self) -> Application[Any, Any, Any, Any, Any, Any]:
        builder = (
            ApplicationBuilder()
            .token(self._token)
            .rate_limiter(self._rate_limiter())
            .job_queue(None)  # the runtime's scheduler does the timed work
        )
        if self._base_url:
            builder = builder.base_url(self._base_url).base_file_url(self._file_url())
        app = builder.build()
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE, self._on_message))
        app.add_handler(CallbackQueryHandler(self._on_callback_query))
        app.add_error_handler(self._on_error)
        return app

    def _rate_limiter(self) -> AIORateLimiter:
        return AIORateLimiter(
            overall_max_rate=self._cfg.overall_max_rate,
            group_max_rate=self._cfg.group_max_rate,
            max_retries=self._cfg.flood_retries,
        )

    def _file_url(self) -> str:
        if self._cfg.base_file_url:
            return self._cfg.base_file_url
        base = self._base_url or ""
        return base[: -len("/bot")] + "/file/bot" if base.endswith("/bot") else base

    def _warn_if_nobody_allowed(self) -> None:
        if nobody_allowed(self._settings.access):
            logger.warning(
                "Telegram: nobody is allowed to use @%s: access.allowed_users lists no "
                "telegram:<id> entry and access.owners has none either",
                self._username,
            )

    async def _set_commands(self) -> None:
        specs = self.handler.command_specs()
        commands = [BotCommand(s.name, _describe(s)) for s in specs if _valid_name(s)]
        self._known_commands = {c.command for c in commands} | {"start", "help"}
        try:
            await self._bot.set_my_commands(commands)
        except TelegramError as exc:
            logger.warning("Telegram: could not set the command menu: %s", exc)

    # ------------------------------------------------------------------ receiving

    async def _on_message(
        self, update: Update, context: CallbackContext[Any, Any, Any, Any]
    ) -> None:
        message = update.message
        if message is None or message.from_user is None or message.from_user.is_bot:
            return
        key = (str(message.chat_id), _thread_id(message))
        if not self._allowed(message):
            self._lanes.submit(key, lambda: self._refuse(message))
            return
        invocation = parse_command(message, self._username, self._known_commands)
        if invocation is not None:
            self._lanes.submit(key, lambda: self._run_command(invocation))
            return
        if _is_command(message):
            return  # a command for another bot, or an unknown one not addressed to us
        incoming = to_incoming(message, self._bot_id, self._username)
        if should_answer(incoming) and (incoming.text.strip() or incoming.attachments):
            self._lanes.submit(key, lambda: self._run_turn(incoming))

    async def _on_callback_query(
        self, update: Update, context: CallbackContext[Any, Any, Any, Any]
    ) -> None:
        if update.callback_query is not None:
            with contextlib.suppress(TelegramError):
                await update.callback_query.answer()

    async def _on_error(self, update: object, context: CallbackContext[Any, Any, Any, Any]) -> None:
        logger.error("Telegram: error handling %r", update, exc_info=context.error)

    def _on_job_error(self, exc: BaseException) -> None:
        logger.error("Telegram: a turn failed", exc_info=exc)

    def _on_poll_error(self, exc: TelegramError) -> None:
        logger.warning("Telegram: getUpdates failed, retrying with the same offset: %s", exc)

    def _allowed(self, message: Message) -> bool:
        user = message.from_user
        user_id = str(user.id) if user else ""
        return is_allowed(
            self._settings.access, user_id, str(message.chat_id), is_group=_is_group(message)
        )

    async def _refuse(self, message: Message) -> None:
        logger.info(
            "Telegram: ignoring user %s in chat %s (access)", message.from_user, message.chat_id
        )
        if not _is_group(message):
            with contextlib.suppress(TelegramSendError):
                await self._send_text(str(message.chat_id), NOT_ALLOWED)

    # ------------------------------------------------------------------ one turn

    async def _run_turn(self, incoming: IncomingMessage) -> None:
        # The typing loop is told to stop rather than cancelled: cancelling a request in
        # flight would close its pooled connection.
        typing_done = asyncio.Event()
        self._spawn(self._keep_typing(incoming.chat_id, incoming.thread_id, typing_done))
        try:
            incoming = await self._with_file_data(incoming)
            await self._stream_reply(incoming)
        except Exception:
            # Reported here, with the message that caused it; the person gets a short apology
            # instead of silence.
            logger.exception(
                "Telegram: handler failed on message %s in chat %s",
                incoming.message_id,
                incoming.chat_id,
            )
            with contextlib.suppress(TelegramSendError):
                await self._send_text(incoming.chat_id, SORRY, thread_id=incoming.thread_id)
        finally:
            typing_done.set()
            if self._on_turn_done is not None:
                self._on_turn_done(incoming)

    async def _with_file_data(self, incoming: IncomingMessage) -> IncomingMessage:
        """Attachments with their bytes (up to ``files.max_file_mb``), so that the handler
        never needs the token-bearing file URL."""
        if not incoming.attachments:
            return incoming
        fetched = [await self._fetch(a) for a in incoming.attachments]
        return dataclasses.replace(incoming, attachments=tuple(fetched))

    async def _fetch(self, attachment: Attachment) -> Attachment:
        limit = int(self._settings.files.max_file_mb * 1024 * 1024)
        if attachment.data is not None or (attachment.size or 0) > limit:
            return attachment
        try:
            data = await self.download(attachment)
        except TelegramSendError as exc:
            logger.info("Telegram: could not fetch %s: %s", attachment.filename, exc)
            return attachment
        return dataclasses.replace(attachment, data=data, size=len(data))

    async def _stream_reply(self, incoming: IncomingMessage) -> None:
        reply_to = incoming.message_id if incoming.is_group else None

        async def send(piece: str, first: bool) -> int:
            return await self._send_text(
                incoming.chat_id,
                piece,
                thread_id=incoming.thread_id,
                reply_to=reply_to if first else None,
            )

        async def edit(message_id: int, piece: str) -> None:
            await self._edit_text(incoming.chat_id, message_id, piece)

        stream = ReplyStream(
            send, edit, clock=self._clock, sleep=self._sleep, interval=self._cfg.edit_interval_s
        )
        broken: TelegramSendError | None = None
        async for delta in self.handler.respond(incoming):
            if broken is None:
                broken = await _capture(stream.add(delta))
        if broken is None:
            broken = await _capture(stream.finish())
        if broken is not None:
            # The handler ran to the end, so the dialogue holds the full reply; only the
            # delivery failed.
            logger.error(
                "Telegram: reply to message %s in chat %s not delivered: %s",
                incoming.message_id,
                incoming.chat_id,
                broken,
            )

    async def _keep_typing(self, chat_id: str, thread_id: str | None, done: asyncio.Event) -> None:
        while not done.is_set():
            try:
                await self._bot.send_chat_action(
                    chat_id=chat_id,
                    action=ChatAction.TYPING,
                    message_thread_id=_int_or_none(thread_id),
                )
            except TelegramError as exc:
                logger.debug("Telegram: typing action failed in %s: %s", chat_id, exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), TYPING_EVERY_S)

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ------------------------------------------------------------------ commands

    async def _run_command(self, invocation: CommandInvocation) -> None:
        response = await self.handler.command(invocation)
        private = response.private or invocation.name in _ALWAYS_PRIVATE
        if not (private and invocation.is_group):
            await self._deliver(invocation.chat_id, response, thread_id=invocation.thread_id)
            return
        try:
            await self._deliver(invocation.user_id, response)
        except TelegramSendError as exc:
            if not exc.unreachable:
                logger.error("Telegram: private answer to %s failed: %s", invocation.user_id, exc)
                return
            notice = START_PRIVATE_FIRST.format(username=self._username)
        else:
            notice = SENT_PRIVATELY
        await self._notify_group(invocation, notice)

    async def _notify_group(self, invocation: CommandInvocation, notice: str) -> None:
        try:
            await self._send_text(invocation.chat_id, notice, thread_id=invocation.thread_id)
        except TelegramSendError as exc:
            logger.error("Telegram: notice in group %s failed: %s", invocation.chat_id, exc)

    async def _deliver(
        self, chat_id: str, response: CommandResponse, *, thread_id: str | None = None
    ) -> None:
        """Send a command's answer: its text (split), then its file as a document."""
        text = response.text
        caption = None
        if response.file_data is not None and len(text) <= CAPTION_LIMIT:
            text, caption = "", text or None
        for piece in split_message(text, MESSAGE_LIMIT):
            await self._send_text(chat_id, piece, thread_id=thread_id)
        if response.file_data is not None:
            await self._send_document(
                chat_id,
                response.file_data,
                response.file_name or "memory.md",
                caption=caption,
                thread_id=thread_id,
            )

    # ------------------------------------------------------------------ sending with retries

    async def _send_text(
        self,
        chat_id: str,
        text: str,
        *,
        thread_id: str | None = None,
        reply_to: str | None = None,
    ) -> int:
        reply = (
            ReplyParameters(message_id=int(reply_to), allow_sending_without_reply=True)
            if reply_to
            else None
        )

        def request(target: str) -> Callable[[], Awaitable[Message]]:
            return lambda: self._bot.send_message(
                chat_id=target,
                text=text,
                message_thread_id=_int_or_none(thread_id),
                reply_parameters=reply,
            )

        try:
            message = await self._call("sendMessage", request(chat_id))
        except TelegramSendError as exc:
            if exc.migrated_to is None:
                raise
            logger.warning(
                "Telegram: chat %s is now supergroup %s; sending there", chat_id, exc.migrated_to
            )
            message = await self._call("sendMessage", request(str(exc.migrated_to)))
        return message.message_id

    async def _edit_text(self, chat_id: str, message_id: int, text: str) -> None:
        try:
            await self._call(
                "editMessageText",
                lambda: self._bot.edit_message_text(
                    chat_id=chat_id, message_id=message_id, text=text
                ),
            )
        except TelegramSendError as exc:
            if "not modified" not in str(exc).lower():
                raise

    async def _send_document(
        self,
        chat_id: str,
        data: bytes,
        filename: str,
        *,
        caption: str | None,
        thread_id: str | None,
    ) -> int:
        message = await self._call(
            "sendDocument",
            lambda: self._bot.send_document(
                chat_id=chat_id,
                document=data,
                filename=filename,
                caption=caption,
                message_thread_id=_int_or_none(thread_id),
            ),
        )
        return message.message_id

    async def _call(self, what: str, request: Callable[[], Awaitable[T]]) -> T:
        """Run a Bot API request; network errors and 5xx answers are retried with exponential
        backoff (429s were already retried by the rate limiter), anything else fails at once."""
        delay = self._cfg.send_backoff_s
        for attempt in range(self._cfg.send_retries + 1):
            try:
                return await request()
            except (BadRequest, Forbidden) as exc:
                raise TelegramSendError(f"{what}: {exc}", unreachable=_unreachable(exc)) from exc
            except NetworkError as exc:
                if attempt == self._cfg.send_retries:
                    raise TelegramSendError(
                        f"{what} failed after {attempt + 1} tries: {exc}"
                    ) from exc
                logger.warning("Telegram: %s failed (%s), retrying in %.1fs", what, exc, delay)
                await self._sleep(delay)
                delay *= 2
            except ChatMigrated as exc:
                raise TelegramSendError(f"{what}: {exc}", migrated_to=int(exc.new_chat_id)) from exc
            except TelegramError as exc:
                raise TelegramSendError(f"{what}: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover


def _quiet_httpx() -> None:
    """httpx logs every request URL at INFO, and Bot API URLs contain the bot token: keep
    that logger at WARNING unless someone chose its level on purpose."""
    httpx_logger = logging.getLogger("httpx")
    if httpx_logger.level == logging.NOTSET:
        httpx_logger.setLevel(logging.WARNING)


async def _capture(step: Awaitable[None]) -> TelegramSendError | None:
    try:
        await step
    except TelegramSendError as exc:
        return exc
    return None


def _unreachable(exc: TelegramError) -> bool:
    text = str(exc).lower()
    return isinstance(exc, Forbidden) or "chat not found" in text


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value else None


def _valid_name(spec: CommandSpec) -> bool:
    if _COMMAND_NAME.match(spec.name):
        return True
    logger.warning("Telegram: command %r is not a valid Telegram command name; skipped", spec.name)
    return False


def _describe(spec: CommandSpec) -> str:
    text = (spec.description or spec.usage or spec.name).strip()
    return text[:256] if len(text) >= 3 else (text + " ...")[:256]
