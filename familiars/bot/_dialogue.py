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
from familiars.bot._forgetting import ForgetByWords
from familiars.bot._outbound import Outbound
from familiars.bot._prompt import BranchTurn, PromptParts, build_messages
from familiars.bot._redaction import Redactor
from familiars.bot._state import BotState, DialogueInfo
from familiars.bot._turn_plan import TurnPlanner, user_node_marks
from familiars.bot._turn_stats import TurnStats
from familiars.bot._turn_tools import ToolCaller, TurnTools
from familiars.bot._untrusted import TurnTaint
from familiars.config import AgentSettings, Settings
from familiars.llm import ChatModel, LLMError, OfflineResponder
from familiars.memory import (
    MemoryRecord,
    MemoryStore,
    TurnContext,
    WriterQueue,
    is_disk_full,
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
#: Said when saving the turn found the disk full (issue 19): plainly, and the chat goes on.
DISK_FULL_REPLY = (
    "I couldn't save that: the disk is full. What you told me before is kept; "
    "free some space and tell me again."
)


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
    #: Text the speaker did not write (another person's words, a group's shared notes, a
    #: record written in a tainted turn): recalling it taints the turn (issue 19).
    foreign: bool = False


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
        outbound: Outbound | None = None,
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
        self.agent_models: dict[str, ChatModel | None] = dict(agent_models or {})
        self.offline = OfflineResponder()
        self.redactor = redactor or Redactor(settings.privacy)
        #: familiars.bot._documents.Documents, when document search is set up.
        self.documents = documents
        self.stats = stats or TurnStats()
        #: The one check of all said in a group (issue 19), shared with the proactive sender.
        self.outbound = outbound or _own_outbound(store, state, log, self.stats)
        #: The tools for models that take them; None: every model streams plain replies.
        self.turn_tools = turn_tools
        self.planner = TurnPlanner(self)  # what a turn did, duty of care (issue 14)
        #: The scheduler's care pause: no unsolicited nudges for a person in crisis.
        self.planner.on_pause = on_care_pause
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
        response = self.planner.after_command(invocation, response)  # issue 14: /help
        return await self._guarded_answer(invocation, caller, response)

    async def _guarded_answer(
        self, inv: CommandInvocation, caller: Caller, response: CommandResponse
    ) -> CommandResponse:
        """A command's answer shown to a whole group passes the one group check too."""
        spec = next((s for s in self.commands.specs() if s.name == inv.name), None)
        private = response.private or (spec is not None and spec.private)
        if not inv.is_group or private or caller.dialogue_id is None:
            return response
        info = await self.state.dialogue(caller.agent_id, caller.dialogue_id)
        if info is None:
            return response
        typed = " ".join(["/" + inv.name, *inv.args])
        verdict = await self.outbound.guard(info, response.text, public=[typed], what="answer")
        if not verdict.changed:
            return response
        return CommandResponse(verdict.text, private=False)

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
            async for delta in _said_plainly_when_full(
                self._turn(message, text, agent, user_key, info)
            ):
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
        llm_text, q_id, notes = await self._user_turn(message, text, agent, user_key, info, now)
        # issue 14: what this turn does (reminders, forget), duty of care
        plan = await self.planner.begin(llm_text, agent, user_key, info, now, q_id)

        t0 = time.perf_counter()
        recalled = await self._recall(llm_text, agent.id, info, user_key, now, q_id)
        recall_ms = (time.perf_counter() - t0) * 1000
        messages, taint = await self._prompt(  # issue 19: taint, what the speaker did not write
            agent, info, user_key, message, llm_text, recalled, q_id, now
        )
        messages = plan.with_notes(messages)  # issue 14

        reply = ""
        caller = await self._tool_caller(message, user_key, agent, info, now, taint)
        replies = plan.reply(llm_text, self._reply(agent, messages, caller), recalled)
        if info.is_group:  # checked whole before anyone in the group reads a word of it
            reply = await self._guarded_reply(replies, notes, messages, agent, info, recalled)
            yield reply
        else:
            async for delta in replies:
                reply += delta
                yield delta
            if notes:
                tail = ("\n\n" if reply else "") + "\n".join(notes)
                reply += tail
                yield tail

        uses = await self._note_reply(agent, info, user_key, recalled, reply, recall_ms)
        if (writer_text := plan.writer_text(llm_text)) is not None:  # issue 14
            await self._queue_write(
                agent, info, user_key, writer_text, reply, q_id, now, message, taint
            )
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
        self._turn_started[(agent.id, info.dialogue_id)] = now.isoformat(timespec="seconds")

    async def _note_reply(
        self,
        agent: AgentSettings,
        info: DialogueInfo,
        user_key: str,
        recalled: list[RecalledItem],
        reply: str,
        recall_ms: float,
    ) -> list[str]:
        """The reply's time, stats and ``/memory why`` log; the records the reply used."""
        await self.state.touch_dialogue(agent.id, info.dialogue_id, bot_at=iso_now())
        uses = self._used_records(recalled, reply)
        self.stats.add(len(recalled), len(uses), recall_ms)
        self.recall_log[(agent.id, info.dialogue_id, user_key)] = [
            {"id": it.id, "text": it.text, "score": it.score, "parts": it.parts} for it in recalled
        ]
        return uses

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
        await self.outbound.note_member(info, user_key)  # their notes are guarded here now
        return redaction.masked, q_id, notes

    async def _guarded_reply(
        self,
        replies: AsyncIterator[str],
        notes: list[str],
        messages: list[Any],
        agent: AgentSettings,
        info: DialogueInfo,
        recalled: list[RecalledItem],
    ) -> str:
        """The whole reply (tool answers and notes included), after the one group check
        against the private notes of everyone the familiar knows in this chat."""
        reply = "".join([delta async for delta in replies])
        if notes:
            reply += ("\n\n" if reply else "") + "\n".join(notes)
        public = [m.content for m in messages if m.role != "system"] + [agent.name]
        private = [it.text for it in recalled if it.private]
        verdict = await self.outbound.guard(info, reply, public=public, private=private)
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
    ) -> tuple[list[Any], TurnTaint]:
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
        taint = _taint_of(passages, recalled, branch[:-1], user_key, info.is_group)
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
        return build_messages(parts, budget_tokens=self.settings.llm.prompt_token_budget), taint

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
        taint: TurnTaint | None = None,
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
            taint=taint,
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
        taint: TurnTaint | None = None,
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
            # Its prompt held text the speaker did not write: no directive from it (issue 19).
            tainted=taint is not None and taint.tainted,
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


