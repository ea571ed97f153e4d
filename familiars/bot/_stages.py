"""The stages of one turn, in order, each a function over the one :class:`Turn` value with
the collaborators it needs (:class:`TurnServices`); ``DialogueManager._turn`` composes them.

1. receive (``DialogueManager.respond``): who (person), where (dialogue), what was said;
2. :func:`record_message` - the message as a Q node (secrets masked at rest, redactions
   recorded), its attachments saved;
3. :func:`read_records` - the person's live records, read once (after the offline writer
   finished the last turn): user scope, the agent's identity, the dialogue's scopes;
4. plan (:meth:`familiars.bot._turn_plan.TurnPlanner.begin`): duty of care, the turn's
   actions, reminders written; then :func:`drop_unwritten` - a care turn's held writer
   work dropped;
5. :func:`recall` - what the reader recalls for the message;
6. :func:`compose` - the prompt (persona, directives, profile, recalled, branch, message)
   and its taint, with what the turn did for the model to say;
7. :func:`answer` - the reply's text: the crisis text, the one offline answerer
   (:mod:`familiars.bot._answers`, through :meth:`TurnPlan.reply`), the model through its
   tools, or its stream;
8. :func:`send` - the reply leaves: in a group whole, through the one group check
   (:class:`familiars.bot._outbound.Outbound`); in a DM streamed; notes appended;
9. :func:`keep_reply` - before the reply is handed over: its stats and ``/memory why``
   log, what the writer reads of the turn, the reply durable (its A node deferred, off the
   next message's path); then, once the reply is handed over, in a task the dialogue's
   next message waits for (:mod:`familiars.bot._after_reply`), :func:`after` - the
   writer's turn and the chat's times;
10. :func:`behaviour_saved` - an owner's private "behave like this": the line that says what
    the writer kept, before the reply ends (such a turn runs ``after`` before its reply
    ends, :func:`may_save_behaviour`).

A turn cut off before its end (a failure, a stop) runs :func:`release_cut_off` instead of
``after``, so the writer still reads the message; a stopped one keeps what was shown of its
reply (:func:`keep_shown`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from familiars.bot._access import AccessPolicy
from familiars.bot._after_reply import AfterReplies
from familiars.bot._home_zone import PersonZone, turn_zone
from familiars.bot._outbound import Outbound
from familiars.bot._prompt import BranchTurn, PromptParts, build_messages
from familiars.bot._records_view import records_view
from familiars.bot._state import BotState, Person
from familiars.bot._turn import DialogueLog, RecalledItem, Recaller, Turn
from familiars.bot._turn_plan import ModelUnreachable, user_node_marks
from familiars.bot._turn_stats import TurnStats
from familiars.bot._turn_tools import ToolCaller, TurnTools
from familiars.bot._untrusted import TurnTaint
from familiars.config import AgentSettings, Settings
from familiars.llm import OUTPUT_CUT, ChatModel, LLMError, cut_mark
from familiars.memory import (
    ListQuery,
    MemoryStore,
    Redactor,
    TurnContext,
    Understanding,
    WriterQueue,
    asks_behaviour,
    iso_now,
    keyword_terms,
)

logger = logging.getLogger(__name__)

#: The last reply's recalled items per (agent_id, dialogue_id, user_key): ``/memory why``.
RecallLog = dict[tuple[str, str | None, str], list[dict[str, Any]]]

#: Said after the text a model gave when its stream broke off mid-reply.
CUT_OFF = OUTPUT_CUT
#: Said when a model answered with nothing at all.
EMPTY_REPLY = "I lost my train of thought, please say that again."

#: The scopes of the person's records a turn reads once (as ``MemoryWriter.owner_records``).
DIALOGUE_SCOPES = ("dialogue", "ephemeral")


@dataclass
class TurnServices:
    """What the stages of a turn use: storage, recall, models, the one group check."""

    settings: Settings
    access: AccessPolicy
    store: MemoryStore
    state: BotState
    log: DialogueLog
    recaller: Recaller | None
    writer_queue: WriterQueue | None
    model: ChatModel | None
    outbound: Outbound
    redactor: Redactor
    stats: TurnStats = field(default_factory=TurnStats)
    agent_models: Mapping[str, ChatModel | None] = field(default_factory=dict)
    #: familiars.bot._documents.Documents, when document search is set up.
    documents: Any = None
    #: The tools for models that take them; None: every model streams plain replies.
    turn_tools: TurnTools | None = None
    #: The last reply's recalled items per (agent, dialogue, person), for /memory why.
    recall_log: RecallLog = field(default_factory=dict)
    #: The offline writer's learned part (issue 23); None: the rules alone.
    understanding: Understanding | None = None
    #: What follows each reply, run once it is handed over (the forgetter waits for it too).
    afters: AfterReplies = field(default_factory=AfterReplies)

    def agent_for(self, platform: str, chat_id: str) -> AgentSettings:
        key = f"{platform}:{chat_id}"
        for agent in self.settings.agents:
            if key in agent.chats:
                return agent
        for agent in self.settings.agents:
            if not agent.chats and platform in agent.platforms:
                return agent
        return self.settings.agents[0]

    def model_for(self, agent: AgentSettings) -> ChatModel | None:
        """The agent's own provider when it names one, else the shared router."""
        return self.agent_models.get(agent.id, self.model)

    def takes_tools(self, agent: AgentSettings) -> bool:
        """Whether this agent's turns go through the tools (a model that takes them)."""
        model = self.model_for(agent)
        return (
            self.turn_tools is not None
            and model is not None
            and model.supports_tools
            and self.settings.llm.max_tool_rounds > 0
        )

    def is_owner(self, platform: str, user_id: str) -> bool:
        return self.access.is_owner(platform, user_id)


