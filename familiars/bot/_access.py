"""Who may use the bot and who owns it: one policy for every platform.

:meth:`AccessPolicy.from_settings` builds it once from ``Settings.access`` (plus
``discord.allowed_guilds``); the runtime gives that one object to every adapter (through
:class:`~familiars.bot._adapters.base.PlatformAdapter`) and to the dialogue manager, which
asks it who is an owner for the owner-only commands.

Entries of ``owners``, ``allowed_users`` and ``allowed_chats`` are ``"platform:id"`` (that
platform only) or a bare ``"id"`` (every platform); both mean the same everywhere.

- :meth:`~AccessPolicy.is_owner`: listed in ``owners``; the console (the machine's own
  terminal) is always an owner.
- :meth:`~AccessPolicy.allows`: owners always; otherwise the user must be listed when
  ``allowed_users`` is not empty, the server (a Discord guild) must be allowed when the
  platform limits servers, and in a group the chat (or its thread) must be listed when
  ``allowed_chats`` is not empty. Private chats ignore the chat list (a private chat's id
  cannot be known in advance). Empty lists allow everyone.
- :meth:`~AccessPolicy.nobody_allowed`: why nobody at all can use the bot on a platform
  (said once at start-up), or None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from familiars.config import Settings

#: Platforms on the machine itself, whose user is the bot's owner.
LOCAL_PLATFORMS = frozenset({"console"})
_ANY = ""


@dataclass(frozen=True)
class IdList:
    """A parsed access list: ``(platform, id)`` pairs, platform ``""`` for a bare id."""

    entries: frozenset[tuple[str, str]]

    @classmethod
    def parse(cls, raw: Iterable[str]) -> IdList:
        found = set()
        for entry in raw:
            prefix, sep, rest = entry.strip().partition(":")
            platform, ident = (prefix.strip().lower(), rest.strip()) if sep else (_ANY, prefix)
            if ident:
                found.add((platform, ident))
        return cls(frozenset(found))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def has(self, platform: str, ident: str) -> bool:
        return (platform, ident) in self.entries or (_ANY, ident) in self.entries

    def any_for(self, platform: str) -> bool:
        """Whether any entry applies on ``platform``."""
        return any(p in (platform, _ANY) for p, _ in self.entries)


@dataclass(frozen=True)
class AccessPolicy:
    owners: IdList = field(default_factory=lambda: IdList(frozenset()))
    users: IdList = field(default_factory=lambda: IdList(frozenset()))  # empty: everyone
    chats: IdList = field(default_factory=lambda: IdList(frozenset()))  # empty: every chat
    #: Per platform, the servers (Discord guilds) the bot may be used in; absent: all.
    servers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Settings) -> AccessPolicy:
        access = settings.access
        guilds = frozenset(g.strip() for g in settings.discord.allowed_guilds if g.strip())
        return cls(
            owners=IdList.parse(access.owners),
            users=IdList.parse(access.allowed_users),
            chats=IdList.parse(access.allowed_chats),
            servers={"discord": guilds} if guilds else {},
        )

    def is_owner(self, platform: str, user_id: str) -> bool:
        return platform in LOCAL_PLATFORMS or self.owners.has(platform, user_id)

    def allows(
        self,
        platform: str,
        user_id: str,
        *,
        group_chat_ids: tuple[str, ...] = (),
        server_id: str | None = None,
    ) -> bool:
        """Whether ``user_id`` may talk to the bot here. ``group_chat_ids``: the chat (and
        thread) ids of a group message, empty in a private chat; ``server_id``: the server
        (Discord guild) a message came from, if any."""
        if self.is_owner(platform, user_id):
            return True
        if self.users and not self.users.has(platform, user_id):
            return False
        allowed_servers = self.servers.get(platform)
        if server_id is not None and allowed_servers and server_id not in allowed_servers:
            return False
        if not group_chat_ids or not self.chats:
            return True
        return any(self.chats.has(platform, chat) for chat in group_chat_ids)

    def nobody_allowed(self, platform: str) -> str | None:
        """Why nobody can use the bot on ``platform``, or None when someone can."""
        if self.owners.any_for(platform) or not self.users or self.users.any_for(platform):
            return None
        return (
            f"nobody may use the bot on {platform.capitalize()}: access.allowed_users lists "
            f"no '{platform}:<user id>' (or bare id) entry and access.owners has none either"
        )
