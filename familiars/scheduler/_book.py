"""What a person can do with their own reminders: see them, cancel them, move them.

:class:`ReminderBook` works on the reminder records (``extra["open_loop"]``: ``due``,
``status`` and ``user_key``, the person who asked) and on the scheduler's
:class:`~familiars.scheduler.SchedulerLedger`:

- :meth:`ReminderBook.of`: one person's reminders, soonest first: the open ones and those
  sent (or missed) in the last day, so that one that has just fired can still be snoozed.
  Each carries its own number (``open_loop["number"]``, given once, the first time the
  person's reminders are read after it was set): a listing's "4" names the same reminder in
  the next command whatever was added, snoozed or moved in between. A number is not given
  again while any reminder of the person that holds it is listed or was due (or called off)
  in the last day; numbers start again at 1 once none is;
- :meth:`ReminderBook.cancel`: the ledger says ``cancelled`` first (then it never fires, even
  if the memory file cannot be written), then the record's loop does;
- :meth:`ReminderBook.move` (snooze is a move): an open reminder gets its new due time, text
  and TTL in place; one already sent becomes a new open reminder with the same task;
- :meth:`ReminderBook.once_more`: a one-off copy of a reminder at another time, the
  reminder left as it is (a repeating one snoozed: its series stays).

The :class:`~familiars.scheduler.Scheduler` listens to the store, so each change reaches its
exact jobs at once (a moved reminder's job is replaced, a cancelled one's removed); after a
restart the records and the ledger say the same.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from familiars.memory import (
    MemoryRecord,
    every_text,
    make_record,
    next_due,
    parse_ts,
    reminder_content,
    rule_from_first,
    rule_lacks,
)
from familiars.scheduler._decider import OpenLoop
from familiars.scheduler._reminders import SchedulerLedger

logger = logging.getLogger(__name__)

#: Sent or missed reminders stay in the list this long (to snooze one that just fired).
RECENT_S = 86400.0
_SHOWN_DONE = ("sent", "missed")


@dataclass(frozen=True)
class Reminder:
    """One reminder as its person sees it."""

    record_id: str
    task: str
    due: datetime | None
    #: ``open`` (still to come), ``sent`` or ``missed`` (the bot was down at the time).
    status: str
    user_key: str
    agent_id: str = "agent_0"
    dialogue_id: str | None = None
    #: Its own number in the person's list (stable: see the module docstring).
    number: int = 0
    #: When it was asked for (its record's time).
    set_at: datetime | None = None
    #: A reminder that comes back: its rule (``open_loop["every"]``), else None.
    every: dict[str, Any] | None = None

    @property
    def rule(self) -> str:
        """ "every Monday at 08:00" ("" for a one-off)."""
        return every_text(self.every)

    @property
    def short_id(self) -> str:
        """The id's last six characters (its random part): enough to tell reminders apart."""
        return self.record_id[-6:]

    def is_open(self) -> bool:
        return self.status == "open"


def asker(rec: MemoryRecord) -> str | None:
    """Who asked for the reminder: the record's person, else the one its loop names."""
    loop = rec.open_loop or {}
    named = loop.get("user_key")
    return rec.user_key or (str(named) if named else None)


