"""What the scheduler must remember across restarts, and where open loops come from.

:class:`SchedulerLedger` is one JSON file, ``<workspace>/scheduler/state.json``, written
atomically after every change. It holds, per open loop the scheduler acted on, its fate
(``sending`` -> ``sent`` / ``missed`` / ``followed_up``, or ``uncertain`` when the process
died between "about to send" and "sent": such a loop is never sent again, and is shown by
``familiars reminders list``; ``cancelled``: the person called it off), and per dialogue the
proactive messages sent, a model's chosen silence and ``/proactive off``. A reminder is thus
never sent twice and never dropped silently, even when the memory file could not be updated.

In the database home (many workers) ``sending`` is a lease held by the claiming worker's
database session instead: a worker that dies between its claim and recording the send lets
the lease go with its session, and another worker sends the reminder. It is sent exactly
once except in one window: a worker killed after the platform took the message but before
``sent`` was written (milliseconds) leaves it to be sent again (at least once, never lost).

:class:`StoreLoops` reads open loops from the :class:`~familiars.memory.MemoryStore`
and closes them (``extra["open_loop"]["status"] = "done"`` with the outcome).
"""

from __future__ import annotations

import asyncio
import builtins
import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from familiars.memory import FileStateHome, MemoryRecord, StateHome, parse_ts
from familiars.scheduler._decider import OpenLoop
from familiars.scheduler._errors import SchedulerStateError
from familiars.scheduler._files import json_bytes

logger = logging.getLogger(__name__)

LEDGER_VERSION = 1
STATE_FILE = "state.json"
#: What the ledger says of a forgotten reminder's task (as the memory's file scrubber).
FORGOTTEN_TASK = "[forgotten]"
#: Fates after which a loop is never acted on again.
FINAL_STATUSES: frozenset[str] = frozenset(
    {"sent", "missed", "followed_up", "uncertain", "cancelled"}
)
_KEEP_SENT = 50


def ledger_path(workspace: Path) -> Path:
    return Path(workspace) / "scheduler" / STATE_FILE


def dialogue_key(agent_id: str, dialogue_id: str | None, user_key: str | None) -> str:
    """The ledger's key for where a proactive message goes."""
    if dialogue_id:
        return f"{agent_id}/{dialogue_id}"
    return f"{agent_id}/user:{user_key or '-'}"


_T = TypeVar("_T")


