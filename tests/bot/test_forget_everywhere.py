"""Every way to forget ends in the same place (issue 19): the `/memory forget` command, the
CLI with nothing running, the control socket, the HTTP API, "forget that", "forget what I
said in the last N minutes" and the model's ``forget`` tool. Each runs the real runtime with
a scripted model on 127.0.0.1 whose memory-writer answers are never valid JSON, so every
turn is also copied, message and reply in clear, to ``state/writer_queue/failed/``. After
the forget no file of the workspace (every file's bytes: ``familiars.db*``, ``state/``, the
queue's ``failed/`` included) holds the words, and no recall returns them.

Also here: a forget by words that would remove more than one thing says what and asks
(and matches tightly: the parrot is not "Oskar is obsessed with trains"); the model's
``forget(confirm=true)`` counts only on the person's very next message, and only a yes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation
from familiars.cli import app as cli_app
from familiars.config import load_settings
from familiars.memory import read_owner, send_request
from tests.bot.test_forget import files_holding
from tests.bot.tool_script import ToolScript, one, relay
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app, say, speaker

pytestmark = pytest.mark.timeout(120)

NOW = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)
ALICE = "telegram_u1"
ALICE_SAYS = speaker(platform="telegram", chat="u1", user="u1", name="Alice", at=NOW)
PHRASE = "Kalamazoo"
SAID = f"I live in {PHRASE}."
TOKEN = "forget-test-token"


class WriterSetAside(ToolScript):
    """The scripted turns, and a memory writer whose every answer is not JSON (so the
    offline writer keeps the facts and the turn is copied to ``failed/``)."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        if "tools" not in body and not body.get("stream") and "writes" in str(body):
            return Reply.text("I would rather not answer in JSON today.")
        return super().__call__(body)


@dataclass
class Bot:
    app: Application
    script: WriterSetAside
    workspace: Path

    async def say(self, text: str, ago: float = 0.0, **fields: Any) -> str:
        """Alice's message in her direct chat ``u1`` (``fields`` change who and where),
        ``ago`` seconds before NOW; the reply."""
        return await say(self.app, ALICE_SAYS(text, -ago / 60, **fields))

    async def command(self, *args: str) -> str:
        assert self.app.dialogues is not None
        inv = CommandInvocation("telegram", "u1", "u1", "Alice", "memory", args, ts=NOW)
        return (await self.app.dialogues.command(inv)).text

    async def record_id(self) -> str:
        [rec] = [
            r
            for r in await self.app.memory.store.list(scope="user", user_key=ALICE)
            if PHRASE in r.content
        ]
        return rec.id

    async def recalled(self) -> list[str]:
        items = await self.app.services.recaller.recall(
            f"Where do I live? {PHRASE}",
            agent_id="agent_0",
            dialogue_id="dialogue_0",
            user_key=ALICE,
            is_group=False,
            now=NOW,
            k=20,
        )
        return [it.text for it in items]


@asynccontextmanager
async def running(workspace: Path) -> AsyncIterator[Bot]:
    script = WriterSetAside()
    async with FakeOpenAI(script) as server:
        provider = {"name": "a", "base_url": server.base_url, "model": "m"}
        settings = load_settings(
            workspace=workspace,
            llm={"providers": [provider]},
            api={"enabled": True, "port": 0},
            care={"ai_disclosure": False},
        )
        app = make_app(settings, clock=lambda: NOW)
        async with app:
            yield Bot(app, script, workspace)


async def _said_and_set_aside(bot: Bot) -> None:
    """The person says where they live; the model answers; the writer's answer is set aside
    and the turn sits in ``failed/`` with the words in clear."""
    bot.script.turn(Reply.text("Nice, thanks for telling me."))
    await bot.say(SAID)
    bot.script.turn(Reply.text("It is sunny."))
    await bot.say("What's the weather like?")
    home = bot.app.memory.home
    if home.kind == "files":
        failed = bot.workspace / "state" / "writer_queue" / "failed"
        assert [p.name for p in failed.glob("t_*.json") if PHRASE.encode() in p.read_bytes()]
    else:  # the queue's rows, set aside
        assert [n for n, text, why in home.turn_rows() if why is not None and PHRASE in text]
    assert await bot.record_id()
    assert any(PHRASE in t for t in await bot.recalled())


