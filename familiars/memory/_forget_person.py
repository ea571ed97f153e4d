"""Forgetting a whole person: ``/memory forget everything``, "forget everything about me",
``familiars memory forget --person KEY``, and ``person:KEY`` on the control socket and the
HTTP API. The :class:`~familiars.memory.Forgetter` does it (``forget_all`` with a
``person:`` id); this module says what is the person's and what stays.

Map:

- :func:`person_ref` / :func:`is_person_ref` / :func:`parse_person_ref` - ``person:<key>``.
- :class:`PeopleForgetting` - what the bot's state gives the Forgetter: every key of one
  person (the key asked for and each account ``/link`` joined to it), and forgetting what
  the bot keeps of them beside the memory (names, time zone, links, web sign-ins).
- :func:`person_scope` - what is theirs, found once for the question and for the forget.
- :class:`PersonHoldings` - that, counted (the question names the counts).

What is theirs, under every key of theirs: their messages in every dialogue, private and
group, on every platform (turns whose ``user_key`` is theirs); every dialogue no one else
spoke in (a private chat), the bot's messages there too; their user scope, each record with
its history; the reminders and open loops they asked for, wherever kept; the dialogue scope
of a dialogue of their own; every record written from one of their messages (its
``evidence``, as :meth:`Forgetter.forget_turns` reads it); every reply that quoted or
echoed what goes; their documents (attachments). The derived copies (vectors, keyword
terms, recall caches, the people graph, the queue, the state JSON, the logs) go as for any
forget. Their name leaves the tombstones left where their messages were.

What stays (:data:`KEPT`): that the account exists (its key, which names the platform id)
with its ``/proactive off`` and any care pause, so that it is not contacted again; which
chat is which dialogue, with tombstones where the messages were (no words; a private chat's
last-activity times go, so no check-in follows); each reminder's ledger line (when it was
sent, not what it said), so none is sent again. Linked accounts are unlinked: each stays an
account of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from familiars.memory._dialog_tree import DialogTree, is_forgotten
from familiars.memory._paths import USER_KEY_RE
from familiars.memory._records import MemoryRecord

PERSON_REF_RE = re.compile(r"^person:(?P<key>[A-Za-z0-9][A-Za-z0-9_-]{0,63})$")

#: What a whole-person forget keeps, said in its question, its answer and the README.
KEPT = (
    "Kept: that your account exists (and your /proactive off, if you set it, so I do not "
    "message you again), which chat was which conversation with empty places where your "
    "messages were, and when each reminder was sent (never what it said). Linked accounts "
    "are unlinked."
)


def person_ref(user_key: str) -> str:
    return f"person:{user_key}"


def is_person_ref(text: str) -> bool:
    return PERSON_REF_RE.fullmatch(text.strip()) is not None


def parse_person_ref(text: str) -> str:
    m = PERSON_REF_RE.fullmatch(text.strip())
    assert m is not None and USER_KEY_RE.fullmatch(m["key"])
    return m["key"]


class PeopleForgetting(Protocol):
    """The bot's state, as a whole-person forget needs it (``familiars.bot``)."""

    async def keys_of(self, user_key: str) -> list[str]:
        """Every key of the person ``user_key`` is one of (``/link``); [] for a key the bot
        has no person for."""
        ...

    async def forget_people(self, keys: Sequence[str]) -> list[str]:
        """Forget what the bot keeps of them beside the memory (see the module map);
        what went, in words."""
        ...


@dataclass(frozen=True)
class PersonHoldings:
    """What forgetting a person would remove, counted."""

    keys: tuple[str, ...]
    memories: int = 0
    reminders: int = 0
    open_loops: int = 0
    messages: int = 0
    #: The bot's messages that go with theirs (replies, reminders sent in their chats).
    replies: int = 0
    dialogues: int = 0
    groups: int = 0
    files: int = 0
    platforms: tuple[str, ...] = ()
    #: Entries of their files that do not parse (edited by hand): they go too.
    unread: int = 0

    @property
    def empty(self) -> bool:
        return not (self.memories or self.messages or self.files or self.dialogues or self.unread)

    def as_dict(self) -> dict[str, Any]:
        return {
            "keys": list(self.keys),
            "memories": self.memories,
            "reminders": self.reminders,
            "open_loops": self.open_loops,
            "messages": self.messages,
            "replies": self.replies,
            "dialogues": self.dialogues,
            "groups": self.groups,
            "files": self.files,
            "platforms": list(self.platforms),
            "unread": self.unread,
        }


