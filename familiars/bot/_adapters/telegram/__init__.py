"""The Telegram adapter on python-telegram-bot, in the same modules as the Discord adapter.

``TelegramAdapter(handler, settings, token, access=...)`` long-polls the Bot API
(``settings.telegram.base_url`` for a self-hosted server), or in webhook mode
(``telegram.webhook_url``) takes the updates Telegram posts to the bot's API server:

- ``_adapter``: the adapter: builds the ``Application``, starts and stops polling or sets the
  webhook, ``send``;
- ``_webhook``: the webhook route's checks: the secret header (constant time, else 403), the
  body, an update id taken once;
- ``_access``: a Telegram message put to the bot's one ``AccessPolicy``;
- ``_convert``: messages -> ``IncomingMessage`` / ``CommandInvocation``, attachments;
- ``_messages``: the conversation: private chats always answered, groups on a mention, a
  reply to the bot or a command; typing action, streamed replies;
- ``_inflight``: chat lanes: one chat (forum topic) in order, chats concurrently
  (``max_concurrent_turns``), drained on stop;
- ``_stream``: a reply edited at most once per ``edit_interval_s``, split at 4,096 characters;
- ``_slash``: command answers; private ones go to the person's private chat, the group only
  hears that it was sent (or that they must start a private chat with the bot first);
- ``_layout``: the command menu (``set_my_commands``) from the handler's command specs;
- ``_sending``: sends, edits, documents, downloads (the file URL holds the token, so it
  never leaves the adapter);
- ``_retry``: network and 5xx errors retried with exponential backoff (flood control is
  python-telegram-bot's ``AIORateLimiter``), then :class:`TelegramSendError`;
- ``_errors``: the adapter's errors, under the bot's ``AdapterStartError`` / ``AdapterSendError``.
"""

from familiars.bot._adapters.telegram._adapter import TelegramAdapter
from familiars.bot._adapters.telegram._errors import (
    TelegramAdapterError,
    TelegramSendError,
    TelegramStartError,
)
from familiars.bot._adapters.telegram._messages import NOT_ALLOWED, SORRY
from familiars.bot._adapters.telegram._slash import SENT_PRIVATELY, START_PRIVATE_FIRST

__all__ = [
    "NOT_ALLOWED",
    "SENT_PRIVATELY",
    "SORRY",
    "START_PRIVATE_FIRST",
    "TelegramAdapter",
    "TelegramAdapterError",
    "TelegramSendError",
    "TelegramStartError",
]