# ---------------------------------------------------------------------- 2. record the message


async def record_message(turn: Turn, s: TurnServices) -> None:
    """The message as a Q node (secrets masked at rest, redactions recorded), its
    attachments saved: sets ``said`` (what the model may see), ``q_id`` and ``notes``."""
    message = turn.message
    redaction = s.redactor.scan(turn.text)
    metadata: dict[str, Any] = {
        **redaction.metadata,
        "user_key": turn.user_key,
        "speaker": message.display_name,
        "platform": message.platform,
    }
    if message.message_id:
        metadata["message_id"] = message.message_id
    metadata.update(user_node_marks(turn.text))  # issue 14: questions are not recalled as facts
    if s.documents is not None:
        for attachment in message.attachments:
            turn.notes.append(await s.documents.save_attachment(turn.user_key, attachment))
    stored = redaction.at_rest  # masked secrets are never written in clear
    metadata.update(stored.metadata)
    agent_id, dialogue_id = turn.key
    node = await s.log.add_user_node(
        agent_id,
        dialogue_id,
        text=stored.content,
        timestamp=turn.now.timestamp(),
        metadata=metadata,
    )
    turn.q_id = node.id
    turn_start_iso = turn.now.isoformat(timespec="seconds")
    # In memory now (the scheduler reads it); saved with the reply's time in after().
    await s.state.touch_dialogue(agent_id, dialogue_id, user_at=turn_start_iso, save=False)
    await s.outbound.note_member(turn.info, turn.user_key)  # their notes are guarded here now
    turn.said = redaction.masked
    if node.query == turn.said:  # the plan and the care check read it (embedded once a turn)
        turn.said_vector = node.vector
    if s.writer_queue is not None and metadata.get("kind") != "care":
        # The writer's work for the message is queued now, beside the turn (the reply
        # waits for it): a turn cut off before its end still has its facts written.
        turn.held = asyncio.create_task(_hold(turn, s))


