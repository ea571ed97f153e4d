"""The Discord adapter: discord.py cogs over the platform-neutral :class:`TurnHandler`.

``DiscordAdapter(handler, settings, token)`` connects with the message-content intent, turns
DMs, server channels and threads into :class:`IncomingMessage`, streams replies by editing
(at most once a second, split at 2,000 characters) and registers the handler's commands as
ephemeral slash commands.
"""

from familiars.bot._adapters.discord._adapter import DiscordAdapter
from familiars.bot._adapters.discord._errors import DiscordSendError, DiscordStartError

__all__ = ["DiscordAdapter", "DiscordSendError", "DiscordStartError"]
