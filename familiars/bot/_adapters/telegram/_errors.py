"""Errors of the Telegram adapter, under the bot's adapter errors (``familiars/bot/_errors.py``).

    AdapterError (UserFacingError)
    └── TelegramAdapterError (base)
        ├── TelegramStartError   also an AdapterStartError: the bot cannot start (no or bad
        │                        token, Bot API unreachable)
        └── TelegramSendError    also an AdapterSendError: a send that failed for good (after
                                 retries, or one that retrying cannot fix)

Every message is written to be shown to a person as it is.
"""

from __future__ import annotations

from familiars.bot._errors import AdapterError, AdapterSendError, AdapterStartError


class TelegramAdapterError(AdapterError):
    """Base of this adapter's errors."""


class TelegramStartError(TelegramAdapterError, AdapterStartError):
    """The bot could not start (no or bad token, server unreachable)."""


class TelegramSendError(TelegramAdapterError, AdapterSendError):
    """A send that failed for good (after retries, or one that retrying cannot fix)."""

    def __init__(
        self, message: str, *, unreachable: bool = False, migrated_to: int | None = None
    ) -> None:
        super().__init__(message)
        #: True when Telegram refuses to deliver to that chat at all (the person never
        #: started the bot, blocked it, or the chat does not exist).
        self.unreachable = unreachable
        #: The group's new id when it was upgraded to a supergroup.
        self.migrated_to = migrated_to