async def _hold(turn: Turn, s: TurnServices) -> str | None:
    """Queue the message's writer work held (``WriterQueue.hold``) as far as it is known
    now (no reply; the prompt's taint unknown, so taken as tainted: no directive from it
    unless the turn ends, and its records tagged so); "" when the message's work was queued
    before, None when it could not be (then after() queues it as it always did). Even in a
    private chat: the recent lines it reads can hold an earlier reply that quoted a
    document or a tainted record, and which turns they came from is not checked (review
    s33-2 item 12 undid s33 T11's clean held work)."""
    assert s.writer_queue is not None
    try:
        context = await _turn_context(turn, s, turn.said)
        if context is None:
            return None
        context.tainted = True
        name = await s.writer_queue.hold(context, _message_turn_name(turn))
    except Exception:  # noqa: BLE001 - the turn goes on; its writer work is queued after
        logger.warning("the message's writer work could not be held", exc_info=True)
        return None
    return "" if name is None else name


def _message_turn_name(turn: Turn) -> str | None:
    """The queued turn's name for this message (``t_`` + the message's time in ms, as a
    record id's, and a digest of where it was said and its id): the same when the message's
    turn runs again (its update posted again after a kill); None without a message id."""
    message = turn.message
    if not message.message_id:
        return None
    where = "/".join(
        [turn.agent.id, message.platform, message.chat_id, message.thread_id or "",
         message.message_id]
    )  # fmt: skip
    digest = hashlib.sha256(where.encode("utf-8")).hexdigest()[:8]
    return f"t_{int(turn.now.timestamp() * 1000):012x}0000{digest}.json"


# ---------------------------------------------------------------------- 3. read once


async def read_records(turn: Turn, s: TurnServices) -> None:
    """The person's live records, once per turn (as one ``store.list`` per scope would give
    them, in one read and shared, not copied: nothing of the turn changes a record): the
    plan, the offline answer, the profile and the directives of the prompt all read these."""
    await _settle_writer(s.writer_queue)
    agent_id, dialogue_id = turn.key
    turn.records = await s.store.read_live(
        ListQuery(scope="user", user_key=turn.user_key),
        ListQuery(scope="identity", agent_id=agent_id),
        *(
            ListQuery(scope=sc, agent_id=agent_id, dialogue_id=dialogue_id)
            for sc in DIALOGUE_SCOPES
        ),
        now=turn.now,
    )
    turn.records_read = True


async def _settle_writer(queue: WriterQueue | None) -> None:
    """The offline writer is quick: let it finish the last turn, so this turn reads the
    records as they are (a model writer is not waited for)."""
    writer = getattr(queue, "writer", None)
    if queue is not None and writer is not None and getattr(writer, "model", 1) is None:
        await queue.settle()


# ---------------------------------------------------------------------- 5. recall


async def recall(turn: Turn, s: TurnServices) -> None:
    """What the reader recalls for the message, and the document passages for it: the
    document search runs beside recall, and starts first: its index check is a database
    hop, which then runs while recall ranks on the event loop, not after it (recall may
    not yield before it has ranked)."""
    t0 = time.perf_counter()
    turn.passages, turn.recalled = await asyncio.gather(_passages(turn, s), _recalled(turn, s))
    turn.recall_ms = (time.perf_counter() - t0) * 1000


async def _passages(turn: Turn, s: TurnServices) -> list[str]:
    """Document passages worth showing the model (never in a group)."""
    if s.documents is None or turn.info.is_group:
        return []
    owner = s.is_owner(turn.message.platform, turn.message.user_id)
    found: list[str] = await s.documents.context(turn.said, turn.user_key, is_owner=owner)
    return found


async def _recalled(turn: Turn, s: TurnServices) -> list[RecalledItem]:
    if s.recaller is None:
        return []
    try:
        return await s.recaller.recall(
            turn.said,
            agent_id=turn.agent.id,
            dialogue_id=turn.info.dialogue_id,
            user_key=turn.user_key,
            is_group=turn.info.is_group,
            now=turn.now,
            k=s.settings.recall.k,
            exclude_node=turn.q_id,
        )
    except Exception:  # noqa: BLE001 - a reply without memories beats no reply
        logger.exception("recall failed; answering without memories")
        return []


