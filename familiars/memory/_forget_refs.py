"""The ids forgetting takes besides a record's: a turn (``node:<agent>/<dialogue>/<n>``) and
a document (``file:<file_id>``), read and written in one place; and the turns a record was
written from (:func:`evidence_refs`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from familiars.memory._errors import InvalidIdError
from familiars.memory._paths import AGENT_ID_RE, DIALOGUE_ID_RE
from familiars.memory._records import MemoryRecord

NODE_REF_RE = re.compile(r"^node:(?P<agent>[^/\s]+)/(?P<dialogue>[^/\s]+)/(?P<n>\d{1,9})$")
#: A document (``familiars files``, an attachment): ``file:<file_id>`` as ``/find`` shows it.
FILE_REF_RE = re.compile(r"^file:(?P<id>[0-9a-f]{24})$")


def is_file_ref(text: str) -> bool:
    return FILE_REF_RE.fullmatch(text.strip()) is not None


def file_ref(file_id: str) -> str:
    return f"file:{file_id}"


@dataclass(frozen=True)
class NodeRef:
    agent_id: str
    dialogue_id: str
    node_id: int

    @property
    def key(self) -> str:
        return node_ref(self.agent_id, self.dialogue_id, self.node_id)


def node_ref(agent_id: str, dialogue_id: str, node_id: int) -> str:
    """The id a turn is shown by (the recaller's node key)."""
    return f"node:{agent_id}/{dialogue_id}/{node_id}"


def parse_node_ref(text: str) -> NodeRef:
    m = NODE_REF_RE.fullmatch(text.strip())
    if m is None or not AGENT_ID_RE.match(m["agent"]) or not DIALOGUE_ID_RE.match(m["dialogue"]):
        raise InvalidIdError("turn id", text, "expected node:<agent>/<dialogue>/<n>")
    return NodeRef(m["agent"], m["dialogue"], int(m["n"]))


def is_node_ref(text: str) -> bool:
    return NODE_REF_RE.fullmatch(text.strip()) is not None


AgentsWith = Callable[[str], list[str]]


def evidence_keys(rec: MemoryRecord, agents_with: AgentsWith) -> list[tuple[str, str, int]]:
    return [(r.agent_id, r.dialogue_id, r.node_id) for r in evidence_refs(rec, agents_with)]


def remembered(agents_with: AgentsWith) -> AgentsWith:
    """``agents_with`` asked once per dialogue id (for one pass over many records)."""
    memo: dict[str, list[str]] = {}

    def ask(dialogue_id: str) -> list[str]:
        if dialogue_id not in memo:
            memo[dialogue_id] = agents_with(dialogue_id)
        return memo[dialogue_id]

    return ask


def evidence_refs(rec: MemoryRecord, agents_with: AgentsWith) -> list[NodeRef]:
    """The turns a record was written from (``evidence = {dialogue_id, turn_id}``; the agent
    is the evidence's, the record's for agent scopes, else any agent with that dialogue:
    ``agents_with``, ``DialogTrees.agents_with``)."""
    ev = rec.evidence or {}
    dialogue_id, turn_id = ev.get("dialogue_id"), ev.get("turn_id")
    if not isinstance(dialogue_id, str) or not DIALOGUE_ID_RE.match(dialogue_id):
        return []
    try:
        n = int(turn_id)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return []
    if isinstance(ev.get("agent_id"), str):
        agents = [str(ev["agent_id"])]
    elif rec.scope != "user":
        agents = [rec.agent_id]
    else:
        agents = agents_with(dialogue_id)
    return [NodeRef(a, dialogue_id, n) for a in agents]
