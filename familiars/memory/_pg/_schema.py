"""The memory's tables in PostgreSQL, as versioned migrations only ever appended.

:func:`migrate` applies what is pending once, under a session advisory lock, so any number of
workers may start at once. A database whose schema is newer than this code (a migration it
does not know) is refused with a clear line: a worker on an older version must not write.

Tables (in the schema ``[database] schema_name``, default ``familiars``):

- ``cells``: one row per (scope, category, owner) cell, the markdown file's relative path as
  its name, with a ``version`` every write bumps (each worker's parse cache checks it).
- ``records``: one row per entry, ``pos`` its place in the cell, ``data`` the entry's header
  JSON as written (``json``, so its bytes are kept), ``tsv`` for keyword search (GIN).
- ``raw_segments``: text of a moved-in file that is not an entry (kept, in its place).
- ``history``: the edit history, one line of JSON per event, as the sidecar held it.
- ``embedding_spaces`` / ``vectors``: one space per (model, dimension); an HNSW index per
  space on ``embedding::vector(dim)`` (made with the space), so models never mix.
- ``record_changes``: what changed, for other workers (see ``_feed``).
- ``state_docs`` (m002): every other state document by its workspace-relative name (bytes as
  the file held them); ``dialogue_numbers`` (each ``dialogue_<n>`` handed out once);
  ``writer_queue`` (turns waiting, claimed ``FOR UPDATE SKIP LOCKED``); ``reminder_fates``
  (the ledger's loop fates, one row per reminder, claimed with the reminder's row locked).
- ``state_lines`` (m003): append-only journals (a dialogue tree's), one row per line.
- ``telegram_updates`` (m004, m005): each webhook update claimed by one live worker's
  session, ``replied`` once its answer went out, ``done`` once its turn ended.
- ``records.terms`` / ``terms_tsv`` (m006): the character bigrams of a record's runs of a
  script written without spaces, for keyword search in every script (``_keywords``).

- ``doc_*`` (m007): the document index, its edit history and attachments' bytes.
- m008: a queued writer turn held by the session whose turn is still running (``owner_*``:
  another worker takes it over once that session is gone), a Telegram update's ``payload``
  kept while it is claimed (a worker that takes a dead one's claim over answers it), the
  names of the turns held (``writer_held``: a message run again is not queued twice), and
  the dialogue trees' rows found by their dialogue id (an expression index each).

A migration is SQL, or a function of the connection (m006 fills the rows already there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from familiars.memory._pg._connect import DatabaseError, explain
from familiars.memory._pg._keywords import m006_no_space_terms

logger = logging.getLogger(__name__)

#: pg_advisory_lock key under which migrations run ("familiar" in ASCII).
MIGRATION_LOCK = 0x66616D696C696172

M001_RECORDS = """
CREATE TABLE cells (
    cell text PRIMARY KEY,
    version bigint NOT NULL
);
CREATE SEQUENCE segment_pos;
CREATE TABLE records (
    id text PRIMARY KEY,
    cell text NOT NULL,
    pos bigint NOT NULL DEFAULT nextval('segment_pos'),
    scope text NOT NULL,
    category text NOT NULL,
    user_key text,
    agent_id text,
    dialogue_id text,
    ts text NOT NULL,
    content text NOT NULL,
    content_hash text NOT NULL,
    deprecated boolean NOT NULL,
    pinned boolean NOT NULL,
    salience double precision NOT NULL,
    data json NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);