# ---------------------------------------------------------------------- 6. compose


async def compose(turn: Turn, s: TurnServices) -> None:
    """The prompt and its taint (issue 19: what the speaker did not write), with what the
    turn did for the model to say (issue 14)."""
    info, agent = turn.info, turn.agent
    view = records_view(turn.records)  # worked out once while the records are the same
    directives = view.of_scope("identity", "directive", "procedure")
    # In a group the model gets none of the speaker's private notes: what it never reads
    # it cannot post, and the last check (the group guard in send) has less to catch.
    profile = [] if info.is_group else view.newest(20, "user", "profile", "preference")
    profile_ids = frozenset() if info.is_group else view.ids_of("user", "profile", "preference")
    passages = turn.passages  # searched beside recall
    # The plan read the person's zone (``turn.zone``): the person is read again only where
    # it did not (in a database home that is a thread's hop, and gathering it with the
    # branch handed the event loop to other work in the middle of the stage).
    person = None if turn.zone is not None else await s.state.person(turn.user_key)
    branch = await s.log.branch(
        agent.id, info.dialogue_id, turn.q_id, max_chars=s.settings.llm.prompt_token_budget * 4
    )
    turn.taint = _taint_of(passages, turn.recalled, branch[:-1], turn.user_key, info.is_group)
    tz = _zone(_turn_zone(turn, person, s).name)
    unseen = [it for it in turn.recalled if not (set(it.record_ids or (it.id,)) & profile_ids)]
    parts = PromptParts(
        persona=agent.persona,
        agent_name=agent.name,
        directives=directives,
        profile=profile,
        recalled=[it.text for it in unseen if not it.private] + passages,
        private=[it.text for it in unseen if it.private and not info.is_group],
        branch=branch[:-1],
        message=turn.said,
        speaker=turn.message.display_name,
        is_group=info.is_group,
        now_text=turn.now.astimezone(tz).strftime("%A %d %B %Y, %H:%M %Z"),
        max_item_chars=s.settings.memory.max_record_chars,
    )
    messages = build_messages(parts, budget_tokens=s.settings.llm.prompt_token_budget)
    turn.messages = turn.plan.with_notes(messages) if turn.plan is not None else messages


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
        taint.add("notes written from documents or from other people's words")
    others = [t for t in branch if t.role == "user" and t.user_key != user_key]
    if any(t.user_key or is_group for t in others):
        taint.add("other people's messages in this conversation")
    return taint


def _turn_zone(turn: Turn, person: Person | None, s: TurnServices) -> PersonZone:
    own = person.timezone if person else None
    return turn_zone(turn, own, s.settings.scheduler.timezone)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


# ---------------------------------------------------------------------- 7. answer


async def answer(turn: Turn, s: TurnServices) -> AsyncIterator[str]:
    """The reply's deltas. The plan says it when it can (a crisis reply, or the one offline
    answerer when the agent has no model); else the model, through its tools or streamed."""
    assert turn.plan is not None
    model = s.model_for(turn.agent)
    stream = _nothing() if model is None else _model_reply(turn, s, model)
    async for delta in turn.plan.reply(turn.said, stream, turn.recalled):
        yield delta


async def _nothing() -> AsyncIterator[str]:
    return
    yield  # an async generator that yields nothing


