"""BotState's files (issue 12): they round-trip, a broken one is named and nothing else is
lost, dialogue numbers are never reused, and an older workspace's tables are imported once."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import stat
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from familiars.bot._state import BotState, StateFileError
from familiars.bot._state_files import StateFiles
from familiars.config import load_settings
from familiars.memory import StateHome, open_state_home
from tests.homes import state_home_at

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def home(workspace: Path, memory_home: str) -> AsyncIterator[StateHome]:
    """The state's home on both homes of the memory: these files, or the database's rows."""
    async with state_home_at(workspace) as h:
        yield h


async def opened(workspace: Path, home: StateHome | None = None) -> BotState:
    state = BotState(workspace, home)
    await state.open()
    return state


async def fill(workspace: Path, home: StateHome | None = None) -> BotState:
    """Alice on Telegram (DM, time zone, opt-out, linked to a Discord account) and a group."""
    state = await opened(workspace, home)
    alice = await state.person_for("telegram", "101", "Alice")
    await state.set_timezone(alice, "Europe/Berlin")
    await state.set_proactive(alice, False)
    await state.dialogue_for("agent_0", "telegram", "101", None, is_group=False, user_key=alice)
    code = await state.new_link_code(alice, NOW)
    assert await state.redeem_link_code(code, "discord", "999", NOW) == ("discord_999", alice)
    await state.dialogue_for(
        "agent_0", "discord", "d-999", None, is_group=False, user_key="discord_999"
    )
    await state.dialogue_for("agent_0", "telegram", "-1001", "7", is_group=True, user_key=alice)
    await state.touch_dialogue("agent_0", "dialogue_0", user_at="2026-03-01T12:00:00+00:00")
    await state.new_link_code(alice, NOW)
    return state


async def snapshot(state: BotState) -> tuple[Any, ...]:
    alice = await state.person_for("telegram", "101")
    return (
        alice,
        await state.person_for("discord", "999"),
        await state.person(alice),
        await state.identities_of(alice),
        await state.dialogues(),
        sorted(state._codes),
    )


async def test_state_round_trips_on_both_homes(workspace: Path, home: StateHome) -> None:
    before = await snapshot(await fill(workspace, home))
    again = await opened(workspace, home)
    assert await snapshot(again) == before
    alice, linked, person, identities, dialogues, codes = before
    assert linked == alice == "telegram_101"
    assert person is not None and (person.timezone, person.proactive) == ("Europe/Berlin", False)
    assert identities == [("discord", "999"), ("telegram", "101")]
    assert [(d.dialogue_id, d.is_group, d.user_key) for d in dialogues] == [
        ("dialogue_0", False, alice),
        ("dialogue_1", False, alice),  # the Discord DM is Alice's since the link
        ("dialogue_2", True, None),
    ]
    assert len(codes) == 1


async def test_the_database_is_not_needed(workspace: Path) -> None:
    await fill(workspace)
    assert not (workspace / "familiars.db").exists()


async def test_state_files_are_private(workspace: Path) -> None:
    await fill(workspace)
    files = [p for p in (workspace / "state").rglob("*") if p.is_file()]
    files += list(workspace.glob("agents/*/dialogue_*/*.json"))
    folders = [workspace / "state", *[p for p in (workspace / "state").rglob("*") if p.is_dir()]]
    folders += list(workspace.glob("agents/*/dialogue_*"))
    assert len(files) >= 6 and len(folders) >= 5
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {"0o600"}
    assert {oct(stat.S_IMODE(p.stat().st_mode)) for p in folders} == {"0o700"}


def everything_but(workspace: Path, broken: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file() and p != broken}


@pytest.mark.parametrize(
    ("which", "content", "problem"),
    [
        ("state/people/telegram_101.json", "{not json", "cannot be read as JSON"),
        ("state/people/telegram_101.json", '{"proactive": "no"}', "'proactive' must be"),
        ("state/people/telegram_101.json", '{"user_key": "bob"}', "says user_key"),
        ("agents/agent_0/dialogue_0/chat.json", "[]", "is not a JSON object"),
        ("agents/agent_0/dialogue_0/chat.json", '{"platform": "telegram"}', "'is_group'"),
        ("state/link_codes.json", '{"codes": {"AB": {}}}', "has no user_key"),
    ],
)
async def test_a_broken_state_file_is_named_and_nothing_else_is_lost(
    workspace: Path, which: str, content: str, problem: str
) -> None:
    await fill(workspace)
    broken = workspace / which
    broken.write_text(content, encoding="utf-8")
    others = everything_but(workspace, broken)
    with pytest.raises(StateFileError) as caught:
        await opened(workspace)
    assert caught.value.path == broken
    assert str(broken) in str(caught.value) and problem in str(caught.value)
    assert broken.read_text(encoding="utf-8") == content
    assert everything_but(workspace, broken) == others


async def test_two_files_claiming_one_chat_stop_the_start(workspace: Path) -> None:
    await fill(workspace)
    copy = workspace / "agents/agent_0/dialogue_7"
    copy.mkdir()
    (copy / "chat.json").write_bytes(
        (workspace / "agents/agent_0/dialogue_0/chat.json").read_bytes()
    )
    with pytest.raises(StateFileError, match="claims telegram chat 101"):
        await opened(workspace)


async def test_two_people_listing_one_identity_stop_the_start(workspace: Path) -> None:
    await fill(workspace)
    people = workspace / "state/people"
    data = json.loads((people / "telegram_101.json").read_text(encoding="utf-8"))
    data["user_key"] = "someone"
    (people / "someone.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(StateFileError, match="lists identity"):
        await opened(workspace)


async def test_a_new_dialogue_never_reuses_a_folder_that_exists(workspace: Path) -> None:
    by_hand = workspace / "agents/agent_0/dialogue_5/dialogue"
    by_hand.mkdir(parents=True)  # e.g. Alice's old DM, its chat.json lost
    (by_hand / "profile.md").write_text("secret\n", encoding="utf-8")
    (workspace / "agents/agent_0/dialogue_x").mkdir()
    state = await opened(workspace)
    info = await state.dialogue_for("agent_0", "telegram", "-5", None, is_group=True, user_key=None)
    assert info.dialogue_id == "dialogue_6"
    assert (by_hand / "profile.md").read_text(encoding="utf-8") == "secret\n"


async def test_racing_creators_never_get_the_same_folder(workspace: Path) -> None:
    files = StateFiles(workspace)
    with ThreadPoolExecutor(8) as pool:
        taken = list(pool.map(lambda _: files.take_dialogue_folder("agent_0"), range(40)))
    assert len(set(taken)) == 40
    # Two BotStates on one workspace (their own locks): still one folder each.
    a, b = await opened(workspace), await opened(workspace)
    infos = await asyncio.gather(
        *(
            s.dialogue_for("agent_0", "discord", f"c{i}", None, is_group=True, user_key=None)
            for i, s in enumerate([a, b] * 5)
        )
    )
    assert len({i.dialogue_id for i in infos}) == 10


async def test_two_workers_make_one_person_and_one_dialogue_per_chat(
    workspace: Path, tmp_path: Path, pg_url: str
) -> None:
    """Two workers on one database (each its own workspace and connections) see the same
    people and chats: a first message arriving at both at once makes one person and one
    dialogue; a /link code made on one is redeemed on the other."""
    other = tmp_path / "worker_b"
    other.mkdir()
    homes = [open_state_home(load_settings(workspace=w)) for w in (workspace, other)]
    try:
        a, b = await opened(workspace, homes[0]), await opened(other, homes[1])

        async def first_message(state: BotState) -> tuple[str, str]:
            who = await state.person_for("telegram", "101", "Alice")
            info = await state.dialogue_for(
                "agent_0", "telegram", "101", None, is_group=False, user_key=who
            )
            return who, info.dialogue_id

        seen = await asyncio.gather(*(first_message(s) for s in [a, b] * 4))
        assert len(set(seen)) == 1
        groups = await asyncio.gather(
            *(
                s.dialogue_for("agent_0", "discord", f"g{i}", None, is_group=True, user_key=None)
                for i, s in enumerate([a, b] * 5)
            )
        )
        assert len({g.dialogue_id for g in groups} | {seen[0][1]}) == 11
        code = await a.new_link_code(seen[0][0], NOW)
        assert await b.redeem_link_code(code, "discord", "999", NOW) == (
            "discord_999",
            "telegram_101",
        )
        assert await a.redeem_link_code(code, "discord", "998", NOW) is None  # one use
        again = await opened(workspace, homes[0])
        assert await again.person_for("discord", "999") == "telegram_101"
        await a.set_proactive("telegram_101", False)  # /proactive off, said to worker A
        await a.touch_dialogue("agent_0", seen[0][1], user_at="2026-03-01T12:30:00+00:00")
        alice = await b.person("telegram_101")  # worker B's scheduler must not nudge her
        assert alice is not None and alice.proactive is False
        [dm] = [d for d in await b.dialogues() if d.dialogue_id == seen[0][1]]
        assert dm.last_user_at == "2026-03-01T12:30:00+00:00"
    finally:
        for h in homes:
            await h.close()


async def test_two_workers_changing_one_person_keep_both_changes(
    workspace: Path, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's copy of a person was read before B set her time zone (B's write landed between
    A's read and A's write): A's /proactive off keeps B's time zone, and B's display name."""
    other = tmp_path / "worker_b"
    other.mkdir()
    homes = [open_state_home(load_settings(workspace=w)) for w in (workspace, other)]
    try:
        a, b = await opened(workspace, homes[0]), await opened(other, homes[1])
        who = await a.person_for("telegram", "101", "Alice")
        assert await b.person_for("telegram", "101") == who

        async def stale(*, activity: bool = False) -> None:
            return None  # A does not read again: the window between its read and its write

        monkeypatch.setattr(a, "_fresh", stale)
        await b.set_timezone(who, "Asia/Tokyo")
        await b.person_for("telegram", "101", "Ali")
        await a.set_proactive(who, False)
        alice = await (await opened(other, homes[1])).person(who)
        assert alice is not None
        assert (alice.timezone, alice.proactive) == ("Asia/Tokyo", False)
        assert await b.identities_of(who) == [("telegram", "101")]
        stored = json.loads(homes[1].read(f"state/people/{who}.json") or b"{}")
        assert [i["display_name"] for i in stored["identities"]] == ["Ali"]
    finally:
        for h in homes:
            await h.close()


