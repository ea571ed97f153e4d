"""One owner per workspace: an OS lock on ``<workspace>/state/owner.lock``.

Map:

- :class:`WorkspaceLock` - the exclusive ``flock`` the serving process (``run``, ``chat``, or
  a CLI command that writes while nothing runs) holds for as long as it runs. The lock file
  says who holds it (:class:`OwnerInfo`: pid, command, start time, control socket) so that
  others can name the owner; the OS drops the lock when the process dies, even by SIGKILL.
- :func:`read_owner` - who owns a workspace now (``None`` when nobody does); never blocks.
- :func:`is_owner` / :func:`owned_elsewhere` - this process holds it / another one does.
- :func:`under_lock` - run a short piece of housekeeping (migrations, temp-file clean-up) only
  under the lock: as the owner, or taking the lock for the moment when nobody owns it.
- :func:`clean_stale_temp_files` - the temp files interrupted atomic writes left behind.

While a process holds a lock its umask is 0o077, so every file and folder it creates in the
workspace (SQLite's WAL and SHM included) is private to the user.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from familiars.memory._atomic import TEMP_SUFFIX, ensure_private_dir
from familiars.memory._errors import MemoryError_

logger = logging.getLogger(__name__)

LOCK_NAME = "owner.lock"
T = TypeVar("T")


@dataclass(frozen=True)
class OwnerInfo:
    """Who holds a workspace: written into the lock file by its holder."""

    pid: int
    command: str
    started_at: str
    control: str | None = None
    #: Where this process serves the HTTP API and memory page (``familiars api --port``
    #: may serve elsewhere than the config says): sign-in links point here.
    api: str | None = None
    #: A ``run`` or ``chat`` (it holds the lock for as long as it runs, from before its
    #: start's slow work): another run/chat does not wait for it, even before its socket
    #: is up.
    serving: bool = False

    def describe(self) -> str:
        return f"pid {self.pid} ({self.command}, since {self.started_at})"


class WorkspaceBusyError(MemoryError_):
    """Another process owns the workspace; the message names it."""

    def __init__(self, workspace: Path, owner: OwnerInfo | None) -> None:
        self.workspace = workspace
        self.owner = owner
        who = owner.describe() if owner else "another process"
        if owner is not None and owner.serving and owner.control is None:
            # A run/chat holds the lock through its model load, before its socket is up.
            what = f"in use by {who}, which is still starting; try again in a moment"
        else:
            what = f"already in use by {who}; stop it first"
        super().__init__(f"workspace {workspace} is {what}")


class WorkspaceReadOnlyError(MemoryError_):
    """The workspace cannot be written: reads work, writes are refused."""

    def __init__(self, workspace: Path, reason: str) -> None:
        super().__init__(f"workspace {workspace} is read-only ({reason}); writes are refused")


def lock_path(workspace: Path) -> Path:
    return Path(workspace) / "state" / LOCK_NAME


_HELD: dict[Path, WorkspaceLock] = {}
_saved_umask: list[int] = []


def _key(workspace: Path) -> Path:
    return Path(workspace).resolve()


class WorkspaceLock:
    """The exclusive lock on one workspace; ``with WorkspaceLock(ws, cmd):`` holds it."""

    def __init__(
        self, workspace: Path, command: str, *, control: str | None = None, serving: bool = False
    ) -> None:
        self.workspace = Path(workspace)
        self.command = command
        self.control = control
        self.serving = serving
        self._fd: int | None = None
        self.info: OwnerInfo | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, *, wait_s: float = 0.0, poll_s: float = 0.05) -> None:
        """Take the lock. While a short-lived holder (a CLI command, no control socket) has
        it, wait up to ``wait_s``; a serving owner (a control socket; for a ``run``/``chat``,
        also another one still starting) is refused at once (WorkspaceBusyError)."""
        deadline = time.monotonic() + wait_s
        while True:
            if self._try_acquire():
                return
            owner = read_owner(self.workspace)
            if owner is None:
                continue  # released between our try and the read: try again
            # A run/chat does not wait for another (it holds on); a CLI write waits for a
            # starting one's socket (then it writes through it).
            starting = owner.serving and self.serving
            if owner.control is not None or starting or time.monotonic() >= deadline:
                raise WorkspaceBusyError(self.workspace, owner)
            time.sleep(poll_s)

    def _try_acquire(self) -> bool:
        path = lock_path(self.workspace)
        try:
            ensure_private_dir(path.parent)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise WorkspaceReadOnlyError(self.workspace, exc.strerror or str(exc)) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        self.info = OwnerInfo(
            pid=os.getpid(),
            command=self.command,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            control=self.control,
            serving=self.serving,
        )
        self._write_info()
        if not _HELD:
            _saved_umask.append(os.umask(0o077))
        _HELD[_key(self.workspace)] = self
        return True

    def set_control(self, control: str | None) -> None:
        """Announce (or withdraw) the control socket other processes reach the owner by."""
        self.control = control
        if self.info is not None:
            self.info = replace(self.info, control=control)
            self._write_info()

    def set_api(self, url: str | None) -> None:
        """Announce (or withdraw) the address this process serves the API at."""
        if self.info is not None:
            self.info = replace(self.info, api=url)
            self._write_info()

    def _write_info(self) -> None:
        assert self._fd is not None and self.info is not None
        data = json.dumps(asdict(self.info)).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)
        os.fsync(self._fd)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing the descriptor drops the flock
        self._fd = None
        if _HELD.get(_key(self.workspace)) is self:
            del _HELD[_key(self.workspace)]
        if not _HELD and _saved_umask:
            os.umask(_saved_umask.pop())

    def __enter__(self) -> WorkspaceLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_owner(workspace: Path) -> OwnerInfo | None:
    """The process holding the workspace's lock now, or None. Never blocks, never creates."""
    path = lock_path(workspace)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _parse_info(os.pread(fd, 4096, 0))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _parse_info(data: bytes) -> OwnerInfo:
    try:
        raw = json.loads(data.decode("utf-8"))
        return OwnerInfo(
            pid=int(raw["pid"]),
            command=str(raw.get("command", "?")),
            started_at=str(raw.get("started_at", "?")),
            control=raw.get("control"),
            api=raw.get("api"),
            serving=bool(raw.get("serving", False)),
        )
    except (ValueError, KeyError, TypeError):
        # Caught between the holder's truncate and write: a holder, not yet named.
        return OwnerInfo(pid=0, command="familiars (starting)", started_at="?")


