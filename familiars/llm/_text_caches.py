"""The process's caches keyed by people's words, emptied whenever something is forgotten.

A cache keyed by text (a word's stem, a message's relations, the records' word index) keeps
a person's words in process memory after every file has lost them. Each cache's owner
declares it here, beside the cache: :func:`text_cache` over an ``lru_cache``'d function,
:func:`text_store` for a module's own dict or list, :func:`object_text_store` for an
object's (held weakly: gone with the object). The one Forgetter calls
:func:`clear_text_caches` at the end of every forget, whatever road asked for it. Emptying
all of them is cheap (they fill again as turns read) and forgets are rare, so no cache
is searched for the forgotten words first.

This lives in the lowest layer that owns such a cache (the offline responder's), so every
layer above registers in the same place.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Protocol, TypeVar


class _LruCached(Protocol):
    def cache_clear(self) -> None: ...
    def cache_info(self) -> Any: ...


_Cached = TypeVar("_Cached", bound=_LruCached)
_Owner = TypeVar("_Owner")

#: name -> (empty it, how many entries it holds); a name names one cache.
_CACHES: dict[str, tuple[Callable[[], None], Callable[[], int]]] = {}
#: Objects' own caches by the owner's name: (the objects, weakly; empty one; its size).
_OBJECTS: dict[str, tuple[list[weakref.ref[Any]], Callable[[Any], None], Callable[[Any], int]]] = {}


def text_cache(cached: _Cached) -> _Cached:
    """Declare an ``lru_cache``'d function whose arguments are people's words (as a
    decorator, over ``@functools.lru_cache``)."""
    name = f"{getattr(cached, '__module__', '?')}.{getattr(cached, '__qualname__', '?')}"
    _CACHES[name] = (cached.cache_clear, lambda: int(cached.cache_info().currsize))
    return cached


def text_store(name: str, clear: Callable[[], None], size: Callable[[], int]) -> None:
    """Declare a module's own cache of people's words (a dict, a list) by its name."""
    _CACHES[name] = (clear, size)


def object_text_store(
    name: str, owner: _Owner, clear: Callable[[_Owner], None], size: Callable[[_Owner], int]
) -> None:
    """Declare ``owner``'s own cache of people's words (``name`` names the kind of owner);
    held weakly, so the owner goes when nothing else holds it."""
    owners, _, _ = _OBJECTS.setdefault(name, ([], clear, size))
    owners[:] = [ref for ref in owners if ref() is not None]
    owners.append(weakref.ref(owner))


def _alive(owners: list[weakref.ref[Any]]) -> list[Any]:
    return [owner for owner in (ref() for ref in owners) if owner is not None]


def clear_text_caches() -> None:
    """Empty every declared cache of people's words (the Forgetter, after a forget)."""
    for clear, _ in list(_CACHES.values()):
        clear()
    for owners, clear_one, _ in list(_OBJECTS.values()):
        for owner in _alive(owners):
            clear_one(owner)


def text_cache_sizes() -> dict[str, int]:
    """How many entries each declared cache holds now (its name -> the count)."""
    sizes = {name: size() for name, (_, size) in _CACHES.items()}
    for name, (owners, _, size_of) in _OBJECTS.items():
        sizes[name] = sum(size_of(owner) for owner in _alive(owners))
    return sizes


__all__ = [
    "clear_text_caches",
    "object_text_store",
    "text_cache",
    "text_cache_sizes",
    "text_store",
]
