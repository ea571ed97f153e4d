"""Crash-safe file writes: a temp file in the same folder, fsync, rename, fsync the folder.

Every file written here is 0600 and every folder created 0700 (the workspace holds what
people said). Appends guard against a torn last line: when the file does not end in a newline
(a crash or a full disk cut the previous append), the new line starts on a fresh line, so a
torn line never swallows the next one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".tmp"
#: What a person is told when a write found the disk (or their quota) full.
DISK_FULL = "the disk is full"
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
FILE_MODE = 0o600
DIR_MODE = 0o700


def ensure_private_dir(folder: Path) -> None:
    """Create ``folder`` and any missing parents with mode 0700 (existing ones are left)."""
    folder = Path(folder)
    if folder.is_dir():
        return
    missing: list[Path] = []
    cur = folder
    while not cur.exists():
        missing.append(cur)
        if cur.parent == cur:
            break
        cur = cur.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that a reader (or a crash) sees the old content or the
    new one, never a mix."""
    path = Path(path)
    ensure_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        try:
            _write_all(fd, data)  # every write of this module goes through _write_all
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, FILE_MODE if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"), mode=mode)


def append_line_durably(path: Path, line: str) -> None:
    """Append one line (a newline is added) and fsync: the line is on disk when this returns.
    A crash mid-append leaves at most a partial last line, which readers skip and the next
    append steps over."""
    append_lines_durably(path, [line])


def append_lines_durably(path: Path, lines: list[str]) -> None:
    """Append whole lines (0600 file), starting on a fresh line after a torn tail; fsync."""
    append_lines(path, lines, sync=True)


def append_lines(path: Path, lines: list[str], *, sync: bool) -> None:
    """:func:`append_lines_durably`; without ``sync`` the lines are in the file (a killed
    process loses nothing) and :func:`fsync_file` makes them durable later."""
    if not lines:
        return
    path = Path(path)
    ensure_private_dir(path.parent)
    data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        _write_all(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    """Flush what was written to ``path`` to the disk (nothing when it is gone)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temp_files(folder: Path) -> int:
    """Delete temp files an interrupted :func:`atomic_write_bytes` left behind."""
    removed = 0
    for tmp in Path(folder).glob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed += 1
    return removed


def is_disk_full(exc: BaseException) -> bool:
    """``exc`` (or what caused it) says the disk or the quota is full: ``ENOSPC``/``EDQUOT``,
    or SQLite's "database or disk is full"."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.errno in _FULL_ERRNOS:
            return True
        if isinstance(cur, sqlite3.OperationalError) and "disk is full" in str(cur):
            return True
        cur = cur.__cause__ or cur.__context__
    return False