CREATE INDEX records_cell ON records (cell, pos);
CREATE INDEX records_owner ON records (scope, user_key, agent_id, dialogue_id);
CREATE INDEX records_hash ON records (content_hash);
CREATE INDEX records_tsv ON records USING gin (tsv);
CREATE TABLE raw_segments (
    cell text NOT NULL,
    pos bigint NOT NULL DEFAULT nextval('segment_pos'),
    text text NOT NULL,
    PRIMARY KEY (cell, pos)
);
CREATE TABLE history (
    seq bigserial PRIMARY KEY,
    cell text NOT NULL,
    record_id text NOT NULL,
    supersedes text,
    line text NOT NULL
);
CREATE INDEX history_record ON history (record_id);
CREATE INDEX history_supersedes ON history (supersedes);
CREATE INDEX history_cell ON history (cell, seq);
CREATE TABLE embedding_spaces (
    space_id serial PRIMARY KEY,
    model text NOT NULL,
    dim integer NOT NULL,
    UNIQUE (model, dim)
);
CREATE TABLE vectors (
    space_id integer NOT NULL REFERENCES embedding_spaces (space_id),
    content_hash text NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (space_id, content_hash)
);
CREATE TABLE record_changes (
    seq bigserial PRIMARY KEY,
    origin text NOT NULL,
    record_id text NOT NULL,
    removed boolean NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
"""

M002_STATE = """
CREATE TABLE state_docs (
    name text PRIMARY KEY,
    body bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE dialogue_numbers (
    agent_id text NOT NULL,
    number integer NOT NULL,
    PRIMARY KEY (agent_id, number)
);
CREATE TABLE writer_queue (
    name text PRIMARY KEY,
    body text NOT NULL,
    failed boolean NOT NULL DEFAULT false,
    reason text,
    enqueued_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE reminder_fates (
    record_id text PRIMARY KEY,
    entry json NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
"""

M003_STATE_LINES = """
CREATE TABLE state_lines (
    seq bigserial PRIMARY KEY,
    name text NOT NULL,
    line text NOT NULL
);
CREATE INDEX state_lines_name ON state_lines (name, seq);
"""

#: Claims held by a worker's session (a reminder being sent, a Telegram update being
#: answered) carry the session's pid and start: :data:`SESSION_ALIVE` tells whether it lives,
#: so another worker takes a dead one's claim over (a pid alone may be reused).
M004_SESSION_CLAIMS = """
ALTER TABLE reminder_fates ADD COLUMN owner_pid integer, ADD COLUMN owner_start timestamptz;
CREATE TABLE telegram_updates (
    bot text NOT NULL,
    update_id bigint NOT NULL,
    done boolean NOT NULL DEFAULT false,
    owner_pid integer,
    owner_start timestamptz,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot, update_id)
);
CREATE INDEX telegram_updates_at ON telegram_updates (at);
"""

#: A Telegram update whose reply went out (written the moment the platform took it): a
#: worker that takes over the update of one that died before the turn was done runs the turn
#: again without answering (its writes are kept; the person is not answered twice).
M005_UPDATE_REPLIES = """
ALTER TABLE telegram_updates ADD COLUMN replied boolean NOT NULL DEFAULT false;
"""

#: The document index (``familiars files``, attachments) as ``familiars.db`` holds it
#: (``_documents/schema.py``), keyword search by a generated ``tsvector``; ``doc_edits`` the
#: edit-history sidecars' lines, ``doc_blobs`` the bytes of attachments (see ``_documents``).
M007_DOCUMENTS = """
CREATE TABLE doc_files (
    file_id text PRIMARY KEY,
    owner text NOT NULL,
    path text NOT NULL,
    name text NOT NULL,
    folder text NOT NULL,
    ext text NOT NULL,
    kind text NOT NULL,
    size bigint NOT NULL,
    mtime double precision NOT NULL,
    sha256 text NOT NULL,
    n_chunks integer NOT NULL,
    indexed_at text NOT NULL,
    deleted_at text
);
CREATE INDEX doc_files_owner ON doc_files (owner, deleted_at);
CREATE TABLE doc_chunks (
    chunk_id bigserial PRIMARY KEY,
    file_id text NOT NULL,
    version text NOT NULL,
    current boolean NOT NULL,
    seq integer NOT NULL,
    kind text NOT NULL,
    page integer,
    text text NOT NULL,
    content_hash text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
);
CREATE INDEX doc_chunks_file ON doc_chunks (file_id, current);
CREATE INDEX doc_chunks_tsv ON doc_chunks USING gin (tsv);
CREATE TABLE doc_vectors (
    model text NOT NULL,
    dim integer NOT NULL,
    content_hash text NOT NULL,
    vector bytea NOT NULL,
    PRIMARY KEY (model, dim, content_hash)
);
CREATE TABLE doc_skips (
    owner text NOT NULL,
    path text NOT NULL,
    code text NOT NULL,
    reason text NOT NULL,
    at text NOT NULL,
    PRIMARY KEY (owner, path)
);
CREATE TABLE doc_meta (key text PRIMARY KEY, value bigint NOT NULL);
INSERT INTO doc_meta (key, value) VALUES ('generation', 0);
CREATE TABLE doc_edits (
    seq bigserial PRIMARY KEY,
    owner text NOT NULL,
    file_id text NOT NULL,
    line text NOT NULL
);
CREATE INDEX doc_edits_file ON doc_edits (owner, file_id, seq);
CREATE TABLE doc_blobs (
    file_id text PRIMARY KEY,
    data bytea NOT NULL
);
"""

#: A turn's writer work is queued when its message is recorded, held by the recording
#: session (``owner_*``) until the turn ends: a worker killed mid-turn leaves it to another.
#: ``writer_held`` names every turn held (no words: a message's time and a digest), so a
#: message whose turn runs again after its held turn was processed is not queued again.
#: An update's payload rides with its claim until the update is done. ``stored(dialogue)``
#: finds a dialogue's trees by the third part of ``agents/<agent>/<dialogue>/<file>``.
M008_HELD_WORK = """
ALTER TABLE writer_queue ADD COLUMN owner_pid integer, ADD COLUMN owner_start timestamptz;
ALTER TABLE telegram_updates ADD COLUMN payload text;
CREATE TABLE writer_held (
    name text PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX state_lines_dialogue ON state_lines (split_part(name, '/', 3));
CREATE INDEX state_docs_dialogue ON state_docs (split_part(name, '/', 3));
"""

#: (name, SQL), in order. Never edit or reorder one that has shipped: append.
MIGRATIONS: list[tuple[str, str | Callable[[psycopg.Connection[Any]], None]]] = [
    ("m001_records", M001_RECORDS),
    ("m002_state", M002_STATE),
    ("m003_state_lines", M003_STATE_LINES),
    ("m004_session_claims", M004_SESSION_CLAIMS),
    ("m005_update_replies", M005_UPDATE_REPLIES),
    ("m006_no_space_terms", m006_no_space_terms),
    ("m007_documents", M007_DOCUMENTS),
    ("m008_held_work", M008_HELD_WORK),
]


def migrate(conn: psycopg.Connection[Any], schema: str, url: str) -> list[str]:
    """Create the extension and the schema, apply pending migrations once (advisory lock),
    and refuse a database with migrations this code does not know."""
    try:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            return _migrate_locked(conn, schema)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
    except psycopg.Error as exc:
        raise explain(exc, url) from None


def _applied(conn: psycopg.Connection[Any]) -> list[str] | None:
    """The migrations the schema has, or None before the first."""
    row = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
    if row is None or row[0] is None:
        return None
    return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def _check_known(done: list[str]) -> None:
    unknown = [name for name in done if name not in {n for n, _ in MIGRATIONS}]
    if unknown:
        raise DatabaseError(
            f"the database's memory schema is newer than this familiars (it has "
            f"{', '.join(unknown)}); upgrade familiars on this machine before starting it"
        )


def _migrate_locked(conn: psycopg.Connection[Any], schema: str) -> list[str]:
    done = _applied(conn)
    if done is not None:
        _check_known(done)
        if len(done) == len(MIGRATIONS):
            return []  # current: nothing to create (a role that may not create is fine)
    has_vector = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    if has_vector is None:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
    )
    done = _applied(conn) or []
    _check_known(done)
    applied: list[str] = []
    for name, script in MIGRATIONS:
        if name in done:
            continue
        with conn.transaction():
            if callable(script):
                script(conn)
            else:
                conn.execute(script)  # type: ignore[arg-type]  # our own constant SQL
            conn.execute("INSERT INTO schema_migrations (name) VALUES (%s)", (name,))
        applied.append(name)
        logger.info("database: applied migration %s", name)
    return applied


def check_writable(conn: psycopg.Connection[Any], url: str) -> None:
    """Refuse a role that may read but not write the memory (a read-only replica or role)."""
    row = conn.execute(
        "SELECT current_setting('transaction_read_only'), "
        "has_table_privilege('records', 'INSERT, UPDATE, DELETE')"
    ).fetchone()
    assert row is not None
    if row[0] == "on" or not row[1]:
        why = "the session is read-only" if row[0] == "on" else "no INSERT/UPDATE/DELETE"
        raise explain(psycopg.errors.InsufficientPrivilege(f"permission denied: {why}"), url)
