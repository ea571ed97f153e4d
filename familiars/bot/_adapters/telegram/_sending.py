"""Putting text and files into Telegram chats, with retries: :class:`Sender` sends, edits,
sends documents, answers commands (text split at 4,096 characters, a file as a document with
the text as its caption when it fits), shows the typing action and downloads attachments."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import Bot, Message, ReplyParameters
from telegram.constants import ChatAction
from telegram.error import TelegramError

from familiars.bot._adapters.base import (
    Attachment,
    CommandResponse,
    split_message,
    without_file,
)
from familiars.bot._adapters.telegram._convert import FILE_URL_PREFIX
from familiars.bot._adapters.telegram._errors import TelegramSendError
from familiars.bot._adapters.telegram._retry import RetryPolicy, Sleep, with_retries

logger = logging.getLogger(__name__)

T = TypeVar("T")

MESSAGE_LIMIT = 4096
CAPTION_LIMIT = 1024
#: The largest document the Bot API takes from a bot (multipart upload).
FILE_LIMIT = 50 * 1024 * 1024


def int_or_none(value: str | None) -> int | None:
    return int(value) if value else None


class Sender:
    """Bot API sends for one adapter; ``bot`` gives the started bot (raises before start)."""

    def __init__(self, bot: Callable[[], Bot], *, retry: RetryPolicy, sleep: Sleep) -> None:
        self._bot = bot
        self._retry = retry
        self._sleep = sleep

    async def _call(self, what: str, request: Callable[[], Awaitable[T]]) -> T:
        return await with_retries(what, request, policy=self._retry, sleep=self._sleep)

    async def text(
        self,
        chat_id: str,
        text: str,
        *,
        thread_id: str | None = None,
        reply_to: str | None = None,
    ) -> int:
        """Send one message; a group upgraded to a supergroup is followed to its new id."""
        reply = (
            ReplyParameters(message_id=int(reply_to), allow_sending_without_reply=True)
            if reply_to
            else None
        )

        def request(target: str) -> Callable[[], Awaitable[Message]]:
            return lambda: self._bot().send_message(
                chat_id=target,
                text=text,
                message_thread_id=int_or_none(thread_id),
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

    async def edit(self, chat_id: str, message_id: int, text: str) -> None:
        try:
            await self._call(
                "editMessageText",
                lambda: self._bot().edit_message_text(
                    chat_id=chat_id, message_id=message_id, text=text
                ),
            )
        except TelegramSendError as exc:
            if "not modified" not in str(exc).lower():
                raise

    async def document(
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
            lambda: self._bot().send_document(
                chat_id=chat_id,
                document=data,
                filename=filename,
                caption=caption,
                message_thread_id=int_or_none(thread_id),
            ),
        )
        return message.message_id

    async def response(
        self, chat_id: str, response: CommandResponse, *, thread_id: str | None = None
    ) -> None:
        """Send a command's answer: its text (split), then its file as a document (one over
        the Bot API's limit is named in the text instead)."""
        response = without_file(response, FILE_LIMIT, "Telegram")
        text = response.text
        caption = None
        if response.file_data is not None and len(text) <= CAPTION_LIMIT:
            text, caption = "", text or None
        for piece in split_message(text, MESSAGE_LIMIT):
            await self.text(chat_id, piece, thread_id=thread_id)
        if response.file_data is not None:
            await self.document(
                chat_id,
                response.file_data,
                response.file_name or "memory.md",
                caption=caption,
                thread_id=thread_id,
            )

    async def typing(self, chat_id: str, thread_id: str | None) -> None:
        """Show the typing action once; a failure only goes to the debug log."""
        try:
            await self._bot().send_chat_action(
                chat_id=chat_id, action=ChatAction.TYPING, message_thread_id=int_or_none(thread_id)
            )
        except TelegramError as exc:
            logger.debug("Telegram: typing action failed in %s: %s", chat_id, exc)

    async def download(self, attachment: Attachment) -> bytes:
        """The bytes of an attachment this adapter produced."""
        url = attachment.url or ""
        if not url.startswith(FILE_URL_PREFIX):
            raise ValueError(f"not a Telegram attachment: {attachment.filename}")
        file_id = url.removeprefix(FILE_URL_PREFIX)
        try:
            tg_file = await self._bot().get_file(file_id)
            return bytes(await tg_file.download_as_bytearray())
        except TelegramError as exc:
            raise TelegramSendError(f"cannot download {attachment.filename}: {exc}") from exc
