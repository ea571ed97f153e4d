"""Asking the bot's one :class:`~familiars.bot._access.AccessPolicy` about a Telegram message.

The rules live in ``familiars/bot/_access.py``; this module only says what a Telegram message
is in its terms: a private chat has no chat list to pass, a group message is in its chat.
"""

from __future__ import annotations

from telegram import Message

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.telegram._convert import PLATFORM, is_group


def allows(access: AccessPolicy, message: Message) -> bool:
    """Whether the sender of ``message`` may use the bot in its chat."""
    user = message.from_user
    user_id = str(user.id) if user else ""
    chats = (str(message.chat_id),) if is_group(message) else ()
    return access.allows(PLATFORM, user_id, group_chat_ids=chats)
