"""Wiring the scheduler into the runtime: where proactive messages go
(:class:`RuntimeSender`, through the :class:`RunningAdapters`), what the decider knows of each
dialogue (:class:`StateDirectory`), and the /proactive switch (:func:`proactive_switch`).
Each piece is given only what it uses; the runtime builds them in order."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from familiars.bot._adapters.base import PlatformAdapter
from familiars.bot._commands import Caller
from familiars.bot._home_zone import effective_zone, zone_of
from familiars.bot._outbound import Outbound
from familiars.bot._state import BotState
from familiars.bot._state import DialogueInfo as BotDialogue
from familiars.bot._turn import DialogueLog
from familiars.memory import MemoryStore, StoreChange, parse_ts
from familiars.scheduler import DialogueInfo, ProactiveMessage, Scheduler

logger = logging.getLogger(__name__)


class UndeliverableError(RuntimeError):
    """No running adapter can reach the dialogue (the message is tried again later)."""


class RunningAdapters:
    """The adapters started and not yet stopped, by platform name. The runtime adds each one
    once its ``start`` returns and takes it out before its ``stop``; proactive messages go
    only to adapters listed here."""

    def __init__(self) -> None:
        self._by_name: dict[str, PlatformAdapter] = {}

    def add(self, adapter: PlatformAdapter) -> None:
        self._by_name[adapter.name] = adapter

    def discard(self, adapter: PlatformAdapter) -> None:
        if self._by_name.get(adapter.name) is adapter:
            del self._by_name[adapter.name]

    def get(self, platform: str) -> PlatformAdapter | None:
        return self._by_name.get(platform)

    def reaching(self, dialogue: BotDialogue) -> PlatformAdapter | None:
        """The running adapter that can deliver into ``dialogue``'s chat now, or None (the
        terminal of another person is not theirs: their message waits)."""
        adapter = self._by_name.get(dialogue.platform)
        return adapter if adapter is not None and adapter.reaches(dialogue.chat_id) else None

    def __len__(self) -> int:
        return len(self._by_name)


class RuntimeSender:
    """Sends through the platform that owns the dialogue, after the one group check
    (:class:`~familiars.bot._outbound.Outbound`), and records what it sent as an A node
    with ``origin="proactive"``."""

    def __init__(
        self,
        state: BotState,
        log: DialogueLog,
        adapters: RunningAdapters,
        *,
        outbound: Outbound,
        clock: Callable[[], datetime],
    ) -> None:
        self.state = state
        self.log = log
        self.adapters = adapters
        self.outbound = outbound
        self.clock = clock

    async def send_proactive(self, message: ProactiveMessage) -> None:
        target = await self._target(message)
        if target is None:
            raise UndeliverableError(
                f"no dialogue to reach {message.user_key or message.dialogue_id}"
            )
        adapter = self.adapters.reaching(target)
        if adapter is None:  # not sent, so not recorded sent: tried again at the next tick
            raise UndeliverableError(
                f"the {target.platform} chat {target.chat_id} is not open"
                if self.adapters.get(target.platform) is not None
                else f"the {target.platform} adapter is not running"
            )
        # Never in the middle of a turn of that dialogue, on any worker: the tree gets the
        # message's node after the turn's (a worker's copy of the tree is read again first).
        async with self.state.files.home.dialogue_lock(target.agent_id, target.dialogue_id):
            await self._deliver(adapter, target, message)

    async def _deliver(
        self, adapter: PlatformAdapter, target: BotDialogue, message: ProactiveMessage
    ) -> None:
        text = await self.outbound.send_to(
            target, message.text, for_person=message.user_key, what=message.kind
        )
        await adapter.send(target.chat_id, text, thread_id=target.thread_id)
        if message.delivered is not None:  # the platform took it: said before all else
            await message.delivered()
        sent_at = message.at or self.clock()
        await self.log.add_reply_node(
            target.agent_id,
            target.dialogue_id,
            parent=None,
            text=text,
            timestamp=sent_at.timestamp(),
            origin="proactive",
            metadata={
                "kind": message.kind,
                "reason": message.reason,
                "loops": list(message.loop_ids),
                # whom it was for: forgetting their time window takes it too
                **({"to": message.user_key} if message.user_key else {}),
            },
        )
        bot_at = self.clock().isoformat(timespec="seconds")
        await self.state.touch_dialogue(target.agent_id, target.dialogue_id, bot_at=bot_at)

    async def _target(self, message: ProactiveMessage) -> BotDialogue | None:
        if message.dialogue_id:
            found = await self.state.dialogue(message.agent_id, message.dialogue_id)
            if found is not None:
                return found
        if message.user_key is None:
            return None
        own = [
            d
            for d in await self.state.dialogues()
            if d.user_key == message.user_key
            and not d.is_group
            and self.adapters.reaching(d) is not None
        ]
        own.sort(key=lambda d: d.last_user_at or "", reverse=True)
        same_agent = [d for d in own if d.agent_id == message.agent_id]
        candidates = same_agent or own
        return candidates[0] if candidates else None


class StateDirectory:
    """The decider's view of the dialogues (for check-ins after a silence).

    Each person's zone is kept between passes (it reads all their records) and dropped
    when the store says one of their records changed (any removal drops them all: a
    removal names no person), or after ``ZONE_KEPT``, for a file edited by hand."""

    ZONE_KEPT = timedelta(minutes=10)

    def __init__(self, state: BotState, memory: MemoryStore, default_tz: str) -> None:
        self.state = state
        self.memory = memory
        self.default_tz = default_tz
        self._zones: dict[str, tuple[datetime, str]] = {}
        memory.add_listener(self)

    async def records_changed(self, change: StoreChange) -> None:
        if change.removed:
            self._zones.clear()
        for record in change.upserted:
            self._zones.pop(record.user_key or "", None)

    async def _zone(self, user_key: str, own: str | None, group: bool, now: datetime) -> str:
        """The person's zone: the one they set, else (not in a group) their home's, kept."""
        if own or group:
            return effective_zone(own, [], self.default_tz, group=group).name
        kept = self._zones.get(user_key)
        if kept is not None and now - kept[0] < self.ZONE_KEPT:
            return kept[1]
        zone = (await zone_of(self.state, self.memory, user_key, self.default_tz)).name
        self._zones[user_key] = (now, zone)
        return zone

    async def active_dialogues(self, now: datetime) -> Sequence[DialogueInfo]:
        out = []
        for d in await self.state.dialogues():
            person = await self.state.person(d.user_key) if d.user_key else None
            # The zone the reminder's words and quiet hours are in: the one every road uses;
            # in a group the person's private home gives none.
            zone = self.default_tz
            if d.user_key:
                own = person.timezone if person else None
                zone = await self._zone(d.user_key, own, d.is_group, now)
            out.append(
                DialogueInfo(
                    agent_id=d.agent_id,
                    dialogue_id=d.dialogue_id,
                    user_key=d.user_key,
                    display_name=person.display_name if person else "",
                    timezone=zone,
                    is_group=d.is_group,
                    last_user_at=parse_ts(d.last_user_at),
                )
            )
        return out


def proactive_switch(scheduler: Scheduler) -> Callable[[Caller, bool], Awaitable[None]]:
    """What /proactive on|off tells the scheduler: this dialogue, and the person's default."""

    async def switch(caller: Caller, enabled: bool) -> None:
        await scheduler.set_proactive(caller.agent_id, caller.dialogue_id, caller.user_key, enabled)
        await scheduler.set_proactive(caller.agent_id, None, caller.user_key, enabled)

    return switch
