"""discord.py objects -> the platform-neutral :class:`IncomingMessage` / invocation fields."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

import discord

from familiars.bot._adapters.base import Attachment, IncomingMessage, is_one_line

PLATFORM = "discord"


@dataclass(frozen=True)
class Place:
    """Where something happened: ``chat_id`` is the channel (a thread's parent channel for a
    thread), ``thread_id`` the thread, ``guild_id`` None in a DM."""

    chat_id: str
    thread_id: str | None
    guild_id: str | None

    @property
    def is_group(self) -> bool:
        return self.guild_id is not None

    @property
    def chat_ids(self) -> tuple[str, ...]:
        return (self.chat_id,) if self.thread_id is None else (self.chat_id, self.thread_id)


def place_of(channel: object, channel_id: int, guild_id: int | None) -> Place:
    guild = str(guild_id) if guild_id is not None else None
    if isinstance(channel, discord.Thread) and channel.parent_id is not None:
        return Place(str(channel.parent_id), str(channel.id), guild)
    return Place(str(channel_id), None, guild)


def message_place(message: discord.Message) -> Place:
    guild_id = message.guild.id if message.guild is not None else None
    return place_of(message.channel, message.channel.id, guild_id)


def mentions_user(message: discord.Message, user_id: int) -> bool:
    """Mentioned by name, or through a role the bot has (Discord's picker offers the bot's
    managed role under the same name)."""
    if user_id in message.raw_mentions or any(u.id == user_id for u in message.mentions):
        return True
    return any(role in message.raw_role_mentions for role in own_roles(message, user_id))


def own_roles(message: discord.Message, user_id: int) -> tuple[int, ...]:
    """Ids of the bot's own roles in the message's server (not @everyone)."""
    me = message.guild.me if message.guild is not None else None
    if me is None or me.id != user_id:
        return ()
    return tuple(r.id for r in me.roles if not r.is_default())


def strip_mention(content: str, user_id: int, role_ids: tuple[int, ...] = ()) -> str:
    """The text without mentions of the bot, so the handler sees what was said to it."""
    text = re.sub(rf"<@!?{user_id}>", "", content)
    for role_id in role_ids:
        text = text.replace(f"<@&{role_id}>", "")
    return text.strip()


def replied_to(
    message: discord.Message, bot_id: int, bot_message_ids: Collection[int]
) -> tuple[str | None, bool]:
    """(id of the message this one replies to, whether that message was the bot's)."""
    ref = message.reference
    if ref is None or ref.message_id is None:
        return None, False
    resolved = ref.resolved
    by_bot = ref.message_id in bot_message_ids or (
        isinstance(resolved, discord.Message) and resolved.author.id == bot_id
    )
    return str(ref.message_id), by_bot


def attachments_of(message: discord.Message) -> tuple[Attachment, ...]:
    return tuple(
        Attachment(filename=a.filename, content_type=a.content_type, size=a.size, url=a.url)
        for a in message.attachments
    )


def to_incoming(
    message: discord.Message, bot_id: int, bot_message_ids: Collection[int] = ()
) -> IncomingMessage:
    place = message_place(message)
    reply_to, reply_to_bot = replied_to(message, bot_id, bot_message_ids)
    return IncomingMessage(
        platform=PLATFORM,
        chat_id=place.chat_id,
        thread_id=place.thread_id,
        user_id=str(message.author.id),
        display_name=message.author.display_name,
        text=strip_mention(message.content, bot_id, own_roles(message, bot_id)),
        message_id=str(message.id),
        attachments=attachments_of(message),
        is_group=place.is_group,
        mentions_bot=mentions_user(message, bot_id),
        reply_to=reply_to,
        reply_to_bot=reply_to_bot,
        ts=message.created_at,
    )


def should_answer(incoming: IncomingMessage, always_answer: Collection[str]) -> bool:
    """DMs always; in a server when mentioned, replied to, or in an always-answer channel."""
    if not incoming.is_group or incoming.mentions_bot or incoming.reply_to_bot:
        return True
    return incoming.chat_id in always_answer or (incoming.thread_id or "") in always_answer


def is_text_command(incoming: IncomingMessage) -> bool:
    """A ``/name args`` typed as text in a DM, on one line (in servers the slash commands
    are used): a message of several lines is a message, whatever its lines start with, so
    no command runs from inside it ("/memory forget everything" above a "confirm" line)."""
    text = incoming.text
    return (
        not incoming.is_group and text.startswith("/") and text[1:2].isalpha() and is_one_line(text)
    )


def parse_text_command(text: str) -> tuple[str, tuple[str, ...]]:
    name, *args = text[1:].split()
    return name.lower(), tuple(args)
