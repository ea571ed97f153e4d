"""Providers in an ordered list with a cooldown circuit breaker: a provider that fails rests
(quota / 429 / refused key: long; 5xx / timeout / no connection: short) and is not tried again
until its time is up; the next one answers instead."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import httpx

from familiars.config import LLMSettings
from familiars.llm._base import ChatMessage, ChatModel, ChatResult, ProviderState, ToolSpec
from familiars.llm._errors import (
    NoProviderAvailableError,
    ProviderError,
    UnsupportedFeatureError,
)
from familiars.llm._openai import OpenAIChatModel

logger = logging.getLogger(__name__)

StateListener = Callable[[list[ProviderState]], None]


class ProviderRouter(ChatModel):
    """A :class:`ChatModel` that asks its providers in order, skipping those cooling down."""

    name = "router"

    def __init__(
        self,
        providers: Sequence[ChatModel],
        *,
        cooldown_quota_s: float = 3600.0,
        cooldown_error_s: float = 60.0,
        cooldown_max_s: float = 3600.0,
        clock: Callable[[], float] = time.time,
        on_change: StateListener | None = None,
    ) -> None:
        super().__init__()
        if not providers:
            raise ValueError("a router needs at least one provider")
        names = [p.name for p in providers]
        if len(set(names)) != len(names):
            raise ValueError(f"provider names must be unique, got {names}")
        self.providers = list(providers)
        self.model = providers[0].model
        self.cooldown_quota_s = cooldown_quota_s
        self.cooldown_error_s = cooldown_error_s
        self.cooldown_max_s = cooldown_max_s
        #: Providers whose cooldown was inherited from an earlier process: each may be tried
        #: once (a restart re-checks), and cools again only if it fails again.
        self._probe: set[str] = set()
        self._clock = clock
        #: The clock cooldowns are measured on (time.time unless a test passes another).
        self.clock = clock
        self._on_change = on_change
        self._states = {p.name: ProviderState(name=p.name, model=p.model) for p in providers}

    # -- state ---------------------------------------------------------------------------

    def states(self) -> list[ProviderState]:
        self._expire_cooldowns()
        return [ProviderState(**vars(self._states[p.name])) for p in self.providers]

    def state_time(self) -> float:
        return self._clock()

    def restore(self, saved: Sequence[Mapping[str, Any]]) -> None:
        """Take over cooldowns saved by an earlier process, so a restart does not hammer a
        provider whose quota is spent."""
        now = self._clock()
        for item in saved:
            state = self._states.get(str(item.get("name")))
            until = item.get("cooling_until")
            if state is not None and isinstance(until, int | float) and until > now:
                state.status = "cooling"
                state.cooling_until = min(float(until), now + self.cooldown_max_s)
                state.last_error = item.get("last_error")
                self._probe.add(state.name)

    def set_listener(self, listener: StateListener | None) -> None:
        self._on_change = listener

    def _notify(self) -> None:
        if self._on_change is not None:
            self._on_change(self.states())

    def _expire_cooldowns(self) -> None:
        now = self._clock()
        for state in self._states.values():
            if state.cooling_until is not None and state.cooling_until <= now:
                state.status, state.cooling_until = "ok", None

    def cooldown_for(self, exc: ProviderError) -> float:
        if exc.cooldown == "long":
            wanted = exc.retry_after if exc.retry_after is not None else self.cooldown_quota_s
        else:
            wanted = self.cooldown_error_s
        return min(wanted, self.cooldown_max_s)

    def _cool(self, provider: ChatModel, exc: ProviderError) -> None:
        state = self._states[provider.name]
        self._probe.discard(provider.name)
        seconds = self.cooldown_for(exc)
        state.status, state.cooling_until = "cooling", self._clock() + seconds
        state.failures += 1
        state.last_error = f"{type(exc).__name__}: {exc.detail}"
        logger.warning(
            "provider %s cools down for %.0fs: %s",
            provider.name,
            seconds,
            exc,
            extra={
                "notice": f"the language model {provider.name!r} could not be used just now; "
                f"I'll try it again in {seconds:.0f} seconds. The details are in the log."
            },
        )
        self._notify()

    def _succeeded(self, provider: ChatModel) -> None:
        state = self._states[provider.name]
        state.successes += 1
        if provider.name in self._probe:  # the inherited cooldown was stale: back in service
            self._probe.discard(provider.name)
            state.status, state.cooling_until = "ok", None
        self._notify()

    def available(self) -> list[ChatModel]:
        self._expire_cooldowns()
        return [
            p
            for p in self.providers
            if self._states[p.name].status == "ok" or p.name in self._probe
        ]

    def _none_available(self, last: ProviderError | None) -> NoProviderAvailableError:
        ends = [s.cooling_until for s in self._states.values() if s.cooling_until is not None]
        retry_at = min(ends) if ends else None
        wait = "" if retry_at is None else f"; the first is back in {retry_at - self._clock():.0f}s"
        why = f" (last error: {last})" if last is not None else ""
        return NoProviderAvailableError(
            f"every language model provider is cooling down{wait}{why}", retry_at=retry_at
        )

    # -- calls ---------------------------------------------------------------------------

    async def _first_answer(self, call: Callable[[ChatModel], Any]) -> ChatResult:
        last: ProviderError | None = None
        for provider in self.available():
            try:
                result: ChatResult = await call(provider)
            except ProviderError as exc:
                self._cool(provider, exc)
                last = exc
                continue
            self._succeeded(provider)
            return result
        raise self._none_available(last) from last

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:
        return await self._first_answer(
            lambda p: p.chat(
                messages,
                max_tokens=max_tokens,
                temperature=temperature,
                response_format=response_format,
            )
        )

    @property
    def supports_tools(self) -> bool:
        return any(p.supports_tools for p in self.available())

    async def chat_tools(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ChatResult:
        """Asks the first available provider that takes tools; a provider that refuses them
        is not offered them again, and the next one is asked."""
        last: ProviderError | None = None
        for provider in [p for p in self.available() if p.supports_tools]:
            try:
                result = await provider.chat_tools(
                    messages, tools, max_tokens=max_tokens, temperature=temperature
                )
            except UnsupportedFeatureError:
                provider.tools_refused()
                continue
            except ProviderError as exc:
                self._cool(provider, exc)
                last = exc
                continue
            self._succeeded(provider)
            return result
        if last is not None:
            raise self._none_available(last) from last
        raise UnsupportedFeatureError(self.name, "tools", "no available provider takes tools")

    async def chat_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any],
        name: str = "output",
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> ChatResult:
        return await self._first_answer(
            lambda p: p.chat_json(
                messages, schema=schema, name=name, max_tokens=max_tokens, temperature=temperature
            )
        )

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        """Fails over only before the first chunk: text already shown is never repeated."""
        last: ProviderError | None = None
        for provider in self.available():
            started = False
            try:
                async for chunk in provider.stream(
                    messages, max_tokens=max_tokens, temperature=temperature
                ):
                    started = True
                    yield chunk
            except ProviderError as exc:
                self._cool(provider, exc)
                if started:
                    raise
                last = exc
                continue
            self._succeeded(provider)
            return
        raise self._none_available(last) from last

    async def aclose(self) -> None:
        for provider in self.providers:
            await provider.aclose()


def build_chat_model(
    settings: LLMSettings,
    *,
    env: Mapping[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    clock: Callable[[], float] = time.time,
) -> ProviderRouter | None:
    """The configured providers behind one router, or None when none is configured (the
    caller then uses the offline responder and the rule-based writer)."""
    if not settings.providers:
        return None
    providers = [
        OpenAIChatModel.from_settings(
            p,
            env=env,
            key_rest_s=settings.cooldown_quota_s,
            max_wait_s=settings.cooldown_max_s,
            transport=transport,
            clock=clock,
        )
        for p in settings.providers
    ]
    return ProviderRouter(
        providers,
        cooldown_quota_s=settings.cooldown_quota_s,
        cooldown_error_s=settings.cooldown_error_s,
        cooldown_max_s=settings.cooldown_max_s,
        clock=clock,
    )