LEGACY_SCHEMA = """
CREATE TABLE people (user_key TEXT PRIMARY KEY, display_name TEXT NOT NULL DEFAULT '',
    timezone TEXT, proactive INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL);
CREATE TABLE identities (platform TEXT NOT NULL, platform_user_id TEXT NOT NULL,
    user_key TEXT NOT NULL, display_name TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (platform, platform_user_id));
CREATE TABLE link_codes (code TEXT PRIMARY KEY, user_key TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE dialogues (agent_id TEXT NOT NULL, dialogue_id TEXT NOT NULL, platform TEXT NOT NULL,
    chat_id TEXT NOT NULL, thread_id TEXT NOT NULL DEFAULT '', is_group INTEGER NOT NULL,
    user_key TEXT, created_at TEXT NOT NULL, last_user_at TEXT, last_bot_at TEXT,
    PRIMARY KEY (agent_id, dialogue_id));
INSERT INTO people VALUES ('telegram_101', 'Alice', 'Asia/Tokyo', 0, '2026-01-01');
INSERT INTO identities VALUES ('telegram', '101', 'telegram_101', 'Alice'),
    ('discord', '999', 'telegram_101', 'Ali');
INSERT INTO dialogues VALUES ('agent_0', 'dialogue_0', 'telegram', '101', '', 0, 'telegram_101',
    '2026-01-01', '2026-01-02', NULL), ('agent_0', 'dialogue_1', 'telegram', '-1001', '', 1,
    NULL, '2026-01-01', NULL, NULL);
"""


