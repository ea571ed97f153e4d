"""The document finder: index files a person sends or keeps, and find them again.

Owner scope (``""``): watched folders (``Settings.files.watch_dirs``) and files added from the
command line. A person's scope (their ``user_key``): the attachments they send, stored under
``workspace/users/<user_key>/files/`` (in the database home: ``doc_blobs`` only) and
visible only to them. :meth:`DocumentFinder.forget` removes a file for good (the
``Forgetter``'s ``file:...``).

This module indexes (adding, removing, rebuilding from the edit history) and lists; search is
:mod:`familiars.memory._documents.searching` (dense + keyword (FTS5 bm25), each normalised 0-1
and fused 0.7 / 0.3 over 200 candidates of each, collapsed to one row per file, then the
seven ranking knobs of :mod:`familiars.memory._documents.knobs`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from familiars.config import Settings
from familiars.memory._atomic import atomic_write_bytes
from familiars.memory._documents import knobs as knobs_mod
from familiars.memory._documents.chunking import EMBED_CHARS, Chunk, chunk_document
from familiars.memory._documents.errors import (
    DocumentSkipped,
    FileAccessError,
    FileTooLargeError,
    UnsafePathError,
)
from familiars.memory._documents.extract import check_file_name, extract, kind_of
from familiars.memory._documents.history import OWNER, EditHistory, FileHistory, Version, iso_now
from familiars.memory._documents.matrix import Matrix
from familiars.memory._documents.owners import file_id_for, owner_of
from familiars.memory._documents.results import (
    FileBlob,
    FileInfo,
    IndexResult,
    RebuildReport,
)
from familiars.memory._documents.rows import DocRows, SqliteDocRows
from familiars.memory._documents.searching import SearchMixin
from familiars.memory._documents.walking import walk_folder
from familiars.memory._embeddings import Embedder, content_hash
from familiars.memory._errors import InvalidIdError, RecordNotFoundError
from familiars.memory._paths import check_user_key, user_dir
from familiars.memory._pg._url import database_url, driver_missing

logger = logging.getLogger(__name__)

DB_NAME = "familiars.db"
MAX_HISTORY_VERSIONS = 5
EMBED_BATCH = 256


@dataclass
class _Prepared:
    version: Version | None
    result: IndexResult


class DocumentFinder(SearchMixin):
    """Index and search documents. Async; one writer at a time; CPU work off the loop.
    Search is :class:`~familiars.memory._documents.searching.SearchMixin`."""

    def __init__(
        self,
        workspace: Path,
        embedder: Embedder,
        settings: Settings,
        *,
        ablate: Iterable[str] | None = None,
        rows: DocRows | None = None,
        history: EditHistory | None = None,
    ) -> None:
        self.workspace = Path(workspace)
        self.embedder = embedder
        self.settings = settings
        self.max_bytes = int(settings.files.max_file_mb * 1024 * 1024)
        chosen = settings.files.ablate if ablate is None else ablate
        self.ablate = knobs_mod.ablated_knobs(list(chosen))
        self.path = self.workspace / DB_NAME
        if rows is None or history is None:
            rows, history = document_home(settings, self.workspace)
        self.history = history
        self.rows: DocRows = rows
        self._write_lock = asyncio.Lock()
        self._matrix: Matrix | None = None
        self._matrix_generation = -1
        self._facts_cache: dict[str, knobs_mod.FileFacts] | None = None

    # ----------------------------------------------------------------- lifecycle

    async def open(self) -> None:
        await self.rows.open()

    async def close(self) -> None:
        await self.rows.close()
        await asyncio.to_thread(self.history.close)

    async def __aenter__(self) -> DocumentFinder:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ----------------------------------------------------------------- adding

    async def add_file(self, path: Path | str, *, user_key: str | None = None) -> IndexResult:
        """Index one file (a new version when it changed; ``unchanged`` when not)."""
        owner = owner_of(user_key)
        return (await self.add_paths([Path(path)], owner=owner))[0]

    async def add_folder(
        self, folder: Path | str, *, user_key: str | None = None
    ) -> list[IndexResult]:
        """Index every file under ``folder``; bad files are skipped with a reason, the rest
        still index. Symlinks that lead out of the folder are refused."""
        owner = owner_of(user_key)
        root = Path(folder).absolute()
        paths, refused = await asyncio.to_thread(walk_folder, root, exclude=(self.workspace,))
        results = [await self._note_skip(owner, exc) for exc in refused]
        results.extend(await self.add_paths(paths, owner=owner))
        return results

    async def add_attachment(self, user_key: str, filename: str, data: bytes) -> IndexResult:
        """Store a file a person sent under their own scope, and index it. A file that cannot
        be indexed is not stored; the result says why."""
        owner = check_user_key(user_key)
        folder = user_dir(self.workspace, owner) / "files"
        try:
            name = check_file_name(filename)
            self._check_size(len(data), name)
            await asyncio.to_thread(_prepare_bytes, name, "attachments", data, Path(name))
        except DocumentSkipped as exc:
            return await self._note_skip(owner, exc)
        target = folder / name
        await asyncio.to_thread(atomic_write_bytes, target, data)
        result = (await self.add_paths([target], owner=owner, folder_label="attachments"))[0]
        if result.file_id is not None and result.status != "skipped":
            await self.rows.put_blob(result.file_id, data)  # any worker can send it back
        if not isinstance(self.rows, SqliteDocRows):
            # the database holds the bytes: no copy left on this worker's disk, which a
            # forget on another worker could not reach (``db export`` writes it back)
            await asyncio.to_thread(target.unlink, True)
        return result

    async def add_paths(
        self, paths: Sequence[Path], *, owner: str, folder_label: str | None = None
    ) -> list[IndexResult]:
        """Index many files in one pass: extract each, embed all new chunks in batches, then
        write sidecar events and index rows."""
        known = await self._known_files(owner)
        prepared: list[_Prepared] = []
        for path in paths:
            prepared.append(await self._prepare(Path(path), owner, known, folder_label))
        fresh = [p.version for p in prepared if p.version is not None]
        if fresh:
            await self._ensure_vectors([c.embed_text for v in fresh for c in v.chunks])
            async with self._write_lock:
                for version in fresh:
                    await asyncio.to_thread(self.history.record_upsert, version)
                    await self._write_version(version)
                await self._commit_change()
        results = []
        for item in prepared:
            if item.result.status == "skipped":
                await self._record_skip(owner, item.result)
            elif item.result.status == "indexed":
                await self._clear_skip(owner, item.result.path)
            results.append(item.result)
        await self.rows.commit()
        return results

    async def remove_file(self, path: Path | str, *, user_key: str | None = None) -> IndexResult:
        """The file is gone: its last version becomes history (a delete event is recorded)."""
        owner = owner_of(user_key)
        abspath = str(Path(path).absolute())
        file_id = file_id_for(owner, abspath)
        async with self._write_lock:
            if not await self.rows.is_live(file_id):
                return IndexResult(abspath, "unchanged", file_id, note="not indexed")
            ts = iso_now()
            await asyncio.to_thread(self.history.record_delete, owner, file_id, abspath, ts=ts)
            await self.rows.mark_deleted(file_id, ts)
            await self._commit_change()
        logger.info("document removed from the index (kept as history): %s", abspath)
        return IndexResult(abspath, "removed", file_id)

    async def forget(self, user_key: str | None, file_id: str | None = None) -> list[str]:
        """Forget one file of ``user_key``'s (``file_id``) or, with none, every file of
        theirs, for good: rows, vectors, edit history and stored bytes (a person's
        attachment under their folder; a watched folder's own files stay on disk), and
        every process's matrix is rebuilt. The paths forgotten."""
        owner = owner_of(user_key)
        async with self._write_lock:
            files = await self.rows.files_of(owner)
            if file_id is not None:
                files = [(f, p) for f, p in files if f == file_id]
                if not files:
                    raise InvalidIdError("file id", file_id, "a file of theirs")
            paths = [p for _, p in files]
            if file_id is None:
                paths += [s["path"] for s in await self.rows.skipped(owner)]
            for forgotten, _ in files:  # the history first: a rebuild cannot bring it back
                await asyncio.to_thread(self.history.erase, owner, forgotten)
            await self.rows.erase(owner, [f for f, _ in files], paths)
            if owner != OWNER:
                stored = (user_dir(self.workspace, owner) / "files").absolute()
                for path in paths:
                    if Path(path).parent == stored:
                        Path(path).unlink(missing_ok=True)
            await self._commit_change()
        logger.info("forgot %d document(s) of %s", len(files), owner or "the owner")
        return paths

    async def describe_file(self, file_id: str) -> tuple[str, str] | None:
        """``(owner, name)`` of a file, current or deleted (None: no such file)."""
        owner = await self.rows.file_owner(file_id)
        if owner is None:
            return None
        path = dict(await self.rows.files_of(owner)).get(file_id, file_id)
        return owner, Path(path).name

    async def forget_file_id(self, file_id: str) -> list[str]:
        """:meth:`forget` of one file by its id alone (the ``Forgetter``'s ``file:...``; the
        caller checked it may)."""
        owner = await self.rows.file_owner(file_id)
        if owner is None:
            raise RecordNotFoundError(f"file:{file_id}")
        return await self.forget(owner or None, file_id)

    async def scan_watch_dirs(self) -> list[IndexResult]:
        """Bring the index up to date with the watched folders (the owner's), after giving
        every indexed chunk a vector of the current model."""
        await self.embed_missing()
        results: list[IndexResult] = []
        for folder in self.settings.files.watch_dirs:
            root = Path(folder).expanduser().absolute()
            if not root.is_dir():
                logger.warning("watched folder %s does not exist; skipped", root)
                continue
            results.extend(await self.add_folder(root))
            results.extend(await self.remove_missing_under(root))
        return results

    async def remove_missing_under(self, root: Path) -> list[IndexResult]:
        """Files indexed under ``root`` (the owner's) that no longer exist become history."""
        prefix = str(root).rstrip(os.sep) + os.sep
        paths = await self.rows.live_paths(OWNER, prefix)
        gone = [p for p in paths if not os.path.lexists(p)]
        return [await self.remove_file(p) for p in gone]

    # ----------------------------------------------------------------- preparing

    def _check_size(self, size: int, where: Path | str) -> None:
        if size > self.max_bytes:
            limit = self.settings.files.max_file_mb
            raise FileTooLargeError(
                where, f"the file is {size / 1048576:.1f} MB, over the {limit:g} MB limit"
            )

    async def _prepare(
        self,
        path: Path,
        owner: str,
        known: Mapping[str, tuple[str, int, float]],
        folder_label: str | None,
    ) -> _Prepared:
        abspath = path.absolute()
        file_id = file_id_for(owner, str(abspath))
        try:
            check_file_name(abspath.name, abspath)
            stat = await asyncio.to_thread(_regular_file_stat, abspath)
            self._check_size(stat.st_size, abspath)
            held = known.get(file_id)
            if held is not None and held[1:] == (stat.st_size, stat.st_mtime):
                return _Prepared(None, IndexResult(str(abspath), "unchanged", file_id))
            data = await asyncio.to_thread(abspath.read_bytes)
            sha = hashlib.sha256(data).hexdigest()
            if held is not None and held[0] == sha:
                await self._touch(file_id, stat.st_size, stat.st_mtime)
                return _Prepared(None, IndexResult(str(abspath), "unchanged", file_id))
            folder = folder_label if folder_label is not None else str(abspath.parent)
            chunks, note = await asyncio.to_thread(
                _prepare_bytes, abspath.name, folder, data, abspath
            )
        except DocumentSkipped as exc:
            return _Prepared(None, _skip_result(exc, file_id))
        except OSError as exc:
            reason = f"the file could not be read ({exc.strerror or exc})"
            return _Prepared(None, IndexResult(str(abspath), "skipped", file_id, 0, reason, "io"))
        version = Version(
            file_id=file_id,
            owner=owner,
            path=str(abspath),
            name=abspath.name,
            folder=folder,
            ext=abspath.suffix.lower(),
            kind=kind_of(abspath.name) or "text",
            sha256=sha,
            size=stat.st_size,
            mtime=stat.st_mtime,
            ts=iso_now(),
            chunks=tuple(chunks),
        )
        result = IndexResult(str(abspath), "indexed", file_id, len(chunks), note=note)
        return _Prepared(version, result)

    async def _known_files(self, owner: str) -> dict[str, tuple[str, int, float]]:
        return await self.rows.known_files(owner)

    async def _touch(self, file_id: str, size: int, mtime: float) -> None:
        await self.rows.touch(file_id, size, mtime)

    # ----------------------------------------------------------------- writing

    async def _ensure_vectors(self, texts: Sequence[str]) -> int:
        """Embed the texts that have no vector of the current model yet; returns how many."""
        model, dim = self.embedder.space
        hashes = list(dict.fromkeys(content_hash(t) for t in texts))
        have = await self.rows.hashes_with_vectors(model, dim, hashes)
        todo: dict[str, str] = {}
        for text in texts:
            h = content_hash(text)
            if h not in have and h not in todo:
                todo[h] = text
        items = list(todo.items())
        for start in range(0, len(items), EMBED_BATCH):
            batch = items[start : start + EMBED_BATCH]
            vectors = await self.embedder.aembed_batch([t for _, t in batch])
            await self.rows.put_vectors(
                model, dim, [(h, v) for (h, _), v in zip(batch, vectors, strict=True)]
            )
        return len(items)

    async def embed_missing(self) -> int:
        """Embed every indexed chunk that has no vector of the current model (after the
        embedding model changed); returns how many texts were embedded. Until this runs,
        such chunks are invisible to search: vectors of two models are never compared."""
        model, dim = self.embedder.space
        texts = [t[:EMBED_CHARS] for t in await self.rows.texts_without_vectors(model, dim)]
        count = await self._ensure_vectors(texts)
        if count:
            async with self._write_lock:
                await self._commit_change()
        return count

    async def _write_version(self, version: Version, *, current: bool = True) -> None:
        await self.rows.write_version(version, current=current, keep=MAX_HISTORY_VERSIONS)

    async def _note_skip(self, owner: str, exc: DocumentSkipped) -> IndexResult:
        result = _skip_result(exc, None)
        await self._record_skip(owner, result)
        await self.rows.commit()
        return result

    async def _record_skip(self, owner: str, result: IndexResult) -> None:
        logger.info("document skipped: %s: %s", result.path, result.reason)
        await self.rows.record_skip(
            owner, result.path, result.code or "skipped", result.reason or "", iso_now()
        )

    async def _clear_skip(self, owner: str, path: str) -> None:
        await self.rows.clear_skip(owner, path)

    # ----------------------------------------------------------------- rebuild

    async def rebuild(self) -> RebuildReport:
        """Drop every index row and replay the edit-history sidecars (current versions and
        history), then re-read files on disk that changed since. Vectors are kept: they are
        keyed by model, so a new model simply embeds again."""
        report = RebuildReport()
        histories = await asyncio.to_thread(lambda: list(self.history.all()))
        async with self._write_lock:
            await self.rows.clear_index()
            texts = [c.embed_text for h in histories for v in h.versions for c in v.chunks]
            await self._ensure_vectors(texts)
            for hist in histories:
                report.bad_lines += len(hist.bad_lines)
                await self._replay(hist, report)
            await self._commit_change()
        on_disk: dict[str, list[Path]] = {}
        for hist in histories:
            current = hist.current
            if current is not None and os.path.exists(current.path):
                on_disk.setdefault(hist.owner, []).append(Path(current.path))
        for owner, paths in on_disk.items():
            label = "attachments" if owner != OWNER else None
            results = await self.add_paths(paths, owner=owner, folder_label=label)
            report.reindexed.extend(r for r in results if r.status == "indexed")
        return report

    async def _replay(self, hist: FileHistory, report: RebuildReport) -> None:
        earlier = hist.earlier[-MAX_HISTORY_VERSIONS:]
        for version in earlier:
            await self._write_version(version, current=False)
            report.history_versions += 1
        if hist.current is not None:
            await self._write_version(hist.current, current=True)
            report.files += 1
        elif hist.versions:
            last = hist.versions[-1]
            await self._write_file_row(last, deleted_at=hist.deleted_at)
        report.versions += len(hist.versions)

    async def _write_file_row(self, version: Version, *, deleted_at: str | None) -> None:
        await self.rows.write_file_row(version, deleted_at=deleted_at)

    async def _commit_change(self) -> None:
        """Commit a change to what is indexed, and tell every process holding a matrix."""
        await self.rows.bump_generation()
        self._matrix = None

    # ----------------------------------------------------------------- listing, fetching

    async def list_files(self, user_key: str | None = None) -> list[FileInfo]:
        """Files in ``user_key``'s scope (the owner's when None), newest first."""
        owner = owner_of(user_key)
        rows = await self.rows.list_files(owner)
        return [
            FileInfo(r[0], r[1] or None, r[2], r[3], r[4], int(r[5]), int(r[6]), r[7], int(r[8]))
            for r in rows
        ]

    async def skipped(self, user_key: str | None = None) -> list[dict[str, str]]:
        """Files left out of ``user_key``'s scope, with the reason."""
        return await self.rows.skipped(owner_of(user_key))

    async def open_file(
        self, file_id: str, *, user_key: str | None = None, include_owner: bool = False
    ) -> FileBlob:
        """A found file's bytes, to send back; only from a scope the asker may see."""
        owners = self._visible_owners(user_key, include_owner)
        row = await self.rows.file_row(file_id)
        if row is None or row[0] not in owners:
            raise FileAccessError(file_id)
        path = Path(row[1])
        data = await self.rows.blob(file_id)
        if data is None:
            try:
                data = await asyncio.to_thread(path.read_bytes)
            except OSError as exc:
                raise FileAccessError(file_id) from exc
        return FileBlob(file_id=file_id, name=row[2], path=str(path), data=data)


# --------------------------------------------------------------------- helpers


def document_home(settings: Settings, workspace: Path) -> tuple[DocRows, EditHistory]:
    """Where the document index lives: the memory's database when ``[database] url_env``
    names one (every worker finds every file), else ``familiars.db`` and sidecar files."""
    url = database_url(settings)
    if url is None:
        return SqliteDocRows(workspace / DB_NAME), EditHistory(workspace)
    try:
        from familiars.memory._pg._documents import PgDocRows, PgEditHistory
    except ImportError:
        raise driver_missing() from None
    schema = settings.database.schema_name
    return PgDocRows(url, schema), PgEditHistory(url, schema)


def _regular_file_stat(path: Path) -> os.stat_result:
    if not path.is_file():
        raise UnsafePathError(path, "not a regular file")
    return path.stat()


def _prepare_bytes(
    name: str, folder: str, data: bytes, where: Path
) -> tuple[list[Chunk], str | None]:
    """Extract and chunk; a file with no text inside is still findable by its name."""
    extracted = extract(name, data, path=where)
    chunks = chunk_document(name, folder, extracted)
    note = None if extracted.has_text else "no text inside; findable by its name only"
    return chunks, note


def _skip_result(exc: DocumentSkipped, file_id: str | None) -> IndexResult:
    return IndexResult(exc.path, "skipped", file_id, 0, exc.reason, exc.code)
