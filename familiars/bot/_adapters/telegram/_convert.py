"""python-telegram-bot messages -> the platform-neutral :class:`IncomingMessage` /
:class:`CommandInvocation`.

Attachments carry ``url="tg-file:<file_id>"``; the real file URL contains the bot token, so
it never leaves the adapter (``Sender.download`` fetches the bytes).
"""

from __future__ import annotations

from collections.abc import Iterable

from telegram import Message, MessageEntity
from telegram.constants import ChatType, MessageEntityType

from familiars.bot._adapters.base import (
    Attachment,
    CommandInvocation,
    IncomingMessage,
    is_one_line,
)

PLATFORM = "telegram"
FILE_URL_PREFIX = "tg-file:"


def parse_command(
    message: Message, bot_username: str, known: Iterable[str] = ()
) -> CommandInvocation | None:
    """``/name@bot args`` as a :class:`CommandInvocation`; None when the message is not a
    command, or is one for another bot, or (in a group) an unknown one not addressed to us."""
    if not is_command(message):
        return None
    text = message.text or ""
    length = message.entities[0].length
    name, _, addressee = text[1:length].partition("@")
    name = name.lower()
    if addressee and addressee.lower() != bot_username.lower():
        return None
    group = is_group(message)
    if group and not addressee and name not in set(known):
        return None
    if name == "start" and not text[length:].strip():
        name = "help"
    user = message.from_user
    return CommandInvocation(
        platform=PLATFORM,
        chat_id=str(message.chat_id),
        user_id=str(user.id) if user else "",
        display_name=display_name(message),
        name=name,
        args=tuple(text[length:].split()),
        is_group=group,
        thread_id=thread_id(message),
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
        display_name=display_name(message),
        text=_strip_leading_mention(message.text or message.caption or "", bot_username),
        thread_id=thread_id(message),
        message_id=str(message.message_id),
        attachments=attachments_of(message),
        is_group=is_group(message),
        mentions_bot=mentions_bot(message, bot_id, bot_username),
        reply_to=str(reply.message_id) if reply else None,
        reply_to_bot=bool(reply_from and reply_from.id == bot_id),
        ts=message.date,
        fresh=not is_forwarded(message),
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


def is_command(message: Message) -> bool:
    """A ``/name`` at the start of a one-line message the person sent themselves: a message
    of several lines, or a forwarded one, is a message, whatever it starts with (tester
    s38: a pasted or forwarded text must not run "/memory forget everything confirm")."""
    entities = message.entities or ()
    return (
        bool(entities)
        and entities[0].type == MessageEntityType.BOT_COMMAND
        and (entities[0].offset == 0)
        and is_one_line(message.text or "")
        and not is_forwarded(message)
    )


def is_forwarded(message: Message) -> bool:
    """Whether ``message`` is a forward of another message (not typed by its sender now)."""
    return message.forward_origin is not None


def is_group(message: Message) -> bool:
    return message.chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def thread_id(message: Message) -> str | None:
    if message.is_topic_message and message.message_thread_id is not None:
        return str(message.message_thread_id)
    return None


def display_name(message: Message) -> str:
    user = message.from_user
    if user is None:
        return message.chat.title or ""
    return user.full_name or user.username or str(user.id)


def _strip_leading_mention(text: str, bot_username: str) -> str:
    mention = "@" + bot_username
    if text[: len(mention)].lower() == mention.lower():
        return text[len(mention) :].lstrip(" ,:")
    return text