def _copied(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if entry is None else dict(entry)


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds")


class SchedulerLedger:
    """The scheduler's persistent state (see the module docstring).

    Kept through a :class:`~familiars.memory.StateHome` as the document ``scheduler/
    state.json``. In the database home the loops' fates are rows shared by every worker
    (``reminder_fates``): :meth:`claim` gives each due loop to one worker, :meth:`refresh`
    reads what the others did, and :meth:`save` writes only the fates this worker changed;
    the dialogues' and people's part (sends, silences, ``/proactive off``) is saved by
    replaying this worker's changes on what is stored, under a lock every worker shares, so
    a copy read before another worker's change never writes over it.

    There :meth:`claim`, :meth:`save` and :meth:`refresh` run in a thread while chat commands
    (a cancel, ``/proactive off``, a forget) change the ledger on the event loop: ``_guard``
    is held over every change to this worker's copy, never across a database call, so the
    loop never waits on the database for it; a mark made while a save or refresh is in the
    database stays marked (saved by the next save) instead of being cleared or read over.
    Saves run one at a time (``_saving``), so a copy taken earlier is never written after a
    later one."""

    def __init__(self, path: Path, home: StateHome | None = None) -> None:
        self.path = Path(path)
        self.home = home or FileStateHome(self.path.parent.parent)
        self.name = f"{self.path.parent.name}/{self.path.name}"
        self._shared = self.home.kind != "files"
        self._guard = threading.RLock()
        self._saving = threading.Lock()
        self._dirty: set[str] = set()
        #: The database home: this worker's unsaved changes to the dialogues and people.
        self._changes: builtins.list[Callable[[dict[str, Any]], None]] = []
        self._data = self._read()

    async def off_loop(self, method: Callable[..., _T], *args: Any) -> _T:
        """``method(*args)``, one of this ledger's: in the database in a thread (a row lock
        may wait there); on files on the event loop, as it always was (this ledger's memory
        and document are then the loop's alone: a save from a thread could write an older
        copy over a change the loop saved meanwhile)."""
        if not self._shared:
            return method(*args)
        return await asyncio.to_thread(method, *args)

    def _read(self) -> dict[str, Any]:
        raw = self.home.read(self.name)
        data = self._empty() if raw is None else self._parse(raw)
        if self._shared:
            data["loops"] = self.home.loop_fates() or {}
        return data

    @staticmethod
    def _empty() -> dict[str, Any]:
        return {"version": LEDGER_VERSION, "loops": {}, "dialogues": {}}

    def _parse(self, raw: bytes) -> dict[str, Any]:
        try:
            data = json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            raise SchedulerStateError(
                f"scheduler state {self.path} is not valid JSON ({exc}); fix or move it away "
                f"(the bot will not start, so that no reminder is sent twice)"
            ) from exc
        if not isinstance(data, dict) or not isinstance(data.get("loops", {}), dict):
            raise SchedulerStateError(f"scheduler state {self.path} has an unknown shape")
        data.setdefault("loops", {})
        data.setdefault("dialogues", {})
        return data

    def save(self) -> None:
        if not self._shared:
            self.home.write(self.name, json_bytes(self._data))
            return
        with self._saving:  # one save at a time: an older copy never lands after a newer
            self._save_shared()

    def _save_shared(self) -> None:
        with self._guard:
            dirty, self._dirty = self._dirty, set()
            loops = self._data["loops"]
            fates = {rid: _copied(loops.get(rid)) for rid in dirty}
            changes, self._changes = self._changes, []
        try:
            self.home.save_fates(fates)
        except BaseException:
            with self._guard:  # tried again by the next save
                self._dirty |= dirty
                self._changes[:0] = changes
            raise
        if not changes:
            return

        def replayed(raw: bytes | None) -> bytes:
            data = self._parse(raw) if raw is not None else self._empty()
            for change in changes:
                change(data)
            return json_bytes({**data, "loops": {}})

        try:
            stored = self._parse(self.home.update(self.name, replayed))
        except BaseException:
            with self._guard:
                self._changes[:0] = changes
            raise
        with self._guard:  # the changes made meanwhile stay on the copy
            for change in self._changes:
                change(stored)
            self._data = {**stored, "loops": self._data["loops"]}

    def refresh(self) -> None:
        """The database home: what other workers sent and set since (a no-op on files);
        this worker's unsaved changes stay on it."""
        if not self._shared:
            return
        data = self._read()
        with self._guard:  # this worker's unsaved fates stay as they are here
            mine = self._data["loops"]
            for rid in self._dirty:
                if rid in mine:
                    data["loops"][rid] = mine[rid]
                else:
                    data["loops"].pop(rid, None)
            for change in self._changes:
                change(data)
            self._data = data

    def _change(self, change: Callable[[dict[str, Any]], None]) -> None:
        with self._guard:
            change(self._data)
            if self._shared:
                self._changes.append(change)

    def claim(self, loops: Iterable[OpenLoop], now: datetime) -> builtins.list[OpenLoop]:
        """Mark ``loops`` ``sending`` and save, before sending: the ones this worker may
        send. On files all of them (one owner); in the database only those whose fate row
        this worker inserted (each loop is claimed by exactly one worker)."""
        loops = builtins.list(loops)
        with self._guard:
            for loop in loops:
                self.mark(loop, "sending", now)
            if self._shared:
                entries = {lp.record_id: dict(self._data["loops"][lp.record_id]) for lp in loops}
                self._dirty -= set(entries)  # the claim writes them (or another worker has)
        if not self._shared:
            self.save()
            return loops
        granted = self.home.claim_loops(entries)
        self.refresh()
        return [lp for lp in loops if lp.record_id in granted]

    # -- loops ------------------------------------------------------------------------------

    def loop_status(self, record_id: str) -> str | None:
        entry = self._data["loops"].get(record_id)
        return entry.get("status") if isinstance(entry, dict) else None

    def is_final(self, record_id: str) -> bool:
        return self.loop_status(record_id) in FINAL_STATUSES

    def mark(self, loop: OpenLoop, status: str, now: datetime, **info: Any) -> None:
        with self._guard:
            self._mark(loop, status, now, **info)

    def _mark(self, loop: OpenLoop, status: str, now: datetime, **info: Any) -> None:
        self._dirty.add(loop.record_id)
        entry = self._data["loops"].setdefault(loop.record_id, {})
        entry.update(
            status=status,
            at=_iso(now),
            kind=loop.kind,
            task=loop.task(),
            due=_iso(loop.due) if loop.due else None,
            agent_id=loop.agent_id,
            dialogue_id=loop.dialogue_id,
            user_key=loop.user_key,
            **({"every": loop.every} if loop.every else {}),
            **info,
        )

    def forget(self, record_ids: Iterable[str], holds: Callable[[str], bool]) -> bool:
        """After a forget: the task kept for those reminders, and any task that holds a
        forgotten text, becomes ``[forgotten]``; when and how each was handled stays, so none
        is sent again. Saved when something changed; whether it did."""
        gone = set(record_ids)
        changed = False
        with self._guard:
            for rid, entry in self._data["loops"].items():
                task = entry.get("task")
                if (
                    isinstance(task, str)
                    and task != FORGOTTEN_TASK
                    and (rid in gone or holds(task))
                ):
                    entry["task"] = FORGOTTEN_TASK
                    self._dirty.add(rid)
                    changed = True
        if changed:
            self.save()
        return changed

    def rezone(self, record_id: str, zone: str) -> None:
        """The rule kept for ``record_id`` said in ``zone`` (its zone was a forgotten home's)."""
        with self._guard:
            entry = self._data["loops"].get(record_id)
            rule = entry.get("every") if entry else None
            if entry is None or not isinstance(rule, dict) or rule.get("tz") == zone:
                return
            entry["every"] = {**rule, "tz": zone}
            self._dirty.add(record_id)
        self.save()

    def forget_people(self, keys: Iterable[str]) -> bool:
        """After a whole person was forgotten: their loops go from the ledger (task, due
        time, schedule and its time zone: tester s35 U15 found "America/Chicago" left in
        ``state.json``), with their care pause and the sends to their direct chats. Their
        reminders are gone from the memory, so none can be sent again. Saved when something
        changed; whether it did."""
        gone = set(keys)
        if not gone:
            return False
        with self._guard:
            theirs = [rid for rid, e in self._data["loops"].items() if e.get("user_key") in gone]
            for rid in theirs:
                self._dirty.add(rid)
                self._data["loops"].pop(rid)
        direct = {dialogue_key("", None, key).lstrip("/") for key in gone}

        def change(data: dict[str, Any]) -> None:
            for key in gone:
                data.get("people", {}).pop(key, None)
            for where in [w for w in data.get("dialogues", {}) if w.split("/", 1)[-1] in direct]:
                data["dialogues"].pop(where)

        had = any(key in self._data.get("people", {}) for key in gone) or any(
            w.split("/", 1)[-1] in direct for w in self._data.get("dialogues", {})
        )
        if had:
            self._change(change)
        if theirs or had:
            self.save()
        return bool(theirs or had)

    def forget_attempt(self, record_id: str) -> None:
        """A send that failed for sure: the loop may be tried again."""
        with self._guard:
            self._dirty.add(record_id)
            self._data["loops"].pop(record_id, None)

    def recover(self, now: datetime) -> list[str]:
        """At start, on files: loops left ``sending`` by a crash become ``uncertain`` (never
        resent). In the database nothing: a ``sending`` fate is a lease of the claiming
        worker's session; while it lives the loop is its (other workers' sends in flight are
        not this one's to judge), once it is gone the loop is due again (:meth:`claim`)."""
        if self._shared:
            return []
        stuck = [rid for rid, e in self._data["loops"].items() if e.get("status") == "sending"]
        for rid in stuck:
            self._dirty.add(rid)
            self._data["loops"][rid].update(status="uncertain", at=_iso(now))
            logger.warning(
                "reminder %s may or may not have been sent before the last shutdown; "
                "it will not be sent again",
                rid,
            )
        if stuck:
            self.save()
        return stuck

    def loops(self) -> dict[str, dict[str, Any]]:
        with self._guard:
            return {rid: dict(e) for rid, e in self._data["loops"].items()}

    # -- dialogues --------------------------------------------------------------------------

    @staticmethod
    def _dialogue(data: dict[str, Any], key: str) -> dict[str, Any]:
        entry: dict[str, Any] = data["dialogues"].setdefault(key, {"sent": []})
        return entry

    def sent_times(self, key: str) -> tuple[datetime, ...]:
        entry = self._data["dialogues"].get(key, {})
        times = (parse_ts(t) for t in entry.get("sent", []))
        return tuple(t for t in times if t is not None)

    def record_sent(self, key: str, now: datetime) -> None:
        def change(data: dict[str, Any]) -> None:
            sent = self._dialogue(data, key).setdefault("sent", [])
            sent.append(_iso(now))
            del sent[:-_KEEP_SENT]

        self._change(change)

    def silenced_until(self, key: str) -> datetime | None:
        return parse_ts(self._data["dialogues"].get(key, {}).get("silenced_until"))

    def silence(self, key: str, until: datetime) -> None:
        self._change(lambda data: self._dialogue(data, key).update(silenced_until=_iso(until)))

    def care_paused_until(self, user_key: str | None) -> datetime | None:
        """Until when this person gets no unsolicited nudges (duty of care), if at all."""
        people = self._data.get("people", {})
        return parse_ts(people.get(user_key or "", {}).get("care_paused_until"))

    def care_pause(self, user_key: str, until: datetime) -> None:
        self._change(
            lambda data: (
                data.setdefault("people", {})
                .setdefault(user_key, {})
                .update(care_paused_until=_iso(until))
            )
        )
        self.save()

    def proactive_enabled(self, key: str) -> bool:
        return not self._data["dialogues"].get(key, {}).get("proactive_off", False)

    def set_proactive(self, key: str, enabled: bool) -> None:
        self._change(lambda data: self._dialogue(data, key).update(proactive_off=not enabled))
        self.save()


# ---------------------------------------------------------------------------------------------
# Where loops come from


class LoopSource(Protocol):
    async def open_loops(self) -> list[OpenLoop]: ...

    async def close_loop(self, record_id: str, outcome: str, now: datetime) -> None: ...


class _StoreLike(Protocol):
    async def list(self, *, live_only: bool = ...) -> builtins.list[MemoryRecord]: ...

    async def modify(self, record_id: str, **changes: Any) -> MemoryRecord: ...

    async def get(self, record_id: str) -> MemoryRecord: ...


@dataclass
class StoreLoops:
    """Open loops in the memory files, through the MemoryStore."""

    store: _StoreLike

    async def open_loops(self) -> list[OpenLoop]:
        # Expired records too: a reminder's TTL ends after its grace period, and a missed
        # reminder must still be reported.
        records = await self.store.list(live_only=False)
        return loops_from_records(records)

    async def close_loop(self, record_id: str, outcome: str, now: datetime) -> None:
        rec = await self.store.get(record_id)
        loop = dict(rec.open_loop or {})
        loop.update(status="done", outcome=outcome, closed_at=_iso(now))
        await self.store.modify(record_id, extra={"open_loop": loop})


def loops_from_records(records: Iterable[MemoryRecord]) -> list[OpenLoop]:
    out = []
    for rec in records:
        loop = OpenLoop.from_record(rec)
        if loop is not None:
            out.append(loop)
    return out


def reminder_rows(
    loops: Iterable[OpenLoop], ledger: SchedulerLedger, *, user_key: str | None = None
) -> list[dict[str, Any]]:
    """Open loops and the ledger's fates, merged, for ``familiars reminders list``."""
    rows: dict[str, dict[str, Any]] = {}
    for rid, entry in ledger.loops().items():
        rows[rid] = {"id": rid, **entry}
    for lp in loops:
        if lp.record_id in rows and rows[lp.record_id].get("status") in FINAL_STATUSES:
            continue
        rows[lp.record_id] = {
            "id": lp.record_id,
            "status": rows.get(lp.record_id, {}).get("status", "open"),
            "kind": lp.kind,
            "task": lp.task(),
            "due": _iso(lp.due) if lp.due else None,
            "agent_id": lp.agent_id,
            "dialogue_id": lp.dialogue_id,
            "user_key": lp.user_key,
        }
    out = [r for r in rows.values() if user_key is None or r.get("user_key") == user_key]
    out.sort(key=lambda r: (r.get("due") or "9999", r["id"]))
    return out
