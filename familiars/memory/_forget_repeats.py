"""The person's other messages that say again what a forgotten memory says (pure): "I'm
Mia, 34, dental hygienist in Leeds" repeats the home of "The user lives in Leeds." although
no home memory was noted from it (tester s37). The one Forgetter takes them whole with the
memory, whichever way it was asked (in words, ``/memory forget <id>``, the API, the memory
page, the command line): :meth:`Forgetter.repeating`.

A value is a memory's names (a number only inside one: "12 Park Road"), an age, or its
other words together (:func:`~familiars.memory._forget_values.values_of`), and a message
says one only in its own words (:func:`~familiars.memory._forget_values.mentions`: the
phrase whole; an everyday word or a bare number only beside the slot's words; never the
bot's name). Only the memory's own person's messages are read, in every dialogue (their
own words are theirs wherever said; another's message is never taken), and the bot's
replies to them (what answered their message, or was sent to them unasked): a forget
"everywhere" left "I'll use Dublin time (Europe/Dublin) for your reminders" in the tree
after "forget where I live" (tester s39). A memory with no person, such as an agent's,
has none."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from familiars.memory._dialog_tree import DialogTree, Node, is_forgotten
from familiars.memory._errors import RecordNotFoundError
from familiars.memory._forget_refs import NodeRef
from familiars.memory._forget_values import mentions, slots_of, values_of
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore


@dataclass(frozen=True)
class Repeat:
    """A message that says again a value of a memory that goes, which values, and the ids
    of the memories whose values they are."""

    ref: NodeRef
    values: tuple[str, ...]
    text: str
    records: tuple[str, ...] = ()
    #: A reply of the bot's to the person, not a message of theirs.
    reply: bool = False


def record_values(rec: MemoryRecord) -> list[str]:
    """What of ``rec`` another message may say again (numbers only for a slot's record: an
    age, not a reminder's "at 10")."""
    return values_of(rec.content, numbers=bool(slots_of(rec)))


async def forgotten_with(
    store: MemoryStore,
    record_ids: Sequence[str],
    merged_away: Callable[[MemoryRecord], list[str]],
) -> list[MemoryRecord]:
    """The records a forget of ``record_ids`` takes: each, and down its chains the
    deprecated records it was merged from or replaced (as ``Forgetter._forget_record``
    follows them); missing ones are skipped."""
    found: list[MemoryRecord] = []
    todo, seen = list(record_ids), set[str]()
    while todo:
        record_id = todo.pop(0)
        if record_id in seen:
            continue
        seen.add(record_id)
        try:
            rec = await store.get(record_id)
        except RecordNotFoundError:
            continue
        if record_id in record_ids or rec.deprecated:
            found.append(rec)
            todo += [*merged_away(rec), *([rec.supersedes] if rec.supersedes else [])]
    return found


def by_record(
    records: Sequence[MemoryRecord], repeats: Iterable[Repeat]
) -> dict[str, list[NodeRef]]:
    """The messages of ``repeats`` by the id of each record (of ``records``) they repeat."""
    found: dict[str, list[NodeRef]] = {r.id: [] for r in records}
    for rep in repeats:
        for record_id in rep.records:
            found.setdefault(record_id, []).append(rep.ref)
    return found


def _bot_names(trees: Sequence[DialogTree]) -> set[str]:
    """The agents' ids and the names the bot spoke under: a person greeting the bot by its
    name ("The user calls the familiar Luna.") says nothing of theirs."""
    names = {str(t.agent_id or "").lower() for t in trees}
    for tree in trees:
        for node in tree.node_list:
            if node.node_type == "A" and isinstance(node.metadata.get("speaker"), str):
                names.add(str(node.metadata["speaker"]).lower())
    return names


def repeats_of(
    records: Sequence[MemoryRecord],
    trees: Iterable[DialogTree],
    *,
    besides: Iterable[str] = (),
    names: Iterable[str] = (),
) -> list[Repeat]:
    """The messages (not yet forgotten, not in ``besides``: turn keys) of each record's
    person, their own words only (never another's message in a group), and the bot's
    replies to them, that say a value of it as
    :func:`~familiars.memory._forget_values.mentions` reads it, in tree order. One pass
    over the messages for all the records."""
    trees = list(trees)
    bots = _bot_names(trees) | {n.lower() for n in names}  # ``names``: the agents' own
    # user_key -> (value, slots of its record, record id, whether a reply may say it)
    wanted: dict[str, list[tuple[str, frozenset[str], str, bool]]] = {}
    for rec in records:
        if rec.user_key:
            slots = frozenset(slots_of(rec))
            # A reminder's or promise's values are the bot's own wording of its time ("8
            # December", "UTC"), which many replies say: its replies are those that name it
            # (their ``uses`` and ``loops``), taken with the quotes.
            replies = rec.open_loop is None
            wanted.setdefault(rec.user_key, []).extend(
                (v, slots, rec.id, replies) for v in record_values(rec) if v.lower() not in bots
            )
    skip = set(besides)
    found: list[Repeat] = []
    for tree in trees:
        assert tree.agent_id is not None and tree.dialogue_id is not None
        for node in tree.node_list:
            values = wanted.get(_whose(tree, node))
            if not values or is_forgotten(node):
                continue
            if node.node_type == "A" and node.parent is not None:
                asked = NodeRef(tree.agent_id, tree.dialogue_id, node.parent).key
                if asked in skip:  # it goes with the message it answers
                    continue
            ref = NodeRef(tree.agent_id, tree.dialogue_id, node.id)
            reply = node.node_type == "A"
            hits = [
                (v, r)
                for v, slots, r, replies in values
                if (replies or not reply) and mentions(v, node.content, slots)
            ]
            if hits and ref.key not in skip:
                said = tuple(dict.fromkeys(v for v, _ in hits))
                ids = tuple(dict.fromkeys(r for _, r in hits))
                found.append(Repeat(ref, said, node.content, ids, reply))
                skip.add(ref.key)  # a reply to this message goes with it
    return found


def _whose(tree: DialogTree, node: Node) -> str:
    """The person a node is of: a message's sender; for a reply of the bot, the sender of
    the message it answers, or whom a message sent unasked was for ("" when none)."""
    if node.node_type == "Q":
        return str(node.metadata.get("user_key") or "")
    if node.node_type != "A":
        return ""
    to = node.metadata.get("to")
    if isinstance(to, str):
        return to
    parent = node.parent
    if parent is None or not 0 <= parent < len(tree.node_list):
        return ""
    asked = tree.node_list[parent]
    return str(asked.metadata.get("user_key") or "") if asked.node_type == "Q" else ""


__all__ = ["Repeat", "by_record", "forgotten_with", "record_values", "repeats_of"]
