"""Outbound, the one group check (issue 19): every member's notes, kept until they change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from familiars.bot._outbound import Outbound
from familiars.bot._state import BotState
from familiars.memory import MemoryStore, make_record


class Speakers:
    """A dialogue log whose tree lists the people who spoke before the process started."""

    def __init__(self, *keys: str) -> None:
        self.keys = set(keys)

    async def speakers(self, agent_id: str, dialogue_id: str) -> set[str]:
        return set(self.keys)

    async def recent_lines(self, agent_id: str, dialogue_id: str, n: int) -> list[str]:
        return ["user: the quiz is on Friday"]


class CountingStore(MemoryStore):
    lists = 0

    async def list(self, **kw: Any) -> Any:
        CountingStore.lists += 1
        return await super().list(**kw)


async def _setup(workspace: Path) -> tuple[CountingStore, BotState, Any]:
    store = CountingStore(workspace)
    await store.start()
    state = BotState(workspace)
    await state.open()
    for user in ("alice", "bob"):
        await state.person_for("telegram", user, user.title())
    group = await state.dialogue_for(
        "agent_0", "telegram", "g1", None, is_group=True, user_key=None
    )
    return store, state, group


async def test_a_member_who_spoke_before_is_guarded_and_a_new_note_counts_at_once(
    workspace: Path,
) -> None:
    store, state, group = await _setup(workspace)
    try:
        outbound = Outbound(store, state, log=Speakers("telegram_alice"))
        await store.append(
            make_record("The user's cat is Whiskers.", scope="user", category="profile",
                        user_key="telegram_alice")
        )  # fmt: skip
        assert (await outbound.guard(group, "Whiskers says hi")).changed
        before = CountingStore.lists
        assert not (await outbound.guard(group, "Lovely weather")).changed
        assert CountingStore.lists == before, "unchanged notes are not read again"
        await store.append(
            make_record("The user's locker number is 4921.", scope="user", category="profile",
                        user_key="telegram_alice")
        )  # fmt: skip
        assert (await outbound.guard(group, "It's 4 9 2 1")).changed
        # Bob spoke only now: his notes count from his first message on.
        await store.append(
            make_record("The user's partner is Mireille.", scope="user", category="profile",
                        user_key="telegram_bob")
        )  # fmt: skip
        assert not (await outbound.guard(group, "Hi Mireille")).changed
        await outbound.note_member(group, "telegram_bob")
        assert (await outbound.guard(group, "Hi Mireille")).changed
    finally:
        await store.close()
        await state.close()


async def test_a_direct_message_passes_unchanged_and_a_proactive_leak_is_replaced(
    workspace: Path,
) -> None:
    store, state, group = await _setup(workspace)
    try:
        dm = await state.dialogue_for(
            "agent_0", "telegram", "dm", None, is_group=False, user_key="telegram_alice"
        )
        await store.append(
            make_record("The user's locker number is 4921.", scope="user", category="profile",
                        user_key="telegram_alice")
        )  # fmt: skip
        outbound = Outbound(store, state, log=Speakers())
        assert (await outbound.guard(dm, "Your locker is 4921")).text == "Your locker is 4921"
        sent = await outbound.send_to(
            group, "locker number 4921 for Alice", for_person="telegram_alice", what="reminder"
        )
        assert "4921" not in sent
        quiz = await outbound.send_to(group, "The quiz is on Friday!", what="check_in")
        assert quiz == "The quiz is on Friday!"
    finally:
        await store.close()
        await state.close()
