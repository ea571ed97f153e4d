"""Retrying Bot API requests: network errors and 5xx answers are retried with exponential
backoff (429s were already retried by python-telegram-bot's ``AIORateLimiter``); anything
else fails at once. Every failure for good becomes a :class:`TelegramSendError`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, TelegramError

from familiars.bot._adapters.telegram._errors import TelegramSendError

logger = logging.getLogger(__name__)

T = TypeVar("T")
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 3
    backoff_s: float = 1.0


async def with_retries(
    what: str, request: Callable[[], Awaitable[T]], *, policy: RetryPolicy, sleep: Sleep
) -> T:
    """Run ``request``; raise :class:`TelegramSendError` when it fails for good."""
    delay = policy.backoff_s
    for attempt in range(policy.retries + 1):
        try:
            return await request()
        except (BadRequest, Forbidden) as exc:
            raise TelegramSendError(f"{what}: {exc}", unreachable=unreachable(exc)) from exc
        except NetworkError as exc:
            if attempt == policy.retries:
                raise TelegramSendError(f"{what} failed after {attempt + 1} tries: {exc}") from exc
            logger.warning("Telegram: %s failed (%s), retrying in %.1fs", what, exc, delay)
            await sleep(delay)
            delay *= 2
        except ChatMigrated as exc:
            raise TelegramSendError(f"{what}: {exc}", migrated_to=int(exc.new_chat_id)) from exc
        except TelegramError as exc:
            raise TelegramSendError(f"{what}: {exc}") from exc
    raise AssertionError("unreachable")  # pragma: no cover


def unreachable(exc: TelegramError) -> bool:
    """Whether Telegram refuses that chat for good (blocked, never started, gone)."""
    text = str(exc).lower()
    return isinstance(exc, Forbidden) or "chat not found" in text
