"""The filters of one :meth:`~familiars.memory.MemoryStore.list`, for
:meth:`~familiars.memory.MemoryStore.read_live` (a turn's one read of several scopes)."""

from __future__ import annotations

from typing import Any, NamedTuple

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

    def admits(self, info: dict[str, Any]) -> bool:
        """Whether a memory file of ``info`` (``owner_from_path``) can hold a match."""
        if self.scope is not None and info["scope"] != self.scope:
            return False
        if self.category is not None and info["category"] != self.category:
            return False
        if self.user_key is not None:
            if info["scope"] == "user" and info["user_key"] != self.user_key:
                return False
            if self.scope is None and info["scope"] != "user":
                # Asking for a person's memories without a scope means their user scope only.
                return False
        if self.agent_id not in (None, info["agent_id"]) and info["scope"] != "user":
            return False
        return self.dialogue_id is None or info["dialogue_id"] in (None, self.dialogue_id)