async def test_an_older_workspace_has_its_tables_imported_once(workspace: Path) -> None:
    with sqlite3.connect(workspace / "familiars.db") as conn:
        conn.executescript(LEGACY_SCHEMA)
    state = await opened(workspace)
    assert await state.person_for("discord", "999") == "telegram_101"
    person = await state.person("telegram_101")
    assert person is not None and (person.timezone, person.proactive) == ("Asia/Tokyo", False)
    dm = await state.dialogue_for("agent_0", "telegram", "101", None, is_group=False, user_key="x")
    assert (dm.dialogue_id, dm.user_key, dm.last_user_at) == (
        "dialogue_0",
        "telegram_101",
        "2026-01-02",
    )
    (workspace / "familiars.db").unlink()
    again = await opened(workspace)
    assert await again.dialogues() == await state.dialogues()
    group = await again.dialogue_for(
        "agent_0", "telegram", "-1001", None, is_group=True, user_key=None
    )
    assert group.dialogue_id == "dialogue_1"


def test_the_scheduler_ledger_is_a_private_file(workspace: Path) -> None:
    from familiars.scheduler import SchedulerLedger, ledger_path

    ledger = SchedulerLedger(ledger_path(workspace))
    ledger.silence("agent_0/dialogue_0", NOW)
    ledger.save()
    path = ledger_path(workspace)
    assert oct(stat.S_IMODE(path.stat().st_mode)) == "0o600"
    assert oct(stat.S_IMODE(path.parent.stat().st_mode)) == "0o700"
    assert SchedulerLedger(path).silenced_until("agent_0/dialogue_0") == NOW


async def test_an_unreadable_activity_file_only_forgets_the_times(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await fill(workspace)
    (workspace / "agents/agent_0/dialogue_0/activity.json").write_text("{", encoding="utf-8")
    state = await opened(workspace)
    info = await state.dialogue("agent_0", "dialogue_0")
    assert info is not None and info.chat_id == "101" and info.last_user_at is None
    assert "activity.json" in caplog.text
