"""Errors of the Discord adapter, under the bot's adapter errors (``familiars/bot/_errors.py``).

    AdapterError (UserFacingError)
    └── DiscordError (base)
        ├── DiscordStartError   also an AdapterStartError: the bot cannot start (bad token,
        │                       intent switched off, unreachable)
        └── DiscordSendError    also an AdapterSendError: a message could not be delivered
                                after retries

Every message is written to be shown to a person as it is.
"""

from __future__ import annotations

from familiars.bot._errors import AdapterError, AdapterSendError, AdapterStartError


class DiscordError(AdapterError):
    """Base of the Discord adapter's errors."""


class DiscordStartError(DiscordError, AdapterStartError):
    """Start-up failed; the text says what to do about it."""


class DiscordSendError(DiscordError, AdapterSendError):
    def __init__(self, what: str, cause: BaseException) -> None:
        super().__init__(f"Discord {what} failed: {cause}")
        self.what = what
        self.cause = cause


MESSAGE_CONTENT_INTENT_HELP = (
    "Discord refused the connection because the bot asks for the Message Content intent, "
    "which is switched off for this application. Open https://discord.com/developers/"
    "applications, pick the bot's application, go to 'Bot' -> 'Privileged Gateway Intents' "
    "and switch on 'MESSAGE CONTENT INTENT', then start the bot again."
)