# ---------------------------------------------------------------------- the entry points

Way = Callable[[Bot], Awaitable[None]]


async def by_command(bot: Bot) -> None:
    rid = await bot.record_id()
    assert "About to forget for good" in await bot.command("forget", rid)
    assert (await bot.command("forget", rid, "confirm")).startswith("Forgotten:")


async def by_control_socket(bot: Bot) -> None:
    rid = await bot.record_id()
    owner = read_owner(bot.workspace)
    assert owner is not None and owner.control
    answer = await asyncio.to_thread(send_request, owner.control, {"op": "forget", "id": rid})
    assert rid in answer["records"]


async def by_api(bot: Bot) -> None:
    rid = await bot.record_id()
    assert bot.app.api is not None
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=bot.app.api.url) as client:
        missing = await client.delete("/api/memory/m_nosuchmemory", headers=auth)
        assert missing.status_code == 404
        done = await client.delete(f"/api/memory/{rid}", headers=auth)
    assert done.status_code == 200 and rid in done.json()["records"]


async def by_words(bot: Bot) -> None:
    bot.script.turn(Reply.text("Noted."))
    await bot.say(f"Actually {SAID}")  # said twice: "forget that" takes the last one
    assert (await bot.say("forget that")).startswith("Forgotten:")
    # the words remain in the first message: forgetting it by what it says
    reply = await bot.say(f"forget that {SAID}")
    if reply.startswith("About to forget"):
        reply = await bot.say("yes")
    assert reply.startswith("Forgotten")


async def by_window(bot: Bot) -> None:
    asked = await bot.say("forget what I said in the last 10 minutes")
    assert "About to forget for good the 2 messages" in asked
    assert (await bot.say("yes")).startswith("Forgotten in the last 10 minutes")


async def by_model_tool(bot: Bot) -> None:
    rid = await bot.record_id()
    bot.script.turn(one("forget", {"memory_id": rid}), relay())
    home = "could you get rid of the bit about my home"
    assert "About to forget for good" in await bot.say(home)
    assert (await bot.say("yes")).startswith("Forgotten")  # the bot's question: no model


async def nothing(bot: Bot) -> None:
    """The CLI case forgets after the bot stopped."""


WAYS: dict[str, Way] = {
    "command": by_command,
    "control_socket": by_control_socket,
    "api": by_api,
    "words": by_words,
    "window": by_window,
    "model_tool": by_model_tool,
    "cli": nothing,
}


