"""Crash-safe file writes: a temp file in the same folder, fsync, rename, fsync the folder."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that a reader (or a crash) sees the old content or the
    new one, never a mix."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
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
    A crash mid-append leaves at most a partial last line, which readers skip."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        fh.write(line.encode("utf-8", "surrogateescape") + b"\n")
        fh.flush()
        os.fsync(fh.fileno())


def append_lines_durably(path: Path, lines: list[str]) -> None:
    if not lines:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


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
