"""Webhook mode: Telegram posts each update to the bot's own HTTP server.

:class:`TelegramWebhook` is what the API's route hands the request to. The secret header is
compared in constant time (wrong or missing: 403 and the body is not read); a body that is
not an update is 400; an ``update_id`` taken already is answered 200 and dropped (Telegram
posts an update again when its answer was late or lost); the rest goes to
python-telegram-bot's update queue, handled by the same handlers as polled updates. While the
adapter is not running the answer is 503, so Telegram keeps the update and tries again.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Protocol

from telegram import Update
from telegram.ext import Application

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: What the Bot API accepts as ``secret_token``.
SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class UpdateLedger(Protocol):
    """Which update ids were taken: ``first_time`` is True once per id."""

    async def first_time(self, update_id: int) -> bool: ...


class SeenUpdates:
    """The last ``keep`` update ids this process took (Telegram posts an update again only
    for a while, and ids grow, so a bounded memory suffices for one process)."""

    def __init__(self, keep: int = 10_000) -> None:
        self._keep = keep
        self._ids: OrderedDict[int, None] = OrderedDict()

    async def first_time(self, update_id: int) -> bool:
        if update_id in self._ids:
            return False
        self._ids[update_id] = None
        if len(self._ids) > self._keep:
            self._ids.popitem(last=False)
        return True


class TelegramWebhook:
    """``deliver(headers, body)`` -> HTTP status, for the route at ``path``."""

    def __init__(self, path: str, secret: str, *, ledger: UpdateLedger | None = None) -> None:
        self._path = path
        self.secret = secret  # told to Telegram by setWebhook
        self._secret = secret.encode()
        self._ledger: UpdateLedger = ledger or SeenUpdates()
        self._app: Application[Any, Any, Any, Any, Any, Any] | None = None
        self.refused = 0
        self.duplicates = 0

    @property
    def path(self) -> str:
        return self._path

    def open(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Take updates into ``app`` (started) from now on."""
        self._app = app

    def close(self) -> None:
        """Answer 503 from now on: Telegram keeps the updates for the next worker."""
        self._app = None

    def authentic(self, headers: Mapping[str, str]) -> bool:
        given = headers.get(SECRET_HEADER) or headers.get(SECRET_HEADER.lower())
        return given is not None and hmac.compare_digest(given.encode(), self._secret)

    async def deliver(self, headers: Mapping[str, str], body: bytes) -> int:
        if not self.authentic(headers):
            self.refused += 1
            logger.warning("Telegram webhook: a request without the right secret, refused")
            return 403
        app = self._app
        if app is None:
            return 503
        update = _parse(body, app)
        if update is None:
            return 400
        if not await self._ledger.first_time(update.update_id):
            self.duplicates += 1
            logger.info("Telegram webhook: update %s came again; taken once", update.update_id)
            return 200
        await app.update_queue.put(update)
        return 200


def _parse(body: bytes, app: Application[Any, Any, Any, Any, Any, Any]) -> Update | None:
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            raise ValueError("no update_id")
        return Update.de_json(data, app.bot)
    except (ValueError, TypeError, KeyError) as exc:
        logger.warning("Telegram webhook: a body that is not an update (%s), refused", exc)
        return None