async def _model_reply(turn: Turn, s: TurnServices, model: ChatModel) -> AsyncIterator[str]:
    # --- the tool path (issue 14): a model that takes tools answers through them, whole;
    # None means it takes none, and the plain streaming path below answers.
    answered = await _tool_reply(turn, s, model)
    if answered is not None:
        yield answered  # the client cut it past max_tokens, before these notes of the tools
        return
    # --- the plain path (a model past max_tokens is cut in the client: ``familiars.llm``)
    produced, last = False, ""
    try:
        async for delta in model.stream(turn.messages, max_tokens=s.settings.llm.max_reply_tokens):
            if delta.strip():
                produced = True
            if delta:
                last = delta
                yield delta
    except (LLMError, OSError, TimeoutError) as exc:
        logger.warning("the language model failed: %s", exc)
        if not produced:  # the offline answerer answers instead (TurnPlan.reply)
            raise ModelUnreachable(str(exc)) from exc
        yield cut_mark(last)  # half a reply is never passed off as a whole one
        return
    if not produced:
        yield EMPTY_REPLY


async def _tool_caller(turn: Turn, s: TurnServices) -> ToolCaller | None:
    """Who this turn's tools act for (fixed before the model says anything)."""
    if s.turn_tools is None or s.model_for(turn.agent) is None:
        return None
    return await s.turn_tools.caller(
        user_key=turn.user_key,
        agent_id=turn.agent.id,
        dialogue_id=turn.info.dialogue_id,
        is_owner=s.is_owner(turn.message.platform, turn.message.user_id),
        is_group=turn.info.is_group,
        now=turn.now,
        taint=turn.taint,
        zone=turn.zone.info if turn.zone is not None else None,
    )


async def _tool_reply(turn: Turn, s: TurnServices, model: ChatModel) -> str | None:
    """The answer through the tools; None when there are none for this model."""
    caller = await _tool_caller(turn, s)
    if caller is None or s.turn_tools is None:
        return None
    try:
        text = await s.turn_tools.reply(
            model, turn.messages, caller, max_tokens=s.settings.llm.max_reply_tokens
        )
    except (LLMError, OSError, TimeoutError) as exc:
        logger.warning("the language model failed: %s", exc)
        raise ModelUnreachable(str(exc), done=getattr(exc, "said", "")) from exc
    return None if text is None else (text or EMPTY_REPLY)


# ---------------------------------------------------------------------- 8. send


async def send(
    turn: Turn, s: TurnServices, replies: AsyncIterator[str]
) -> AsyncGenerator[str, None]:
    """What the person reads, with the notes after it; sets ``turn.reply``. In a group the
    whole reply (tool answers and notes included) is checked before anyone reads a word of
    it, against the private notes of everyone the familiar knows in this chat. Nothing is
    sent before the message is on disk (its journal line's fsync ran beside the turn)."""
    await s.log.durable(*turn.key)
    if turn.held is not None:  # the message's writer work is queued too
        await asyncio.wait({turn.held})
    if turn.info.is_group:
        reply = _with_notes("".join([delta async for delta in replies]), turn.notes)
        public = [m.content for m in turn.messages if m.role != "system"] + [turn.agent.name]
        private = [it.text for it in turn.recalled if it.private]
        verdict = await s.outbound.guard(
            turn.info, reply, public=public, private=private, answering=turn.text
        )
        turn.reply = verdict.text
        yield turn.reply
        return
    async for delta in replies:
        turn.reply += delta
        yield delta
    if turn.notes:
        tail = _with_notes(turn.reply, turn.notes)[len(turn.reply) :]
        turn.reply += tail
        yield tail


def _with_notes(reply: str, notes: list[str]) -> str:
    if not notes:
        return reply
    return reply + ("\n\n" if reply else "") + "\n".join(notes)


# ---------------------------------------------------------------------- 9. after


async def keep_reply(turn: Turn, s: TurnServices) -> None:
    """On the reply's path, before it is handed over: its stats and ``/memory why`` log
    (a ``/memory why`` right after the reply reads it), what the writer reads of the turn
    (the recent lines: before the reply's node can join the tree), and the reply made
    durable (``pending_reply.json``, fsynced; its A node is embedded and added by a
    background task, TreeLog): a reply the person may read survives a crash."""
    assert turn.plan is not None
    uses = _note_reply(turn, s)
    if (writer_text := turn.plan.writer_text(turn.said)) is not None:  # issue 14
        turn.writer_context = await _turn_context(turn, s, writer_text)
    await _defer_reply(turn, s, turn.reply, uses)


