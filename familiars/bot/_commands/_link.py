"""``/link [code]``: join a person's accounts on two platforms into one memory."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Command
from familiars.bot._state import BotState
from familiars.memory import MemoryStore, new_id


def _utc_now() -> datetime:
    return datetime.now(UTC)


class LinkCommand(Command):
    def __init__(
        self, store: MemoryStore, state: BotState, *, now: Callable[[], datetime] = _utc_now
    ) -> None:
        super().__init__(
            "link",
            "Link your accounts on different platforms",
            arguments=(Argument("code", "The code from your other account", required=False),),
            handler=self._link,
        )
        self._store = store
        self._state = state
        self._now = now

    async def _link(self, call: Call) -> CommandResponse:
        caller, code = call.caller, call.get("code")
        if code is None:
            code = await self._state.new_link_code(caller.user_key, self._now())
            return CommandResponse(
                f"Your link code is {code}. Within 10 minutes, send /link {code} to me from "
                "your account on the other platform; both accounts will then share one memory."
            )
        result = await self._state.redeem_link_code(
            code, caller.platform, caller.user_id, self._now()
        )
        if result is None:
            return CommandResponse(
                "That code is unknown or expired. Send /link on your other account for a new one."
            )
        old, new = result
        moved = await merge_user_scope(self._store, old, new) if old != new else 0
        return CommandResponse(
            f"Linked. Your accounts now share one memory ({moved} memories moved over)."
        )


async def merge_user_scope(store: MemoryStore, old: str, new: str) -> int:
    """Move every record of person ``old`` into person ``new``'s user scope (duplicates
    collapse into the record already there)."""
    records = await store.list(scope="user", user_key=old, live_only=False)
    if not records:
        return 0
    moved = [r.replace(id=new_id(), user_key=new) for r in records]
    await store.append_many(moved, moved=True)
    for r in records:
        await store.forget(r.id)
    return len(records)
