"""Forgetting a whole person ("forget everything about me", ``/memory forget everything``,
the memory page's "Forget everything about me", ``familiars memory forget --person KEY``,
``person:KEY`` on the control socket and the HTTP API), through the one Forgetter, on both
homes.

Alice talks to the bot in a private chat and in a group (where Bob talks too), on Telegram
and, linked with ``/link``, on Discord; she sets a reminder, sends a file, turns proactive
messages off and holds a memory-page link; the memory writer's answers are never JSON, so
every turn is also copied in clear to the writer queue's ``failed/``. Each door is asked;
afterwards no file of the workspace and no table of the database holds any of her words
(unique needles), not after the index is deleted and rebuilt either, no recall returns
them, and Bob's words stay. What is kept is what the answer says: her accounts (unlinked)
with ``/proactive off``, and nothing that names her."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from familiars.bot._adapters.base import CommandInvocation
from familiars.bot._forget_person import asks_to_forget_me
from familiars.bot._forgetting import is_clear_yes
from familiars.bot._web import WebSessions
from familiars.cli import app as cli_app
from familiars.memory import read_owner, send_request
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, NOW, TOKEN, Bot, running
from tests.bot.web_fixtures import client, csrf_of, link_for, post, sign_in
from tests.homes import read_state, state_home_at

pytestmark = pytest.mark.timeout(180)

DISCORD = "discord_d9"
#: Alice's words, each somewhere else: her private chat, the group, Discord, a reminder, a file.
HERS = {"KQ7719": "dm", "ZX4420": "group", "DJ5562": "discord", "RM8841": "reminder"}
FILE_NEEDLE = "WV3381"
BOBS = "PB2203"


async def _command(bot: Bot, name: str, *args: str, platform: str = "telegram",
                   user: str = "u1", group: bool = False) -> str:  # fmt: skip
    assert bot.app.dialogues is not None
    chat = "g1" if group else user
    inv = CommandInvocation(platform, chat, user, "Alice", name, args, is_group=group, ts=NOW)
    return (await bot.app.dialogues.command(inv)).text


async def _alice_everywhere(bot: Bot) -> str:
    """Everything of Alice's, and Bob's words in the group; the memory-page link's token."""
    await bot.say("My dog is called KQ7719.")
    await bot.say("remind me tomorrow at 9 to feed RM8841")
    await bot.say("My sister lives in ZX4420 now.", chat="g1", group=True)
    await bot.say(f"My favourite fruit is the {BOBS} plum.", chat="g1", user="u2",
               name="Bob", group=True)  # fmt: skip
    code = (await _command(bot, "link")).split("code is ")[1].split(".")[0]
    linked = await _command(bot, "link", code, platform="discord", user="d9")
    assert linked.startswith("Linked."), linked
    await bot.say("My cat is called DJ5562.", platform="discord", chat="d9", user="d9")
    await _command(bot, "proactive", "off")
    finder = bot.app.services.forgetter.documents
    assert finder is not None
    await finder.add_attachment(ALICE, "notes.txt", f"{FILE_NEEDLE} is my bike lock.\n".encode())  # type: ignore[attr-defined]
    sessions = WebSessions(bot.workspace, home=bot.app.memory.home)  # the workers' own
    token = sessions.new_link(ALICE, "agent_0", is_owner=False)
    for needle in [*HERS, FILE_NEEDLE, BOBS]:
        assert files_holding(bot.workspace, needle), f"{needle} was never stored"
    activity = read_state(bot.workspace, "agents/agent_0/dialogue_0/activity.json")
    assert json.loads(activity or b"{}").get("last_user_at")  # her private chat's
    return token


# ---------------------------------------------------------------------- the doors

Door = Callable[[Bot], Awaitable[None]]


