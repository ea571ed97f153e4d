"""A reply that said a forgotten memory, alone or among other lines, goes with it (tester s36:
after ``/memory forget`` of "you are allergic to again" the replies "You are allergic to
again." and "You are allergic to again.\\nYou are allergic to penicilin." stayed in
``dialogue.json``: the record says "The user is ...", the reply "You are ...", and "again"
is too common a word for the echo rule). The reply goes whole: the bot's words are one
turn, and a turn cut down to its other lines would be a reply the bot never gave. What did
not say it stays: the penicillin memory and the "Noted:" reply that told it."""

from __future__ import annotations

from pathlib import Path

from familiars.bot import Application
from familiars.memory import forgotten_of
from tests.bot.test_forget import files_holding
from tests.harness import invocation, message, running_app, say


async def _memory(app: Application, *args: str) -> str:
    assert app.dialogues is not None
    return (await app.dialogues.command(invocation("memory", *args))).text


async def test_forgetting_a_memory_takes_every_reply_that_said_it(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        assert "penicilin" in await say(app, message("I'm allergic to penicilin", minutes=0))
        assert "again" in await say(app, message("I'm allergic to again", minutes=1))
        both = await say(app, message("what am I allergic to", minutes=2))
        assert "allergic to again" in both and "penicilin" in both, both
        [rid] = [r.id for r in await app.memory.store.list() if "again" in r.content]
        assert "About to forget" in await _memory(app, "forget", rid)
        assert (await _memory(app, "forget", rid, "confirm")).startswith("Forgotten")
        left = [r.content for r in await app.memory.store.list()]
        assert left == ["The user is allergic to penicilin."], left
    assert files_holding(workspace, "allergic to again") == []
    assert "Noted: you are allergic to penicilin" in (
        workspace / "agents/agent_0/dialogue_0/dialogue.json"
    ).read_text(encoding="utf-8")


def test_a_memory_is_found_as_a_reply_says_it_and_only_so() -> None:
    record = forgotten_of((), ["The user is allergic to again."])
    assert record.quoted_in("You are allergic to again.\nYou are allergic to penicilin.")
    said = forgotten_of((), ["I'm allergic to again"])  # "m" of "I'm" says nothing
    assert not said.echoed_in("Hi, I'm Familiar.\nNoted: you are allergic to penicilin.")
    reply = "You are allergic to again.\nYou are allergic to penicilin."
    taken = forgotten_of((), [reply], replies=[reply])  # its other line was not asked for
    assert taken.quoted_in(reply)
    assert not taken.echoed_in("Noted: you are allergic to penicilin.")