@pytest.mark.parametrize("way", list(WAYS))
async def test_every_way_to_forget_leaves_no_file_holding_the_words(
    way: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", TOKEN)
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await _said_and_set_aside(bot)
        rid = await bot.record_id()
        await WAYS[way](bot)
        if way != "cli":
            assert files_holding(ws, PHRASE) == []  # while the bot runs
            assert not any(PHRASE in t for t in await bot.recalled())
            assert not await bot.app.memory.store.list(scope="user", user_key=ALICE)
    if way == "cli":
        result = await asyncio.to_thread(
            CliRunner().invoke, cli_app, ["--workspace", str(ws), "memory", "forget", rid]
        )
        assert result.exit_code == 0, result.output
    assert files_holding(ws, PHRASE) == []
    async with running(ws) as bot:  # started again: nothing comes back from disk either
        assert not any(PHRASE in t for t in await bot.recalled())
        bot.script.turn(Reply.text("I am not sure."))
        await bot.say("Where do I live?")
        asked = bot.script.turn_requests[-1]["messages"]
        assert PHRASE not in str(asked)
    assert files_holding(ws, PHRASE) == []


# ---------------------------------------------------------------------- by words, offline


@asynccontextmanager
async def offline(workspace: Path) -> AsyncIterator[Bot]:
    settings = load_settings(workspace=workspace, care={"ai_disclosure": False})
    app = make_app(settings, model=None, clock=lambda: NOW)
    async with app:
        yield Bot(app, WriterSetAside(), workspace)


async def test_forget_that_is_true_offline(tmp_path: Path) -> None:
    async with offline(tmp_path / "ws") as bot:
        assert "Denver" in await bot.say("I live in Denver.")
        done = await bot.say("forget that")
        assert done.startswith("Forgotten: you live in Denver.")
        assert "Denver" not in await bot.say("Where do I live?")
    assert files_holding(tmp_path / "ws", "Denver") == []


async def test_forget_that_in_the_first_person_finds_what_was_said_with_a_contraction(
    tmp_path: Path,
) -> None:
    """ "forget that I'm moving to Porto" names "The user is moving to Porto ..." (the "m"
    of "I'm" counted as a word the record lacked, so nothing was found); "I don't like
    cheese" names "The user doesn't like cheese." ("don" against "doesn"); "I'm called Jonas"
    names "The user's name is Jonas."."""
    async with offline(tmp_path / "ws") as bot:
        await bot.say("We're moving to Porto next month!")
        await bot.say("I don't like cheese.")
        asked = await bot.say("forget that I'm moving to Porto")
        assert asked.startswith("About to forget for good:\n- you are moving to Porto"), asked
        assert (await bot.say("yes")).startswith("Forgotten: 1 memory")
        asked = await bot.say("forget that I don't like cheese")
        assert "you don't like cheese" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten: 1 memory")
        await bot.say("Hi, I'm Jonas.")
        asked = await bot.say("forget that I'm called Jonas")  # "The user's name is Jonas."
        assert "your name is Jonas" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten: 1 memory")
    assert files_holding(tmp_path / "ws", "Porto") == []
    assert files_holding(tmp_path / "ws", "cheese") == []
    assert files_holding(tmp_path / "ws", "Jonas") == []


async def test_no_vector_of_a_forgotten_turn_is_left_in_the_index(tmp_path: Path) -> None:
    """A turn is embedded as itself, as "Speaker: text" and sentence by sentence; after a
    forget none of those vectors stays in ``familiars.db`` (the words are gone from the
    files; what was computed from them goes too)."""
    import sqlite3

    from familiars.memory import content_hash

    said = "My locker code is tangerine. I keep the spare key under the blue mat."
    async with offline(tmp_path / "ws") as bot:
        await bot.say(said)
        await bot.say("ok")  # the next turn: the first one's sentences are embedded by now
        forms = [said, f"Alice: {said}"]
        parts = ["My locker code is tangerine.", "I keep the spare key under the blue mat."]
        forms += [f for p in parts for f in (p, f"Alice: {p}")]
        db = tmp_path / "ws" / "familiars.db"

        def held() -> set[str]:
            with sqlite3.connect(db) as conn:
                return {r[0] for r in conn.execute("SELECT content_hash FROM vectors")}

        before = held() & {content_hash(f) for f in forms}
        assert before, "the turn's vectors were never cached: the test would prove nothing"
        assert "About to forget" in await bot.command("forget", "last", "10m")
        done = await bot.command("forget", "last", "10m", "confirm")
        assert done.startswith("Forgotten"), done
        assert held() & {content_hash(f) for f in forms} == set()


async def _add(bot: Bot, content: str, **fields: Any) -> str:
    from familiars.memory import make_record

    rec = make_record(content, scope="user", category="knowledge", user_key=ALICE, **fields)
    return (await bot.app.memory.store.append(rec)).id


async def test_a_forget_by_words_matches_tightly_and_asks_before_removing_more(
    tmp_path: Path,
) -> None:
    async with offline(tmp_path / "ws") as bot:
        trains = await _add(bot, "Oskar is obsessed with trains.")
        await _add(bot, "Oskar and the kids feed the parrot on Sundays.")
        await _add(bot, "Remind the user to buy Oskar a train set.")
        # One record says it: named and asked first (a description may mean other than
        # what it matches), then forgotten; the parrot and the reminder stay.
        asked = await bot.say("forget that Oskar is obsessed with trains")
        assert asked.startswith("About to forget for good:\n- Oskar is obsessed with trains.")
        assert "parrot" not in asked and "train set" not in asked
        assert len(await bot.app.memory.store.list(scope="user")) == 3
        done = await bot.say("yes")
        assert done.startswith("Forgotten: 1 memory")
        kept = [r.content for r in await bot.app.memory.store.list(scope="user")]
        assert sorted(kept) == [
            "Oskar and the kids feed the parrot on Sundays.",
            "Remind the user to buy Oskar a train set.",
        ]
        assert trains not in [r.id for r in await bot.app.memory.store.list(scope="user")]

        # Two say it: both are named, nothing goes before a yes; a no keeps them.
        await _add(bot, "The user's sister lives in Lisbon.")
        await _add(bot, "The user's sister lives in Lisbon with her wife.")
        asked = await bot.say("forget that my sister lives in Lisbon")
        assert asked.startswith("About to forget for good:")
        assert "sister lives in Lisbon." in asked and "Lisbon with her wife" in asked
        assert asked.rstrip().endswith("Reply yes to go ahead, or no to keep them.")
        assert await bot.say("no") == "Kept: I forgot nothing."
        assert len([r for r in await bot.app.memory.store.list() if "Lisbon" in r.content]) == 2
        one = await bot.say("forget that the kids feed the parrot on Sundays")
        assert one.rstrip().endswith("(with the message it came from, and any message since "
                                     "that repeated it). Reply yes to go ahead, or no to keep "
                                     "it."), one  # fmt: skip
        assert await bot.say("no") == "Kept: I forgot nothing."

        # Asked again, then anything but a yes drops the question: still kept.
        await bot.say("forget that my sister lives in Lisbon")
        await bot.say("What do you know about my sister?")
        assert len([r for r in await bot.app.memory.store.list() if "Lisbon" in r.content]) == 2

        # Asked again and confirmed: both gone, the parrot still there.
        await bot.say("forget that my sister lives in Lisbon")
        assert (await bot.say("yes please")).startswith("Forgotten: ")
        left = [r.content for r in await bot.app.memory.store.list(scope="user")]
        assert not [c for c in left if "Lisbon" in c]
        assert "Oskar and the kids feed the parrot on Sundays." in left
    assert files_holding(tmp_path / "ws", "Lisbon") == []


# ---------------------------------------------------------------------- the model's yes


@pytest.mark.parametrize(
    ("between", "answer", "forgotten"),
    [
        ([], "yes", True),
        ([], "yeah, do it", True),
        ([], "what's the weather?", False),
        ([], "no, keep it", False),
        (["what's the weather?"], "yes", False),  # a yes, but not the next message
    ],
)
async def test_the_bots_question_for_the_model_is_answered_only_by_the_next_message(
    between: list[str], answer: str, forgotten: bool, tmp_path: Path
) -> None:
    async with running(tmp_path / "ws") as bot:
        await _said_and_set_aside(bot)
        rid = await bot.record_id()
        bot.script.turn(one("forget", {"memory_id": rid}), relay())
        home = "could you get rid of the bit about my home"
        assert "About to forget for good" in await bot.say(home)
        for text in between:
            bot.script.turn(Reply.text("It is sunny."))
            await bot.say(text)
        if answer == "what's the weather?":  # not an answer: a turn for the model
            bot.script.turn(Reply.text("It is sunny."))
        reply = await bot.say(answer)
        live = [r.id for r in await bot.app.memory.store.list(scope="user", user_key=ALICE)]
        if forgotten:
            assert reply.startswith("Forgotten") and rid not in live
        else:
            assert not reply.startswith("Forgotten") and rid in live


async def test_a_forget_the_model_proposes_silently_is_asked_by_the_bot(tmp_path: Path) -> None:
    """A model that proposes a forget and only says "OK!" does not leave the person's next
    "yes" answering a question they never saw: the bot asks it itself (an attack found it)."""
    async with running(tmp_path / "ws") as bot:
        await _said_and_set_aside(bot)
        rid = await bot.record_id()
        bot.script.turn(one("forget", {"memory_id": rid}), Reply.text("OK!"))
        reply = await bot.say("hmm")
        assert reply.startswith("OK!") and "About to forget for good" in reply
        assert PHRASE in reply and reply.rstrip().endswith("Reply yes to confirm, or no.")


async def test_a_forget_answer_in_a_group_goes_through_the_outbound_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every text bound for a group passes the one outbound step, the forget's own answers
    too (they were yielded past it)."""
    async with offline(tmp_path / "ws") as bot:
        manager = bot.app.dialogues
        assert manager is not None
        seen: list[str] = []
        real = manager.services.outbound.guard

        async def spy(dialogue: Any, text: str, **kw: Any) -> Any:
            seen.append(kw.get("what", ""))
            return await real(dialogue, text, **kw)

        monkeypatch.setattr(manager.services.outbound, "guard", spy)
        await bot.say("I live in Denver.", chat="g1", group=True)
        answer = await bot.say("forget that", chat="g1", group=True)
        assert answer.startswith("Forgotten") and "Denver" not in answer
        assert seen[-1] == "forget answer"


def test_what_counts_as_yes() -> None:
    from familiars.bot._forgetting import is_yes

    yes = ["yes", "Yes.", "yeah", "yep!", "sure", "ok", "okay, do it", "please do", "go ahead"]
    no = ["no", "yes?", "what's the weather", "not yet", "don't", "yes but wait", "", "maybe"]
    assert [t for t in yes if not is_yes(t)] == []
    assert [t for t in no if is_yes(t)] == []


async def test_a_forget_by_words_names_what_was_kept_from_a_message_it_takes(
    tmp_path: Path,
) -> None:
    """A message that says the words goes; what else was kept from it is not about them
    and stays (s33 U2: "forget about Shelly" took the wife, the dog and the job): the
    question says so."""
    async with offline(tmp_path / "ws") as bot:
        await bot.say("My name is Priyanka, I fix teeth for a living over in Bristol.")
        await bot.say("I live in Bristol.")
        # The first message goes too (it says Bristol); the job kept from it says where
        # the work is ("fix teeth in Bristol"), so it is named and goes; the name stays.
        asked = await bot.say("forget that I live in Bristol")
        kept = asked.split("Kept, though said in the same message:")[1]
        assert "your name is Priyanka" in kept and "teeth" not in kept, asked
        assert "you fix teeth in Bristol for a living" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten: 2 memories")
        assert "Priyanka" in await bot.say("What is my name?")
    # The facts and both messages are gone.
    for gone in ("live in Bristol", "lives in Bristol", "Priyanka, I fix teeth", "Bristol"):
        assert files_holding(tmp_path / "ws", gone) == [], gone


@pytest.mark.parametrize(
    "ask",
    [
        "actually forget that, I shouldn't have said it",
        "forget that. I shouldn't have said it",
        "pls forget that lol",
        "forget I said that, it was mean",
        "scratch that, forget it",
    ],
)
async def test_forget_that_with_an_afterthought_forgets_the_last_message(
    tmp_path: Path, ask: str
) -> None:
    """Tester F7: the afterthought was read as the description, matched nothing, and the
    answer ("I keep nothing from you that says that") read as "already gone" while the
    message stayed and was quoted back."""
    async with offline(tmp_path / "ws") as bot:
        await bot.say("my neighbour Gary is a total pain, he parks across our drive")
        done = await bot.say(ask)
        assert done.startswith("Forgotten"), done
        assert "Gary" not in await bot.say("who is my neighbour?")
    assert files_holding(tmp_path / "ws", "Gary") == []


async def test_a_description_that_matches_nothing_says_so_and_what_to_do(tmp_path: Path) -> None:
    """Nothing matched is not "already gone": the person hears that nothing matched, and how
    to find and forget a memory by its id; what they said stays."""
    async with offline(tmp_path / "ws") as bot:
        await bot.say("I live in Denver.")
        reply = await bot.say("forget that I have a boat called Wavey")
        assert "nothing" in reply and "/memory list" in reply, reply
        assert "/memory forget <id>" in reply, reply
        assert "Denver" in await bot.say("Where do I live?")
