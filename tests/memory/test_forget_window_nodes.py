"""Which nodes of a dialogue a person's time window holds (``window_nodes``): their turns,
and the bot's messages sent to them unasked; the forget of the window, its question and
``/memory forget last 10m`` all read this one rule (the bot's side:
tests/bot/test_forget_a_window_takes_the_reminder_sent.py)."""

from __future__ import annotations

from familiars.memory import DialogTree
from familiars.memory._forget_plan import window_nodes


def test_a_message_sent_to_someone_else_is_not_theirs() -> None:
    """In a group, a reminder sent to Bob is not Alice's to forget; one that names no one
    is the person's only where no one else spoke."""
    tree = DialogTree()
    said_by = [
        ("hi", "Q", {"user_key": "alice"}),
        ("yo", "Q", {"user_key": "bob"}),
        ("for bob", "A", {"to": "bob"}),
        ("unnamed", "A", {}),
        ("for alice", "A", {"to": "alice"}),
    ]
    for at, (text, kind, meta) in enumerate(said_by):
        origin = "proactive" if kind == "A" else "user"
        tree.add_node(
            text, [1.0, 0.0], node_type=kind, timestamp=10.0 + at, origin=origin, metadata=meta
        )
    said = [n.content for n in window_nodes(tree, "alice", 0.0, None, sent=True)]
    assert said == ["hi", "for alice"]
    assert [n.content for n in window_nodes(tree, "alice", 0.0, None)] == ["hi"]