async def _defer_reply(turn: Turn, s: TurnServices, text: str, uses: list[str]) -> None:
    """The reply's A node, deferred and durable (a whole reply, or what was shown of it)."""
    marks = turn.plan.reply_marks if turn.plan is not None else {}
    await s.log.defer_reply_node(
        turn.agent.id,
        turn.info.dialogue_id,
        parent=turn.q_id,
        text=text,
        timestamp=turn.now.timestamp() + max(0.001, time.perf_counter() - turn.started),
        origin="response",
        # Offline replies are not recalled as facts (issue 14); the records a reply
        # drew on are named, so forgetting one forgets the reply that repeated it.
        metadata={**marks, **({"uses": uses} if uses else {})},
    )


async def after(turn: Turn, s: TurnServices) -> None:
    """Off the reply's path, once it is handed over (``DialogueManager.respond``; the
    dialogue's next message, settle() and shutdown wait for it): the writer's turn (the
    held one released with the reply in it) and the chat's times, fsynced in threads at
    once. A crash before it loses no fact: the message's writer work was held on disk when
    the message was recorded, and a start queues what a dead process held."""
    await asyncio.gather(
        s.state.touch_dialogue(turn.agent.id, turn.info.dialogue_id, bot_at=iso_now()),
        _to_writer(turn, s.writer_queue, turn.writer_context),
    )


def _note_reply(turn: Turn, s: TurnServices) -> list[str]:
    """The reply's stats and ``/memory why`` log; the records the reply used."""
    uses = used_records(turn.recalled, turn.reply)
    s.stats.add(len(turn.recalled), len(uses), turn.recall_ms)
    s.recall_log[(turn.agent.id, turn.info.dialogue_id, turn.user_key)] = [
        {"id": it.id, "text": it.text, "score": it.score, "parts": it.parts} for it in turn.recalled
    ]
    return uses


def used_records(recalled: Sequence[RecalledItem], reply: str) -> list[str]:
    """The records of the recalled items the reply drew on (two stemmed words shared:
    "You live in Denver." drew on "The user lives in Denver.")."""
    words = set(keyword_terms(reply))
    used: list[str] = []
    for it in recalled:
        if len(set(keyword_terms(it.text)) & words) >= 2:
            used += [r for r in (it.record_ids or (it.id,)) if r.startswith("m_")]
    return list(dict.fromkeys(used))


async def _to_writer(turn: Turn, queue: WriterQueue | None, context: TurnContext | None) -> None:
    """The turn's writer work: the held turn released with the reply in it (or dropped: a
    care turn's), else queued now; nothing when the message's work was queued before."""
    if queue is None:
        return
    held = await turn.held if turn.held is not None else None
    if held is None:
        if context is not None:
            await queue.enqueue(context)
        return
    if held:
        await queue.release(held, context, drop=context is None)


async def drop_unwritten(turn: Turn, s: TurnServices) -> None:
    """Once the plan says the writer skips this turn (a care turn found by meaning, not by
    the words record_message checks), its held writer work goes now: a turn cut off after
    this (a kill, a failed send) must never let the writer read the message."""
    if turn.held is None or s.writer_queue is None or turn.plan is None:
        return
    if turn.plan.writer_text(turn.said) is not None:
        return
    held, turn.held = turn.held, None  # after() and release_cut_off() queue nothing now
    name = await held
    if name:
        await s.writer_queue.release(name, drop=True)


def release_cut_off(turn: Turn, s: TurnServices) -> None:
    """A turn that ended without its end (a failure, a stop): its message's held writer
    work is released as it was held, so the writer still reads the message."""
    if turn.held is not None and s.writer_queue is not None:
        s.writer_queue.release_soon(turn.held)