def read_only(folder: Path) -> bool:
    """The folder (or its nearest existing parent) is on a read-only mount or not writable
    by this user: reads are served, writes refused."""
    cur = Path(folder)
    while not cur.exists() and cur.parent != cur:
        cur = cur.parent
    try:
        if os.statvfs(cur).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    return not os.access(cur, os.W_OK)


def is_owner(workspace: Path) -> bool:
    """This process holds the workspace's lock."""
    lock = _HELD.get(_key(workspace))
    return lock is not None and lock.held


def held_lock(workspace: Path) -> WorkspaceLock | None:
    """The lock this process holds on ``workspace`` (the terminal chat takes it before its
    start's slow work; the application built after it serves under that same lock)."""
    lock = _HELD.get(_key(workspace))
    return lock if lock is not None and lock.held else None


def owned_elsewhere(workspace: Path) -> OwnerInfo | None:
    """The owner when it is another process (or another lock of this one), else None."""
    if is_owner(workspace):
        return None
    return read_owner(workspace)


def under_lock(workspace: Path, action: Callable[[], T], *, what: str) -> T | None:
    """Run ``action`` under the workspace lock: at once as its owner, taking the lock for the
    moment when nobody owns it; skipped (None, one debug line) when another process owns it,
    or when the workspace cannot hold a lock file (read-only)."""
    if is_owner(workspace):
        return action()
    lock = WorkspaceLock(workspace, f"familiars ({what})")
    try:
        lock.acquire(wait_s=5.0)
    except WorkspaceBusyError as exc:
        logger.debug("%s skipped: %s", what, exc)
        return None
    except WorkspaceReadOnlyError as exc:
        logger.debug("%s skipped: %s", what, exc)
        return None
    try:
        return action()
    finally:
        lock.release()


@contextlib.contextmanager
def holding(workspace: Path, command: str, *, wait_s: float = 0.0) -> Iterator[WorkspaceLock]:
    lock = WorkspaceLock(workspace, command)
    lock.acquire(wait_s=wait_s)
    try:
        yield lock
    finally:
        lock.release()


_SKIP_DIRS = {"documents_cache", ".git"}


def clean_stale_temp_files(workspace: Path) -> int:
    """Delete the ``.<name>.<random>.tmp`` files interrupted atomic writes left anywhere in
    the workspace (memory folders, dialogue folders, the writer queue, state). Only the owner
    may: another process's in-flight temp file looks the same."""
    if not is_owner(workspace):
        raise RuntimeError("clean_stale_temp_files needs the workspace lock")
    removed = 0
    for root, dirs, files in os.walk(workspace):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        for name in files:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(root, name))
                    removed += 1
    if removed:
        logger.info("removed %d stale temp files from %s", removed, workspace)
    return removed
