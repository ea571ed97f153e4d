"""The PostgreSQL home's own behaviour: moving a workspace in and out byte for byte, the
schema's versions, and every bad start said as one line (never a traceback)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from familiars.cli import app
from familiars.config import load_settings
from familiars.memory import (
    DatabaseError,
    DialogTrees,
    Forgetter,
    MemoryStore,
    make_record,
    open_workspace,
)
from tests.fakes import HashEmbedder
from tests.homes import database_holding


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and (p.suffix == ".md" or p.name.endswith(".history.jsonl"))
    }


async def _a_lived_in_workspace(ws: Path) -> None:
    """Records in every kind of cell, a change of mind, a pin, a forget, recall counts, and
    a hand-typed note and a broken entry the store keeps."""
    async with MemoryStore(ws) as store:
        tea = await store.append(
            make_record("Ana likes tea", scope="user", category="preference", user_key="ana")
        )
        green = await store.update(tea.id, "Ana likes green tea", tags=["drinks"])
        gone = await store.append(
            make_record("Ana's pin is 1234", scope="user", category="knowledge", user_key="ana")
        )
        await store.forget(gone.id)
        rule = await store.append(
            make_record("Answer in short sentences.", scope="identity", category="directive")
        )
        await store.pin(rule.id)
        await store.append(
            make_record(
                "The book club meets on Fridays <!-- not a comment -->\n<!-- nor this -->",
                scope="dialogue",
                category="event",
                dialogue_id="dialogue_0",
                extra={"open_loop": {"kind": "reminder", "status": "open"}},
            )
        )
        await store.touch_access({green.id: 2}, ts="2026-01-01T00:00:00+00:00")
    md = ws / "users/ana/preference.md"
    broken = '<!-- {"id":"m_broken","scope":"user","salience":"very"} -->\nmy hand-typed note\n'
    md.write_text("# Ana's likes, typed by hand\n\n" + md.read_text() + "\n" + broken)
    async with MemoryStore(ws) as store:  # the store rewrites the file in its own layout
        await store.append(
            make_record("Ana likes rain", scope="user", category="preference", user_key="ana")
        )


async def test_a_workspace_moves_in_and_out_byte_for_byte(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, out = tmp_path / "ws", tmp_path / "out"
    await _a_lived_in_workspace(ws)
    runner = CliRunner()
    moved = runner.invoke(app, ["--json", "db", "migrate", "--from", str(ws)])
    assert moved.exit_code == 0, moved.output
    assert '"records": 5' in moved.output and '"raw_segments": 2' in moved.output
    exported = runner.invoke(app, ["db", "export", "--to", str(out)])
    assert exported.exit_code == 0, exported.output
    before, after = _files(ws), _files(out)
    assert sorted(before) == sorted(after) and len(before) == 8
    for name, data in before.items():
        assert after[name] == data, name

    again = runner.invoke(app, ["db", "migrate", "--from", str(ws)])
    assert isinstance(again.exception, DatabaseError)  # main() prints it as one line
    assert "never overwrites" in str(again.exception)

    settings = load_settings(workspace=tmp_path / "worker")
    async with open_workspace(settings, embedder=HashEmbedder()) as mw:
        ana = await mw.store.list(user_key="ana")
        assert [r.content for r in ana] == ["Ana likes green tea", "Ana likes rain"]
        assert [e["event"] for e in await mw.store.history(ana[0].id)][-1] == "upsert"
        assert ana[0].supersedes and ana[0].access_count == 2
        ids, matrix = await mw.index.load_matrix()  # embedded at the first open
        assert len(ids) == 4 and matrix.shape == (4, 64)  # the live ones
    status = runner.invoke(app, ["--json", "db", "status"])
    assert status.exit_code == 0 and '"schema_current": true' in status.output


async def test_a_move_brings_the_sqlite_indexs_vectors(tmp_path: Path, pg_url: str) -> None:
    from familiars.memory import MemoryIndex

    ws = tmp_path / "ws"
    emb = HashEmbedder()
    async with MemoryIndex(ws, emb) as index, MemoryStore(ws, listeners=[index]) as store:
        for i in range(5):
            await store.append(
                make_record(f"fact {i}", scope="user", category="knowledge", user_key="ana")
            )
    moved = CliRunner().invoke(app, ["--json", "db", "migrate", "--from", str(ws)])
    assert moved.exit_code == 0 and '"vectors": 5' in moved.output, moved.output
    fresh = HashEmbedder()
    async with open_workspace(load_settings(workspace=tmp_path / "w"), embedder=fresh) as mw:
        ids, matrix = await mw.index.load_matrix()
        assert len(ids) == 5 and fresh.texts_embedded == 0  # nothing embedded again
        rows = await mw.index.rows(ids)
        for j, rid in enumerate(ids):  # each row the vector its own text has
            assert float(matrix[j] @ fresh.embed(rows[rid].content)) > 0.9999


async def test_two_workers_share_what_one_writes_and_what_one_forgets(
    tmp_path: Path, pg_url: str
) -> None:
    from familiars.memory import MemoryReader

    emb = HashEmbedder()
    one = load_settings(workspace=tmp_path / "one")
    two = load_settings(workspace=tmp_path / "two")
    async with (
        open_workspace(one, embedder=emb) as a,
        open_workspace(two, embedder=emb) as b,
    ):
        reader = MemoryReader.from_settings(two, emb, trees=DialogTrees(two.workspace))
        await reader.attach_index(b.index, b.index.subscribe)
        rec = await a.store.append(
            make_record("Ana plays the cello", scope="user", category="knowledge", user_key="ana")
        )
        assert (await b.store.get(rec.id)).content == "Ana plays the cello"
        await _fed(b)
        res = await reader.build_rag_context("cello", user_key="ana", k=3)
        assert [i.key for i in res.items] == [rec.id]
        # a's recall count reaches b's reader as a change, not yet indexed; then a forgets:
        # the queued change must not bring the record back.
        await a.store.touch_access({rec.id: 1})
        await _fed(b)
        await Forgetter.for_workspace(a).forget(rec.id)
        await _fed(b)
        res = await reader.build_rag_context("cello", user_key="ana", k=3)
        assert rec.id not in [i.key for i in res.items]
        assert await b.store.list(user_key="ana") == []

        # The other way round: a worker forgets what it only ever read. And b hears of a's
        # write by NOTIFY, without being asked to look.
        heard: asyncio.Queue[list[str]] = asyncio.Queue()
        b.index.subscribe(lambda up, gone: heard.put_nowait([r.id for r in up]))
        kept = await a.store.append(
            make_record("Ana keeps bees", scope="user", category="knowledge", user_key="ana")
        )
        assert await asyncio.wait_for(_heard_of(kept.id, heard), timeout=10)
        assert [r.id for r in await b.store.list(user_key="ana")] == [kept.id]
        await Forgetter.for_workspace(b).forget(kept.id)
        assert await a.store.list(user_key="ana", live_only=False) == []
        assert database_holding("bees") == []


async def test_a_turn_forgotten_on_one_worker_leaves_the_others_recall(
    tmp_path: Path, pg_url: str
) -> None:
    """A message forgotten on worker a (its dialogue's tombstone is in the database) is no
    longer recalled by worker b, which indexed it while it was said."""
    from familiars.memory import MemoryReader

    emb = HashEmbedder()
    one = load_settings(workspace=tmp_path / "one")
    two = load_settings(workspace=tmp_path / "two")
    async with (
        open_workspace(one, embedder=emb) as a,
        open_workspace(two, embedder=emb) as b,
    ):
        trees = DialogTrees(two.workspace)
        reader = MemoryReader.from_settings(two, emb, trees=trees)
        await reader.attach_index(b.index, b.index.subscribe)
        tree = trees.get("agent_0", "dialogue_3", create=True)
        said = "I keep my spare key under the blue flowerpot"
        node = tree.add_node(
            said, emb.embed(said), timestamp=time.time(), metadata={"user_key": "ana"}
        )
        reader.add_tree(tree)

        async def recalled() -> list[str]:
            res = await reader.build_rag_context(
                "where is the spare key", agent_id="agent_0", dialogue_id="dialogue_3",
                user_key="ana", k=3,
            )  # fmt: skip
            return [i.text for i in res.items]

        assert said in await recalled()
        await a.index.forgotten_turns([f"node:agent_0/dialogue_3/{node.id}"])
        await _fed(b)
        assert said not in await recalled()


@pytest.mark.slow
async def test_a_forget_leaves_no_table_file_holding_the_words(
    tmp_path: Path, pg_url: str, pg_instance: Any
) -> None:
    """Dead rows keep their bytes until vacuumed: the forget vacuums what held the words.
    (The write-ahead log keeps them until PostgreSQL recycles it: not checked here.)"""
    word = f"Quokka{uuid.uuid4().hex[:8]}"
    base = Path(pg_instance.pgdata) / "base"

    def files_with_word() -> list[str]:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("CHECKPOINT")
        needle = word.encode()
        return [str(p) for p in base.rglob("*") if p.is_file() and needle in p.read_bytes()]

    settings = load_settings(workspace=tmp_path / "ws")
    async with open_workspace(settings, embedder=HashEmbedder()) as mw:
        rec = await mw.store.append(
            make_record(f"My word is {word}", scope="user", category="knowledge", user_key="ana")
        )
        assert await asyncio.to_thread(files_with_word)
        await Forgetter.for_workspace(mw).forget(rec.id)
    assert await asyncio.to_thread(files_with_word) == []


async def _heard_of(record_id: str, heard: asyncio.Queue[list[str]]) -> bool:
    while record_id not in await heard.get():
        pass
    return True


async def _fed(mw: Any) -> None:
    """Let the worker's change feed read what the other wrote (it does on NOTIFY)."""
    assert mw.index._feed is not None
    await mw.index._feed.catch_up()


def test_a_database_with_a_newer_schema_is_refused(tmp_path: Path, pg_url: str) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["db", "status"]).exit_code == 0
    schema = load_settings().database.schema_name
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO {schema}.schema_migrations (name) VALUES ('m999_from_the_future')"  # type: ignore[arg-type]
        )
    result = runner.invoke(app, ["db", "status"])
    assert isinstance(result.exception, DatabaseError)
    assert "newer than this familiars" in str(result.exception)
    assert "m999_from_the_future" in str(result.exception)


