"""A forget that a crash cannot leave half done: its intent, written (durably) before the
first word goes, kept up to date ahead of each step, and removed once the last derived copy
is gone; a start finishes any intent left.

Map:

- :class:`ForgetIntent` - one forget under way: the ids asked for (``m_...``, ``node:...``,
  ``file:...``, ``person:...``), its time, each person's keys once read (their links go
  last, so a resumed forget would not find them again), and, written *before* each step
  takes them from their first place (a record's entry, a turn in ``dialogue.json``), the
  texts, the forms they were embedded as, and the record and turn ids. A resumed forget
  starts from these: the vectors, keyword segments, queue copies and state JSON that still
  hold a text whose record is gone are found by it.
- :class:`ForgetIntents` - the intents of one :class:`~familiars.memory.StateHome`, as the
  document ``state/forgetting/<id>.json`` (a file written atomically and fsynced, or a row
  of the database's ``state_docs``): :meth:`~ForgetIntents.begin`, :meth:`~ForgetIntents.note`,
  :meth:`~ForgetIntents.end`, :meth:`~ForgetIntents.left`, and :meth:`~ForgetIntents.lease`
  (held while the forget runs: in the database a worker starting meanwhile does not take
  over a live worker's forget; a dead worker's lease goes with its session).

The intent holds the forgotten words for as long as the forget runs (or, after a crash,
until the next start finishes it); the scrub of the state documents leaves it alone, so a
crash after that scrub still knows what to look for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from familiars.memory._state_home import StateHome

logger = logging.getLogger(__name__)

#: Where intents live, as a state name (files: ``workspace/state/forgetting/``).
INTENT_PREFIX = "state/forgetting/"


@dataclass
class ForgetIntent:
    """One forget under way (see the module map)."""

    name: str
    ids: list[str]
    now: float | None = None
    people: dict[str, list[str]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)
    records: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    #: Memories that stay although a turn forgotten here is where they came from.
    keep: list[str] = field(default_factory=list)

    @property
    def started(self) -> bool:
        """Whether any step may have taken something away yet."""
        return bool(self.texts or self.records or self.nodes or self.people)

    def to_bytes(self) -> bytes:
        body = {k: v for k, v in asdict(self).items() if k != "name"}
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_bytes(cls, name: str, raw: bytes) -> ForgetIntent:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("ids"), list):
            raise ValueError("not a forget intent")
        people = data.get("people") or {}
        return cls(
            name=name,
            ids=[str(i) for i in data["ids"]],
            now=float(data["now"]) if data.get("now") is not None else None,
            people={str(k): [str(x) for x in v] for k, v in people.items()},
            keep=[str(x) for x in data.get("keep") or []],
            **{k: [str(x) for x in data.get(k) or []] for k in _LISTS},
        )


_LISTS = ("texts", "derived", "records", "nodes")


class ForgetIntents:
    """The intents of one state home (see the module map)."""

    def __init__(self, home: StateHome) -> None:
        self.home = home

    def new(self, ids: Sequence[str], now: float | None, keep: Sequence[str] = ()) -> ForgetIntent:
        """An intent not written yet (take its :meth:`lease` first, then :meth:`begin`)."""
        name = f"{INTENT_PREFIX}f_{secrets.token_hex(8)}.json"
        return ForgetIntent(name, list(ids), now, keep=list(keep))

    async def begin(self, intent: ForgetIntent) -> None:
        await self._save(intent)

    async def note(
        self,
        intent: ForgetIntent,
        *,
        texts: Iterable[str] = (),
        derived: Iterable[str] = (),
        records: Iterable[str] = (),
        nodes: Iterable[str] = (),
        people: dict[str, list[str]] | None = None,
    ) -> None:
        """Add what the next step takes away, and write the intent before it does."""
        before = intent.to_bytes()
        for name, new in zip(_LISTS, (texts, derived, records, nodes), strict=True):
            have: list[str] = getattr(intent, name)
            seen = set(have)
            have += [x for x in dict.fromkeys(new) if x and x not in seen]
        for key, keys in (people or {}).items():
            intent.people[key] = sorted({*intent.people.get(key, []), *keys})
        if intent.to_bytes() != before:
            await self._save(intent)

    async def end(self, intent: ForgetIntent) -> None:
        """The forget is done: its intent goes, and the dead rows of its versions too."""
        await asyncio.to_thread(self.home.delete, intent.name)
        await asyncio.to_thread(self.home.vacuum)

    async def left(self) -> list[str]:
        """The names of the intents stored now, oldest first by name order."""
        return await asyncio.to_thread(self.home.names, INTENT_PREFIX, ".json")

    async def load(self, name: str) -> ForgetIntent | None:
        """The intent of that name; None when it is gone (finished meanwhile). A damaged
        one raises ValueError: it is kept, and says so, rather than dropped unfinished."""
        raw = await asyncio.to_thread(self.home.read, name)
        if raw is None:
            return None
        try:
            return ForgetIntent.from_bytes(name, raw)
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"the forget intent {name} cannot be read: {exc}") from exc

    @contextlib.asynccontextmanager
    async def lease(self, name: str) -> AsyncIterator[bool]:
        """Held while the forget ``name`` runs; False: a live worker runs it."""
        async with self.home.job_lease(f"forget/{name}") as mine:
            yield mine

    async def _save(self, intent: ForgetIntent) -> None:
        await asyncio.to_thread(self.home.write, intent.name, intent.to_bytes())


def is_intent(name: str) -> bool:
    """Whether a state name is a forget intent (the state scrub leaves those alone)."""
    return name.startswith(INTENT_PREFIX)


def as_dict(intent: ForgetIntent) -> dict[str, Any]:
    """What a log line may say of an intent: ids and counts, never a text."""
    return {"ids": intent.ids, **{k: len(getattr(intent, k)) for k in _LISTS}}


__all__ = ["INTENT_PREFIX", "ForgetIntent", "ForgetIntents", "as_dict", "is_intent"]
