"""The person's other messages that say again what a forgotten memory says (pure): "I'm
Mia, 34, dental hygienist in Leeds" repeats the home of "The user lives in Leeds." although
no home memory was noted from it (tester s37). The one Forgetter takes them whole with the
memory, whichever way it was asked (in words, ``/memory forget <id>``, the API, the memory
page, the command line): :meth:`Forgetter.repeating`.

A value is a memory's names and numbers, or its other words together
(:func:`~familiars.memory._forget_values.values_of`); only the memory's own person's
messages are read (a memory with no person, such as an agent's, has none)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from familiars.memory._dialog_tree import DialogTree, is_forgotten
from familiars.memory._forget_refs import NodeRef
from familiars.memory._forget_values import mentions, slots_of, values_of
from familiars.memory._records import MemoryRecord


@dataclass(frozen=True)
class Repeat:
    """A message that says again a value of a memory that goes, and which values."""

    ref: NodeRef
    values: tuple[str, ...]
    text: str


def record_values(rec: MemoryRecord) -> list[str]:
    """What of ``rec`` another message may say again (numbers only for a slot's record: an
    age, not a reminder's "at 10")."""
    return values_of(rec.content, numbers=bool(slots_of(rec)))


def repeats_of(
    records: Sequence[MemoryRecord], trees: Iterable[DialogTree], *, besides: Iterable[str] = ()
) -> list[Repeat]:
    """The messages (not yet forgotten, not in ``besides``: turn keys) of each record's
    person that say a value of it, in tree order."""
    wanted: dict[str, list[str]] = {}
    for rec in records:
        if rec.user_key:
            wanted.setdefault(rec.user_key, []).extend(record_values(rec))
    skip = set(besides)
    found: list[Repeat] = []
    for tree in trees:
        assert tree.agent_id is not None and tree.dialogue_id is not None
        for node in tree.node_list:
            values = wanted.get(str(node.metadata.get("user_key") or ""))
            if node.node_type != "Q" or not values or is_forgotten(node):
                continue
            ref = NodeRef(tree.agent_id, tree.dialogue_id, node.id)
            said = tuple(dict.fromkeys(v for v in values if mentions(v, node.content)))
            if said and ref.key not in skip:
                found.append(Repeat(ref, said, node.content))
    return found


__all__ = ["Repeat", "record_values", "repeats_of"]
