"""The one value a turn is: :class:`Turn` (who, where, what was said, what memory was read
once, what was recalled, the prompt, what the reply says it did, the reply), and the shapes
of what it is made of.

Map:

- :class:`Turn` - filled in by the stages of :mod:`familiars.bot._stages`, in order
  (receive, record the message, read the person's records, plan, recall, compose, answer,
  send, after); each stage reads the fields earlier stages set and sets its own;
- :class:`RecalledItem` - one recalled record or dialogue node as the turn sees it;
- :class:`QueryNode` - the message's node as added, with the vector it was embedded to;
- :class:`Recaller`, :class:`DialogueLog` - what the turn needs of recall and of the
  per-dialogue topic tree (the runtime's ``ReaderRecaller`` and ``TreeLog``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from familiars.bot._untrusted import TurnTaint

if TYPE_CHECKING:
    import asyncio

    import numpy as np

    from familiars.bot._adapters.base import IncomingMessage
    from familiars.bot._home_zone import PersonZone
    from familiars.bot._prompt import BranchTurn
    from familiars.bot._state import DialogueInfo
    from familiars.bot._turn_plan import TurnPlan
    from familiars.config import AgentSettings
    from familiars.llm import ChatMessage
    from familiars.memory import MemoryRecord, TurnContext


@dataclass
class RecalledItem:
    id: str
    kind: str  # "record" | "node"
    text: str
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    record_ids: tuple[str, ...] = ()
    #: A user-scope memory: the speaker's own, never to be quoted in a group.
    private: bool = False
    #: Text the speaker did not write (another person's words, a group's shared notes, a
    #: record written in a tainted turn): recalling it taints the turn (issue 19).
    foreign: bool = False
    #: The raw evidence behind the score (``cosine``, ``bm25``: ``RecallItem.raw``).
    raw: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class QueryNode:
    """The message's node as added: its id, and the text embedded as the query (the
    message as the model may see it) with that vector, which the turn reuses."""

    id: int
    query: str
    vector: np.ndarray


@dataclass
class Turn:
    """One message's turn, from the message to what is written after the reply."""

    # --- receive: who, where, what was said
    message: IncomingMessage
    #: The message's text, cleaned (printable, within the size limit).
    text: str
    agent: AgentSettings
    user_key: str
    info: DialogueInfo
    now: datetime
    #: ``time.perf_counter()`` at the start (the reply node's timestamp follows it).
    started: float
    #: Characters of an over-long message left out (the reply says so); 0: all read.
    left_out: int = 0
    # --- record the message
    #: The text the model may see (secrets masked).
    said: str = ""
    #: The message's Q node.
    q_id: int = -1
    #: ``said``'s vector as recall's query (None: not embedded as it is); the plan's
    #: understanding and the care check read it rather than embedding the message again.
    said_vector: np.ndarray | None = None
    #: Lines added after the reply (attachments saved).
    notes: list[str] = field(default_factory=list)
    #: The message's writer work being queued, held while the turn runs: its name; "" when
    #: it was queued before (the message's turn ran again); None: not held (queued after).
    held: asyncio.Task[str | None] | None = None
    # --- read once: the person's live records (user scope, the agent's identity, the
    # dialogue's shared and ephemeral records), for the plan, the profile and directives
    records: list[MemoryRecord] = field(default_factory=list)
    #: ``records`` are read (the read stage ended): what is derived from them may be kept.
    records_read: bool = False
    #: What ``records`` say of where the person lives, and the zone they are in, each
    #: read once (``_home_zone.turn_zone``; None: not yet; no homes in a group).
    homes: list[str] | None = None
    zone: PersonZone | None = None
    # --- plan: care, actions, reminders (what the reply will say it did)
    plan: TurnPlan | None = None
    # --- recall
    recalled: list[RecalledItem] = field(default_factory=list)
    recall_ms: float = 0.0
    #: Document passages for the message (searched beside recall; none in a group).
    passages: list[str] = field(default_factory=list)
    # --- compose
    messages: list[ChatMessage] = field(default_factory=list)
    #: Why the prompt holds text the speaker did not write (issue 19).
    taint: TurnTaint = field(default_factory=TurnTaint)
    # --- send
    reply: str = ""
    #: What the writer reads of the turn (None: nothing, or no writer), made before the
    #: reply's node may join the tree (``keep_reply``); ``after`` queues it.
    writer_context: TurnContext | None = None
    #: Milliseconds each stage took (``DialogueManager._turn`` marks them; bench turn).
    spent: dict[str, float] = field(default_factory=dict)

    def mark(self, stage: str) -> None:
        """``stage`` ended now: its time is what passed since the last mark (or the start)."""
        now = time.perf_counter()
        self.spent[stage] = (now - self.started) * 1000 - sum(self.spent.values())

    @property
    def key(self) -> tuple[str, str]:
        return (self.agent.id, self.info.dialogue_id)


class Recaller(Protocol):
    async def recall(
        self,
        query: str,
        *,
        agent_id: str,
        dialogue_id: str | None,
        user_key: str | None,
        is_group: bool,
        now: datetime,
        k: int,
        exclude_node: int | None = None,
    ) -> list[RecalledItem]: ...

    async def flush_access(self) -> int: ...


class DialogueLog(Protocol):
    """The per-dialogue topic tree, as the turn needs it."""

    async def add_user_node(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        text: str,
        timestamp: float,
        metadata: dict[str, Any],
    ) -> QueryNode: ...

    async def durable(self, agent_id: str, dialogue_id: str) -> None:
        """The message :meth:`add_user_node` added is on disk (before anything is sent)."""

    async def add_reply_node(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        parent: int | None,
        text: str,
        timestamp: float,
        origin: str,
        metadata: dict[str, Any],
    ) -> int: ...

    async def defer_reply_node(
        self,
        agent_id: str,
        dialogue_id: str,
        *,
        parent: int | None,
        text: str,
        timestamp: float,
        origin: str = ...,
        metadata: dict[str, Any] | None = ...,
    ) -> None: ...

    def embed_later(self, agent_id: str, dialogue_id: str) -> None:
        """The provisional messages' own vectors, in the background (a turn with no reply)."""

    async def flush_all(self) -> None: ...

    async def branch(
        self, agent_id: str, dialogue_id: str, node_id: int, *, max_chars: int | None = None
    ) -> list[BranchTurn]: ...

    async def recent_lines(self, agent_id: str, dialogue_id: str, n: int) -> list[str]: ...


__all__ = ["DialogueLog", "RecalledItem", "Recaller", "Turn"]
