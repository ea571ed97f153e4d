"""PgStateHome: the bot's state other than records in PostgreSQL (see ``_state_home``).

Documents are rows of ``state_docs`` (name -> the bytes the file would hold). The claims
many workers race for are rows locked ``FOR UPDATE SKIP LOCKED``: a queued writer turn for as
long as it is processed (a crash rolls the claim back, the turn stays queued), a reminder's
record while its fate row ``sending`` is inserted (inserted once: one sender). A dialogue's
turn holds a session advisory lock, on the one connection that holds this worker's dialogue
locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator
from typing import Any

import psycopg

from familiars.memory._pg._connect import DatabaseError, aconnect, connect
from familiars.memory._state_home import QueuedTurn

#: First key of a dialogue's advisory lock ("dial"); the second: hashtext of schema/agent/dlg.
DIALOGUE_LOCK = 0x6469616C
_POOL = 8
#: A dialogue another worker serves is tried again after this, doubling up to the max.
LOCK_RETRY_S = 0.02
LOCK_RETRY_MAX_S = 0.25
#: Whether the session that made the claim in table ``{t}`` is gone (it died, or lost its
#: connection): its claim may be taken over. Sessions of other roles may hide their start
#: (NULL): such a pid is taken as alive.
_OWNER_GONE = (
    "NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = {t}.owner_pid "
    "AND (a.backend_start IS NULL OR a.backend_start = {t}.owner_start))"
)
#: A queued writer turn any worker may take: not set aside, and not held by a live session
#: (a turn still running holds its message's writer work; a dead worker's is taken over).
_WAITING = "NOT failed AND (owner_pid IS NULL OR " + _OWNER_GONE.format(t="writer_queue") + ")"
#: Telegram re-posts an update for about a day: update claims older than this are dropped.
UPDATE_KEEP = "3 days"
#: A document written (the clock at the write: see ``write``).
_UPSERT = (
    "INSERT INTO state_docs (name, body, updated_at) VALUES (%s, %s, clock_timestamp()) "
    "ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_at = clock_timestamp()"
)

#: A dialogue's trees' documents and journals by its id (the m008 expression indexes).
TREE_NAMES = (
    "SELECT name FROM state_docs WHERE split_part(name, '/', 3) = %s "
    "AND starts_with(name, 'agents/') UNION "
    "SELECT DISTINCT name FROM state_lines WHERE split_part(name, '/', 3) = %s "
    "AND starts_with(name, 'agents/') ORDER BY name"
)


class PgStateHome:
    """The database home of the state (see the module docstring)."""

    kind = "database"

    def __init__(self, url: str, schema: str) -> None:
        self.url = url
        self.schema = schema
        self.conn = connect(url, schema)
        self._lock = threading.Lock()
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._idle_sync: list[psycopg.Connection[Any]] = []  # see ``_aside``
        self._local: dict[tuple[str, str], asyncio.Lock] = {}
        self._locks: psycopg.AsyncConnection[Any] | None = None
        self._locks_opening = asyncio.Lock()
        self._cleanups: set[asyncio.Future[None]] = set()  # a cancelled try's let-go
        #: This worker's session, as its claims name it (a claim lives as long as it does).
        self.session: tuple[int, Any] = self._own_session()
        self._claims = 0
        self._holds = 0
        #: The session each turn :meth:`hold_turn` holds was held by (the connection may be
        #: opened again meanwhile: a release must name the holder the row names).
        self._holders: dict[str, tuple[int, Any]] = {}
        #: Set by :meth:`close`: a connection given back later (a thread still running, a
        #: turn still ending) is closed, not kept where nothing would close it.
        self._closed = False

    def _own_session(self) -> tuple[int, Any]:
        row = self.conn.execute(
            "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ).fetchone()
        return (int(row[0]), row[1]) if row else (0, None)

    # ------------------------------------------------------------------ documents

    @contextlib.contextmanager
    def _held(self, *, transaction: bool = False) -> Iterator[psycopg.Connection[Any]]:
        """The worker's state connection, for one caller at a time; one the server lost (a
        restart, say) is opened again here, so the call after a failed one works."""
        with self._lock:
            if self._closed:  # never opened again by a thread that outlived close()
                raise psycopg.OperationalError("the state home is closed")
            if self.conn.closed:
                self.conn = connect(self.url, self.schema)
                self.session = self._own_session()  # the lost session's claims are free now
            if not transaction:
                yield self.conn
                return
            with self.conn.transaction():
                yield self.conn

    @contextlib.contextmanager
    def _aside(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of its own (kept for the next call), for a statement that may wait
        on another worker's row lock (a reminder's fate being claimed, a queued turn being
        processed): the shared one stays free for every other caller meanwhile."""
        with self._lock:
            conn = self._idle_sync.pop() if self._idle_sync else None
        if conn is None or conn.closed:
            conn = connect(self.url, self.schema)
        ok = False
        try:
            yield conn
            ok = True
        finally:
            with self._lock:
                keep = ok and not self._closed and not conn.closed
                if keep and len(self._idle_sync) < _POOL:
                    self._idle_sync.append(conn)
                    conn = None
            if conn is not None:
                conn.close()

    def _run(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._held():
            cur = self.conn.execute(query, params)  # type: ignore[arg-type]  # our own SQL
            return cur.fetchall() if cur.description else []

    def read(self, name: str) -> bytes | None:
        rows = self._run("SELECT body FROM state_docs WHERE name = %s", (name,))
        return bytes(rows[0][0]) if rows else None

    def write(self, name: str, data: bytes, *, durable: bool = True) -> None:
        # The clock at the write, not the transaction's start: a stamp is the newest time
        # (so a write that began earlier but ended later is still seen as a change).
        self._run(_UPSERT, (name, data))

    def update(self, name: str, change: Callable[[bytes | None], bytes]) -> bytes:
        with self._held(transaction=True):
            self.conn.execute(  # held to the commit: every worker's update of it waits
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                (DIALOGUE_LOCK, f"{self.schema}/doc/{name}"),
            )
            row = self.conn.execute(
                "SELECT body FROM state_docs WHERE name = %s", (name,)
            ).fetchone()
            data = change(None if row is None else bytes(row[0]))
            self.conn.execute(_UPSERT, (name, data))
        return data

    def delete(self, name: str) -> None:
        with self._held(transaction=True):
            self.conn.execute("DELETE FROM state_docs WHERE name = %s", (name,))
            self.conn.execute("DELETE FROM state_lines WHERE name = %s", (name,))

    def append(self, name: str, line: str) -> None:
        self._run("INSERT INTO state_lines (name, line) VALUES (%s, %s)", (name, line))

    def lines(self, name: str) -> list[str] | None:
        rows = self._run("SELECT line FROM state_lines WHERE name = %s ORDER BY seq", (name,))
        return [r[0] for r in rows] or None

    def stamp(self, *names: str) -> str:
        with self._held():
            return "/".join(str(v) for v in self._stamp(names))

    def _stamp(self, names: Iterable[str]) -> tuple[Any, ...]:
        """(newest document write, last journal line's seq, journal lines) of ``names``."""
        names = list(names)
        row = self.conn.execute(
            "SELECT (SELECT max(updated_at)::text FROM state_docs WHERE name = ANY(%s)), "
            "(SELECT max(seq) FROM state_lines WHERE name = ANY(%s)), "
            "(SELECT count(*) FROM state_lines WHERE name = ANY(%s))",
            (names, names, names),
        ).fetchone()
        assert row is not None
        return tuple(row)

    def fold(self, name: str, data: bytes, journal: str, seen: str) -> str | None:
        """In one transaction, unless ``name`` or ``journal`` changed since the stamp
        ``seen``: write the document and drop the journal's lines up to the last one seen. A
        line another worker appends meanwhile has a later seq and is kept."""
        with self._held(transaction=True):
            now = self._stamp((name, journal))
            if "/".join(str(v) for v in now) != seen:
                return None
            self.conn.execute(_UPSERT, (name, data))
            if now[1] is not None:
                self.conn.execute(
                    "DELETE FROM state_lines WHERE name = %s AND seq <= %s", (journal, now[1])
                )
            return "/".join(str(v) for v in self._stamp((name, journal)))

    def stamp_like(self, *patterns: str) -> str:
        rows = self._run(
            "SELECT max(updated_at)::text, count(*) FROM state_docs WHERE name LIKE ANY(%s)",
            (list(patterns),),
        )
        return "/".join(str(v) for v in rows[0])

    def names(self, prefix: str, suffix: str = "", *, journals: bool = False) -> list[str]:
        where = "WHERE starts_with(name, %s) AND name LIKE %s"
        query = f"SELECT name FROM state_docs {where}"
        params: tuple[str, ...] = (prefix, "%" + _like(suffix))
        if journals:
            query += f" UNION SELECT DISTINCT name FROM state_lines {where}"
            params += params
        return [r[0] for r in self._run(query + " ORDER BY name", params)]

    def tree_names(self, dialogue_id: str) -> list[str]:
        """Names of the documents and journals ``agents/<agent>/<dialogue_id>/<file>``, by
        the index on their third part (m008), never a scan of every journal line."""
        rows = self._run(TREE_NAMES, (dialogue_id, dialogue_id))
        return [r[0] for r in rows]

    def next_dialogue_number(self, agent_id: str, taken: Iterable[int]) -> int:
        floor = max(taken, default=-1) + 1
        while True:
            rows = self._run(
                "INSERT INTO dialogue_numbers (agent_id, number) SELECT %s, greatest(%s, "
                "coalesce(max(number) + 1, 0)) FROM dialogue_numbers WHERE agent_id = %s "
                "ON CONFLICT DO NOTHING RETURNING number",
                (agent_id, floor, agent_id),
            )
            if rows:
                return int(rows[0][0])

    # ------------------------------------------------------------------ the dialogue lock

    async def _lease(self) -> psycopg.AsyncConnection[Any]:
        if self._idle:
            return self._idle.pop()
        return await aconnect(self.url, self.schema)

    async def _give_back(self, conn: psycopg.AsyncConnection[Any], ok: bool) -> None:
        if ok and not self._closed and not conn.closed and len(self._idle) < _POOL:
            self._idle.append(conn)
        else:
            await conn.close()

    async def _locks_conn(self) -> psycopg.AsyncConnection[Any]:
        """The one connection (session) that holds this worker's dialogue locks."""
        async with self._locks_opening:
            if self._locks is None or self._locks.closed:
                self._locks = await aconnect(self.url, self.schema)
            return self._locks

    @contextlib.asynccontextmanager
    async def dialogue_lock(self, agent_id: str, dialogue_id: str) -> AsyncIterator[None]:
        """One dialogue's turn: this worker's tasks queue in process, workers on the
        dialogue's advisory lock. Every lock of this worker is held by one session (so a
        worker needs one connection however many dialogues it serves at once), tried and
        tried again while another worker holds it; a worker that dies lets go of all."""
        local = self._local.setdefault((agent_id, dialogue_id), asyncio.Lock())
        async with local:
            key = f"{self.schema}/{agent_id}/{dialogue_id}"
            conn = await self._locks_conn()
            pause = LOCK_RETRY_S
            while not await self._uncancelled(self._try_lock(conn, key), conn, key):
                await asyncio.sleep(pause)
                pause = min(pause * 2, LOCK_RETRY_MAX_S)
            try:
                yield
            finally:
                await self._uncancelled(self._unlock(conn, key), conn, key)

    async def _try_lock(self, conn: psycopg.AsyncConnection[Any], key: str) -> bool:
        cur = await conn.execute(
            "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (DIALOGUE_LOCK, key)
        )
        row = await cur.fetchone()
        return bool(row is not None and row[0])

    async def _unlock(self, conn: psycopg.AsyncConnection[Any], key: str) -> bool:
        if not conn.closed:  # a lost session let go of its locks already
            with contextlib.suppress(psycopg.Error):
                await conn.execute(
                    "SELECT pg_advisory_unlock(%s, hashtext(%s))", (DIALOGUE_LOCK, key)
                )
        return False

    async def _uncancelled(
        self, step: Coroutine[Any, Any, bool], conn: psycopg.AsyncConnection[Any], key: str
    ) -> bool:
        """Run a lock's try or unlock to its end even when the turn is cancelled meanwhile:
        the server may grant a try whose answer the cancel would drop (the session, shared
        by every dialogue of this worker, would hold that lock for ever), so a granted one
        is let go, and the cancel goes on."""
        task = asyncio.ensure_future(step)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            cleanup = asyncio.ensure_future(self._let_go_if_granted(task, conn, key))
            self._cleanups.add(cleanup)
            cleanup.add_done_callback(self._cleanups.discard)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(cleanup)  # cancelled again: it still runs to its end
            raise

    async def _let_go_if_granted(
        self, task: asyncio.Future[bool], conn: psycopg.AsyncConnection[Any], key: str
    ) -> None:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            if await task:
                await self._unlock(conn, key)

    @contextlib.asynccontextmanager
    async def job_lease(self, name: str) -> AsyncIterator[bool]:
        """Try the job's advisory lock (never wait): another worker running it says False."""
        conn = await self._lease()
        key = f"{self.schema}/job/{name}"
        ok = False
        try:
            cur = await conn.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (DIALOGUE_LOCK, key)
            )
            row = await cur.fetchone()
            got = bool(row and row[0])
            try:
                yield got
            finally:
                if got:
                    await conn.execute(
                        "SELECT pg_advisory_unlock(%s, hashtext(%s))", (DIALOGUE_LOCK, key)
                    )
            ok = True
        finally:
            await self._give_back(conn, ok)

    # ------------------------------------------------------------------ reminders

    def claim_loops(self, entries: dict[str, dict[str, Any]]) -> set[str]:
        """Lock the reminders' records ``FOR UPDATE SKIP LOCKED`` (another worker claiming
        them now: skipped) and insert their fate rows, owned by this worker's session; those
        inserted are this worker's. A fate left ``sending`` by a session that is gone (its
        worker died before recording the send) is taken over: a lease, not a tombstone."""
        if not entries:
            return set()
        pid, start = self.session
        with self._aside() as conn, conn.transaction():
            locked = conn.execute(
                "SELECT id FROM records WHERE id = ANY(%s) FOR UPDATE SKIP LOCKED",
                (sorted(entries),),
            ).fetchall()
            granted = set()
            for (rid,) in locked:
                row = conn.execute(
                    "INSERT INTO reminder_fates (record_id, entry, owner_pid, owner_start) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (record_id) DO UPDATE SET "
                    "entry = excluded.entry, owner_pid = excluded.owner_pid, "
                    "owner_start = excluded.owner_start, updated_at = now() "
                    "WHERE reminder_fates.entry->>'status' = 'sending' AND "
                    + _OWNER_GONE.format(t="reminder_fates")
                    + " RETURNING record_id",
                    (rid, json.dumps(entries[rid], ensure_ascii=False), pid, start),
                ).fetchone()
                if row is not None:
                    granted.add(rid)
        return granted

    def loop_fates(self) -> dict[str, dict[str, Any]] | None:
        """Every fate but a ``sending`` whose session is gone (that loop is due again)."""
        rows = self._run(
            "SELECT record_id, entry FROM reminder_fates WHERE NOT (entry->>'status' = "
            "'sending' AND " + _OWNER_GONE.format(t="reminder_fates") + ") ORDER BY record_id"
        )
        return {rid: dict(entry) for rid, entry in rows}

    # ------------------------------------------------------------------ Telegram updates

    def claim_update(self, bot: str, update_id: int, payload: str | None = None) -> str:
        """``mine`` (this worker answers it now), ``replied`` (mine, but its answer went out
        already: a worker died after sending it, before the turn was done), ``done``
        (answered: drop it) or ``busy`` (another live worker answers it now). A claim whose
        session is gone is taken over. ``payload`` (the update as posted) is kept with the
        claim until the update is done: a worker that dies after the 200 went out (Telegram
        posts it no more) leaves it to :meth:`orphaned_updates`."""
        pid, start = self.session
        self._claims += 1
        if self._claims % 1000 == 1:
            self._run(f"DELETE FROM telegram_updates WHERE at < now() - interval '{UPDATE_KEEP}'")
        rows = self._run(
            "INSERT INTO telegram_updates (bot, update_id, owner_pid, owner_start, payload) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (bot, update_id) DO UPDATE SET "
            "owner_pid = excluded.owner_pid, owner_start = excluded.owner_start, at = now(), "
            "payload = coalesce(excluded.payload, telegram_updates.payload) "
            "WHERE NOT telegram_updates.done AND "
            + _OWNER_GONE.format(t="telegram_updates")
            + " RETURNING replied",
            (bot, update_id, pid, start, payload),
        )
        if rows:
            return "replied" if rows[0][0] else "mine"
        seen = self._run(
            "SELECT done FROM telegram_updates WHERE bot = %s AND update_id = %s",
            (bot, update_id),
        )
        return "done" if seen and seen[0][0] else "busy"

    def orphaned_updates(self, bot: str) -> list[tuple[int, str, bool]]:
        """Take over every update of ``bot`` claimed by a session that is gone before it was
        done, whose payload was kept: (update id, payload, replied), now this worker's to
        answer (``replied``: its answer went out, run it silently). One worker gets each."""
        pid, start = self.session
        with self._aside() as conn:
            rows = conn.execute(
                "UPDATE telegram_updates SET owner_pid = %s, owner_start = %s, at = now() "
                "WHERE bot = %s AND NOT done AND payload IS NOT NULL AND "
                + _OWNER_GONE.format(t="telegram_updates")
                + " RETURNING update_id, payload, replied",
                (pid, start, bot),
            ).fetchall()
        return sorted((int(r[0]), str(r[1]), bool(r[2])) for r in rows)

    def update_payloads(self) -> list[tuple[str, int, str]]:
        rows = self._run(
            "SELECT bot, update_id, payload FROM telegram_updates WHERE payload IS NOT NULL "
            "ORDER BY bot, update_id"
        )
        return [(str(r[0]), int(r[1]), str(r[2])) for r in rows]

    def drop_payload(self, bot: str, update_id: int) -> None:
        self._run(
            "UPDATE telegram_updates SET payload = NULL WHERE bot = %s AND update_id = %s",
            (bot, update_id),
        )

    async def reply_sent(self, bot: str, update_id: int) -> None:
        """The claimed update's answer went out: one statement on a connection of the pool
        (never queued behind the state connection's other callers)."""
        conn = await self._lease()
        ok = False
        try:
            await conn.execute(
                "UPDATE telegram_updates SET replied = true WHERE bot = %s AND update_id = %s",
                (bot, update_id),
            )
            ok = True
        finally:
            await self._give_back(conn, ok)

    def finish_update(self, bot: str, update_id: int, *, done: bool) -> None:
        """After the turn: answered (never again), or not (a re-post is answered)."""
        if done:
            self._run(  # the payload goes: a forget need not look here
                "UPDATE telegram_updates SET done = true, payload = NULL, at = now() "
                "WHERE bot = %s AND update_id = %s",
                (bot, update_id),
            )
        else:
            self._run(
                "DELETE FROM telegram_updates WHERE bot = %s AND update_id = %s AND NOT done",
                (bot, update_id),
            )

    def save_fates(self, entries: dict[str, dict[str, Any] | None]) -> None:
        with self._held(transaction=True):
            for rid, entry in sorted(entries.items()):
                if entry is None:
                    self.conn.execute("DELETE FROM reminder_fates WHERE record_id = %s", (rid,))
                    continue
                self.conn.execute(
                    "INSERT INTO reminder_fates (record_id, entry) VALUES (%s, %s) "
                    "ON CONFLICT (record_id) DO UPDATE SET entry = excluded.entry, "
                    "updated_at = now()",
                    (rid, json.dumps(entry, ensure_ascii=False)),
                )

    # ------------------------------------------------------------------ the writer queue

    @contextlib.asynccontextmanager
    async def take_turn(self) -> AsyncIterator[QueuedTurn | None]:
        """The oldest waiting turn no other worker holds (its row locked, or held while its
        turn runs), locked until the block ends."""
        conn = await self._lease()
        ok = False
        try:
            async with conn.transaction():
                cur = await conn.execute(
                    f"SELECT name, body FROM writer_queue WHERE {_WAITING} ORDER BY name "
                    "LIMIT 1 FOR UPDATE SKIP LOCKED"
                )
                row = await cur.fetchone()
                item = None if row is None else QueuedTurn(row[0], row[1])
                yield item
                if item is not None and item.outcome == "done":
                    await conn.execute("DELETE FROM writer_queue WHERE name = %s", (item.name,))
                elif item is not None and item.outcome == "failed":
                    await conn.execute(
                        "UPDATE writer_queue SET failed = true, reason = %s WHERE name = %s",
                        (item.reason, item.name),
                    )
            ok = True
        finally:
            await self._give_back(conn, ok)

    def queued_turns(self) -> list[str]:
        """The turns waiting that no worker is processing now (those are its to finish)."""
        rows = self._run(
            f"SELECT name FROM writer_queue WHERE {_WAITING} ORDER BY name FOR UPDATE SKIP LOCKED"
        )
        return [r[0] for r in rows]

    async def aqueued_turns(self) -> list[str]:
        """:meth:`queued_turns` on the async pool: never waits for a thread of the loop's."""
        conn = await self._lease()
        ok = False
        try:
            cur = await conn.execute(
                f"SELECT name FROM writer_queue WHERE {_WAITING} ORDER BY name "
                "FOR UPDATE SKIP LOCKED"
            )
            rows = await cur.fetchall()
            ok = True
        finally:
            await self._give_back(conn, ok)
        return [r[0] for r in rows]

    def put_turn(self, name: str, text: str) -> None:
        self._run("INSERT INTO writer_queue (name, body) VALUES (%s, %s)", (name, text))

    def hold_turn(self, name: str, text: str) -> bool:
        """Queue the turn held by this worker's session while its turn runs (no worker
        takes it until :meth:`release_turn`, or until this session is gone); a turn of that
        name a dead session held is taken over. False: one of that name is queued and not
        this worker's to hold, or was held before and has been processed since (``writer_
        held`` keeps the names: a message posted again after a kill is never written twice).
        On a connection of its own: taking a dead one's over may wait while another worker
        processes it."""
        pid, start = self.session
        self._holds += 1
        with self._aside() as conn, conn.transaction():
            if self._holds % 1000 == 1:
                conn.execute(f"DELETE FROM writer_held WHERE at < now() - interval '{UPDATE_KEEP}'")
            first = conn.execute(
                "INSERT INTO writer_held (name) VALUES (%s) ON CONFLICT DO NOTHING RETURNING name",
                (name,),
            ).fetchone()
            if first is not None:
                insert = "INSERT INTO writer_queue (name, body, owner_pid, owner_start) "
                insert += "VALUES (%(name)s, %(body)s, %(pid)s, %(start)s) ON CONFLICT (name) "
                insert += "DO UPDATE SET body = excluded.body, owner_pid = excluded.owner_pid, "
                insert += "owner_start = excluded.owner_start WHERE "
            else:  # held before: only a dead session's row still queued is taken over
                insert = "UPDATE writer_queue SET body = %(body)s, owner_pid = %(pid)s, "
                insert += "owner_start = %(start)s WHERE writer_queue.name = %(name)s AND "
            row = conn.execute(
                insert
                + "writer_queue.owner_pid IS NOT NULL AND NOT writer_queue.failed AND "
                + _OWNER_GONE.format(t="writer_queue")
                + " RETURNING name",
                {"name": name, "body": text, "pid": pid, "start": start},
            ).fetchone()
        if row is None:
            return False
        self._holders[name] = (pid, start)
        return True

    async def release_turn(self, name: str, text: str | None, *, drop: bool = False) -> bool:
        """The turn :meth:`hold_turn` held, for any worker to process now: with ``text``
        as its final body (None: as held), or (``drop``) removed. False: it was no longer
        this worker's (a forget removed it; this session was lost and another worker took
        it over): nothing is done, so the turn is never written twice."""
        pid, start = self._holders.pop(name, self.session)
        conn = await self._lease()
        ok = False
        try:
            if drop:
                query = "DELETE FROM writer_queue WHERE name = %s AND owner_pid = %s "
                params: tuple[Any, ...] = (name, pid)
            else:
                query = (
                    "UPDATE writer_queue SET body = coalesce(%s, body), owner_pid = NULL, "
                    "owner_start = NULL WHERE name = %s AND owner_pid = %s "
                )
                params = (text, name, pid)
            cur = await conn.execute(
                query + "AND owner_start IS NOT DISTINCT FROM %s", (*params, start)
            )
            ok = True
        finally:
            await self._give_back(conn, ok)
        return cur.rowcount > 0

    def turn_rows(self) -> list[tuple[str, str, str | None]]:
        rows = self._run("SELECT name, body, failed, reason FROM writer_queue ORDER BY name")
        return [(r[0], r[1], (r[3] or "") if r[2] else None) for r in rows]

    def replace_turn(self, name: str, text: str | None) -> None:
        """Waits while another worker processes the turn (its row is locked till then)."""
        with self._aside() as conn:
            if text is None:
                conn.execute("DELETE FROM writer_queue WHERE name = %s", (name,))
            else:
                conn.execute("UPDATE writer_queue SET body = %s WHERE name = %s", (text, name))

    def lost(self, exc: BaseException) -> bool:
        seen: BaseException | None = exc
        for _ in range(8):  # the error, and what raised it (a store may wrap it)
            if seen is None:
                return False
            if isinstance(seen, psycopg.OperationalError | DatabaseError):
                return True
            seen = seen.__cause__ or seen.__context__
        return False

    def vacuum(self) -> None:
        # A forget's intent and the scrubbed state documents leave dead row versions.
        self._run("VACUUM state_docs, state_lines, writer_queue, telegram_updates")

    async def close(self) -> None:
        with self._lock:
            self._closed = True
        if self._locks is not None:
            with contextlib.suppress(psycopg.Error):
                await self._locks.close()
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(psycopg.Error):
                await conn.close()
        with self._lock:
            aside, self._idle_sync = self._idle_sync, []
        for sync_conn in aside:
            sync_conn.close()
        self.conn.close()


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
