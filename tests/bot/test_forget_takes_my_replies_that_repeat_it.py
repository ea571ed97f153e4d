"""A forget that says "everywhere" takes the bot's own replies that said the forgotten value
again, through the one repeats step the person's messages go through: after "forget where I
live" + yes, ``dialogue.json`` still held "I'll use Dublin time (Europe/Dublin) for your
reminders" (the note said again on the first reply after a restart; tester s39, finding 7).
A reply to someone else, or one that says nothing of it, stays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from familiars.config import load_settings
from familiars.memory import DialogTree, make_record, node_ref, repeats_of
from tests.harness import console_bot

#: 2037 (2026's calendar): the scheduler runs in these tests, and never reaches it.
SAID_AT = datetime(2037, 12, 7, 18, 0, tzinfo=UTC)


def _dialogue_files(workspace: Path) -> str:
    return "".join(
        p.read_text(encoding="utf-8")
        for p in workspace.glob("agents/*/*/*")
        if p.name.startswith("dialogue")
    )


async def test_forget_where_i_live_takes_my_replies_that_said_it(workspace: Path) -> None:
    settings = load_settings(workspace=workspace)
    now = [SAID_AT]
    async with console_bot(settings, now, user="maya") as bot:
        await bot.say("I live in Dublin")
    now[0] += timedelta(hours=1)
    async with console_bot(settings, now, user="maya") as bot:
        assert "Dublin" in await bot.say("where do I live?")  # a reply that says it again
        await bot.say("my cat is called Mochi")
        assert "Dublin" in _dialogue_files(workspace)
        assert (await bot.say("forget where i live")).startswith("About to forget")
        done = await bot.say("yes")
        assert "1 reply of mine that repeated it" in done, done
    kept = _dialogue_files(workspace)
    assert "Dublin" not in kept and "Mochi" in kept


def _tree(*said: tuple[str, str, dict[str, str]]) -> DialogTree:
    """Q nodes of a person (``who`` a user key) and the bot's replies (``who`` "A": to the
    message before, or to no one with ``{"to": ...}`` sent unasked)."""
    tree = DialogTree()
    tree.agent_id, tree.dialogue_id = "agent_0", "dialogue_0"
    for n, (who, text, meta) in enumerate(said):
        kind, origin = (
            ("A", "proactive" if "to" in meta else "response") if who == "A" else ("Q", None)
        )
        meta = meta if who == "A" else {"user_key": who}
        tree.add_node(
            text, [1.0, 0.0], node_type=kind, timestamp=float(n), origin=origin, metadata=meta
        )
    return tree


def test_only_replies_to_the_person_are_taken() -> None:
    home = make_record(
        "The user lives in Leeds.", scope="user", category="identity", user_key="ann"
    )
    tree = _tree(
        ("ann", "I have a dog.", {}),
        ("A", "Lovely! Say hi to him from Leeds.", {}),  # 1: to ann
        ("bob", "I'm off to Leeds.", {}),
        ("A", "Enjoy Leeds!", {}),  # 3: to bob
        ("A", "Good morning. How is Leeds?", {"to": "ann"}),  # 4: sent to ann
        ("A", "Good morning. How is Leeds?", {"to": "bob"}),
        ("ann", "it rains", {}),
        ("A", "It does, in Leeds and everywhere.", {}),  # 7: to ann
    )
    found = repeats_of([home], [tree])
    assert [(r.ref.node_id, r.reply) for r in found] == [(1, True), (4, True), (7, True)]
    assert found[0].ref.key == node_ref("agent_0", "dialogue_0", 1)
    # A reply to a message taken as a repeat goes with it: not counted twice.
    tree = _tree(("ann", "Leeds is grey", {}), ("A", "Leeds can be grey.", {}))
    assert [(r.ref.node_id, r.reply) for r in repeats_of([home], [tree])] == [(0, False)]