async def by_command(bot: Bot) -> None:
    assert await _command(bot, "memory", "forget", "everything", group=True) == (
        "Forgetting everything about you is done in a private chat: message me directly "
        "(or send /memory forget everything there)."
    )
    asked = await _command(bot, "memory", "forget", "everything")
    assert asked.startswith("About to forget everything about you, for good: "), asked
    for part in ("(1 reminder)", "in 3 conversations (1 with others) on discord and telegram",
                 "and 1 file", "Kept: that your account exists", "Linked accounts are "
                 "unlinked", "/memory forget everything confirm"):  # fmt: skip
        assert part in asked, (part, asked)
    assert files_holding(bot.workspace, "KQ7719")  # asking forgets nothing
    done = await _command(bot, "memory", "forget", "everything", "confirm")
    assert done.startswith("Forgotten everything about you: "), done


async def by_words(bot: Bot) -> None:
    asked = await bot.say("Please forget everything about me.")
    assert asked.startswith("About to forget everything about you, for good: "), asked
    assert "on discord and telegram" in asked and asked.rstrip().endswith(
        "Reply yes to go ahead, or no to keep it."
    )
    assert await bot.say("ok") == (
        "To forget everything about you I need a plain yes (or no to keep it)."
    )
    assert files_holding(bot.workspace, "KQ7719")
    assert (await bot.say("yes")).startswith("Forgotten everything about you: ")


async def by_control_socket(bot: Bot) -> None:
    owner = read_owner(bot.workspace)
    assert owner is not None and owner.control
    held = await asyncio.to_thread(send_request, owner.control, {"op": "person", "key": DISCORD})
    assert held["keys"] == [DISCORD, ALICE] and held["reminders"] == 1 and held["files"] == 1
    request = {"op": "forget", "id": f"person:{DISCORD}"}  # a linked account names her whole
    answer = await asyncio.to_thread(send_request, owner.control, request)
    assert answer["people"] == [DISCORD, ALICE] and answer["records"]


async def by_api(bot: Bot) -> None:
    assert bot.app.api is not None
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=bot.app.api.url) as client:
        missing = await client.delete("/api/memory/person:telegram_nobody", headers=auth)
        assert missing.status_code == 404
        bad = await client.delete("/api/memory/person:..%2Fetc", headers=auth)
        assert bad.status_code in (404, 422)
        done = await client.delete(f"/api/memory/person:{ALICE}", headers=auth)
    assert done.status_code == 200, done.text
    assert done.json()["people"] == [DISCORD, ALICE] and done.json()["files"]


async def by_web_page(bot: Bot) -> None:
    async with client(bot.app) as http:
        await sign_in(http, await link_for(bot.app, user="u1"))
        assert "/web/forget-everything" in (await http.get("/web/memories")).text
        page = await http.get("/web/forget-everything")
        assert "in 3 conversations (1 with others) on discord and telegram" in page.text
        assert files_holding(bot.workspace, "KQ7719")  # the page forgets nothing
        done = await post(http, "/web/forget-everything", {"csrf": csrf_of(page.text)})
        assert done.status_code == 200 and "Forgotten everything about you" in done.text
        assert (await http.get("/web/memories")).status_code == 401  # signed out


async def nothing(bot: Bot) -> None:
    """The CLI case forgets after the bot stopped."""


DOORS: dict[str, Door] = {
    "command": by_command,
    "words": by_words,
    "web_page": by_web_page,
    "control_socket": by_control_socket,
    "api": by_api,
    "cli": nothing,
}


