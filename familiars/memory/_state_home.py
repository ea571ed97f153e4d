"""Where the bot's state other than records lives: one seam, two homes.

Everything a worker keeps besides the records (people and chat state, links, the reminder
ledger, the writer queue, scheduler snapshots) goes through a :class:`StateHome`. Names are
the relative POSIX paths the files have in a workspace (``state/people/u_1.json``,
``scheduler/state.json``), so the two homes hold the same documents by the same names and
``familiars db migrate`` / ``export`` copy them byte for byte.

- :class:`FileStateHome` - the workspace's files, exactly as before this seam (atomic writes,
  0600 files, 0700 folders); one process owns the workspace (``WorkspaceLock``), so claims
  and the dialogue lock are in-process.
- ``PgStateHome`` (``_pg/_state.py``) - the ``state_docs`` table (name -> bytes), the
  ``writer_queue`` table and the ``reminder_fates`` table; many workers share it.

What a caller may rely on in both homes:

- :meth:`StateHome.dialogue_lock` - held around one turn of one dialogue: no two workers (no
  two tasks) serve one dialogue at once, different dialogues run in parallel. In the database
  it is a session advisory lock (one session holds all of a worker's); a crashed worker's go
  with its session.
- :meth:`StateHome.job_lease` - a housekeeping job (consolidation, the TTL sweep) run by one
  worker at a time: a session advisory lock tried, not waited for.
- :meth:`StateHome.claim_loops` - the open loops (reminders) this caller may send now, each
  given to exactly one caller: in the database the reminders' rows are locked ``FOR UPDATE
  SKIP LOCKED`` and a fate row ``sending`` is inserted in the same transaction.
- :meth:`StateHome.claim_update` / :meth:`StateHome.finish_update` - a Telegram update
  (webhook mode) answered once by all workers together: claimed while its turn runs, marked
  done after it; a claim of a worker that died (its session gone) is taken over, so an
  update whose turn never ended is answered when Telegram posts it again, or (its payload
  kept with the claim: :meth:`StateHome.orphaned_updates`) by a live worker that looks.
- :meth:`StateHome.take_turn` - the oldest queued writer turn, locked ``FOR UPDATE SKIP
  LOCKED`` for as long as the ``async with`` block runs; the turn leaves the queue only when
  the block calls ``done()`` or ``set_aside()``, and a crash rolls the claim back.
- :meth:`StateHome.hold_turn` / :meth:`StateHome.release_turn` - a message's writer work,
  queued the moment the message is recorded and held by the worker while its turn runs
  (then released with the reply in it): a worker killed mid-turn leaves it to another.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from familiars.memory._atomic import append_line_durably, atomic_write_bytes, ensure_private_dir

#: How many Telegram update ids the files' home remembers.
KEEP_UPDATES = 10_000
#: The folder of the writer's queued turns (and its ``failed/``), as a state name.
QUEUE_PREFIX = "state/writer_queue/"


@dataclass
class QueuedTurn:
    """One writer turn taken from the queue: its name (``t_<id>.json``) and text. The taker
    ends it with :meth:`done` (processed) or :meth:`set_aside` (kept in ``failed/``)."""

    name: str
    text: str
    outcome: str | None = None
    reason: str = ""

    def done(self) -> None:
        self.outcome = "done"

    def set_aside(self, reason: str) -> None:
        self.outcome, self.reason = "failed", reason


class StateHome(Protocol):
    """The seam (see the module docstring)."""

    #: ``"files"`` or ``"database"``.
    kind: str

    def read(self, name: str) -> bytes | None:
        """The document's bytes, or None when there is none."""

    def write(self, name: str, data: bytes, *, durable: bool = True) -> None:
        """Replace the document (``durable=False``: a crash may lose this write)."""

    def update(self, name: str, change: Callable[[bytes | None], bytes]) -> bytes:
        """Replace the document with ``change(what is stored now)`` (None: nothing is), no
        other worker's ``update`` of it in between; returns what was written."""

    def delete(self, name: str) -> None:
        """Drop the document, or the journal, of this name."""

    def append(self, name: str, line: str) -> None:
        """Add one line to the journal ``name`` (durable when this returns)."""

    def lines(self, name: str) -> list[str] | None:
        """The journal's lines in order, or None when there is none."""

    def stamp(self, *names: str) -> str:
        """What changes whenever any of these documents or journals changes (the database:
        a worker's cached copy is stale when the stamp moved; files: always "")."""

    def stamp_like(self, *patterns: str) -> str:
        """:meth:`stamp` of every document whose name matches one of these SQL ``LIKE``
        patterns (``state/people/%``): what changes when any of them changes."""

    def fold(self, name: str, data: bytes, journal: str, seen: str) -> str | None:
        """Write the document ``name`` and drop the lines of ``journal`` it now holds, as one
        step, unless either changed since the stamp ``seen`` (then None, nothing done);
        the new stamp. A line appended meanwhile by another worker is kept."""

    def names(self, prefix: str, suffix: str = "", *, journals: bool = False) -> list[str]:
        """Sorted names of the documents under ``prefix`` ending with ``suffix`` (and of
        the journals too, with ``journals``)."""

    def tree_names(self, dialogue_id: str) -> list[str]:
        """Sorted names of the documents and journals ``agents/<agent>/<dialogue_id>/...``
        (every agent's tree of that dialogue id)."""

    def next_dialogue_number(self, agent_id: str, taken: Iterable[int]) -> int:
        """Reserve a dialogue number of ``agent_id`` never handed out before."""

    def dialogue_lock(
        self, agent_id: str, dialogue_id: str
    ) -> contextlib.AbstractAsyncContextManager[None]: ...

    def job_lease(self, name: str) -> contextlib.AbstractAsyncContextManager[bool]:
        """Whether this worker runs the housekeeping job ``name`` now (True: held for the
        block); in the database no two workers run one job at once."""

    def claim_loops(self, entries: dict[str, dict[str, Any]]) -> set[str]:
        """Of ``record id -> ledger entry (status sending)``, the ids this caller got."""

    def loop_fates(self) -> dict[str, dict[str, Any]] | None:
        """The shared fates of every loop (database), or None (the ledger file holds them)."""

    def save_fates(self, entries: dict[str, dict[str, Any] | None]) -> None:
        """Write these loops' fates (None: drop the fate, the loop may be tried again)."""

    def claim_update(self, bot: str, update_id: int, payload: str | None = None) -> str:
        """``mine`` (answer it now), ``replied`` (run its turn now, but its answer went out
        already: do not send it again), ``done`` (answered already) or ``busy`` (being
        answered now by a live worker, or by this one). ``payload``: the update as posted,
        kept with the claim until it is done (see :meth:`orphaned_updates`)."""

    def orphaned_updates(self, bot: str) -> list[tuple[int, str, bool]]:
        """The updates claimed by a worker that died before they were done (in the database;
        the files' claims die with their one process): taken over by this worker, as (update
        id, payload, replied)."""

    def update_payloads(self) -> list[tuple[str, int, str]]:
        """The payloads kept with claims not yet done: (bot, update id, payload)."""

    def drop_payload(self, bot: str, update_id: int) -> None:
        """A forget: that update's kept payload goes (no worker takes the claim over)."""

    async def reply_sent(self, bot: str, update_id: int) -> None:
        """The claimed update's answer went out (the platform took it): a worker taking the
        update over is told ``replied``."""

    def finish_update(self, bot: str, update_id: int, *, done: bool) -> None:
        """The claimed update's turn ended: answered (``done``) or not (answered if posted
        again)."""

    def take_turn(self) -> contextlib.AbstractAsyncContextManager[QueuedTurn | None]: ...

    def queued_turns(self) -> list[str]:
        """Names of the turns waiting (not set aside), oldest first; in the database not
        those another worker is processing now."""

    async def aqueued_turns(self) -> list[str]:
        """:meth:`queued_turns`, awaited (in the database on the async driver)."""

    def put_turn(self, name: str, text: str) -> None: ...

    def hold_turn(self, name: str, text: str) -> bool:
        """Queue a turn held by this worker while its turn runs: no worker takes it until
        :meth:`release_turn` (or, in the database, until this worker's session is gone: a
        dead one's is taken over, here too). False: one of that name is queued already and
        not this worker's."""

    async def release_turn(self, name: str, text: str | None, *, drop: bool = False) -> bool:
        """A held turn free for any worker: ``text`` its final body (None: as held), or
        ``drop`` it; False (nothing done) when it was no longer this worker's."""

    def turn_rows(self) -> list[tuple[str, str, str | None]]:
        """Every queued turn, set aside ones too: (name, text, reason or None if waiting)."""

    def replace_turn(self, name: str, text: str | None) -> None:
        """A queued turn's new text, or (None) the turn removed: what a forget does."""

    def lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` (or what caused it) says this home cannot be used just now (the
        database gone): not the fault of what was being done, which is kept and retried."""

    def vacuum(self) -> None:
        """After a forget: the dead rows that held its words leave the table files (the
        database; its write-ahead log keeps them until recycled). Nothing on files."""

    async def close(self) -> None: ...


@dataclass
class FileStateHome:
    """The workspace's files (the default home; byte for byte what was written before)."""

    workspace: Path
    kind: str = "files"
    _dialogue_locks: dict[tuple[str, str], asyncio.Lock] = field(default_factory=dict)
    #: (bot, update id) -> answered; the last :data:`KEEP_UPDATES` (Telegram posts an update
    #: again only for a while, and ids grow, so a bounded memory suffices for one process).
    _updates: OrderedDict[tuple[str, int], bool] = field(default_factory=OrderedDict)

    def path(self, name: str) -> Path:
        return self.workspace / name

    def read(self, name: str) -> bytes | None:
        try:
            return self.path(name).read_bytes()
        except FileNotFoundError:
            return None

    def write(self, name: str, data: bytes, *, durable: bool = True) -> None:
        path = self.path(name)
        if durable:
            atomic_write_bytes(path, data)
            return
        ensure_private_dir(path.parent)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def update(self, name: str, change: Callable[[bytes | None], bytes]) -> bytes:
        data = change(self.read(name))  # one process owns the files
        self.write(name, data)
        return data

    def delete(self, name: str) -> None:
        self.path(name).unlink(missing_ok=True)

    def append(self, name: str, line: str) -> None:
        append_line_durably(self.path(name), line)

    def lines(self, name: str) -> list[str] | None:
        try:
            text = self.path(name).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None
        return text.splitlines()

    def stamp(self, *names: str) -> str:
        return ""  # one process owns the files: its own copy is never stale

    def stamp_like(self, *patterns: str) -> str:
        return ""

    def fold(self, name: str, data: bytes, journal: str, seen: str) -> str | None:
        self.write(name, data)  # one process owns the files: nothing changes meanwhile
        self.delete(journal)
        return ""

    def names(self, prefix: str, suffix: str = "", *, journals: bool = False) -> list[str]:
        folder = self.path(prefix).parent if not prefix.endswith("/") else self.path(prefix)
        if not folder.is_dir():
            return []
        out = []
        for path in folder.rglob(f"*{suffix}"):
            name = path.relative_to(self.workspace).as_posix()
            if name.startswith(prefix) and path.is_file() and not path.name.startswith("."):
                out.append(name)
        return sorted(out)

    def tree_names(self, dialogue_id: str) -> list[str]:
        found = self.workspace.glob(f"agents/*/{glob.escape(dialogue_id)}/*")
        return sorted(p.relative_to(self.workspace).as_posix() for p in found if p.is_file())

    def next_dialogue_number(self, agent_id: str, taken: Iterable[int]) -> int:
        return max(taken, default=-1) + 1  # the folder's mkdir is the reservation

    @contextlib.asynccontextmanager
    async def dialogue_lock(self, agent_id: str, dialogue_id: str) -> AsyncIterator[None]:
        # One process owns the workspace (WorkspaceLock): an asyncio lock is enough.
        lock = self._dialogue_locks.setdefault((agent_id, dialogue_id), asyncio.Lock())
        async with lock:
            yield

    @contextlib.asynccontextmanager
    async def job_lease(self, name: str) -> AsyncIterator[bool]:
        yield True  # one process owns the workspace

    def claim_loops(self, entries: dict[str, dict[str, Any]]) -> set[str]:
        return set(entries)  # the ledger file, saved before sending, is the claim

    def loop_fates(self) -> dict[str, dict[str, Any]] | None:
        return None

    def claim_update(self, bot: str, update_id: int, payload: str | None = None) -> str:
        key = (bot, update_id)
        if key in self._updates:
            return "done" if self._updates[key] else "busy"
        self._updates[key] = False
        if len(self._updates) > KEEP_UPDATES:
            self._updates.popitem(last=False)
        return "mine"

    def orphaned_updates(self, bot: str) -> list[tuple[int, str, bool]]:
        return []  # one process: its claims die with it

    def update_payloads(self) -> list[tuple[str, int, str]]:
        return []  # the files' claims keep no payload

    def drop_payload(self, bot: str, update_id: int) -> None:
        return None

    async def reply_sent(self, bot: str, update_id: int) -> None:
        return None  # one process: its claims die with it

    def finish_update(self, bot: str, update_id: int, *, done: bool) -> None:
        if done:
            self._updates[(bot, update_id)] = True
        else:
            self._updates.pop((bot, update_id), None)

    def save_fates(self, entries: dict[str, dict[str, Any] | None]) -> None:
        return None  # the ledger file holds them

    @contextlib.asynccontextmanager
    async def take_turn(self) -> AsyncIterator[QueuedTurn | None]:
        raise NotImplementedError("the files' queue is the folder (WriterQueue reads it)")
        yield None  # pragma: no cover

    def queued_turns(self) -> list[str]:
        folder = self.path(QUEUE_PREFIX)
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.glob("t_*.json"))

    async def aqueued_turns(self) -> list[str]:
        return await asyncio.to_thread(self.queued_turns)

    def put_turn(self, name: str, text: str) -> None:
        self.write(QUEUE_PREFIX + name, text.encode("utf-8"))

    def hold_turn(self, name: str, text: str) -> bool:
        raise NotImplementedError("the files' queue is the folder (WriterQueue holds there)")

    async def release_turn(self, name: str, text: str | None, *, drop: bool = False) -> bool:
        raise NotImplementedError("the files' queue is the folder (WriterQueue holds there)")

    def turn_rows(self) -> list[tuple[str, str, str | None]]:
        raise NotImplementedError("on files the forget scrubs the queue's folder")

    def replace_turn(self, name: str, text: str | None) -> None:
        raise NotImplementedError("on files the forget scrubs the queue's folder")

    def lost(self, exc: BaseException) -> bool:
        return False  # the files' own failures (a full disk) are told apart where they occur

    def vacuum(self) -> None:
        return None  # a file rewritten atomically leaves no old copy to vacuum

    async def close(self) -> None:
        return None
