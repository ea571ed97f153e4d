"""Who may use the bot on Discord, from ``Settings.access`` and ``Settings.discord``.

Access lists hold ``"discord:<id>"`` entries (a bare ``<id>`` counts for every platform).
An empty list allows everyone. ``allowed_chats`` governs server channels and threads (a DM
channel id cannot be known in advance, so DMs are governed by ``allowed_users``);
``discord.allowed_guilds`` limits the servers. Owners are always allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

from familiars.config import Settings

PLATFORM = "discord"


def ids_for_platform(entries: list[str], platform: str = PLATFORM) -> frozenset[str]:
    """The ids of ``entries`` that apply to ``platform``: ``"discord:42"`` and bare ``"42"``."""
    ids = set()
    for entry in entries:
        prefix, sep, rest = entry.strip().partition(":")
        if not sep:
            ids.add(prefix)
        elif prefix.lower() == platform:
            ids.add(rest.strip())
    return frozenset(i for i in ids if i)


@dataclass(frozen=True)
class AccessPolicy:
    owners: frozenset[str]
    users: frozenset[str] | None  # None: everyone
    chats: frozenset[str] | None
    guilds: frozenset[str] | None

    @classmethod
    def from_settings(cls, settings: Settings) -> AccessPolicy:
        access = settings.access
        return cls(
            owners=ids_for_platform(access.owners),
            users=ids_for_platform(access.allowed_users) if access.allowed_users else None,
            chats=ids_for_platform(access.allowed_chats) if access.allowed_chats else None,
            guilds=frozenset(settings.discord.allowed_guilds) or None,
        )

    def is_owner(self, user_id: str) -> bool:
        return user_id in self.owners

    def allows(
        self,
        user_id: str,
        *,
        guild_id: str | None = None,
        chat_ids: tuple[str, ...] = (),
    ) -> bool:
        """Whether ``user_id`` may talk to the bot here; ``chat_ids`` are the channel (and
        thread) ids of a server message, empty in a DM."""
        if self.is_owner(user_id):
            return True
        if self.users is not None and user_id not in self.users:
            return False
        if guild_id is None:
            return True
        if self.guilds is not None and guild_id not in self.guilds:
            return False
        return self.chats is None or any(c in self.chats for c in chat_ids)

    def nobody_allowed(self) -> str | None:
        """Why nobody can use the bot on Discord, or None when someone can."""
        if self.owners:
            return None
        if self.users is not None and not self.users:
            return (
                "nobody may use the bot on Discord: access.allowed_users lists no "
                "'discord:<user id>' entry and access.owners has none either"
            )
        return None
