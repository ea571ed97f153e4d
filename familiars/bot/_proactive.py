"""Wiring the scheduler into the runtime: where proactive messages go and what the decider
knows of each dialogue."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from familiars.bot._adapters.base import PlatformAdapter
from familiars.bot._commands import Caller
from familiars.bot._state import BotState
from familiars.bot._state import DialogueInfo as BotDialogue
from familiars.memory import iso_now, parse_ts
from familiars.scheduler import DialogueInfo, ProactiveMessage, Scheduler

if TYPE_CHECKING:
    from familiars.bot._runtime import Application

logger = logging.getLogger(__name__)


class UndeliverableError(RuntimeError):
    """No running adapter can reach the dialogue (the message is tried again later)."""


class RuntimeSender:
    """Sends through the platform that owns the dialogue and records an A node with
    ``origin="proactive"``."""

    def __init__(self, app: Application) -> None:
        self.app = app

    async def send_proactive(self, message: ProactiveMessage) -> None:
        state = self.app.state
        assert state is not None
        target = await self._target(state, message)
        if target is None:
            raise UndeliverableError(
                f"no dialogue to reach {message.user_key or message.dialogue_id}"
            )
        adapter = self._adapter(target.platform)
        if adapter is None:
            raise UndeliverableError(f"the {target.platform} adapter is not running")
        await adapter.send(target.chat_id, message.text, thread_id=target.thread_id)
        dialogues = self.app.dialogues
        if dialogues is not None:
            await dialogues.log.add_reply_node(
                target.agent_id,
                target.dialogue_id,
                parent=None,
                text=message.text,
                timestamp=(message.at.timestamp() if message.at else time.time()),
                origin="proactive",
                metadata={
                    "kind": message.kind,
                    "reason": message.reason,
                    "loops": list(message.loop_ids),
                },
            )
        await state.touch_dialogue(target.agent_id, target.dialogue_id, bot_at=iso_now())

    async def _target(self, state: BotState, message: ProactiveMessage) -> BotDialogue | None:
        if message.dialogue_id:
            found = await state.dialogue(message.agent_id, message.dialogue_id)
            if found is not None:
                return found
        if message.user_key is None:
            return None
        own = [
            d
            for d in await state.dialogues()
            if d.user_key == message.user_key and not d.is_group and self._adapter(d.platform)
        ]
        own.sort(key=lambda d: d.last_user_at or "", reverse=True)
        same_agent = [d for d in own if d.agent_id == message.agent_id]
        candidates = same_agent or own
        return candidates[0] if candidates else None

    def _adapter(self, platform: str) -> PlatformAdapter | None:
        return next((a for a in self.app.adapters if a.name == platform), None)


class StateDirectory:
    """The decider's view of the dialogues (for check-ins after a silence)."""

    def __init__(self, state: BotState, default_tz: str) -> None:
        self.state = state
        self.default_tz = default_tz

    async def active_dialogues(self, now: datetime) -> Sequence[DialogueInfo]:
        out = []
        for d in await self.state.dialogues():
            person = await self.state.person(d.user_key) if d.user_key else None
            out.append(
                DialogueInfo(
                    agent_id=d.agent_id,
                    dialogue_id=d.dialogue_id,
                    user_key=d.user_key,
                    display_name=person.display_name if person else "",
                    timezone=(person.timezone if person else None) or self.default_tz,
                    is_group=d.is_group,
                    last_user_at=parse_ts(d.last_user_at),
                )
            )
        return out


def build_scheduler(app: Application) -> Scheduler:
    assert app.memory is not None and app.state is not None and app.dialogues is not None
    extra: dict[str, Any] = {"clock": app.clock} if app.clock is not None else {}
    scheduler = Scheduler(
        app.settings,
        app.memory.store,
        RuntimeSender(app),
        **extra,
        dialogues=StateDirectory(app.state, app.settings.scheduler.timezone),
        model=app.model,
        gate=app.gate,
        flush_stats=app.dialogues.flush_access,
        error_handler=_scheduler_error(app),
    )
    app.memory.store.add_listener(scheduler)  # new reminders get their exact job

    def on_proactive(caller: Caller, enabled: bool) -> None:
        scheduler.set_proactive(caller.agent_id, caller.dialogue_id, caller.user_key, enabled)
        scheduler.set_proactive(caller.agent_id, None, caller.user_key, enabled)

    app.dialogues.commands.ctx.on_proactive = on_proactive
    app.dialogues.conversation.on_pause = scheduler.care_pause  # issue 14: duty of care
    return scheduler


def _scheduler_error(app: Application) -> Any:
    def handle(name: str, exc: BaseException) -> None:
        app.error_handler(exc, f"scheduler job {name}")

    return handle
