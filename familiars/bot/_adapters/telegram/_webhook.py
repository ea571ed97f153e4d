"""Webhook mode: Telegram posts each update to the bot's own HTTP server.

:class:`TelegramWebhook` is what the API's route hands the request to. The secret header is
compared in constant time (wrong or missing: 403 and the body is not read); a body that is
not an update is 400; an ``update_id`` taken already is answered 200 and dropped (Telegram
posts an update again when its answer was late or lost); the rest is handled by the same
python-telegram-bot handlers as a polled update, and answered 200 only once its turn is done
(or after ``ack_after_s``, so a slow turn is not posted again): a worker killed mid-turn
never said 200, and Telegram posts the update again, to another worker. While the adapter is
not running, or its turn was dropped by a stop, the answer is 503: Telegram keeps the update.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from telegram import Bot, Update

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

    def __init__(
        self,
        path: str,
        secret: str,
        *,
        ack_after_s: float = 30.0,
        ledger: UpdateLedger | None = None,
    ) -> None:
        self._path = path
        self.secret = secret  # told to Telegram by setWebhook
        self._secret = secret.encode()
        self._ack_after_s = ack_after_s
        self._ledger: UpdateLedger = ledger or SeenUpdates()
        self._bot: Bot | None = None
        self._take: Callable[[Update], Awaitable[None]] | None = None
        self.refused = 0
        self.duplicates = 0

    @property
    def path(self) -> str:
        return self._path

    def open(self, bot: Bot, take: Callable[[Update], Awaitable[None]]) -> None:
        """Take updates from now on: ``take(update)`` returns once it is handled."""
        self._bot, self._take = bot, take

    def close(self) -> None:
        """Answer 503 from now on: Telegram keeps the updates for the next worker."""
        self._bot = self._take = None

    def authentic(self, headers: Mapping[str, str]) -> bool:
        given = headers.get(SECRET_HEADER) or headers.get(SECRET_HEADER.lower())
        return given is not None and hmac.compare_digest(given.encode(), self._secret)

    async def deliver(self, headers: Mapping[str, str], body: bytes) -> int:
        if not self.authentic(headers):
            self.refused += 1
            logger.warning("Telegram webhook: a request without the right secret, refused")
            return 403
        bot, take = self._bot, self._take
        if bot is None or take is None:
            return 503
        update = _parse(body, bot)
        if update is None:
            return 400
        if not await self._ledger.first_time(update.update_id):
            self.duplicates += 1
            logger.info("Telegram webhook: update %s came again; taken once", update.update_id)
            return 200
        return await self._handled(take(update), update.update_id)

    async def _handled(self, turn: Awaitable[None], update_id: int) -> int:
        """200 once ``turn`` is done or has run ``ack_after_s``; 503 when a stop dropped it."""
        task = asyncio.ensure_future(turn)
        done, _ = await asyncio.wait({task}, timeout=self._ack_after_s)
        if not done:
            logger.info("Telegram webhook: update %s still running; acknowledged", update_id)
            return 200
        if task.cancelled():
            return 503
        if task.exception() is not None:  # reported by the handler's own error path
            logger.debug("Telegram webhook: update %s failed", update_id)
        return 200


def _parse(body: bytes, bot: Bot) -> Update | None:
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            raise ValueError("no update_id")
        return Update.de_json(data, bot)
    except (ValueError, TypeError, KeyError) as exc:
        logger.warning("Telegram webhook: a body that is not an update (%s), refused", exc)
        return None
