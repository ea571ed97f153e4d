"""Retrying Discord REST calls that failed for reasons that pass: rate limits (429, honouring
``retry_after``), server errors (5xx) and dropped connections. discord.py already waits out
ordinary 429s itself; this catches what it gives up on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import aiohttp
import discord

from familiars.bot._adapters.discord._errors import DiscordSendError

logger = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[object]]

_TRANSIENT = (aiohttp.ClientError, OSError, asyncio.TimeoutError)


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    base_delay_s: float = 1.0
    #: A ``retry_after`` longer than this is not waited for: the call fails instead.
    max_delay_s: float = 60.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")

    def backoff(self, attempt: int) -> float:
        return min(self.base_delay_s * 2**attempt, self.max_delay_s)


def retry_after_of(exc: discord.HTTPException) -> float | None:
    """The ``Retry-After`` Discord sent with a 429, in seconds."""
    headers = getattr(exc.response, "headers", None) or {}
    try:
        return float(headers["Retry-After"])
    except (KeyError, TypeError, ValueError):
        return None


def retry_delay(exc: BaseException, attempt: int, policy: RetryPolicy) -> float | None:
    """Seconds to wait before trying again after ``exc``; None when retrying cannot help."""
    if isinstance(exc, discord.RateLimited):
        delay: float | None = exc.retry_after
    elif isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            delay = retry_after_of(exc)
            delay = policy.backoff(attempt) if delay is None else delay
        elif exc.status >= 500:
            delay = policy.backoff(attempt)
        else:
            return None
    elif isinstance(exc, _TRANSIENT):
        delay = policy.backoff(attempt)
    else:
        return None
    return delay if delay is not None and delay <= policy.max_delay_s else None


async def with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    what: str,
    policy: RetryPolicy,
    sleep: Sleep = asyncio.sleep,
) -> T:
    """Run ``call`` until it succeeds; after the last attempt (or an error retrying cannot
    fix, such as 403) log it and raise :class:`DiscordSendError`."""
    for attempt in range(policy.attempts):
        try:
            return await call()
        except (discord.DiscordException, *_TRANSIENT) as exc:
            delay = retry_delay(exc, attempt, policy)
            if delay is None or attempt + 1 >= policy.attempts:
                logger.error("Discord %s failed after %d attempt(s): %s", what, attempt + 1, exc)
                raise DiscordSendError(what, exc) from exc
            logger.warning("Discord %s failed (%s); retrying in %.2fs", what, exc, delay)
            await sleep(delay)
    raise AssertionError("unreachable: attempts must be >= 1")
