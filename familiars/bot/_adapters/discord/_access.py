"""Asking the bot's one :class:`~familiars.bot._access.AccessPolicy` about a Discord place.

The rules live in ``familiars/bot/_access.py``; this module only says what a Discord message
or interaction is in its terms: a DM is a private chat (no chat list applies), a server
message is a group message in its channel (and thread), from its guild (the server).
"""

from __future__ import annotations

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.discord._convert import PLATFORM, Place


def allows(access: AccessPolicy, user_id: str, place: Place) -> bool:
    """Whether ``user_id`` may use the bot at ``place``."""
    return access.allows(
        PLATFORM,
        user_id,
        group_chat_ids=place.chat_ids if place.is_group else (),
        server_id=place.guild_id,
    )
