"""What forgetting a person's turns would take, read without taking anything: the question
"forget what I said in the last 2 minutes" says exactly this, and the forget that follows
(:meth:`~familiars.memory.Forgetter.forget_turns`) takes the same (tester T12: "9 messages"
asked, "1 memory and 26 messages" forgotten, with no word of the replies that went too).

- :func:`quoting` - the rule both use: which turns of a dialogue go with forgotten texts
  (replies that quote or drew on them, replies to forgotten turns, the owner's own turns
  that quote them).
- :func:`window_nodes` - what a time window of a dialogue holds of one person: their turns
  and the messages the bot sent them unasked (a reminder that fired).
- :class:`TurnsPlan` - the turns, their replies, the messages sent unasked, the memories
  noted from them and the other replies that repeated them; :meth:`TurnsPlan.split` sorts a
  forget's report the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from familiars.memory._dialog_tree import DialogTree, Node, is_forgotten
from familiars.memory._forget_files import Forgotten, forgotten_of
from familiars.memory._records import MemoryRecord


def quoting(
    tree: DialogTree,
    gone: Collection[int],
    match: Forgotten,
    records: Collection[str],
    owner: str | None,
) -> list[int]:
    """The nodes of ``tree`` (not in ``gone``) that go with the forgotten texts of
    ``match``: every reply that quotes or echoes one, drew on a forgotten record (its
    ``uses``; a reminder sent, its ``loops``) or answers a forgotten turn, and every turn
    of ``owner`` that quotes one. A record said back ("You like tea.") or in other words
    is said to whom the bot spoke: with an ``owner``, only replies in a dialogue they spoke
    in count for those."""
    theirs = owner is None or any(n.metadata.get("user_key") == owner for n in tree.node_list)

    def goes(n: Node) -> bool:
        if n.node_type == "A":
            # what a reply drew on; what a message sent unasked followed up (a reminder)
            uses = set(n.metadata.get("uses") or ()) | set(n.metadata.get("loops") or ())
            return bool(
                match.quoted_in(n.content, said_back=theirs)
                or uses & set(records)
                or n.parent in gone
                or (theirs and match.echoed_in(n.content))
            )
        return bool(
            owner
            and n.metadata.get("user_key") == owner
            and match.quoted_in(n.content, said_back=False)
        )

    return [n.id for n in tree.node_list if n.id not in gone and goes(n)]


def window_nodes(
    tree: DialogTree,
    user_key: str,
    since: float,
    until: float | None,
    *,
    sent: bool = False,
) -> list[Node]:
    """The nodes of ``tree`` in a time window that are ``user_key``'s: their own turns, and
    with ``sent`` the bot's proactive messages to them (a reminder that fired inside "the
    last 10 minutes" stayed after the window was forgotten: tester s36). A proactive message
    is theirs when it names them (``to``), or, for one that names no one, when no one else
    spoke in the dialogue."""
    speakers = {n.metadata.get("user_key") for n in tree.node_list if n.node_type == "Q"}
    alone = speakers == {user_key}

    def theirs(n: Node) -> bool:
        if n.node_type == "Q":
            return n.metadata.get("user_key") == user_key
        if not sent or n.origin != "proactive":
            return False
        to = n.metadata.get("to")
        return to == user_key if to else alone

    return [
        n
        for n in tree.node_list
        if not is_forgotten(n)
        and n.timestamp >= since
        and (until is None or n.timestamp <= until)
        and theirs(n)
    ]


@dataclass(frozen=True)
class TurnsPlan:
    """What forgetting some of a person's turns takes (node and record ids)."""

    turns: tuple[str, ...] = ()
    replies: tuple[str, ...] = ()
    records: tuple[str, ...] = ()
    echoes: tuple[str, ...] = ()
    #: The bot's own messages of the window, sent unasked (a reminder that fired).
    sent: tuple[str, ...] = ()

    def split(self, nodes: Sequence[str]) -> tuple[int, int, int, int]:
        """A forget's nodes counted as (turns asked for, replies to them, messages sent
        unasked, other messages)."""
        turns = sum(1 for n in nodes if n in self.turns)
        replies = sum(1 for n in nodes if n in self.replies)
        sent = sum(1 for n in nodes if n in self.sent)
        return turns, replies, sent, len(nodes) - turns - replies - sent


Key = tuple[str, str, int]


def plan_turns(
    turns: Sequence[Key],
    trees: Sequence[DialogTree],
    records: Sequence[MemoryRecord],
    evidence: Callable[[MemoryRecord], list[Key]],
    ref: Callable[[str, str, int], str],
) -> TurnsPlan:
    """The steps of ``Forgetter._forget_turn_refs`` read only: the turns, the records whose
    evidence is one of them, then one pass of :func:`quoting` a turn's owner."""
    wanted = set(turns)
    by_tree = {(str(t.agent_id), str(t.dialogue_id)): t for t in trees}
    gone: dict[tuple[str, str], set[int]] = {
        k: {n.id for n in t.node_list if is_forgotten(n)} for k, t in by_tree.items()
    }
    texts: list[str] = []
    replies_said: list[str] = []  # the replies' texts: matched only whole, as the forget does
    owners: dict[str, None] = {}
    for a, d, n in turns:
        node = by_tree[(a, d)].node_list[n]
        texts.append(node.content)
        if node.node_type == "A":
            replies_said.append(node.content)
        owners[str(node.metadata.get("user_key") or "")] = None
        gone[(a, d)].add(n)
    noted = [r for r in records if any(k in wanted for k in evidence(r))]
    texts += [r.content for r in noted]
    taken = {r.id for r in noted}
    replies: list[str] = []
    echoes: list[str] = []
    for owner in owners or {"": None}:
        match = forgotten_of([], texts, replies=replies_said)
        for key, tree in by_tree.items():
            for node_id in quoting(tree, gone[key], match, taken, owner or None):
                node = tree.node_list[node_id]
                answered = node.node_type == "A" and (key[0], key[1], node.parent) in wanted
                (replies if answered else echoes).append(ref(key[0], key[1], node_id))
                gone[key].add(node_id)
                texts.append(node.content)
                if node.node_type == "A":
                    replies_said.append(node.content)
    sent = tuple(
        ref(a, d, n) for a, d, n in turns if by_tree[(a, d)].node_list[n].origin == "proactive"
    )
    return TurnsPlan(
        tuple(ref(*k) for k in turns if ref(*k) not in sent),
        tuple(replies),
        tuple(r.id for r in noted),
        tuple(echoes),
        sent,
    )


__all__ = ["TurnsPlan", "plan_turns", "quoting", "window_nodes"]
