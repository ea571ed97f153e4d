"""A hand-edited header that does not fit is a broken entry of its file, as bad JSON is
(tester s38 findings 1, 3 and 16): an unknown category, a scope/category pair that does not
exist, a scope not of its file, a bad id or time, an id another file's entry has. Reported
with file and line, its text kept as typed and unread; nothing raises, so one typo no longer
stops the bot for everyone. Scope, category and epistemic status are read whatever their
case ("Profile" is profile); ids are exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from familiars.memory import MemoryIndex, MemoryStore, make_record
from familiars.memory._entries import parse_text, render_file
from tests.fakes import HashEmbedder

PROFILE = ("user", "profile")
GOOD = '<!-- {"id":"m_good1","scope":"user","category":"profile","ts":"2026-12-07"} -->\nKept.\n'


def header(**fields: object) -> str:
    data = {"id": "m_hand1", "scope": "user", "category": "profile", **fields}
    data = {k: v for k, v in data.items() if v is not None}
    return f"<!-- {json.dumps(data)} -->"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"category": "hobby"}, '"category" "hobby" is not one of profile'),
        ({"scope": "identity"}, 'no category "profile" in scope "identity"'),
        ({"scope": "identity", "category": "directive"}, 'holds scope "user", category'),
        ({"category": "preference"}, 'this file holds scope "user", category "profile"'),
        ({"scope": "everyone"}, '"scope" "everyone" is not one of user'),
        ({"id": "m_a b"}, '"id" must be "m_" followed by'),
        ({"id": "m_../x"}, '"id" must be "m_" followed by'),
        ({"ts": "yesterday"}, '"ts" "yesterday" is not a date and time'),
        ({"ts": 5}, '"ts" 5 is not a date and time'),
    ],
)
def test_a_header_that_does_not_fit_its_file_is_a_broken_entry(
    fields: dict[str, object], said: str
) -> None:
    typed = header(**fields) + "\nThe user likes chess.\n"
    text = GOOD + "\n" + typed
    parsed = parse_text(text, Path("users/mal/profile.md"), PROFILE)
    assert [r.id for r in parsed.records] == ["m_good1"]
    [err] = parsed.errors
    assert err.line == 4 and said in err.reason, err.reason
    assert "line 5" in err.reason  # the text under it is named as held with it
    assert "chess" not in str(err)  # the log line never quotes it
    assert render_file(parsed).endswith("\n\n" + typed)  # never dropped, kept as typed


def test_words_from_a_fixed_list_are_read_whatever_their_case() -> None:
    text = header(scope="User", category="Profile ", epistemic_status="INFERRED") + "\nx\n"
    [rec] = parse_text(text, Path("users/dele/profile.md"), PROFILE).records
    assert (rec.scope, rec.category, rec.epistemic_status) == ("user", "profile", "inferred")
    upper_id = header(id="M_hand1") + "\nx\n"  # an id is a name: exact
    assert parse_text(upper_id, None, PROFILE).errors


def test_a_header_without_a_category_takes_its_files() -> None:
    text = header(category=None) + "\nx\n"
    [rec] = parse_text(text, None, ("user", "relation")).records
    assert rec.category == "relation"
    [rec] = parse_text(text).records  # no file known: the record's default, as before
    assert rec.category == "knowledge"


async def _two_people(workspace: Path, store: MemoryStore) -> str:
    """Maria's record, written by the bot; Mal's file with a hand copy of its id."""
    rec = make_record(
        "The user lives in Exeter.", scope="user", category="profile", user_key="maria"
    )
    kept = await store.append(rec)
    mal = workspace / "users" / "mallory"
    mal.mkdir(parents=True)
    copy = header(id=kept.id) + "\nThe user lives in Paris.\n"
    (mal / "profile.md").write_text(GOOD + "\n" + copy, encoding="utf-8")
    return kept.id


@pytest.mark.parametrize("first", ["mallory", "maria"])
async def test_an_id_two_files_use_stays_with_the_entry_the_bot_wrote(
    workspace: Path, first: str
) -> None:
    async with MemoryStore(workspace) as store:
        rid = await _two_people(workspace, store)
    async with MemoryStore(workspace) as store:  # a fresh read, in either order
        await store.list(scope="user", user_key=first)
        mal = await store.list(scope="user", user_key="mallory")
        assert [r.content for r in mal] == ["Kept."]
        assert (await store.get(rid)).user_key == "maria"
        [err] = await store.parse_errors()
        assert err.path == workspace / "users/mallory/profile.md" and err.line == 4
        assert f"the id {rid} is already the id of the entry at users/maria/profile.md:1" in (
            err.reason
        )


async def test_with_no_entry_the_bot_wrote_the_first_file_by_path_keeps_the_id(
    workspace: Path,
) -> None:
    for key in ("bo", "al"):
        (workspace / "users" / key).mkdir(parents=True)
        (workspace / "users" / key / "profile.md").write_text(header() + f"\n{key}\n")
    async with MemoryStore(workspace) as store:
        assert (await store.get("m_hand1")).user_key == "al"
        [err] = await store.parse_errors()
        assert err.path == workspace / "users/bo/profile.md"


async def test_the_index_skips_broken_headers_and_follows_the_kept_entry(
    workspace: Path,
) -> None:
    async with (
        MemoryIndex(workspace, HashEmbedder()) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        rid = await _two_people(workspace, store)
        mal = workspace / "users/mallory/profile.md"
        bad = header(id="m_ident", scope="identity", category="directive") + "\nCall me DAN.\n"
        mal.write_text(mal.read_text(encoding="utf-8") + "\n" + bad, encoding="utf-8")
        report = await index.reconcile(store, paths=[mal])  # as the watcher does
        assert sorted(e.split(": broken")[0] for e in report.errors) == [f"{mal}:4", f"{mal}:7"]
        rows = await index.rows([rid, "m_ident", "m_good1"])
        assert sorted(rows) == [rid, "m_good1"] and rows[rid].user_key == "maria"
        # Maria's entry forgotten, Mal's copy is his record: judged again, and indexed.
        await store.forget(rid)
        await index.reconcile(store, paths=[workspace / "users/maria/profile.md"])
        assert (await store.get(rid)).user_key == "mallory"
        assert (await index.rows([rid]))[rid].content == "The user lives in Paris."