@dataclass
class PersonScope:
    """What is the person's (see the module map)."""

    keys: frozenset[str]
    #: (agent, dialogue, node) of their own messages not yet forgotten.
    turns: list[tuple[str, str, int]] = field(default_factory=list)
    #: Their messages forgotten before (a record noted from one since still goes).
    gone: list[tuple[str, str, int]] = field(default_factory=list)
    #: Dialogues no one else spoke in: all of each goes.
    own: list[DialogTree] = field(default_factory=list)
    #: (agent, dialogue) of each of :attr:`own`.
    own_ids: set[tuple[str, str]] = field(default_factory=set)
    #: Dialogues they spoke in with others (a group).
    shared: int = 0
    records: list[MemoryRecord] = field(default_factory=list)
    platforms: set[str] = field(default_factory=set)
    #: The bot's messages that go with them: all of it in :attr:`own`, the replies to
    #: their messages elsewhere.
    replies: int = 0

    def holdings(self, live: set[str], files: int, unread: int = 0) -> PersonHoldings:
        """Counted as the forget will count what it took (``ForgetReport``): every memory
        of theirs, the replaced ones too (tester s36: "22" asked, 29 forgotten)."""
        mine = [r for r in self.records if r.id in live]
        # Still to come only, as /reminders lists them (tester F10: a cancelled one was
        # counted); a closed one still goes, counted among the memories.
        loops = [r.open_loop for r in mine if r.open_loop and _is_open(r.open_loop)]
        reminders = sum(1 for loop in loops if loop.get("kind") == "reminder")
        return PersonHoldings(
            keys=tuple(sorted(self.keys)),
            memories=len(self.records),
            reminders=reminders,
            open_loops=len(loops) - reminders,
            messages=len(self.turns),
            replies=self.replies,
            dialogues=len(self.own) + self.shared,
            groups=self.shared,
            files=files,
            platforms=tuple(sorted(self.platforms)),
            unread=unread,
        )


def _is_open(loop: dict[str, Any]) -> bool:
    return loop.get("status", "open") == "open"


def read_trees(scope: PersonScope, trees: Sequence[DialogTree]) -> None:
    """Their messages, and the dialogues that are theirs alone, in ``trees``."""
    for tree in trees:
        assert tree.agent_id is not None and tree.dialogue_id is not None
        speakers = {
            str(n.metadata.get("user_key"))
            for n in tree.node_list
            if n.node_type == "Q" and n.metadata.get("user_key")
        }
        if not speakers & scope.keys:
            continue
        for n in tree.node_list:
            if n.node_type == "Q" and n.metadata.get("user_key") in scope.keys:
                ref = (tree.agent_id, tree.dialogue_id, n.id)
                (scope.gone if is_forgotten(n) else scope.turns).append(ref)
                if isinstance(n.metadata.get("platform"), str):
                    scope.platforms.add(str(n.metadata["platform"]))
        live = {n.id for n in tree.node_list if not is_forgotten(n)}
        if speakers <= scope.keys:
            scope.own.append(tree)
            scope.own_ids.add((tree.agent_id, tree.dialogue_id))
            scope.replies += sum(1 for n in tree.node_list if n.node_type == "A" and n.id in live)
        else:
            scope.shared += 1
            theirs = {t[2] for t in scope.turns if t[:2] == (tree.agent_id, tree.dialogue_id)}
            scope.replies += sum(
                1
                for n in tree.node_list
                if n.node_type == "A" and n.id in live and n.parent in theirs
            )


def is_theirs(
    rec: MemoryRecord,
    scope: PersonScope,
    said: set[tuple[str, str, int]],
    evidence: list[tuple[str, str, int]],
) -> bool:
    """Whether a record goes with the person: theirs, asked by them, of a dialogue of
    their own, or written from something said in ``said`` (its ``evidence``)."""
    if rec.scope == "user" and rec.user_key in scope.keys:
        return True
    loop = rec.open_loop
    if loop and loop.get("user_key") in scope.keys:
        return True
    own = scope.own_ids
    if rec.scope == "dialogue" and (rec.agent_id, rec.dialogue_id) in own:
        return True
    return any(e in said or (e[0], e[1]) in own for e in evidence)


__all__ = [
    "KEPT",
    "PeopleForgetting",
    "PersonHoldings",
    "PersonScope",
    "is_person_ref",
    "is_theirs",
    "parse_person_ref",
    "person_ref",
    "read_trees",
]
