"""Forgetting forgets (issue 12): after ``/memory forget`` (a memory, a turn, a time window,
or the words "forget what I said ...") no file of the workspace holds the forgotten text
(every file's bytes, ``familiars.db`` included), and no reply or ``/memory search`` returns
it. The real runtime, offline, driven through its turn handler."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation, IncomingMessage
from familiars.config import load_settings
from tests.harness import make_app, message
from tests.harness import say as one_turn
from tests.homes import database_holding, read_state

pytestmark = pytest.mark.timeout(120)

BOB, ANN = "102", "103"
T0 = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)


@asynccontextmanager
async def running(workspace: Path) -> AsyncIterator[Application]:
    app = make_app(load_settings(workspace=workspace, owners=[]), model=None, clock=lambda: T0)
    async with app:
        yield app


async def say(app: Application, text: str, *, user: str = BOB, at: datetime = T0) -> str:
    name = "Bob" if user == BOB else "Ann"
    said = message(text, platform="telegram", chat=user, user=user, name=name, at=at)
    return await one_turn(app, said)


async def memory(app: Application, *args: str, user: str = BOB) -> str:
    assert app.dialogues is not None
    inv = CommandInvocation("telegram", user, user, "", "memory", tuple(args), ts=T0)
    return (await app.dialogues.command(inv)).text


def files_holding(workspace: Path, text: str) -> list[str]:
    """Every file of the workspace whose bytes hold ``text`` (any case), and in the database
    home every table that does."""
    want = text.lower().encode("utf-8")
    return sorted(
        str(p.relative_to(workspace))
        for p in workspace.rglob("*")
        if p.is_file() and want in p.read_bytes().lower()
    ) + database_holding(text)


def first_id(listing: str) -> str:
    return listing.split("`")[1]


def load_tree(workspace: Path, dialogue: str = "dialogue_0") -> dict[str, object]:
    raw = read_state(workspace, f"agents/agent_0/{dialogue}/dialogue.json")  # file or row
    assert raw is not None
    return json.loads(raw.decode("utf-8"))  # type: ignore[no-any-return]


async def test_forgetting_a_memory_removes_its_words_from_every_file_and_from_replies(
    tmp_path: Path, memory_home: str
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as app:
        await say(app, "I live in Denver.")
        await say(app, "My cat is called Whiskers.")
        assert "Denver" in await say(app, "Where do I live?")
        assert files_holding(ws, "Denver")
        rid = first_id(await memory(app, "list"))
        ask = await memory(app, "forget", rid)
        assert "confirm" in ask and files_holding(ws, "Denver")
        assert "Forgotten" in await memory(app, "forget", rid, "confirm")

        assert files_holding(ws, "Denver") == []  # familiars.db, -wal and -shm included
        assert "Denver" not in await say(app, "Where do I live?")
        assert "Denver" not in await memory(app, "search", "Denver live")
        assert "Denver" not in await memory(app, "why")
        assert "Whiskers" in await say(app, "What is my cat called?")  # the rest stays
    assert files_holding(ws, "Denver") == []
    tree = load_tree(ws)  # §5.6 still: nodes, roots, _last_id; the tombstone keeps its place
    assert set(tree) == {"nodes", "roots", "_last_id"}
    nodes = tree["nodes"]
    assert isinstance(nodes, list)
    assert [n["id"] for n in nodes] == list(range(len(nodes)))
    gone = [n for n in nodes if n["metadata"].get("forgotten")]
    assert gone and all(n["content"] == "" and n["title"] == "" for n in gone)
    assert all(not any(n["embedding"]) for n in gone)
    assert nodes[1]["parent"] == 0 and 1 in nodes[0]["children"]  # topology kept
    async with running(ws) as app:  # loads again, and still does not recall it
        assert "Denver" not in await say(app, "Where do I live?")


async def test_a_person_forgets_a_turn_by_the_id_why_shows_and_only_their_own(
    tmp_path: Path, memory_home: str
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as app:
        await say(app, "My locker code is KQ7719 at the gym.")
        await say(app, "What is my locker code?")
        why = await memory(app, "why")
        turn = next(w.strip("`") for w in why.split() if w.startswith("`node:"))
        assert "KQ7719" in why
        assert "no memory" in (await memory(app, "forget", turn, "confirm", user=ANN)).lower()
        assert "confirm" in await memory(app, "forget", turn)
        assert "Forgotten" in await memory(app, "forget", turn, "confirm")
        assert files_holding(ws, "KQ7719") == []
        assert "KQ7719" not in await say(app, "What is my locker code?")
        assert "KQ7719" not in await memory(app, "search", "locker code")


async def test_forget_today_by_command_and_the_last_minutes_by_words(
    tmp_path: Path, memory_home: str
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as app:
        await say(app, "My sister Ana lives in Porto.", at=T0 - timedelta(days=1))
        await say(app, "I parked on level four.", at=T0 - timedelta(hours=3))
        await say(app, "The spare key is under the blue pot.", at=T0 - timedelta(minutes=2))
        await say(app, "Ann here: I like tea.", user=ANN, at=T0 - timedelta(minutes=1))

        asked = await say(app, "forget what I said in the last 5 minutes", at=T0)
        assert "1 message" in asked and "yes" in asked
        assert "Forgotten" in await say(app, "yes", at=T0)
        assert files_holding(ws, "blue pot") == []
        assert files_holding(ws, "level four") and files_holding(ws, "Porto")
        assert files_holding(ws, "I like tea")  # Ann's words are Ann's

        assert "confirm" in await memory(app, "forget", "today")
        assert "Forgotten" in await memory(app, "forget", "today", "confirm")
        assert files_holding(ws, "level four") == []
        assert files_holding(ws, "Porto")  # yesterday is not today
        assert "level four" not in await say(app, "Where did I park?")
        assert "Forgotten" not in await say(app, "yes")  # a stray yes is just a message


async def test_a_yes_to_the_forget_command_s_question_forgets(
    tmp_path: Path, memory_home: str
) -> None:
    """``/memory forget ID`` asks first; a person answers it as they would a question ("yes"),
    not only by typing the command again with ``confirm``. A "no", or any other message
    first, keeps it (the yes must answer the question just asked)."""
    ws = tmp_path / "ws"
    async with running(ws) as app:
        await say(app, "I can't stand olives.")
        await say(app, "My cat is called Whiskers.")
        listing = await memory(app, "list")
        olives = next(line for line in listing.splitlines() if "olives" in line).split("`")[1]
        cat = next(line for line in listing.splitlines() if "Whiskers" in line).split("`")[1]

        asked = await memory(app, "forget", olives)
        assert "yes" in asked.lower()
        assert "Forgotten" in await say(app, "yes")
        assert files_holding(ws, "olives") == []

        await memory(app, "forget", cat)
        assert "Forgotten" not in await say(app, "no")
        await memory(app, "forget", cat)
        await say(app, "What's my cat called?")  # another message: the question lapses
        assert "Forgotten" not in await say(app, "yes")
        assert files_holding(ws, "Whiskers")
        assert "Forgotten" not in await say(app, "yes", user=ANN)  # not Ann's to answer

        asked = await memory(app, "forget", "today")
        assert "Forgotten" in await say(app, "yes")
        assert files_holding(ws, "Whiskers") == []


async def test_a_correction_with_a_secret_is_stored_masked(
    tmp_path: Path, memory_home: str
) -> None:
    """``/memory edit`` (and the memory page, which runs the same code) keeps a password or a
    card number masked, as a message saying it is: the words never reach a file."""
    ws = tmp_path / "ws"
    async with running(ws) as app:
        await say(app, "My cat is called Whiskers.")
        rid = first_id(await memory(app, "list"))
        said = await memory(
            app, "edit", rid, "The user's wifi password is hunter2, card 4111 1111 1111 1111"
        )
        assert "Corrected" in said and "hunter2" not in said
        assert files_holding(ws, "hunter2") == [] and files_holding(ws, "4111 1111") == []
        assert "[PASSWORD]" in await memory(app, "list")


async def test_a_yes_said_in_a_group_does_not_read_the_memory_out(
    tmp_path: Path, memory_home: str
) -> None:
    """``/memory forget ID`` asked in a group is answered privately; the "yes" is said in the
    group, so what was forgotten is counted there, never read out."""
    ws = tmp_path / "ws"
    async with running(ws) as app:
        assert app.dialogues is not None
        await say(app, "I'm allergic to penicillin.")
        rid = first_id(await memory(app, "list"))
        asked = CommandInvocation("telegram", "g1", BOB, "Bob", "memory", ("forget", rid), True)
        assert "penicillin" in (await app.dialogues.command(asked)).text  # private answer
        yes = IncomingMessage("telegram", "g1", BOB, "Bob", "yes", is_group=True, ts=T0)
        said = "".join([part async for part in app.dialogues.respond(yes)])
        await app.settle()
        assert "Forgotten" in said and "penicillin" not in said
        assert files_holding(ws, "penicillin") == []
