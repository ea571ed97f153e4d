"""TelegramAdapter: builds the python-telegram-bot ``Application``, takes updates by long
polling (the default) or by webhook (``telegram.webhook_url``), and sends the messages the
familiar starts itself.

Polled updates are confirmed to Telegram only by the next ``getUpdates`` offset, so a
dropped poll loses nothing: the same updates come again. In webhook mode Telegram posts them
to the bot's API server (``_webhook``); ``setWebhook`` is called at every start (any number of
workers behind one address), and a start in polling mode removes a webhook left set
(python-telegram-bot's ``start_polling`` calls ``deleteWebhook``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import time
from collections.abc import Callable
from typing import Any

from telegram import Bot, Update
from telegram.error import InvalidToken, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackContext,
    CallbackQueryHandler,
    MessageHandler,
    filters,
)

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    Attachment,
    IncomingMessage,
    PlatformAdapter,
    TurnHandler,
    split_message,
)
from familiars.bot._adapters.telegram._convert import PLATFORM
from familiars.bot._adapters.telegram._errors import TelegramSendError, TelegramStartError
from familiars.bot._adapters.telegram._inflight import ChatLanes
from familiars.bot._adapters.telegram._layout import CommandMenu
from familiars.bot._adapters.telegram._messages import Me, Pacing, TelegramTurns
from familiars.bot._adapters.telegram._retry import Clock, RetryPolicy, Sleep
from familiars.bot._adapters.telegram._sending import MESSAGE_LIMIT, Sender
from familiars.bot._adapters.telegram._webhook import SECRET_PATTERN, TelegramWebhook
from familiars.config import Settings, TelegramSettings
from familiars.memory import StateHome

logger = logging.getLogger(__name__)

PtbApplication = Application[Any, Any, Any, Any, Any, Any]
PtbContext = CallbackContext[Any, Any, Any, Any]
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]


class TelegramAdapter(PlatformAdapter):
    """``TelegramAdapter(handler, settings, token)``; ``await start()`` begins long polling."""

    name = PLATFORM

    def __init__(
        self,
        handler: TurnHandler,
        settings: Settings,
        token: str,
        *,
        access: AccessPolicy | None = None,
        base_url: str | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        on_turn_done: Callable[[IncomingMessage], None] | None = None,
        home: StateHome | None = None,
    ) -> None:
        super().__init__(handler, access or AccessPolicy.from_settings(settings))
        if not token or not token.strip():
            raise TelegramStartError(
                f"no Telegram bot token: set the environment variable "
                f"{settings.telegram.token_env} (ask @BotFather for one)"
            )
        self._cfg: TelegramSettings = settings.telegram
        self.webhook: TelegramWebhook | None = _webhook(settings, home)
        self._handled: dict[int, asyncio.Future[None]] = {}  # webhook: update id -> its turn
        self._token = token.strip()
        self._base_url = base_url or self._cfg.base_url
        self._app: PtbApplication | None = None
        self._me = Me()
        retry = RetryPolicy(retries=self._cfg.send_retries, backoff_s=self._cfg.send_backoff_s)
        self._sender = Sender(lambda: self._bot, retry=retry, sleep=sleep)
        self._lanes = ChatLanes(self._cfg.max_concurrent_turns, self._on_job_error)
        pacing = Pacing(
            clock=clock,
            sleep=sleep,
            edit_interval_s=self._cfg.edit_interval_s,
            max_file_bytes=int(settings.files.max_file_mb * 1024 * 1024),
        )
        self._turns = TelegramTurns(
            handler,
            self.access,
            me=self._me,
            sender=self._sender,
            lanes=self._lanes,
            pacing=pacing,
            on_turn_done=on_turn_done,
        )

    @classmethod
    def from_settings(
        cls, handler: TurnHandler, settings: Settings, *, access: AccessPolicy | None = None
    ) -> TelegramAdapter | None:
        """The adapter when the token variable (``telegram.token_env``) is set, else None."""
        token = settings.secret(settings.telegram.token_env)
        return cls(handler, settings, token, access=access) if token else None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Check the token, set the command menu and begin polling; raises
        :class:`TelegramStartError` with what to do when that is impossible."""
        _quiet_httpx()
        app = await self._initialized(self._build_application())
        self._app = app
        self._me.bot_id, self._me.username = app.bot.id, app.bot.username
        if reason := self.nobody_allowed():
            logger.warning("Telegram (@%s): %s", self._me.username, reason)
        if not app.bot.can_read_all_group_messages:
            logger.info(
                "Telegram: privacy mode is on: in groups @%s sees only commands, mentions "
                "and replies to it",
                self._me.username,
            )
        await self._set_commands()
        await app.start()
        if self.webhook is not None:
            await self._take_webhook(app, self.webhook)
            return
        assert app.updater is not None  # built with the default updater
        await app.updater.start_polling(
            timeout=datetime.timedelta(seconds=self._cfg.poll_timeout_s),
            allowed_updates=ALLOWED_UPDATES,
            error_callback=self._on_poll_error,
        )
        logger.info("Telegram: polling as @%s", self._me.username)

    async def _take_webhook(self, app: PtbApplication, webhook: TelegramWebhook) -> None:
        """Open the route, then ask Telegram to post there (updates pending since the last
        worker stopped come then)."""
        webhook.open(app.bot, self._take)
        try:
            await app.bot.set_webhook(
                url=self._cfg.webhook_url or "",
                secret_token=webhook.secret,
                allowed_updates=ALLOWED_UPDATES,
            )
        except TelegramError as exc:
            raise TelegramStartError(f"Telegram refused the webhook address: {exc}") from exc
        logger.info("Telegram: webhook as @%s at %s", self._me.username, self._cfg.webhook_url)

    async def _initialized(self, app: PtbApplication) -> PtbApplication:
        try:
            await app.initialize()
        except InvalidToken as exc:
            raise TelegramStartError(
                f"Telegram rejected the bot token in {self._cfg.token_env}: {exc}"
            ) from exc
        except TelegramError as exc:
            raise TelegramStartError(f"cannot reach the Telegram Bot API: {exc}") from exc
        return app

    async def stop(self, *, drain_timeout: float = 30.0) -> None:
        app = self._app
        if app is None:
            return
        if self.webhook is not None:
            self.webhook.close()  # the webhook stays set: other workers take the updates
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        # Turns in flight still need the bot to deliver their replies.
        await self._lanes.close(drain_timeout)
        await self._turns.drain(drain_timeout)
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
            ids = [await self._sender.text(chat_id, p, thread_id=thread_id) for p in pieces]
        except TelegramSendError as exc:
            logger.error("Telegram: message to chat %s not sent: %s", chat_id, exc)
            raise
        return str(ids[0])

    async def download(self, attachment: Attachment) -> bytes:
        """The bytes of an attachment this adapter produced."""
        return await self._sender.download(attachment)

    @property
    def username(self) -> str:
        return self._me.username

    @property
    def _bot(self) -> Bot:
        if self._app is None:
            raise RuntimeError("the Telegram adapter is not started")
        return self._app.bot

    # ------------------------------------------------------------------ building

    def _build_application(self) -> PtbApplication:
        builder = (
            ApplicationBuilder()
            .token(self._token)
            .rate_limiter(self._rate_limiter())
            .job_queue(None)  # the runtime's scheduler does the timed work
        )
        if self.webhook is not None:
            builder = builder.updater(None)  # updates come through the API server
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

    async def _set_commands(self) -> None:
        self._me.menu = CommandMenu.from_specs(self.handler.command_specs())
        try:
            await self._bot.set_my_commands(list(self._me.menu.commands))
        except TelegramError as exc:
            logger.warning("Telegram: could not set the command menu: %s", exc)

    # ------------------------------------------------------------------ callbacks

    async def _on_message(self, update: Update, context: PtbContext) -> None:
        if update.message is not None:
            receipt = None if self.webhook is None else self.webhook.receipt(update.update_id)
            handled = self._turns.receive(update.message, receipt)
            if handled is not None and self.webhook is not None:
                self._handled[update.update_id] = handled

    async def _take(self, update: Update) -> None:
        """Webhook mode: ``update`` through the same handlers as a polled one; returns once
        its turn is done (raises CancelledError when a stop dropped it)."""
        app = self._app
        if app is None:
            raise asyncio.CancelledError
        await app.process_update(update)
        handled = self._handled.pop(update.update_id, None)
        if handled is not None:
            await handled

    async def _on_callback_query(self, update: Update, context: PtbContext) -> None:
        if update.callback_query is not None:
            with contextlib.suppress(TelegramError):
                await update.callback_query.answer()

    async def _on_error(self, update: object, context: PtbContext) -> None:
        logger.error("Telegram: error handling %r", update, exc_info=context.error)

    def _on_job_error(self, exc: BaseException) -> None:
        logger.error("Telegram: a turn failed", exc_info=exc)

    def _on_poll_error(self, exc: TelegramError) -> None:
        logger.warning("Telegram: getUpdates failed, retrying with the same offset: %s", exc)


def _webhook(settings: Settings, home: StateHome | None) -> TelegramWebhook | None:
    """The webhook in webhook mode (its secret from ``telegram.webhook_secret_env``)."""
    cfg = settings.telegram
    route = cfg.webhook_route
    if route is None:
        return None
    secret = settings.secret(cfg.webhook_secret_env)
    if secret is None:
        raise TelegramStartError(
            f"the Telegram webhook needs a secret: set {cfg.webhook_secret_env} to 1-256 "
            "characters of A-Z, a-z, 0-9, _ and - (Telegram sends it with every update)"
        )
    if not SECRET_PATTERN.match(secret):
        raise TelegramStartError(
            f"{cfg.webhook_secret_env} may hold only A-Z, a-z, 0-9, _ and - (1-256 characters)"
        )
    return TelegramWebhook(route, secret, ack_after_s=cfg.webhook_ack_after_s, home=home)


def _quiet_httpx() -> None:
    """httpx logs every request URL at INFO, and Bot API URLs contain the bot token: keep
    that logger at WARNING unless someone chose its level on purpose."""
    httpx_logger = logging.getLogger("httpx")
    if httpx_logger.level == logging.NOTSET:
        httpx_logger.setLevel(logging.WARNING)
