"""DialogueManager: one turn end to end (DESIGN.md "One turn, end to end").

platform event -> person and dialogue -> Q node (with privacy redactions) -> recall -> prompt
-> model reply (streamed) -> A node -> the writer's queue; ephemeral records of the previous
turn are cleared and access counts are flushed in batches, off the hot path.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
)
from familiars.bot._commands import Caller, CommandSet, default_commands
from familiars.bot._conversation import Conversation, user_node_marks
from familiars.bot._forgetting import ForgetByWords
from familiars.bot._leak_guard import GuardVerdict, guard_group_reply
from familiars.bot._prompt import BranchTurn, PromptParts, build_messages
from familiars.bot._redaction import Redactor
from familiars.bot._state import BotState, DialogueInfo
from familiars.bot._turn_tools import ToolCaller, TurnTools
from familiars.config import AgentSettings, Settings
from familiars.llm import ChatModel, LLMError, OfflineResponder
from familiars.memory import (
    MemoryRecord,
    MemoryStore,
    TurnContext,
    WriterQueue,
    iso_now,
    keyword_terms,
)

logger = logging.getLogger(__name__)

#: The last reply's recalled items per (agent_id, dialogue_id, user_key): ``/memory why``.
RecallLog = dict[tuple[str, str | None, str], list[dict[str, Any]]]

MAX_MESSAGE_CHARS = 16_000
APOLOGY = (
    "Sorry, I can't reach my language model right now. I've kept your message and will remember it."
)
#: Said after the text a model gave when its stream broke off mid-reply.
CUT_OFF = " ...(cut off)"
#: Said when a model answered with nothing at all.
EMPTY_REPLY = "I lost my train of thought, please say that again."


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
    ) -> int: ...

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

    def defer_reply_node(
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

    async def flush_all(self) -> None: ...

    async def branch(
        self, agent_id: str, dialogue_id: str, node_id: int, *, max_chars: int | None = None
    ) -> list[BranchTurn]: ...

    async def recent_lines(self, agent_id: str, dialogue_id: str, n: int) -> list[str]: ...


@dataclass
class TurnStats:
    recalls: int = 0
    items: int = 0
    used: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    #: Group replies the last check redacted, and those it withheld whole.
    guard_redacted: int = 0
    guard_withheld: int = 0

    def guarded(self, verdict: GuardVerdict) -> None:
        if verdict.withheld:
            self.guard_withheld += 1
        elif verdict.changed:
            self.guard_redacted += 1

    def add(self, items: int, used: int, ms: float) -> None:
        self.recalls += 1
        self.items += items
        self.used += used
        self.latencies_ms.append(ms)
        if len(self.latencies_ms) > 2000:
            del self.latencies_ms[:1000]

    def as_dict(self) -> dict[str, Any]:
        import numpy as np

        lat = np.asarray(self.latencies_ms or [0.0])
        return {
            "recalls": self.recalls,
            "items_per_recall": round(self.items / self.recalls, 3) if self.recalls else 0.0,
            "hit_rate": round(self.used / self.items, 3) if self.items else 0.0,
            "group_replies_redacted": self.guard_redacted,
            "group_replies_withheld": self.guard_withheld,
            "latency_ms": {
                "p50": round(float(np.percentile(lat, 50)), 2),
                "p95": round(float(np.percentile(lat, 95)), 2),
            },
        }


class DialogueManager:
    """Implements the adapters' ``TurnHandler``."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: MemoryStore,
        state: BotState,
        log: DialogueLog,
        recaller: Recaller | None,
        writer_queue: WriterQueue | None,
        model: ChatModel | None,
        forget_words: ForgetByWords,
        redactor: Redactor | None = None,
        commands: CommandSet | None = None,
        documents: Any = None,
        access: AccessPolicy | None = None,
        agent_models: Mapping[str, ChatModel | None] | None = None,
        stats: TurnStats | None = None,
        recall_log: RecallLog | None = None,
        turn_tools: TurnTools | None = None,
        on_care_pause: Callable[[str, datetime], None] | None = None,
    ) -> None:
        self.settings = settings
        #: The bot's one access policy: who owns the bot (owner-only commands, recall).
        self.access = access or AccessPolicy.from_settings(settings)
        self.store = store
        self.state = state
        self.log = log
        self.recaller = recaller
        self.writer_queue = writer_queue
        self.model = model
        #: Agents whose config names a provider get a model of their own (see runtime).
        self.agent_models: dict[str, ChatModel | None] = dict(agent_models or {})
        self.offline = OfflineResponder()
        self.redactor = redactor or Redactor(settings.privacy)
        #: familiars.bot._documents.Documents, when document search is set up.
        self.documents = documents
        self.stats = stats or TurnStats()
        #: The bot's tools for models that take them (remember, set_reminder, ...); None:
        #: every model answers on the plain streaming path.
        self.turn_tools = turn_tools
        self.conversation = Conversation(self)  # what a turn did, duty of care (issue 14)
        #: The scheduler's care pause: no unsolicited nudges for a person in crisis.
        self.conversation.on_pause = on_care_pause
        self._turn_started: dict[tuple[str, str], str] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        #: The last reply's recalled items per (agent, dialogue, person), for /memory why.
        self.recall_log: RecallLog = recall_log if recall_log is not None else {}
        self.forget_words = forget_words  # "forget that ...": the one Forgetter (issue 19)
        #: The runtime builds the commands with their services; alone, the manager's own.
        self.commands = commands or CommandSet(
            default_commands(
                store,
                state,
                find=documents.find if documents is not None else None,
                recall_log=self.recall_log,
                on_used=self._note_used,
                forgetter=forget_words.forgetter,
            )
        )

    # ------------------------------------------------------------------ routing

    def agent_for(self, platform: str, chat_id: str) -> AgentSettings:
        key = f"{platform}:{chat_id}"
        for agent in self.settings.agents:
            if key in agent.chats:
                return agent
        for agent in self.settings.agents:
            if not agent.chats and platform in agent.platforms:
                return agent
        return self.settings.agents[0]

    def is_owner(self, platform: str, user_id: str) -> bool:
        return self.access.is_owner(platform, user_id)

    async def caller_for(self, inv: CommandInvocation) -> Caller:
        user_key = await self.state.person_for(inv.platform, inv.user_id, inv.display_name)
        agent = self.agent_for(inv.platform, inv.chat_id)
        info = await self.state.dialogue_for(
            agent.id,
            inv.platform,
            inv.chat_id,
            inv.thread_id,
            is_group=inv.is_group,
            user_key=user_key,
        )
        return Caller(
            user_key=user_key,
            agent_id=agent.id,
            dialogue_id=info.dialogue_id,
            is_owner=self.is_owner(inv.platform, inv.user_id),
            platform=inv.platform,
            user_id=inv.user_id,
        )

    # ------------------------------------------------------------------ TurnHandler

    def command_specs(self) -> list[CommandSpec]:
        return self.commands.specs()

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        caller = await self.caller_for(invocation)
        response = await self.commands.run(invocation, caller)
        return self.conversation.after_command(invocation, response)  # issue 14: /help notice

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        caller = await self.caller_for(invocation)
        return await self.commands.complete(invocation, caller, partial)

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        text = _clean_text(message.text)
        if not text and not message.attachments:
            return
        if not text:
            names = ", ".join(a.filename for a in message.attachments)
            text = f"(sent {names})"
        agent = self.agent_for(message.platform, message.chat_id)
        user_key = await self.state.person_for(
            message.platform, message.user_id, message.display_name
        )
        info = await self.state.dialogue_for(
            agent.id,
            message.platform,
            message.chat_id,
            message.thread_id,
            is_group=message.is_group,
            user_key=user_key,
        )
        lock = self._locks.setdefault((agent.id, info.dialogue_id), asyncio.Lock())
        async with lock:
            asked = await self.forget_words.answer(  # asked, then confirmed: not a turn
                text,
                agent_id=agent.id,
                dialogue_id=info.dialogue_id,
                user_key=user_key,
                now=message.ts if message.ts.tzinfo else message.ts.replace(tzinfo=UTC),
                is_group=info.is_group,
            )
            if asked is not None:
                yield asked
                return
            async for delta in self._turn(message, text, agent, user_key, info):
                yield delta

    # ------------------------------------------------------------------ the turn

    async def _turn(
        self,
        message: IncomingMessage,
        text: str,
        agent: AgentSettings,
        user_key: str,
        info: DialogueInfo,
    ) -> AsyncIterator[str]:
        turn_t0 = time.perf_counter()
        now = message.ts if message.ts.tzinfo else message.ts.replace(tzinfo=UTC)
        turn_start_iso = now.isoformat(timespec="seconds")
        llm_text, q_id, notes = await self._user_turn(message, text, agent, user_key, info, now)
        # issue 14: what this turn does (reminders, forget), duty of care
        plan = await self.conversation.begin(llm_text, agent, user_key, info, now, q_id)

        t0 = time.perf_counter()
        recalled = await self._recall(llm_text, agent.id, info, user_key, now, q_id)
        recall_ms = (time.perf_counter() - t0) * 1000
        messages = await self._prompt(agent, info, user_key, message, llm_text, recalled, q_id, now)
        messages = plan.with_notes(messages)  # issue 14

        reply = ""
        caller = await self._tool_caller(message, user_key, agent, info, now)
        replies = plan.reply(llm_text, self._reply(agent, messages, caller), recalled)
        if info.is_group:  # checked whole before anyone in the group reads a word of it
            reply = await self._guarded_reply(replies, messages, user_key, recalled, now)
            yield reply
        else:
            async for delta in replies:
                reply += delta
                yield delta
        if notes:
            tail = ("\n\n" if reply else "") + "\n".join(notes)
            reply += tail
            yield tail

        await self.state.touch_dialogue(agent.id, info.dialogue_id, bot_at=iso_now())
        uses = self._used_records(recalled, reply)
        self.stats.add(len(recalled), len(uses), recall_ms)
        self.recall_log[(agent.id, info.dialogue_id, user_key)] = [
            {"id": it.id, "text": it.text, "score": it.score, "parts": it.parts} for it in recalled
        ]
        if (writer_text := plan.writer_text(llm_text)) is not None:  # issue 14
            await self._queue_write(agent, info, user_key, writer_text, reply, q_id, now, message)
        # The reply's node is embedded and added by a background task (TreeLog), off the
        # next message's path; that message, settle() and shutdown wait for it.
        self.log.defer_reply_node(
            agent.id,
            info.dialogue_id,
            parent=q_id,
            text=reply,
            timestamp=now.timestamp() + max(0.001, time.perf_counter() - turn_t0),
            origin="response",
            # Offline replies are not recalled as facts (issue 14); the records a reply drew
            # on are named, so forgetting one forgets the reply that repeated it (issue 12).
            metadata={**plan.reply_marks, **({"uses": uses} if uses else {})},
        )
        await self._clear_ephemeral((agent.id, info.dialogue_id), agent.id, info.dialogue_id)
        self._turn_started[(agent.id, info.dialogue_id)] = turn_start_iso

    async def _user_turn(
        self,
        message: IncomingMessage,
        text: str,
        agent: AgentSettings,
        user_key: str,
        info: DialogueInfo,
        now: datetime,
    ) -> tuple[str, int, list[str]]:
        """The message as a Q node (secrets masked at rest, redactions recorded), its
        attachments saved: ``(the text the model may see, the node id, notes to add)``."""
        redaction = self.redactor.scan(text)
        metadata: dict[str, Any] = {
            **redaction.metadata,
            "user_key": user_key,
            "speaker": message.display_name,
            "platform": message.platform,
        }
        if message.message_id:
            metadata["message_id"] = message.message_id
        metadata.update(user_node_marks(text))  # issue 14: questions are not recalled as facts
        notes = []
        if self.documents is not None:
            for attachment in message.attachments:
                notes.append(await self.documents.save_attachment(user_key, attachment))
        stored = redaction.at_rest  # masked secrets are never written in clear
        metadata.update(stored.metadata)
        q_id = await self.log.add_user_node(
            agent.id,
            info.dialogue_id,
            text=stored.content,
            timestamp=now.timestamp(),
            metadata=metadata,
        )
        turn_start_iso = now.isoformat(timespec="seconds")
        await self.state.touch_dialogue(agent.id, info.dialogue_id, user_at=turn_start_iso)
        return redaction.masked, q_id, notes

    async def _guarded_reply(
        self,
        replies: AsyncIterator[str],
        messages: list[Any],
        user_key: str,
        recalled: list[RecalledItem],
        now: datetime,
    ) -> str:
        """The whole reply, after the last check against what is private to the speaker."""
        reply = "".join([delta async for delta in replies])
        mine = await self.store.list(scope="user", user_key=user_key, now=now)
        private = [r.content for r in mine] + [it.text for it in recalled if it.private]
        public = [m.content for m in messages if m.role != "system"]
        verdict = guard_group_reply(reply, private, public)
        if verdict.changed:
            logger.warning(
                "group reply %s: %s",
                "withheld" if verdict.withheld else "redacted",
                ", ".join(leak.kind for leak in verdict.leaks),
            )
            self.stats.guarded(verdict)
        return verdict.text

    async def _recall(
        self,
        query: str,
        agent_id: str,
        info: DialogueInfo,
        user_key: str,
        now: datetime,
        q_id: int,
    ) -> list[RecalledItem]:
        if self.recaller is None:
            return []
        try:
            return await self.recaller.recall(
                query,
                agent_id=agent_id,
                dialogue_id=info.dialogue_id,
                user_key=user_key,
                is_group=info.is_group,
                now=now,
                k=self.settings.recall.k,
                exclude_node=q_id,
            )
        except Exception:  # noqa: BLE001 - a reply without memories beats no reply
            logger.exception("recall failed; answering without memories")
            return []

    async def _prompt(
        self,
        agent: AgentSettings,
        info: DialogueInfo,
        user_key: str,
        message: IncomingMessage,
        llm_text: str,
        recalled: list[RecalledItem],
        q_id: int,
        now: datetime,
    ) -> list[Any]:
        directives = [
            r
            for r in await self.store.list(scope="identity", agent_id=agent.id, now=now)
            if r.category in ("directive", "procedure")
        ]
        # In a group the model gets none of the speaker's private notes: what it never reads
        # it cannot post, and the last check (_guarded_reply) has less to catch.
        profile = [] if info.is_group else await self._profile(user_key, now)
        profile_ids = {r.id for r in profile}
        passages: list[str] = []
        if self.documents is not None and not info.is_group:
            passages = await self.documents.context(
                llm_text, user_key, is_owner=self.is_owner(message.platform, message.user_id)
            )
        branch = await self.log.branch(
            agent.id,
            info.dialogue_id,
            q_id,
            max_chars=self.settings.llm.prompt_token_budget * 4,
        )
        person = await self.state.person(user_key)
        tz = _zone((person.timezone if person else None) or self.settings.scheduler.timezone)
        parts = PromptParts(
            persona=agent.persona,
            agent_name=agent.name,
            directives=directives,
            profile=_newest(profile, 20),
            recalled=[
                it.text
                for it in recalled
                if not it.private and not (set(it.record_ids or (it.id,)) & profile_ids)
            ]
            + passages,
            private=[
                it.text
                for it in recalled
                if it.private
                and not info.is_group
                and not (set(it.record_ids or (it.id,)) & profile_ids)
            ],
            branch=branch[:-1],
            message=llm_text,
            speaker=message.display_name,
            is_group=info.is_group,
            now_text=now.astimezone(tz).strftime("%A %d %B %Y, %H:%M %Z"),
            max_item_chars=self.settings.memory.max_record_chars,
        )
        return build_messages(parts, budget_tokens=self.settings.llm.prompt_token_budget)

    async def _profile(self, user_key: str, now: datetime) -> list[MemoryRecord]:
        found = await self.store.list(scope="user", user_key=user_key, category="profile", now=now)
        return found + await self.store.list(
            scope="user", user_key=user_key, category="preference", now=now
        )

    def model_for(self, agent: AgentSettings) -> ChatModel | None:
        """The agent's own provider when it names one, else the shared router."""
        return self.agent_models.get(agent.id, self.model)

    async def _reply(
        self, agent: AgentSettings, messages: list[Any], caller: ToolCaller | None = None
    ) -> AsyncIterator[str]:
        model = self.model_for(agent)
        if model is None:
            result = await self.offline.chat(messages)
            yield result.text
            return
        # --- the tool path (issue 14): a model that takes tools answers through them, whole;
        # None means it takes none, and the plain streaming path below answers.
        answered = await self._tool_reply(model, messages, caller)
        if answered is not None:
            yield answered
            return
        # --- the plain path
        produced = False
        try:
            async for delta in model.stream(
                messages, max_tokens=self.settings.llm.max_reply_tokens
            ):
                if delta.strip():
                    produced = True
                if delta:
                    yield delta
        except (LLMError, OSError, TimeoutError) as exc:
            logger.warning("the language model failed: %s", exc)
            # Half a reply is never passed off as a whole one, and nothing is never silence.
            yield CUT_OFF if produced else APOLOGY
            return
        if not produced:
            yield EMPTY_REPLY

    # ------------------------------------------------------------------ tools (issue 14)

    async def _tool_caller(
        self,
        message: IncomingMessage,
        user_key: str,
        agent: AgentSettings,
        info: DialogueInfo,
        now: datetime,
    ) -> ToolCaller | None:
        """Who this turn's tools act for (fixed before the model says anything)."""
        if self.turn_tools is None or self.model_for(agent) is None:
            return None
        return await self.turn_tools.caller(
            user_key=user_key,
            agent_id=agent.id,
            dialogue_id=info.dialogue_id,
            is_owner=self.is_owner(message.platform, message.user_id),
            is_group=info.is_group,
            now=now,
            text=message.text,
        )

    def takes_tools(self, agent: AgentSettings) -> bool:
        """Whether this agent's turns go through the tools (a model that takes them)."""
        model = self.model_for(agent)
        return (
            self.turn_tools is not None
            and model is not None
            and model.supports_tools
            and self.settings.llm.max_tool_rounds > 0
        )

    async def _tool_reply(
        self, model: ChatModel, messages: list[Any], caller: ToolCaller | None
    ) -> str | None:
        """The answer through the tools; None when there are none for this model."""
        if caller is None or self.turn_tools is None:
            return None
        try:
            text = await self.turn_tools.reply(
                model, messages, caller, max_tokens=self.settings.llm.max_reply_tokens
            )
        except (LLMError, OSError, TimeoutError) as exc:
            logger.warning("the language model failed: %s", exc)
            return APOLOGY
        return None if text is None else (text or EMPTY_REPLY)

    async def _queue_write(
        self,
        agent: AgentSettings,
        info: DialogueInfo,
        user_key: str,
        llm_text: str,
        reply: str,
        q_id: int,
        now: datetime,
        message: IncomingMessage | None = None,
    ) -> None:
        if self.writer_queue is None:
            return
        person = await self.state.person(user_key)
        recent = await self.log.recent_lines(agent.id, info.dialogue_id, 8)
        turn = TurnContext(
            agent_id=agent.id,
            dialogue_id=info.dialogue_id,
            user_key=user_key,
            user_text=llm_text,
            reply_text=reply,
            recent=recent,
            turn_id=q_id,
            timezone=(person.timezone if person else None) or self.settings.scheduler.timezone,
            now=now.isoformat(timespec="seconds"),
            # Who spoke, for who may change what (memory._writer._rights); unknown: not an owner.
            is_owner=message is not None and self.is_owner(message.platform, message.user_id),
            is_group=info.is_group,
        )
        await self.writer_queue.enqueue(turn)

    async def _clear_ephemeral(self, key: tuple[str, str], agent_id: str, dialogue_id: str) -> None:
        """Ephemeral records live for one turn: the writer adds them after a turn, the next
        turn may use them, and at its end they go."""
        started = self._turn_started.get(key)
        if started is None:
            return
        stale = [
            r
            for r in await self.store.list(
                scope="ephemeral", agent_id=agent_id, dialogue_id=dialogue_id, live_only=False
            )
            if r.ts <= started
        ]
        for rec in stale:
            await self.store.forget(rec.id)

    # ------------------------------------------------------------------ bookkeeping

    async def settle(self) -> None:
        """Add every deferred reply node (before shutdown, between piped lines)."""
        await self.log.flush_all()

    def _used_records(self, recalled: Sequence[RecalledItem], reply: str) -> list[str]:
        """The records of the recalled items the reply drew on (two stemmed words shared:
        "You live in Denver." drew on "The user lives in Denver.")."""
        words = set(keyword_terms(reply))
        used: list[str] = []
        for it in recalled:
            if len(set(keyword_terms(it.text)) & words) >= 2:
                used += [r for r in (it.record_ids or (it.id,)) if r.startswith("m_")]
        return list(dict.fromkeys(used))

    def _note_used(self, record_id: str) -> None:
        self.stats.used += 1

    async def flush_access(self) -> int:
        """Write the batched recall counts to the records (one store batch)."""
        if self.recaller is None:
            return 0
        return await self.recaller.flush_access()


def _words(text: str) -> list[str]:
    return "".join(c.lower() if c.isalnum() else " " for c in text).split()


def _newest(records: list[MemoryRecord], n: int) -> list[MemoryRecord]:
    return sorted(records, key=lambda r: (r.pinned, r.ts))[-n:]


def _clean_text(text: str) -> str:
    """Printable text only, within a sane size: binary junk and 100 KB pastes do not break
    the turn (the rest of an over-long message is cut, and the cut is said)."""
    cleaned = "".join(c for c in text if c.isprintable() or c in "\n\t")
    if len(cleaned) > MAX_MESSAGE_CHARS:
        cleaned = cleaned[:MAX_MESSAGE_CHARS] + "\n[message cut: too long]"
    return cleaned.strip()


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError):
        return ZoneInfo("UTC")