# ----------------------------------------------------------------------------- bad starts


@pytest.fixture
def role(pg_server: str) -> Iterator[Any]:
    """Make a login role (and optionally a database of its own); dropped after."""
    made: list[tuple[str, str]] = []

    def make(grants: str = "", *, database: str | None = None) -> str:
        name = f"r_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(pg_server, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE {name} LOGIN")  # type: ignore[arg-type]
            if database:
                conn.execute(f"CREATE DATABASE {database}")  # type: ignore[arg-type]
                made.append(("DATABASE", database))
            for grant in filter(None, grants.split(";")):
                conn.execute(grant.format(role=name))  # type: ignore[arg-type]
        made.append(("ROLE", name))
        return _as(pg_server, name, database)

    yield make
    with psycopg.connect(pg_server, autocommit=True) as conn:
        for kind, name in made:
            if kind == "ROLE":
                conn.execute(f"DROP OWNED BY {name} CASCADE")  # type: ignore[arg-type]
            conn.execute(f"DROP {kind} IF EXISTS {name}")  # type: ignore[arg-type]


def _as(url: str, user: str, database: str | None = None) -> str:
    host = url.split("host=", 1)[1]
    return f"postgresql://{user}@/{database or 'postgres'}?host={host}"


def _start_error(url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Open the memory as ``familiars run`` would; the one line it fails with."""
    monkeypatch.setenv("FAMILIARS_DATABASE_URL", url)
    settings = load_settings(workspace=tmp_path / "ws")

    async def start() -> None:
        async with open_workspace(settings, embedder=False):
            pass

    import asyncio

    with pytest.raises(DatabaseError) as caught:
        asyncio.run(start())
    text = str(caught.value)
    assert "\n" not in text and caught.value.__cause__ is None
    return text


def test_a_database_that_is_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"postgresql://postgres@/postgres?host={tmp_path}"  # no server listens there
    assert "cannot reach the database" in _start_error(url, monkeypatch, tmp_path)


def test_wrong_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_server: str) -> None:
    url = _as(pg_server, "nobody_at_all")
    assert "refused the credentials" in _start_error(url, monkeypatch, tmp_path)


def test_a_wrong_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_instance: Any, pg_server: str
) -> None:
    name = f"pw_{uuid.uuid4().hex[:8]}"
    hba = Path(pg_instance.pgdata) / "pg_hba.conf"
    rules = hba.read_text()
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD 'right'")  # type: ignore[arg-type]
        hba.write_text(f"local all {name} scram-sha-256\n" + rules)
        conn.execute("SELECT pg_reload_conf()")
        try:
            url = _as(pg_server, f"{name}:wrong")
            text = _start_error(url, monkeypatch, tmp_path)
            assert "refused the credentials" in text and "wrong" not in text.split("@")[0]
        finally:
            hba.write_text(rules)
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"DROP ROLE {name}")  # type: ignore[arg-type]


def test_a_password_in_the_url_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"postgresql://postgres:s3cret@/postgres?host={tmp_path}"
    text = _start_error(url, monkeypatch, tmp_path)
    assert "s3cret" not in text and "postgres:***@" in text


def test_no_vector_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str, role: Any
) -> None:
    db = f"novec_{uuid.uuid4().hex[:8]}"
    url = role("GRANT CREATE ON DATABASE " + db + " TO {role}", database=db)
    assert "no pgvector extension" in _start_error(url, monkeypatch, tmp_path)


def test_a_read_only_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str, role: Any
) -> None:
    assert CliRunner().invoke(app, ["db", "status"]).exit_code == 0  # the schema exists
    schema = load_settings().database.schema_name
    url = role(
        f"GRANT USAGE ON SCHEMA {schema} TO {{role}};"
        f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {{role}}"
    )
    assert "does not let this role write" in _start_error(url, monkeypatch, tmp_path)


@pytest.mark.slow
def test_the_command_says_one_line_and_exits_1(tmp_path: Path) -> None:
    """Through the real entry point: no traceback, one line on the terminal."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "FAMILIARS_DATABASE_URL": f"postgresql://postgres@/x?host={tmp_path}"}
    for args in (["db", "status"], ["memory", "list"]):
        done = subprocess.run(
            [sys.executable, "-m", "familiars", "--workspace", str(tmp_path / "ws"), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        said = (done.stdout + done.stderr).strip().splitlines()
        assert done.returncode == 1, said
        assert len(said) == 1 and "cannot reach the database" in said[0], said
        assert "Traceback" not in done.stderr


def test_not_a_postgres_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "postgresql:// URL" in _start_error("mysql://x/y", monkeypatch, tmp_path)


def test_workers_starting_at_once_apply_each_migration_once(pg_url: str) -> None:
    """Migrations run under an advisory lock: of eight workers that start together on an
    empty schema, one applies them and the others find them done."""
    from concurrent.futures import ThreadPoolExecutor

    from familiars.memory._pg._connect import connect
    from familiars.memory._pg._schema import MIGRATIONS, migrate

    schema = load_settings().database.schema_name

    def start(_: int) -> list[str]:
        with connect(pg_url, schema) as conn:
            return migrate(conn, schema, pg_url)

    with ThreadPoolExecutor(8) as pool:
        applied = list(pool.map(start, range(8)))
    assert sorted(applied, key=len) == [[]] * 7 + [[name for name, _ in MIGRATIONS]]


def test_status_names_the_database_home(tmp_path: Path, pg_url: str) -> None:
    runner = CliRunner()
    base = ["--workspace", str(tmp_path / "ws")]
    added = runner.invoke(
        app, [*base, "memory", "add", "--scope", "user", "--category", "profile",
              "--user", "ana", "Ana is a nurse"],
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    shown = runner.invoke(app, [*base, "status"])
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())  # the terminal wraps long lines
    assert "memory home: postgresql://" in said and "1 live of 1 records" in said


async def test_a_listing_never_serves_a_cell_another_worker_changed(
    tmp_path: Path, pg_url: str
) -> None:
    """A listing reads every cell's version in one query; a later read or listing in this
    worker still sees what another worker wrote since."""
    one = load_settings(workspace=tmp_path / "one")
    two = load_settings(workspace=tmp_path / "two")
    async with (
        open_workspace(one, embedder=False) as a,
        open_workspace(two, embedder=False) as b,
    ):
        first = await a.store.append(
            make_record("Ana likes tea", scope="user", category="preference", user_key="ana")
        )
        await a.store.append(
            make_record("Ana is a nurse", scope="user", category="profile", user_key="ana")
        )
        assert len(await b.store.list(scope="user", user_key="ana", category="profile")) == 1
        changed = await a.store.update(first.id, "Ana likes green tea")
        assert (await b.store.get(changed.id)).content == "Ana likes green tea"
        assert [r.content for r in await b.store.list(user_key="ana", category="preference")] == [
            "Ana likes green tea"
        ]
        await b.store.pin(changed.id)  # b writes over what it read: a sees it
        assert (await a.store.get(changed.id)).pinned
        assert len(await a.store.list(live_only=False)) == 3


def _state_files(root: Path) -> dict[str, bytes]:
    """The state beside the records that moves with them (not snapshots, logs or indexes;
    not the writer's ``seen/`` markers either: names without words, kept three days so a
    message run again is not queued twice; one lost in a move costs at most a repeat the
    writer's dedupe absorbs)."""
    keep = ("state/people/", "state/link_codes.json", "agents/", "state/writer_queue/")
    names = {"chat.json", "activity.json", "dialogue.json", "dialogue.journal.jsonl"}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and str(p.relative_to(root)).startswith(keep)
        and not str(p.relative_to(root)).startswith("state/writer_queue/seen/")
        and (not str(p.relative_to(root)).startswith("agents/") or p.name in names)
    }


async def test_trees_people_chats_queue_and_ledger_move_in_and_out(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot that lived on files (people, a /link code, two chats, trees with and without a
    journal, a set-aside writer turn, a sent reminder) moves into the database and back:
    records, trees, people and chat files byte for byte, the ledger's fates kept."""
    from tests.harness import message, running_app, say

    ws, out = tmp_path / "ws", tmp_path / "out"
    monkeypatch.delenv("FAMILIARS_DATABASE_URL")  # the bot lives on files first
    async with running_app(ws, model=None) as bot:
        await say(bot, message("My name is Ann and I live in Oslo."))
        await say(bot, message("Hello from the group", chat="g1", group=True, user="u2"))
        assert bot.state is not None
        await bot.state.new_link_code("u1", message("x").ts)
    failed = ws / "state/writer_queue/failed"
    failed.mkdir(parents=True, exist_ok=True)
    (failed / "t_0001.json").write_text('{"user_text": "kept aside"}', encoding="utf-8")
    (failed / "t_0001.reason.txt").write_text("2026-12-01 model answer unusable\n")
    ledger = {"loops": {"m_x": {"status": "sent", "task": "call mom"}}, "dialogues": {}}
    (ws / "scheduler").mkdir(exist_ok=True)
    (ws / "scheduler/state.json").write_text(json.dumps(ledger, indent=1) + "\n")
    monkeypatch.setenv("FAMILIARS_DATABASE_URL", pg_url)
    runner = CliRunner()
    moved = runner.invoke(app, ["--json", "db", "migrate", "--from", str(ws)])
    assert moved.exit_code == 0, moved.output
    assert '"queued_turns": 1' in moved.output and '"reminder_fates": 1' in moved.output
    exported = runner.invoke(app, ["db", "export", "--to", str(out)])
    assert exported.exit_code == 0, exported.output
    before, after = _state_files(ws), _state_files(out)
    assert any(name.endswith("dialogue.json") for name in before)
    assert any(name.startswith("state/people/") for name in before)
    assert sorted(before) == sorted(after)
    for name, data in before.items():
        assert after[name] == data, name
    assert _files(ws) == _files(out)  # the records too
    assert json.loads((out / "scheduler/state.json").read_text())["loops"] == ledger["loops"]
    shown = json.loads(runner.invoke(app, ["--json", "db", "status"]).output)
    assert shown["set_aside_turns"] == 1 and shown["reminder_fates"] == 1
    assert shown["state_documents"] >= 4

    async with running_app(tmp_path / "worker", model=None) as worker:  # the database's bot
        assert worker.state is not None
        ann = await worker.state.person_for("console", "u1")
        assert ann == "u1" and (await worker.state.person(ann)) is not None
        reply = await say(worker, message("Where do I live?", minutes=5))
        assert "Oslo" in reply


async def test_writer_status_counts_the_shared_queue(tmp_path: Path, pg_url: str) -> None:
    from familiars.memory import open_state_home

    home = open_state_home(load_settings(workspace=tmp_path / "a"))
    try:
        home.put_turn("t_0001.json", "{}")
        home.put_turn("t_0002.json", "{}")
    finally:
        await home.close()
    shown = await asyncio.to_thread(
        CliRunner().invoke,
        app,
        ["--workspace", str(tmp_path / "b"), "--json", "memory", "writer-status"],
    )
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["queue_depth"] == 2  # another worker's, not b's files