async def keep_shown(turn: Turn, s: TurnServices) -> bool:
    """A turn stopped while its reply was being sent (a Ctrl-C in the terminal, a stop of
    the bot, also while the adapter awaited a send or edit): what the person was shown of
    the reply becomes its A node, marked once as cut off as a model's broken stream is
    (:data:`CUT_OFF`), so the next turn knows what was said (it was dropped: review s37),
    with the records it drew on as a whole reply's node has them (a forget of one takes
    it). False when nothing was shown (a group is sent whole); True, and nothing more,
    when the whole reply was kept already (a stop while a note after it was sent)."""
    if "keep_reply" in turn.spent:
        return True
    shown = turn.reply.rstrip()
    if not shown or turn.q_id < 0:
        return False
    uses = _note_reply(turn, s)
    if not shown.endswith(CUT_OFF.strip()):  # the model's own cut is marked already
        shown += CUT_OFF
    await _defer_reply(turn, s, shown, uses)
    return True


async def _turn_context(turn: Turn, s: TurnServices, user_text: str) -> TurnContext | None:
    """What the writer reads of this turn (None: no writer)."""
    if s.writer_queue is None:
        return None
    person = await s.state.person(turn.user_key)
    recent = await s.log.recent_lines(turn.agent.id, turn.info.dialogue_id, 8)
    return TurnContext(
        agent_id=turn.agent.id,
        dialogue_id=turn.info.dialogue_id,
        user_key=turn.user_key,
        user_text=user_text,
        reply_text=turn.reply,
        recent=recent,
        turn_id=turn.q_id,
        timezone=_turn_zone(turn, person, s).name,
        now=turn.now.isoformat(timespec="seconds"),
        # Who spoke, for who may change what (memory._writer._rights).
        is_owner=s.is_owner(turn.message.platform, turn.message.user_id),
        is_group=turn.info.is_group,
        # Its prompt held text the speaker did not write: no directive from it (issue 19).
        tainted=turn.taint.tainted,
        offline_writes=_offline_writes(turn),
    )


def _offline_writes(turn: Turn) -> list[dict[str, Any]] | None:
    """The offline writer's writes the plan worked out for what the writer reads, for an
    offline writer to apply as they are (it runs once a turn). Only for an offline reply:
    a model's tools may change the records after the plan read them."""
    if turn.plan is None or not turn.plan.offline:
        return None
    return [write.model_dump(mode="json") for write in turn.plan.actions.writes]


# ---------------------------------------------------------------------- 10. said


async def behaviour_saved(turn: Turn, s: TurnServices) -> str:
    """When an owner's private message asked the familiar to behave a certain way, the line
    that says what the writer kept of it as the familiar's own (identity directives and
    procedures), as the ``remember`` tool says it: "I also saved (how I behave): ...".
    Only then is the writer waited for: what changes every chat's prompt is never kept
    unsaid. "" for any other turn, or when nothing was kept."""
    if s.writer_queue is None or not may_save_behaviour(turn, s):
        return ""
    await s.writer_queue.drain()
    known = {r.id for r in turn.records}
    kept = await s.store.list(scope="identity", agent_id=turn.agent.id, now=turn.now)
    lines = [
        f"I also saved (how I behave): {r.content}"
        for r in kept
        if r.id not in known
        and r.category in ("directive", "procedure")
        and r.content not in turn.reply  # the remember tool said it already
    ]
    return "".join(f"\n{line}" for line in lines)


def may_save_behaviour(turn: Turn, s: TurnServices) -> bool:
    """Whether :func:`behaviour_saved` may have a line to say: an owner's private, untainted
    message that asks the familiar to behave a certain way. Such a turn runs :func:`after`
    before its reply ends, as the writer must have kept the directive to say it."""
    if s.writer_queue is None or turn.info.is_group or turn.taint.tainted:
        return False
    return asks_behaviour(turn.text) and s.is_owner(turn.message.platform, turn.message.user_id)
