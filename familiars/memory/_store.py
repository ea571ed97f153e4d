"""MemoryStore: the markdown files are the truth; this is the only code that writes them.

All writes go through one writer task per store. It drains whatever is queued, applies the
operations file by file to the parsed file, writes each touched file once (atomically), appends
the edit-history events, tells the listeners (the SQLite index), and only then acknowledges
the callers. Reads parse files on demand and cache them by (size, mtime).

Every write that brings new text (``append``, ``append_many``, ``update`` with new content,
``modify(content=...)``) is checked against ``max_record_chars`` here, before it is queued,
whatever door it came by: a longer one is refused (``RecordTooLongError``). Here too its
secrets are masked as ``[privacy]`` says (``_redaction``): a password, key or card told to
``memory add``, ``/memory edit`` or the memory page is never written in clear.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import logging
import re
import threading
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from familiars.config import PrivacySettings
from familiars.memory import _history as history
from familiars.memory._atomic import atomic_write_text, ensure_private_dir
from familiars.memory._entries import ParsedFile, Segment, copies, read_file, render_file
from familiars.memory._errors import EntryParseError, RecordNotFoundError
from familiars.memory._history import Quotes
from familiars.memory._id_claims import IdClaims
from familiars.memory._limits import DEFAULT_MAX_RECORD_CHARS, check_record_length
from familiars.memory._list_query import ListQuery
from familiars.memory._live_reads import LiveReads, markdown_files
from familiars.memory._lock import clean_stale_temp_files, under_lock
from familiars.memory._offline._kept import Kept
from familiars.memory._paths import (
    MEMORY_GLOBS,
    RECORD_ID_RE,
    cell_of_file,
    check_record_id,
    check_user_key,
    owner_from_path,
    resolve_path,
)
from familiars.memory._records import (
    EPISTEMIC_STATUSES,
    MemoryRecord,
    check_cell,
    is_live,
    iso_now,
    make_record,
    new_id,
    utcnow,
)
from familiars.memory._redaction import Redactor
from familiars.memory._state_home import FileStateHome, StateHome
from familiars.memory._store_batch import _BatchLog, _Op, normalise_content

logger = logging.getLogger(__name__)


@dataclass
class StoreChange:
    """What one writer batch changed: records as they now are, ids removed, files rewritten."""

    upserted: list[MemoryRecord] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


class StoreListener(Protocol):
    async def records_changed(self, change: StoreChange) -> None: ...


@dataclass
class _Cached:
    sig: tuple[int, int]
    parsed: ParsedFile


_TAG_RE = re.compile(r"^[\w .:/+-]{1,64}$", re.UNICODE)


class MemoryStore:
    """Async access to the memory files of one workspace."""

    def __init__(
        self,
        workspace: Path,
        *,
        listeners: Iterable[StoreListener] = (),
        max_record_chars: int = DEFAULT_MAX_RECORD_CHARS,
        privacy: PrivacySettings | None = None,
    ) -> None:
        self.workspace = Path(workspace)
        #: The state beside the records (the database home sets its own): consolidation
        #: passes are kept there.
        self.state_home: StateHome = FileStateHome(self.workspace)
        #: ``memory.max_record_chars``: no write path stores a longer text.
        self.max_record_chars = max_record_chars
        #: ``[privacy]``: new text is stored as the redactor keeps it at rest.
        self.redactor = Redactor(privacy)
        self._listeners: list[StoreListener] = list(listeners)
        self._cache: dict[Path, _Cached] = {}
        self._id_paths: dict[str, Path] = {}
        self.id_claims = IdClaims(self.workspace)
        self._lock = threading.RLock()
        self._queue: asyncio.Queue[_OpGroup | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._scanned = False
        self._reads = LiveReads()
        self.last_listener_error: Exception | None = None
        self.last_write_error: BaseException | None = None

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        if self._task is not None:
            return
        ensure_private_dir(self.workspace)
        self._queue = asyncio.Queue()
        self._task = asyncio.create_task(self._writer(), name="memory-store-writer")

    async def close(self) -> None:
        """Finish every queued write, then stop the writer task."""
        if self._task is None or self._queue is None:
            return
        await self._queue.put(None)
        await self._task
        self._task = None
        self._queue = None

    async def __aenter__(self) -> MemoryStore:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def add_listener(self, listener: StoreListener) -> None:
        self._listeners.append(listener)

    # ----------------------------------------------------------------- reading

    def memory_files(self) -> list[Path]:
        files: list[Path] = []
        for pattern in MEMORY_GLOBS:
            files.extend(
                p for p in self.workspace.glob(pattern) if owner_from_path(self.workspace, p)
            )
        return sorted(files)

    def _load(self, path: Path) -> ParsedFile:
        """The parsed file, re-read when it changed on disk; an empty one when missing. Its
        ids are settled with those of every other file (all read first: ``_id_claims``)."""
        with self._lock:
            if not self._scanned:
                self._scan_sync()
            try:
                st = path.stat()
            except FileNotFoundError:
                self._forget_path(path)
                return ParsedFile(path=path)
            sig = (st.st_size, st.st_mtime_ns)
            cached = self._cache.get(path)
            if cached is not None and cached.sig == sig:
                return cached.parsed
            parsed = read_file(path, cell_of_file(self.workspace, path))
            self._annotate(path, parsed)
            self._forget_path(path)
            self._cache[path] = _Cached(sig, parsed)
            # Settling may set aside an entry of another file in place (its cache entry
            # stays): no kept answer may outlive that.
            self._reads.clear()
            self.id_claims.settle(path, parsed, self._id_paths, self._load)
            for err in parsed.errors:
                logger.warning("%s", err)
            return parsed

    def _forget_path(self, path: Path) -> None:
        self._cache.pop(path, None)  # its ids stay mapped: a later read is settled against it
        for other in self.id_claims.dependants(path):
            self._forget_path(other)

    def _annotate(self, path: Path, parsed: ParsedFile) -> None:
        info = owner_from_path(self.workspace, path) or {}
        for rec in parsed.records:
            rec.user_key = info.get("user_key")
            rec.agent_id = info.get("agent_id") or "agent_0"
            rec.dialogue_id = info.get("dialogue_id")

    def _scan_sync(self) -> None:
        with self._lock:
            self._scanned = True
            for path in self.memory_files():
                self._load(path)

    def parsed_file(self, path: Path) -> ParsedFile:
        """``path`` as the store reads it, entries set aside included (blocks: a thread's)."""
        return self._load(Path(path))

    def invalidate(self, path: Path) -> None:
        """Forget the cached parse of ``path`` (the watcher calls this on outside edits)."""
        with self._lock:
            self._forget_path(Path(path))

    def _locate(self, record_id: str) -> tuple[Path, ParsedFile, int]:
        with self._lock:
            if not self._scanned:
                self._scan_sync()
            for attempt in range(2):
                path = self._id_paths.get(record_id)
                if path is not None:
                    parsed = self._load(path)
                    for i, seg in enumerate(parsed.segments):
                        if seg.record is not None and seg.record.id == record_id:
                            return path, parsed, i
                if attempt == 0:
                    self._scan_sync()
        raise RecordNotFoundError(record_id)

    def _where(self, record_ids: Iterable[str]) -> builtins.list[tuple[Path, str]]:
        """(file, id) of each of ``record_ids`` that is there."""
        found = []
        for record_id in record_ids:
            with contextlib.suppress(RecordNotFoundError):
                found.append((self._locate(record_id)[0], record_id))
        return found

    async def get(self, record_id: str) -> MemoryRecord:
        check_record_id(record_id)
        _, parsed, i = await asyncio.to_thread(self._locate, record_id)
        record = parsed.segments[i].record
        assert record is not None
        return record.replace()

    def _candidate_files(
        self,
        scope: str | None,
        category: str | None,
        user_key: str | None,
        agent_id: str | None,
        dialogue_id: str | None,
    ) -> builtins.list[Path]:
        """The files that can hold matches: one owner's folder when the filters name it (the
        turn's own lookups), else every memory file."""
        folder: Path | None = None
        if scope == "user" and user_key is not None:
            folder = self.workspace / "users" / user_key
        elif scope == "identity" and agent_id is not None:
            folder = self.workspace / "agents" / agent_id / "identity"
        elif scope in ("dialogue", "ephemeral") and agent_id and dialogue_id:
            folder = self.workspace / "agents" / agent_id / dialogue_id / scope
        if folder is None:
            return self.memory_files()
        return [p for p in markdown_files(folder, category) if owner_from_path(self.workspace, p)]

    def _files_for(self, query: ListQuery) -> Iterator[Path]:
        for path in self._candidate_files(*query):
            info = owner_from_path(self.workspace, path)
            if info is not None and query.admits(info):
                yield path

    async def list(
        self,
        *,
        scope: str | None = None,
        category: str | None = None,
        user_key: str | None = None,
        agent_id: str | None = None,
        dialogue_id: str | None = None,
        live_only: bool = True,
        now: datetime | None = None,
        live_context: dict[str, Any] | None = None,
    ) -> builtins.list[MemoryRecord]:
        """Records matching every filter given, oldest first."""
        query = ListQuery(scope, category, user_key, agent_id, dialogue_id)
        query.check()

        def collect() -> list[MemoryRecord]:
            with self._lock:
                found = self._matching(
                    query,
                    live_only=live_only,
                    now=now,
                    live_context=live_context,
                )
            return [rec.replace() for rec in found]

        return await asyncio.to_thread(collect)

    async def read_live(
        self, *queries: ListQuery, now: datetime | None = None
    ) -> builtins.list[MemoryRecord]:
        """What one :meth:`list` per query gives, query after query, in one hop off the event
        loop and not copied: the store's own records in a list never to be changed (the
        store makes each change a new record object, so one read here never changes under
        its reader). While nothing it was read from changed, the very same list is given
        again (``_live_reads``), with what was derived from it (``Kept.derived``)."""
        for query in queries:
            query.check()
        when = now or utcnow()

        def collect() -> Kept:
            with self._lock:
                parts = [self._live_answer(query, when) for query in queries]
                return self._reads.joined(queries, parts)

        return await asyncio.to_thread(collect)

    def _live_answer(self, query: ListQuery, now: datetime) -> Kept:
        """One query's live records (under the lock): each file asked for as any read does
        (an outside edit is read), the kept answer when every file's entry is the same."""
        sources = []
        for path in self._files_for(query):
            self._load(path)
            sources.append((path, self._cache.get(path)))
        return self._reads.answer(query, tuple(sources), _records_of, now)

    def _matching(
        self,
        filters: ListQuery,
        *,
        live_only: bool = True,
        now: datetime | None = None,
        live_context: dict[str, Any] | None = None,
    ) -> builtins.list[MemoryRecord]:
        """The cached records ``filters`` (a ListQuery's) match, oldest first; under the lock."""
        out: list[MemoryRecord] = []
        for path in self._files_for(filters):
            for rec in self._load(path).records:
                if live_only and not is_live(rec, now=now, **(live_context or {})):
                    continue
                out.append(rec)
        out.sort(key=lambda r: (r.ts, r.id))
        return out

    async def parse_errors(self) -> builtins.list[EntryParseError]:
        def collect() -> list[EntryParseError]:
            with self._lock:
                return [e for p in self.memory_files() for e in self._load(p).errors]

        return await asyncio.to_thread(collect)

    async def history(self, record_id: str) -> builtins.list[dict[str, Any]]:
        """Every history event of this record and of the records it supersedes (and of those
        superseding it), oldest first: the chain of what was said before a change of mind."""
        check_record_id(record_id)

        def collect() -> list[dict[str, Any]]:
            with self._lock:
                if not self._scanned:
                    self._scan_sync()
                events = [e for p in self.memory_files() for e in history.read_events(p).events]
            return history.chain_events(events, record_id)

        return await asyncio.to_thread(collect)

    # ----------------------------------------------------------------- writing

    async def append(self, record: MemoryRecord, *, dedupe: bool = True) -> MemoryRecord:
        """Store ``record``; returns it, or the live record already holding the same text in
        the same cell and owner (then nothing is written)."""
        return (await self.append_many([record], dedupe=dedupe))[0]

    async def append_many(
        self, records: Iterable[MemoryRecord], *, dedupe: bool = True, moved: bool = False
    ) -> builtins.list[MemoryRecord]:
        """Store ``records`` in one batch. ``moved``: their text is already in the workspace
        (merging two people's scopes), so it is not measured again: a hand-edited record
        over the limit moves with the rest instead of stopping the move."""
        ops = [
            self._append_op(self._prepare_new(rec, new_text=not moved), dedupe) for rec in records
        ]
        return await self._submit(ops)

    def at_rest(self, text: str) -> str:
        """``text`` as a record keeps it: the secrets ``[privacy]`` masks, masked."""
        return self.redactor.scan(text).at_rest.content

    def _prepare_new(self, record: MemoryRecord, *, new_text: bool = True) -> MemoryRecord:
        if new_text:
            record = record.replace(content=self.at_rest(record.content))
            check_record_length(record.content, self.max_record_chars)
        check_cell(record.scope, record.category)
        check_record_id(record.id)
        if record.epistemic_status not in EPISTEMIC_STATUSES:
            raise ValueError(f"epistemic_status must be one of {', '.join(EPISTEMIC_STATUSES)}")
        if not 0.0 <= float(record.salience) <= 1.0:
            raise ValueError("salience must be between 0 and 1")
        for tag in record.tags:
            if not _TAG_RE.match(tag):
                raise ValueError(f"invalid tag {tag!r}")
        rec = record.replace(ts=record.ts or iso_now(), salience=float(record.salience))
        if rec.scope != "user":
            rec.user_key = None
        if rec.scope in ("user", "identity"):
            rec.dialogue_id = None
        return rec

    def path_of(self, record: MemoryRecord) -> Path:
        return resolve_path(
            workspace=self.workspace,
            scope=record.scope,
            category=record.category,
            agent_id=record.agent_id,
            dialogue_id=record.dialogue_id,
            user_key=record.user_key,
        )

    def _append_op(self, record: MemoryRecord, dedupe: bool) -> _Op:
        path = self.path_of(record)

        def apply(parsed: ParsedFile, log: _BatchLog) -> MemoryRecord:
            known = log.content_map(path, parsed)
            key = normalise_content(record.content)
            if dedupe:
                seg = known.get(key)
                if seg is not None and seg.record is not None and not seg.record.deprecated:
                    return seg.record.replace()
            if record.id in log.ids(path, parsed):
                raise ValueError(f"a memory with id {record.id} already exists")
            new_seg = Segment(text="", line=0, record=record)
            parsed.segments.append(new_seg)
            log.ids(path, parsed).add(record.id)
            held = known.get(key)
            if held is None or held.record is None or held.record.deprecated:
                known[key] = new_seg
            log.record_event(path, "upsert", record)
            log.upserted[record.id] = record
            return record.replace()

        return _Op(path, apply)

    async def update(
        self, record_id: str, content: str | None = None, **changes: Any
    ) -> MemoryRecord:
        """A new record with ``supersedes`` = the old id replaces the old one, which is
        deprecated. ``changes`` may set any field of the new record (category included)."""
        old = await self.get(record_id)
        new = old.replace(
            id=new_id(),
            ts=changes.pop("ts", None) or iso_now(),
            content=old.content if content is None else content,
            supersedes=old.id,
            deprecated=False,
            access_count=0,
            last_accessed_ts=None,
            derived_from=[],
            **changes,
        )
        # A hand-edited record over the limit may still change category or tags: only new
        # text is measured.
        new = self._prepare_new(new, new_text=content is not None and content != old.content)
        # The deprecation goes first: it is the op that can fail (the old record vanished).
        ops = [self._modify_op(old.id, "deprecate", deprecated=True), self._append_op(new, False)]
        result = await self._submit(ops)
        return result[1]

    async def deprecate(self, record_id: str) -> MemoryRecord:
        return await self.modify(record_id, deprecated=True, _event="deprecate")

    async def pin(self, record_id: str) -> MemoryRecord:
        return await self.modify(record_id, pinned=True)

    async def unpin(self, record_id: str) -> MemoryRecord:
        return await self.modify(record_id, pinned=False)

    async def modify(
        self, record_id: str, *, _event: str = "upsert", **changes: Any
    ) -> MemoryRecord:
        """Change fields of a record in place (pinning, open-loop status, ...). ``extra`` keys
        given are merged into the record's extra dict; a value of None removes the key."""
        check_record_id(record_id)
        for name in ("id", "scope", "category", "user_key", "agent_id", "dialogue_id"):
            if name in changes:
                raise ValueError(f"{name} cannot be modified in place; use update()")
        if "content" in changes:
            changes["content"] = self.at_rest(str(changes["content"]))
            check_record_length(changes["content"], self.max_record_chars)
        await asyncio.to_thread(self._locate, record_id)
        return (await self._submit([self._modify_op(record_id, _event, **changes)]))[0]

    async def touch_access(self, counts: dict[str, int], ts: str | None = None) -> int:
        """Add recall counts and set ``last_accessed_ts`` in one batch (no history events).
        Ids that no longer exist are ignored. Returns how many records were updated."""
        stamp = ts or iso_now()

        located = await asyncio.to_thread(self._where, counts)
        results = await self._submit([self._touch_op(p, i, counts[i], stamp) for p, i in located])
        return sum(1 for r in results if r)

    def _touch_op(self, path: Path, record_id: str, n: int, stamp: str) -> _Op:
        def apply(parsed: ParsedFile, log: _BatchLog) -> bool:
            for seg in parsed.segments:
                if seg.record is not None and seg.record.id == record_id:
                    seg.record = seg.record.replace(
                        access_count=seg.record.access_count + n, last_accessed_ts=stamp
                    )
                    log.upserted[record_id] = seg.record
                    log.dirty.add(path)
                    return True
            return False

        return _Op(path, apply)

    def _modify_op(self, record_id: str, kind: str, **changes: Any) -> _Op:
        path, _, _ = self._locate(record_id)
        extra_changes = changes.pop("extra", None)

        def apply(parsed: ParsedFile, log: _BatchLog) -> MemoryRecord:
            for seg in parsed.segments:
                rec = seg.record
                if rec is not None and rec.id == record_id:
                    extra = dict(rec.extra)
                    for key, value in (extra_changes or {}).items():
                        if value is None:
                            extra.pop(key, None)
                        else:
                            extra[key] = value
                    new = rec.replace(**changes, extra=extra)
                    seg.record = new
                    log.record_event(path, kind, new)
                    log.upserted[new.id] = new
                    return new.replace()
            raise RecordNotFoundError(record_id)

        return _Op(path, apply)

    async def forget(self, record_id: str) -> MemoryRecord:
        """Remove the entry from its file and purge its content from the history, leaving a
        tombstone with the id. Returns the record as it was."""
        check_record_id(record_id)
        path, _, _ = await asyncio.to_thread(self._locate, record_id)

        def apply(parsed: ParsedFile, log: _BatchLog) -> MemoryRecord:
            for i, seg in enumerate(parsed.segments):
                if seg.record is not None and seg.record.id == record_id:
                    del parsed.segments[i]  # and a hand copy with its id (it would come back)
                    parsed.segments[:] = [s for s in parsed.segments if not copies(s, record_id)]
                    log.norms.pop(path, None)
                    log.id_sets.pop(path, None)
                    log.removed.add(record_id)
                    log.upserted.pop(record_id, None)
                    log.purges.append((path, record_id))
                    log.dirty.add(path)
                    return seg.record.replace()
            raise RecordNotFoundError(record_id)

        return (await self._submit([_Op(path, apply)]))[0]

    async def drop_quotes(self, quotes: Quotes) -> builtins.list[str]:
        """Take ``quotes`` (record id -> quotes) out of each record's ``source_quote``: its
        entry, every event of its history, the listeners' copy (an upsert); no event is
        added and nothing else changes. The ids changed (a record gone meanwhile is not)."""
        by_path: dict[Path, dict[str, Collection[str]]] = {}
        for path, record_id in await asyncio.to_thread(self._where, quotes):
            by_path.setdefault(path, {})[record_id] = quotes[record_id]
        done = await self._submit([self._unquote_op(p, q) for p, q in by_path.items()])
        return [i for ids in done for i in ids]

    def _unquote_op(self, path: Path, quotes: Quotes) -> _Op:
        def apply(parsed: ParsedFile, log: _BatchLog) -> builtins.list[str]:
            # The history first: a crash before the entry is written leaves its quotes for
            # the resumed forget to find again.
            self._unquote_history(path, quotes)
            changed = history.unquote_entries(parsed, quotes, log.events.get(path, []))
            log.upserted.update((r.id, r) for r in changed)
            log.dirty.update([path] if changed else [])
            return [r.id for r in changed]

        return _Op(path, apply)

    async def purge_left_history(self, record_ids: Iterable[str]) -> builtins.list[str]:
        """The history of each of ``record_ids`` whose entry is gone, purged (a resumed forget:
        a crash between an entry's removal and its history's purge). The ids purged."""
        wanted = [i for i in dict.fromkeys(record_ids) if RECORD_ID_RE.fullmatch(i)]
        holding = await asyncio.to_thread(self._holding_history, wanted) if wanted else {}

        def purge_op(path: Path, ids: builtins.list[str]) -> _Op:
            def apply(parsed: ParsedFile, log: _BatchLog) -> builtins.list[str]:
                gone = [i for i in ids if i not in log.ids(path, parsed)]
                log.purges += [(path, i) for i in gone]
                return gone

            return _Op(path, apply)

        found = await self._submit([purge_op(p, ids) for p, ids in sorted(holding.items())])
        return [i for ids in found for i in ids]

    def _holding_history(self, record_ids: builtins.list[str]) -> dict[Path, builtins.list[str]]:
        return history.holding(self.workspace, record_ids)  # the database home overrides

    async def forget_unparsed(self, user_key: str) -> builtins.list[str]:
        """A person's files lose what is not an entry (a broken entry, text typed before the
        first) and their histories every event (of a broken entry, of one removed by hand):
        kept through every other write, but ``users/<key>/`` holds only them (tester F18,
        s37). Where each stretch was (``users/<key>/<file>:<line>``), for the answer."""
        folder = self.workspace / "users" / check_user_key(user_key)
        paths = await asyncio.to_thread(lambda: sorted(folder.glob("*.md")))
        found = await self._submit([self._drop_unparsed_op(p) for p in paths])
        return [where for places in found for where in places]

    def _drop_unparsed_op(self, path: Path) -> _Op:
        name = path.relative_to(self.workspace).as_posix()

        def apply(parsed: ParsedFile, log: _BatchLog) -> builtins.list[str]:
            dropped = [s for s in parsed.segments if s.record is None and s.text.strip()]
            if dropped:
                parsed.segments = [s for s in parsed.segments if s.record is not None]
                log.norms.pop(path, None)
                log.dirty.add(path)
            held = self._history_ids(path)  # purged after the write: no "removed" hand edit
            log.purges += [(path, i) for i in held if i not in log.ids(path, parsed)]
            return [f"{name}:{s.line}" for s in dropped]

        return _Op(path, apply)

    def _history_ids(self, path: Path) -> builtins.list[str]:
        return history.held_ids(path)  # the database home overrides

    # ----------------------------------------------------------------- the writer task

    async def _submit(self, ops: builtins.list[_Op]) -> builtins.list[Any]:
        if not ops:
            return []
        if self._queue is None:
            raise RuntimeError("MemoryStore is not started; use 'async with store' or start()")
        loop = asyncio.get_running_loop()
        group = loop.create_future()
        await self._queue.put(_OpGroup(ops, group))
        values: builtins.list[Any] = await group
        return values

    async def _writer(self) -> None:
        assert self._queue is not None
        stop = False
        while not stop:
            first = await self._queue.get()
            groups: list[_OpGroup] = []
            if first is None:
                stop = True
            else:
                groups.append(first)
            while not self._queue.empty():
                item = self._queue.get_nowait()
                if item is None:
                    stop = True
                else:
                    groups.append(item)
            if groups:
                await self._run_batch(groups)

    async def _run_batch(self, groups: builtins.list[_OpGroup]) -> None:
        log = _BatchLog()
        try:
            results = await asyncio.to_thread(self._apply_groups, groups, log)
            self.last_write_error = None
        except BaseException as exc:  # a write failed: every caller of this batch learns it
            for g in groups:
                if not g.future.done():
                    g.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        change = StoreChange(
            upserted=list(log.upserted.values()),
            removed=sorted(log.removed),
            files=list(results.touched),
        )
        listener_error: Exception | None = None
        if change.upserted or change.removed:
            for listener in self._listeners:
                try:
                    await listener.records_changed(change)
                except Exception as exc:  # noqa: BLE001 - the files are written; report below
                    logger.exception("memory index update failed; it will catch up on reconcile")
                    listener_error = exc
        for g, value in zip(groups, results.values, strict=True):
            if g.future.done():
                continue
            if isinstance(value, BaseException):
                g.future.set_exception(value)
            else:
                g.future.set_result(value)
        if listener_error is not None:
            self.last_listener_error = listener_error

    def _apply_groups(self, groups: builtins.list[_OpGroup], log: _BatchLog) -> _BatchResults:
        """Apply every group's ops to the parsed files, then write each touched file once.

        An op checks everything before it mutates, so a failing op leaves its file as it was;
        groups order their ops so that the ones that can fail come first."""
        with self._lock:
            working: dict[Path, ParsedFile] = {}
            values: list[Any] = []
            for g in groups:
                try:
                    out = []
                    for op in g.ops:
                        if op.path not in working:
                            working[op.path] = self._load(op.path)
                        out.append(op.apply(working[op.path], log))
                    values.append(out)
                except Exception as exc:  # noqa: BLE001 - handed to that group's caller
                    values.append(exc)
            touched = sorted(log.dirty)
            try:
                for path in touched:
                    self._write_file(path, working[path], log.events.get(path, []))
                by_path: dict[Path, list[str]] = {}
                for path, record_id in log.purges:  # one rewrite of a history a batch
                    by_path.setdefault(path, []).append(record_id)
                for path, ids in by_path.items():
                    self._purge_history(path, ids)
            except BaseException:
                # The cached parses were mutated in place; drop them so reads go to disk.
                for path in touched:
                    self._forget_path(path)
                raise
            return _BatchResults(values, touched)

    def _unquote_history(self, path: Path, quotes: Quotes) -> None:
        """See :func:`history.unquote` (the database home overrides)."""
        history.unquote(path, quotes)

    def _purge_history(self, path: Path, record_ids: builtins.list[str]) -> None:
        """Forgotten records' events go, a tombstone of each stays (database home: its own)."""
        history.purge(path, *record_ids)

    def _write_file(
        self, path: Path, parsed: ParsedFile, events: builtins.list[dict[str, Any]]
    ) -> None:
        text = render_file(parsed)
        atomic_write_text(path, text)
        if events:
            history.append_events(path, events)
        st = path.stat()
        self._forget_path(path)
        self._cache[path] = _Cached((st.st_size, st.st_mtime_ns), parsed)
        for rec in parsed.records:
            self._id_paths[rec.id] = path
        self._annotate(path, parsed)

    def cleanup_temp_files(self) -> int:
        """Remove the temp files interrupted writes left anywhere in the workspace (memory
        folders, dialogue folders, the writer queue), only under the workspace lock: another
        process's in-flight temp file looks the same. 0 when another process owns it."""
        removed = under_lock(
            self.workspace, lambda: clean_stale_temp_files(self.workspace), what="temp clean-up"
        )
        return removed or 0


def _records_of(entry: _Cached) -> builtins.list[MemoryRecord]:
    return entry.parsed.records


@dataclass
class _OpGroup:
    ops: list[_Op]
    future: asyncio.Future[Any]


@dataclass
class _BatchResults:
    values: list[Any]
    touched: list[Path]


__all__ = ["MemoryStore", "StoreChange", "StoreListener", "make_record", "normalise_content"]