class ReminderBook:
    """A person's reminders (see the module docstring). ``store`` is the MemoryStore;
    ``ledger`` the running scheduler's own (None when no scheduler runs: records only)."""

    def __init__(
        self,
        store: Any,
        ledger: SchedulerLedger | None = None,
        *,
        grace_s: float = 6 * 3600.0,
        default_timezone: str = "UTC",
        recent_s: float = RECENT_S,
    ) -> None:
        self.store = store
        self.ledger = ledger
        self.grace_s = grace_s
        #: The zone for a person who has not set one (``scheduler.timezone``).
        self.default_timezone = default_timezone
        self.recent_s = recent_s
        self._numbering = asyncio.Lock()

    # -- reading ----------------------------------------------------------------------------

    async def of(self, user_key: str, now: datetime) -> list[Reminder]:
        """``user_key``'s reminders: open ones and those sent in the last day, soonest first."""
        async with self._numbering:
            records = await self.store.list(category="event", live_only=False)
            found = [r for r in (self._reminder(rec, user_key, now) for rec in records) if r]
            found = await self._number(found, records, user_key, now)
        far = datetime.max.replace(tzinfo=UTC)
        found.sort(key=lambda r: (r.due or far, r.record_id))
        return found

    async def _number(
        self, found: list[Reminder], records: list[MemoryRecord], user_key: str, now: datetime
    ) -> list[Reminder]:
        """``found`` each with its own number; those without one get the next free one
        (written to the record's loop, so it outlives a restart and an index rebuild)."""
        if all(r.number for r in found):
            return found
        held = {r.number for r in found if r.number}
        for rec in records:  # recently fired or called off: not given again for a while
            loop = rec.open_loop or {}
            if loop.get("kind") != "reminder" or asker(rec) != user_key:
                continue
            when = parse_ts(loop.get("closed_at")) or parse_ts(loop.get("due"))
            if when is not None and (now - when).total_seconds() <= self.recent_s:
                held.add(_number_of(loop))
        nxt = max(held, default=0) + 1
        out = []
        far = datetime.max.replace(tzinfo=UTC)
        for r in sorted(found, key=lambda r: (r.due or far, r.record_id)):
            if not r.number:
                rec = await self.store.get(r.record_id)
                loop = {**(rec.open_loop or {}), "number": nxt}
                await self.store.modify(rec.id, extra={"open_loop": loop})
                r = replace(r, number=nxt)
                nxt += 1
            out.append(r)
        return out

    def _status(self, rec: MemoryRecord) -> str:
        fate = self.ledger.loop_status(rec.id) if self.ledger is not None else None
        if fate is not None and fate != "sending":
            return fate
        return str((rec.open_loop or {}).get("status", "open"))

    def _reminder(self, rec: MemoryRecord, user_key: str, now: datetime) -> Reminder | None:
        loop = rec.open_loop
        if not loop or loop.get("kind") != "reminder" or rec.deprecated:
            return None
        if loop.get("moved_to"):  # fired, then moved: the new reminder carries it on
            return None
        if asker(rec) != user_key:
            return None
        status = self._status(rec)
        due = parse_ts(loop.get("due"))
        if status == "done":
            status = "sent"  # closed in memory, the ledger long since trimmed
        if status not in ("open", *_SHOWN_DONE):
            return None
        if status != "open" and (due is None or (now - due).total_seconds() > self.recent_s):
            return None
        return Reminder(
            record_id=rec.id,
            task=_task(rec, due),
            due=due,
            status=status,
            user_key=user_key,
            agent_id=rec.agent_id,
            dialogue_id=rec.dialogue_id,
            number=_number_of(loop),
            set_at=parse_ts(rec.ts),
            every=loop["every"] if isinstance(loop.get("every"), dict) else None,
        )

    # -- changing ---------------------------------------------------------------------------

    async def cancel(self, reminder: Reminder, now: datetime) -> None:
        """Call off an open reminder: it never fires (the ledger first, then the record)."""
        rec = await self.store.get(reminder.record_id)
        loop = OpenLoop.from_record(rec)
        if self.ledger is not None and loop is not None:
            self.ledger.mark(loop, "cancelled", now)
            await self.ledger.off_loop(self.ledger.save)  # the database: off the event loop
        changed = {**(rec.open_loop or {}), "status": "cancelled", "closed_at": _iso(now)}
        await self.store.modify(rec.id, extra={"open_loop": changed})
        logger.info("reminder %s cancelled by %s", rec.id, reminder.user_key)

    async def move(
        self,
        reminder: Reminder,
        due: datetime,
        now: datetime,
        *,
        every: dict[str, Any] | None = None,
    ) -> Reminder:
        """``reminder`` due at ``due`` (aware, in the person's zone) instead: in place while
        open, else as a new reminder with the same task; ``every``: its rule too (a
        repeating one moved to another time of day). Returns it as it now is."""
        if due <= now:
            raise ValueError("a reminder can only be moved to a time still to come")
        rec = await self.store.get(reminder.record_id)
        fields = self._due_fields(rec, reminder, due)
        if every is not None:
            fields["extra"]["open_loop"]["every"] = every
        if reminder.is_open():
            await self.store.modify(rec.id, **fields)
            record_id = rec.id
        else:
            record_id = await self._successor(rec, fields)
        logger.info("reminder %s moved to %s", record_id, _iso(due))
        return replace(
            reminder,
            record_id=record_id,
            due=due,
            status="open",
            # A successor is a record of its own: when it was set is not the fired one's.
            set_at=reminder.set_at if record_id == reminder.record_id else None,
            every=every if every is not None else reminder.every,
        )

    async def once_more(self, reminder: Reminder, due: datetime, now: datetime) -> Reminder:
        """A new one-off reminder of ``reminder``'s task at ``due``, with a number of its own;
        ``reminder`` (and a repeating one's rule) stays as it is. Returns the new one."""
        if due <= now:
            raise ValueError("a reminder can only be set for a time still to come")
        rec = await self.store.get(reminder.record_id)
        fields = self._due_fields(rec, reminder, due)
        loop = fields["extra"]["open_loop"]
        for key in ("every", "number", "moved_to"):
            loop.pop(key, None)
        record_id = await self._copy(rec, fields)
        logger.info("reminder %s: once more as %s at %s", rec.id, record_id, _iso(due))
        # A one-off of its own: no number yet (given when first listed), no rule.
        return replace(
            reminder, record_id=record_id, due=due, status="open", number=0, set_at=None, every=None
        )

    async def follow_zone(
        self, user_key: str, zone: str, now: datetime, *, afresh: bool = False
    ) -> list[Reminder]:
        """A person moved to ``zone``: their repeating reminders keep their time of day there
        ("every Monday at 08:00" set in London comes at 08:00 in New York, as a phone's alarm
        does; it showed 03:00 beside its 08:00 rule). One-off reminders keep their moment.
        ``afresh``: the old zone came from a forgotten home, so each is kept as a new record
        and the old one forgotten (its history held the old zone's name). Returns the
        reminders re-timed, as they now are."""
        changed: list[Reminder] = []
        for reminder in await self.of(user_key, now):
            rule = reminder.every
            if not reminder.is_open() or rule is None or rule.get("tz") == zone:
                continue
            moved = {**rule, "tz": zone}
            # From the local day the open one falls on, not from now: one that fired today
            # in the old zone (its next is a week on) must not come again today in the new.
            due = next_due(moved, max(now, _day_start(reminder.due, zone)) if reminder.due else now)
            if due is None:
                continue
            rec = await self.store.get(reminder.record_id)
            fields = self._due_fields(rec, reminder, due)
            fields["extra"]["open_loop"]["every"] = moved
            record_id = rec.id
            if afresh:
                record_id = await self._copy(rec, fields)
                await self.store.forget(rec.id)
            else:
                await self.store.modify(rec.id, **fields)
            changed.append(replace(reminder, record_id=record_id, due=due, every=moved))
        # Neither the person nor the zone: where someone lives is theirs, and a log is kept
        # past a forget (tester s35 U15).
        logger.info("%d repeating reminder(s) follow a new time zone", len(changed))
        return changed

    async def restate(self, gone: set[str], zone_of: Callable[[str], Awaitable[str]]) -> list[str]:
        """Every reminder whose text names one of the ``gone`` zones (a one-off set while a
        since forgotten home gave the zone, a repeating one's fired occurrence) is said again
        in its person's zone now (``zone_of``), at the same moment and in the same state: a new
        record, the old one forgotten (its history named the zone). The old texts."""
        texts = []
        for rec in await self.store.list(category="event", live_only=False):
            loop = rec.open_loop or {}
            who, due = asker(rec), parse_ts(loop.get("due"))
            if loop.get("kind") != "reminder" or who is None or due is None or rec.deprecated:
                continue
            rule = loop.get("every")
            ruled = isinstance(rule, dict) and rule.get("tz") in gone
            if not ruled and not any(zone in rec.content for zone in gone):
                continue
            zone = await zone_of(who)
            here = due.astimezone(ZoneInfo(zone))
            task = _task(rec, due)
            fields = self._due_fields(rec, Reminder(rec.id, task, due, "open", who), here)
            if fields["content"] == rec.content and not ruled:
                continue  # said in a zone still theirs
            kept = {**loop, "every": {**rule, "tz": zone}} if isinstance(rule, dict) else loop
            fields["extra"] = {"open_loop": dict(kept)}  # its state kept (sent, moved_to...)
            await self._copy(rec, fields)
            await self.store.forget(rec.id)
            if ruled and self.ledger is not None:  # its fate, kept by the old id
                await self.ledger.off_loop(self.ledger.rezone, rec.id, zone)
            texts.append(rec.content)
        return texts

    async def recur(self, record_id: str, now: datetime) -> str | None:
        """After a recurring reminder fired (or was missed): its next occurrence, a new open
        reminder with the same task, rule and number; its id (None: not recurring, or the
        rule has no next time). Each occurrence fires once, as any reminder."""
        rec = await self.store.get(record_id)
        loop = rec.open_loop or {}
        rule = loop.get("every")
        if not isinstance(rule, dict) or loop.get("moved_to"):
            return None
        last = parse_ts(loop.get("due"))
        if last is not None and rule_lacks(rule):  # a rule kept before its day was required
            rule = rule_from_first(rule, last)
        due = next_due(rule, max(now, last) if last else now)
        user_key = asker(rec)
        if due is None or user_key is None:
            logger.warning("recurring reminder %s has no next time (%r)", rec.id, rule)
            return None
        task = _task(rec, last)
        fields = self._due_fields(rec, Reminder(rec.id, task, last, "open", user_key), due)
        fields["extra"]["open_loop"]["every"] = rule
        record_id = await self._successor(rec, fields)
        logger.info("recurring reminder %s: next %s at %s", rec.id, record_id, _iso(due))
        return record_id

    async def _successor(self, rec: MemoryRecord, fields: dict[str, Any]) -> str:
        """A new open reminder of ``rec`` with ``fields`` (a move of a fired one, the next
        occurrence of a recurring one); ``rec`` points to it (``moved_to``) and is no longer
        listed. The new record's id."""
        record_id = await self._copy(rec, fields)
        gone = {**(rec.open_loop or {}), "moved_to": record_id}
        await self.store.modify(rec.id, extra={"open_loop": gone})
        return record_id

    async def _copy(self, rec: MemoryRecord, fields: dict[str, Any]) -> str:
        """A new record of ``rec`` with ``fields`` (its content among them); its id."""
        fresh = make_record(
            fields.pop("content"),
            scope=rec.scope,
            category=rec.category,
            user_key=rec.user_key,
            agent_id=rec.agent_id,
            dialogue_id=rec.dialogue_id,
            tags=list(rec.tags),
            salience=rec.salience,
            source_quote=list(rec.source_quote),
            evidence=rec.evidence,
            **fields,
        )
        return (await self.store.append(fresh)).id

    def _due_fields(self, rec: MemoryRecord, reminder: Reminder, due: datetime) -> dict[str, Any]:
        """Content, TTL and open loop of ``rec`` due at ``due``."""
        expires = (due + timedelta(seconds=self.grace_s)).astimezone(UTC)
        loop = {
            **(rec.open_loop or {}),
            "kind": "reminder",
            "due": _iso(due),
            "status": "open",
            "user_key": reminder.user_key,
        }
        for key in ("outcome", "closed_at"):
            loop.pop(key, None)
        return {
            "content": reminder_content(reminder.task, due),
            "ttl": {"kind": "absolute", "expires_at": _iso(expires)},
            "extra": {"open_loop": loop},
        }


def _task(rec: MemoryRecord, due: datetime | None) -> str:
    """What to be reminded of, as said to the person: the task in the offline writer's
    sentence, else the content without a leading "Remind the user to" (a model words it its
    own way); "their" (the writer's third person) reads "your"."""
    task = OpenLoop(rec.id, "reminder", rec.content, due, None).task()
    task = _LEAD.sub("", task).strip() or task
    return re.sub(r"\btheir\b", "your", task)  # said to the person who asked


_LEAD = re.compile(r"^\s*remind\s+(?:the\s+)?user\s+to\s+", re.IGNORECASE)


def _number_of(loop: dict[str, Any]) -> int:
    n = loop.get("number")
    return n if isinstance(n, int) and n > 0 else 0


def _day_start(when: datetime, zone: str) -> datetime:
    """A second before the start of ``when``'s day in ``zone``."""
    here = when.astimezone(ZoneInfo(zone))
    return here.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(seconds=1)


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds")
