"""Errors of the LLM clients, mapped from HTTP at the client boundary.

LLMError (base)
├── ProviderError                 one provider failed; carries ``provider`` and ``cooldown``
│   ├── RateLimitedError          429 or quota exhausted: a long cooldown (or Retry-After)
│   ├── ProviderAuthError         401 / 403: the key is refused, a long cooldown
│   ├── ProviderServerError       5xx: a short cooldown
│   ├── ProviderTimeoutError      no answer in time: a short cooldown
│   ├── ProviderConnectionError   cannot connect: a short cooldown
│   │   └── StreamCutError        the stream ended before the reply was complete
│   └── BadResponseError          200 with a body that is not a chat completion: short
├── UnsupportedFeatureError       the provider refused a request feature (json_schema, ...)
├── BadRequestError               4xx that is our request's fault: no cooldown, not retried
└── NoProviderAvailableError      every provider is cooling down (or none is configured)
"""

from __future__ import annotations

from typing import Literal

CooldownKind = Literal["long", "short", "none"]


class LLMError(Exception):
    """Base of every error raised by ``familiars.llm``."""


class ProviderError(LLMError):
    """A provider failed in a way that says it should rest for a while."""

    cooldown: CooldownKind = "short"

    def __init__(self, provider: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.detail = message
        self.retry_after = retry_after


class RateLimitedError(ProviderError):
    cooldown: CooldownKind = "long"


class ProviderAuthError(ProviderError):
    cooldown: CooldownKind = "long"


class ProviderServerError(ProviderError):
    pass


class ProviderTimeoutError(ProviderError):
    pass


class ProviderConnectionError(ProviderError):
    pass


class StreamCutError(ProviderConnectionError):
    """A streamed reply stopped with neither ``[DONE]`` nor a ``finish_reason``."""


class BadResponseError(ProviderError):
    pass


class UnsupportedFeatureError(LLMError):
    def __init__(self, provider: str, feature: str, message: str) -> None:
        super().__init__(f"{provider} does not support {feature}: {message}")
        self.provider = provider
        self.feature = feature


class BadRequestError(LLMError):
    def __init__(self, provider: str, status: int, message: str) -> None:
        super().__init__(f"{provider}: request refused ({status}): {message}")
        self.provider = provider
        self.status = status


class NoProviderAvailableError(LLMError):
    def __init__(self, message: str, *, retry_at: float | None = None) -> None:
        super().__init__(message)
        self.retry_at = retry_at
