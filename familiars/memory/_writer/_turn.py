"""TurnContext: what the runtime hands the writer after a reply (JSON, so the queue can
persist it and a crash loses no turn).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from familiars.memory._records import parse_ts, utcnow
from familiars.memory._writer._rights import Speaker, asks_behaviour

logger = logging.getLogger(__name__)


@dataclass
class TurnContext:
    """What the runtime hands the writer after a reply. ``user_text`` is the message as the
    model may see it (privacy redactions already applied). JSON-serialisable."""

    agent_id: str
    dialogue_id: str | None
    user_key: str | None
    user_text: str
    reply_text: str = ""
    recent: list[str] = field(default_factory=list)
    turn_id: int | str | None = None
    turn_counter: int | None = None
    timezone: str = "UTC"
    now: str = ""
    #: Who spoke (see :mod:`familiars.memory._writer._rights`). The defaults are the safe
    #: values, so a turn queued before these fields existed changes no one else's memory.
    is_owner: bool = False
    is_group: bool = True
    #: The turn's prompt held text the speaker did not write (documents, other people's
    #: words): nothing from it changes how the agent behaves. A queued turn from before this
    #: field existed reads as tainted (:meth:`from_json`), the safe value.
    tainted: bool = False
    #: The offline writer's writes for this turn (``WriteOp`` dumps), worked out on the hot
    #: path over the records the turn read (issue 20: the offline writer runs once); an
    #: offline writer applies these instead of working them out again. None: it works them
    #: out itself (a model writer always does).
    offline_writes: list[dict[str, Any]] | None = None

    def when(self) -> datetime:
        return parse_ts(self.now) or utcnow()

    def speaker(self) -> Speaker:
        return Speaker(
            is_owner=self.is_owner is True,
            is_group=self.is_group is not False,
            tainted=self.tainted is not False,
            asked_behaviour=asks_behaviour(self.user_text),
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> TurnContext:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a queued turn must be a JSON object")
        known = {f for f in cls.__dataclass_fields__}
        fields = {k: v for k, v in data.items() if k in known}
        fields.setdefault("tainted", True)
        _check_types(fields)
        return cls(**fields)


_TEXT_FIELDS = ("agent_id", "user_text", "reply_text", "timezone", "now")
_OPTIONAL_TEXT_FIELDS = ("dialogue_id", "user_key")


def _check_types(fields: dict[str, Any]) -> None:
    """Refuse (``TypeError``) a queued turn whose fields have the wrong types, so that it is
    set aside at once instead of failing somewhere deep in the writer."""
    for name in _TEXT_FIELDS:
        if name in fields and not isinstance(fields[name], str):
            raise TypeError(f"a queued turn's {name} must be text")
    for name in _OPTIONAL_TEXT_FIELDS:
        if fields.get(name) is not None and not isinstance(fields[name], str):
            raise TypeError(f"a queued turn's {name} must be text or null")
    recent = fields.get("recent", [])
    if not isinstance(recent, list) or not all(isinstance(line, str) for line in recent):
        raise TypeError("a queued turn's recent must be a list of text")
    counter = fields.get("turn_counter")
    if counter is not None and (isinstance(counter, bool) or not isinstance(counter, int)):
        raise TypeError("a queued turn's turn_counter must be an integer or null")
    writes = fields.get("offline_writes")
    if writes is not None and not (
        isinstance(writes, list) and all(isinstance(w, dict) for w in writes)
    ):
        raise TypeError("a queued turn's offline_writes must be a list of objects or null")
