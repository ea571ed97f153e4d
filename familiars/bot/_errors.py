"""The bot's errors, drawn as one tree.

    UserFacingError (familiars.config)   its text is shown to the person as it is
    └── AdapterError                     a chat platform adapter failed
        ├── AdapterStartError            the adapter cannot start (bad token, unreachable, ...)
        │   ├── DiscordStartError        (bot._adapters.discord, also a DiscordError)
        │   └── TelegramStartError       (bot._adapters.telegram, also a TelegramAdapterError)
        └── AdapterSendError             a message could not be delivered (after retries)
            ├── DiscordSendError
            └── TelegramSendError

Commands raise :class:`UserFacingError` (or a subclass) for what a person did wrong; its
text is their answer. Anything else that escapes a command is a bug: it is logged with its
traceback and the person gets :data:`SOMETHING_WENT_WRONG` (an unexpected ``ValueError`` is
not a message).
"""

from __future__ import annotations

from familiars.config import UserFacingError

SOMETHING_WENT_WRONG = "Sorry, something went wrong on my side. Please try again in a moment."


class AdapterError(UserFacingError):
    """Base of every platform adapter's errors."""


class AdapterStartError(AdapterError):
    """The adapter could not start; the text says what to do about it."""


class AdapterSendError(AdapterError):
    """A message could not be delivered, after the retries that could help."""


__all__ = [
    "SOMETHING_WENT_WRONG",
    "AdapterError",
    "AdapterSendError",
    "AdapterStartError",
    "UserFacingError",
]
