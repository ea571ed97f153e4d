"""The filters of one :meth:`~familiars.memory.MemoryStore.list`, for
:meth:`~familiars.memory.MemoryStore.read_live` (a turn's one read of several scopes)."""

from __future__ import annotations

from typing import NamedTuple

from familiars.memory._paths import check_agent_id, check_dialogue_id, check_user_key


class ListQuery(NamedTuple):
    """The filters of one ``MemoryStore.list`` (its live records, oldest first)."""

    scope: str | None = None
    category: str | None = None
    user_key: str | None = None
    agent_id: str | None = None
    dialogue_id: str | None = None

    def check(self) -> None:
        if self.user_key is not None:
            check_user_key(self.user_key)
        if self.agent_id is not None:
            check_agent_id(self.agent_id)
        if self.dialogue_id is not None:
            check_dialogue_id(self.dialogue_id)