def _own_outbound(store: MemoryStore, state: BotState, log: Any, stats: TurnStats) -> Outbound:
    """The group check of a manager built alone (tests, tools): its log's speakers if any."""
    return Outbound(store, state, log=log if hasattr(log, "speakers") else None, counter=stats)


def _taint_of(
    passages: Sequence[str],
    recalled: Sequence[RecalledItem],
    branch: Sequence[BranchTurn],
    user_key: str,
    is_group: bool,
) -> TurnTaint:
    """Why this turn's prompt holds text the speaker did not write (issue 19)."""
    taint = TurnTaint()
    if passages:
        taint.add("document passages")
    if any(it.foreign for it in recalled):
        taint.add("other people's notes or messages")
    others = [t for t in branch if t.role == "user" and t.user_key != user_key]
    if any(t.user_key or is_group for t in others):
        taint.add("other people's messages in this conversation")
    return taint


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


async def _said_plainly_when_full(turn: AsyncIterator[str]) -> AsyncIterator[str]:
    """``turn``'s deltas; when a write of it finds the disk full, :data:`DISK_FULL_REPLY`
    instead of a traceback (after what was already said), and one line in the log."""
    said = False
    try:
        async for delta in turn:
            said = said or bool(delta)
            yield delta
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        logger.warning("a turn could not be saved: %s", exc)
        yield ("\n\n" if said else "") + DISK_FULL_REPLY