def _cli(ws: Path, *args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(cli_app, ["--workspace", str(ws), *args], input=stdin)
    assert result.exit_code == 0, result.output
    return result.output


def _left_of_her(ws: Path) -> list[str]:
    return [f"{needle}: {f}" for needle in [*HERS, FILE_NEEDLE] for f in files_holding(ws, needle)]


@pytest.mark.parametrize("door", list(DOORS))
async def test_every_door_forgets_a_whole_person_and_nothing_comes_back(
    door: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", TOKEN)
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        token = await _alice_everywhere(bot)
        await DOORS[door](bot)
        if door != "cli":
            assert _left_of_her(ws) == []  # while the bot runs
            assert not await bot.app.memory.store.list(scope="user", user_key=ALICE)
    if door == "cli":
        asked = await asyncio.to_thread(_cli, ws, "memory", "forget", "--person", DISCORD,
                                        stdin="y\n")  # fmt: skip
        assert f"About to forget everything about {DISCORD}, {ALICE}: " in asked, asked
        assert "1 reminders" in asked and "Kept: that your account exists" in asked
    assert _left_of_her(ws) == []
    assert files_holding(ws, BOBS)  # Bob's words stay
    async with state_home_at(ws) as home:  # her memory-page link is gone, on every worker
        assert await asyncio.to_thread(WebSessions(ws, home=home).peek_link, token) is None
    raw = read_state(ws, f"state/people/{ALICE}.json")
    assert raw is not None
    person = json.loads(raw)
    assert (person["display_name"], person["proactive"], person["timezone"]) == ("", False, None)
    assert [i["display_name"] for i in person["identities"]] == [""]
    linked = json.loads(read_state(ws, f"state/people/{DISCORD}.json") or b"{}")
    assert linked["linked_to"] is None and linked["proactive"] is False  # unlinked, still off
    activity = json.loads(read_state(ws, "agents/agent_0/dialogue_0/activity.json") or b"{}")
    assert activity.get("last_user_at") is None  # her private chat: no check-in follows

    # The index deleted and rebuilt from the files (or the database): nothing comes back.
    for db in ws.glob("familiars.db*"):
        db.unlink()
    await asyncio.to_thread(_cli, ws, "memory", "reindex")
    assert _left_of_her(ws) == []
    async with running(ws) as bot:
        for needle in HERS:
            found = await bot.app.services.recaller.recall(
                f"What about {needle}?", agent_id="agent_0", dialogue_id="dialogue_0",
                user_key=ALICE, is_group=False, now=NOW, k=20,
            )  # fmt: skip
            assert not [it.text for it in found if needle in it.text]
        assert "KQ7719" not in await bot.say("What is my dog called?")
        assert not await bot.app.memory.store.list(scope="user", user_key=ALICE)
    assert _left_of_her(ws) == []


async def test_the_cli_says_no_one_for_an_unknown_key_and_keeps_on_no(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say("My dog is called KQ7719.")

    def cli(*args: str, stdin: str | None = None) -> tuple[int, str]:
        result = CliRunner().invoke(cli_app, ["--workspace", str(ws), *args], input=stdin)
        return result.exit_code, result.output

    code, said = await asyncio.to_thread(cli, "memory", "forget", "--person", "telegram_nobody")
    assert code == 1 and "no one with the key 'telegram_nobody' is known here" in said, said
    code, said = await asyncio.to_thread(cli, "memory", "forget", "--person", ALICE, stdin="n\n")
    assert code == 1 and "kept: nothing was forgotten" in said, said
    assert files_holding(ws, "KQ7719")
    code, said = await asyncio.to_thread(cli, "memory", "forget")
    assert code == 1 and "give an ID or --person KEY" in said, said
    code, said = await asyncio.to_thread(cli, "memory", "forget", "--person", "../x")
    assert code == 1 and "user_key" in said, said


async def test_look_alikes_do_not_forget_a_person(tmp_path: Path) -> None:
    """ "forget everything I said about work" is not "forget everything about me": it goes
    on as before (no whole-person question), and nothing of Alice goes."""
    async with running(tmp_path / "ws") as bot:
        await bot.say("My dog is called KQ7719.")
        for text in ("forget everything I said about work", "forget everything about my trip",
                     "don't forget me", "delete my reminder"):  # fmt: skip
            assert "forget everything about you" not in await bot.say(text)
        asked = await bot.say("forget everything about me")
        assert asked.startswith("About to forget everything about you, for good"), asked
        assert (await bot.say("no")) == "Kept: I forgot nothing."
        assert files_holding(tmp_path / "ws", "KQ7719")


async def test_a_yes_after_the_question_was_let_go_says_nothing_was_forgotten(
    tmp_path: Path,
) -> None:
    """T22: "delete all my data", then a message of its own (the question is let go), then
    "yes" got "Oh? Tell me more." and the person believed their data gone. They are told
    nothing went; a yes later still is a message as any. An answer that is neither yes nor
    no ("hmm let me think") keeps the question and says so (s39)."""
    async with running(tmp_path / "ws") as bot:
        await bot.say("My dog is called KQ7719.")
        asked = await bot.say("delete all my data")
        assert asked.startswith("About to forget everything about you"), asked
        still = await bot.say("hmm let me think")
        assert still.startswith("I still need a yes or no"), still
        assert (await bot.say("tell me something nice")).startswith("I still need") is False
        late = await bot.say("yes")
        assert late.startswith("Nothing was forgotten: you wrote something else"), late
        assert files_holding(tmp_path / "ws", "KQ7719")
        assert "Nothing was forgotten" not in await bot.say("yes")


def test_what_asks_to_forget_a_whole_person() -> None:
    asks = [
        "forget everything about me", "Delete all my data.", "wipe my memory",
        "Please forget me", "can you erase everything you know about me?",
        "I want you to forget everything you have on me", "forget everything",
        "delete my account please", "remove all the data you have about me",
        "forget all about me", "wipe your memory of me", "erase me from your memory",
        "Could you delete all of my personal data, permanently?",
        "I want my data deleted", "i'd like all my data erased, please",
        "I'd like you to forget me", "I want to be forgotten",
        "please forget that I exist", "remove all my data from your memory",
        "erase all traces of me", "forget everything I've ever told you",
        "delete everything I have ever said",
    ]  # fmt: skip
    not_asks = [
        "forget everything I said about work", "forget everything about my trip",
        "don't forget me", "delete my reminder", "forget my password", "wipe my phone",
        "forget that", "forget everything I said in the last 5 minutes",
        "delete all my messages", "forget about it", "I forgot everything about me",
        "remember everything about me", "tell me everything you know about me",
        "what do you know about me?", "forget everything about my ex", "forget all of it",
        "I want my photos deleted", "I want my reminder deleted", "I want to be remembered",
        "remove the cat from your memory", "I want my data back",
        "I never want to be forgotten", "forget everything I told you yesterday",
    ]  # fmt: skip
    assert [t for t in asks if not asks_to_forget_me(t)] == []
    assert [t for t in not_asks if asks_to_forget_me(t)] == []


async def test_a_person_forgotten_on_one_worker_is_not_recalled_on_another(
    tmp_path: Path, pg_url: str
) -> None:
    """Worker B served Bob; worker A forgets him whole (``/memory forget everything``). B,
    asked at once (no NOTIFY waited for), recalls none of his memories or messages, and
    its search and his scope are empty."""
    from familiars.config import load_settings
    from tests.harness import T0, message, running_app, say

    bob = {"platform": "telegram", "chat": "102", "user": "102", "name": "Bob"}
    settings = {"owners": [], "care": {"ai_disclosure": False}}
    async with (
        running_app(load_settings(workspace=tmp_path / "a", **settings), model=None,
                    clock=lambda: T0) as a,
        running_app(load_settings(workspace=tmp_path / "b", **settings), model=None,
                    clock=lambda: T0) as b,
    ):  # fmt: skip
        reader = b.services.recaller.reader

        async def recalled(query: str, word: str) -> list[str]:
            res = await reader.build_rag_context(
                query, agent_id="agent_0", dialogue_id="dialogue_0", user_key="telegram_102", k=8
            )
            return [item.key for item in res.items if word in item.text]

        await say(b, message("My dog is called KQ7719.", **bob))
        await say(b, message("I live in ZX4420 now.", minutes=1, **bob))
        assert await recalled("what is my dog called? KQ7719", "KQ7719")
        assert a.dialogues is not None and b.dialogues is not None
        inv = CommandInvocation("telegram", "102", "102", "Bob", "memory",
                                ("forget", "everything", "confirm"), ts=T0)  # fmt: skip
        asked = (await a.dialogues.command(replace(inv, args=inv.args[:-1]))).text
        assert asked.startswith("About to forget everything about you"), asked
        done = (await a.dialogues.command(inv)).text
        assert done.startswith("Forgotten everything about you: "), done
        for needle in ("KQ7719", "ZX4420"):
            assert await recalled(f"what about {needle}?", needle) == []
            search = replace(inv, args=("search", needle))
            assert needle not in (await b.dialogues.command(search)).text
        assert not await b.memory.store.list(scope="user", user_key="telegram_102")
    for needle in ("KQ7719", "ZX4420"):
        assert files_holding(tmp_path / "a", needle) == []
        assert files_holding(tmp_path / "b", needle) == []


async def test_a_message_said_while_the_person_is_forgotten_goes_too(
    tmp_path: Path, memory_home: str
) -> None:
    """Alice says something on Discord while her forget runs (after what is hers was
    read): that message, the memory noted from it and the reply go with the rest; nothing
    she said before the forget ended survives it."""
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await _alice_everywhere(bot)
        forgetter = bot.app.services.forgetter
        assert forgetter.documents is not None
        documents = forgetter.documents
        first = documents.forget
        said: list[str] = []

        async def forget_midway(user_key: str | None, file_id: str | None = None) -> list[str]:
            if not said:  # once: the turn runs whole while the forget is under way
                said.append(await bot.say("My hamster is called MQ5150.", platform="discord",
                                       chat="d9", user="d9"))  # fmt: skip
            return await first(user_key, file_id)

        documents.forget = forget_midway  # type: ignore[method-assign]
        assert "About to forget" in await _command(bot, "memory", "forget", "everything")
        done = await _command(bot, "memory", "forget", "everything", "confirm")
        assert done.startswith("Forgotten everything about you: "), done
        assert said
        await bot.app.settle()
        assert files_holding(ws, "MQ5150") == []
        assert _left_of_her(ws) == []
        assert not await bot.app.memory.store.list(scope="user", user_key=ALICE)


async def test_a_reply_that_comes_after_its_message_was_forgotten_is_not_kept(
    tmp_path: Path, memory_home: str
) -> None:
    """A model slow to answer: Alice's message is forgotten (her whole person) while its
    reply is still being written; the reply, sent after, is kept as an empty place, not in
    words (a reply to a forgotten message goes with it)."""
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say("My dog is called KQ7719.")
        tree = await bot.app.services.log.trees.aget("agent_0", "dialogue_0")
        mine = [n.id for n in tree.node_list if n.node_type == "Q"][-1]
        assert "About to forget" in await _command(bot, "memory", "forget", "everything")
        done = await _command(bot, "memory", "forget", "everything", "confirm")
        assert done.startswith("Forgotten everything about you: "), done
        await bot.app.services.log.defer_reply_node(
            "agent_0", "dialogue_0", parent=mine, text="KQ7719 is a lovely name for a dog!",
            timestamp=NOW.timestamp() + 60,
        )  # fmt: skip
        await bot.app.settle()
        assert files_holding(ws, "KQ7719") == []


def test_only_a_plain_yes_forgets_a_whole_person() -> None:
    yes = ["yes", "Yes, do it.", "yeah, go ahead", "confirm", "yes please"]
    not_yes = ["ok", "sure", "yeah right", "Yeah, right.", "yes?", "yes but keep my reminders"]
    assert [t for t in yes if not is_clear_yes(t)] == []
    assert [t for t in not_yes if is_clear_yes(t)] == []
