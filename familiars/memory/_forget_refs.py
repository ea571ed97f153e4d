"""The ids forgetting takes besides a record's: a turn (``node:<agent>/<dialogue>/<n>``) and
a document (``file:<file_id>``), read and written in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass

from familiars.memory._errors import InvalidIdError
from familiars.memory._paths import AGENT_ID_RE, DIALOGUE_ID_RE

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
