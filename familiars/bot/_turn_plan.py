"""The plan around one turn (:class:`TurnPlanner`, :class:`TurnPlan`): what it did, what it
owes the person, how it is said. The turn's stages (:mod:`familiars.bot._stages`) use it at
these points, in order:

1. :func:`user_node_marks` (record the message) - metadata for the message's node
   (``kind="question"`` keeps a question out of recall: it stays in the tree for context);
2. :meth:`TurnPlanner.begin` (plan, after the person's records are read once into the
   ``Turn``) - duty of care (a self-harm message gets the crisis reply and pauses nudges),
   the turn's actions (:mod:`familiars.bot._turn_actions`: reminders are written here;
   "forget that" never reaches a turn: ``ForgetByWords`` answers it, through the one
   Forgetter), the first reply of a new chat, the break reminder; returns a :class:`TurnPlan`;
3. :meth:`TurnPlan.with_notes` (compose: what the turn did, in the model's system prompt) and
   :meth:`TurnPlan.reply` (answer: the crisis text, the one offline answerer,
   :mod:`familiars.bot._answers`, or the model's stream, with the AI disclosure first and the
   offline notice once per conversation; the offline answerer again, with
   :data:`MODEL_UNREACHABLE`, when the model fails before it said a word);
4. :meth:`TurnPlan.writer_text` (after: what the writer reads; nothing for a care turn)
   and :attr:`TurnPlan.reply_marks` (``kind="notice"`` for offline replies: they only
   repeat memories, so they are not recalled as facts).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, tzinfo
from functools import partial
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from familiars.bot._action_lines import ask_when_line, reminder_line
from familiars.bot._answers import (
    name_of,
    offline_reply,
    spelled_out,
    with_notice,
)
from familiars.bot._care import (
    Sessions,
    asks_a_reminder,
    countries_of,
    crisis_reply,
    disclosure,
    says_a_home,
    speaks_of_self_harm,
)
from familiars.bot._care_talk import CareLog, asks_for_a_line, later_reply, lines_reply, says_safe
from familiars.bot._commands._timezone import repeating_followed
from familiars.bot._home_zone import PersonZone, home_zone, turn_homes, turn_zone
from familiars.bot._questions import Asked, as_asked, asked_each
from familiars.bot._records_view import RecordItem, records_view
from familiars.bot._turn_actions import PendingReminder, TurnActions, plan_actions
from familiars.bot._window import on_in_span
from familiars.llm import OFFLINE_NOTICE, ChatMessage, is_question
from familiars.memory import (
    ForgetReport,
    Kept,
    MemoryRecord,
    Understanding,
    answer_records,
    asks_unknown,
    derived_of,
    forgotten_of,
    make_record,
)

if TYPE_CHECKING:
    from familiars.bot._adapters.base import CommandInvocation, CommandResponse
    from familiars.bot._stages import TurnServices
    from familiars.bot._turn import RecalledItem, Turn

logger = logging.getLogger(__name__)

#: Said under the offline answer that stands in for a model that failed or could not be reached.
MODEL_UNREACHABLE = (
    "(My language model can't be reached right now, so this is a simpler offline answer.)"
)


class ModelUnreachable(Exception):
    """The model said nothing this turn (unreachable, an error, a timeout): the offline
    answerer answers instead (:meth:`TurnPlan.reply`). ``done``: what its tools did before
    it failed (a reminder set, a memory kept), said too."""

    def __init__(self, message: str, *, done: str = "") -> None:
        super().__init__(message)
        self.done = done


#: A question about the person's own: "what are my cats called?".
_ABOUT_MINE = re.compile(r"\b(?:my|our)\b", re.I)


def user_node_marks(text: str) -> dict[str, Any]:
    """The message node's ``kind``: the reader leaves "question" and "care" nodes out of
    recall (``NOT_RECALLED_KINDS`` in the memory reader)."""
    if speaks_of_self_harm(text):
        return {"kind": "care"}
    return {"kind": "question"} if is_question(text) else {}


@dataclass
class TurnPlan:
    key: tuple[str, str]
    agent_name: str
    is_group: bool
    offline: bool
    actions: TurnActions = field(default_factory=TurnActions)
    care_text: str | None = None
    first_in_chat: str = ""
    notice: bool = False
    break_text: str = ""
    #: Said once: the time zone read from where the person lives (or that it may be several).
    zone_note: str = ""
    name: str = ""
    #: The owner's live records (recall merges a record into the node it was said in, so
    #: offline answers rank these too).
    records: list[MemoryRecord] = field(default_factory=list)
    #: The records a question asks about, found by meaning (issue 23), best first.
    meant: list[str] = field(default_factory=list)
    #: The question surely asks about the person's own slot that nothing kept holds.
    unknown: bool = False
    #: A message of several questions: each with what answers it.
    asked: list[Asked] = field(default_factory=list)
    #: The clock in the person's time zone ("what's the date?").
    now: datetime | None = None
    #: The last offline replies per (agent, dialogue), shared with the planner, so "what did
    #: you just say?" has its answer.
    said: dict[tuple[str, str], str] = field(default_factory=dict)
    #: The reply before this one was the crisis reply ("jk im fine" is met warmly).
    after_care: bool = False
    #: Reads what a question asks about (``meant``, ``unknown``) for a model turn whose
    #: model failed: an offline turn reads it while planning.
    answering: Callable[[], Awaitable[None]] | None = None
    #: The model was not heard: it failed and the offline answerer answered, or the bot
    #: asked its own question (when to remind).
    fell_back: bool = False

    @property
    def reply_marks(self) -> dict[str, Any]:
        if self.care_text is not None:
            return {"kind": "care"}
        return {"kind": "notice"} if self.offline or self.fell_back else {}

    def writer_text(self, llm_text: str) -> str | None:
        """What the writer reads for this turn; None: the writer skips it."""
        if self.care_text is not None:
            return None
        text = self.actions.writer_text
        if text is None:
            return llm_text
        return text or None

    def _walked(self, recalled: Sequence[RecalledItem]) -> list[str]:
        """What the person's people graph walked to for a question about their people ("who
        is Jo married to?" -> Jo's husband): said before what the slot model found, which
        knows the kind asked about (family) but not whose; the slot model's records follow,
        so "what are my cats called?" names every cat, not only the two the graph found."""
        if self.is_group:
            return []
        return [it.text for it in recalled if it.parts.get("graph")][:2]

    def _answers(self, text: str, recalled: Sequence[RecalledItem]) -> list[str]:
        """The records a question asks about: the graph's walk, and when the question asks
        about the person's own ("what are my cats called?") the slot model's too, so a walk
        capped at two does not hide the third cat; a question about someone else ("who is
        Jo married to?") keeps the walk alone (the slot model does not know whose)."""
        walked = self._walked(recalled)
        if walked and _ABOUT_MINE.search(text):
            return list(dict.fromkeys([*walked, *self.meant]))
        return walked or self.meant

    def with_notes(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        notes = self.actions.prompt_notes()
        if self.first_in_chat:
            notes.append("This is the first message in this chat: say plainly that you are an AI.")
        if not notes or not messages or messages[0].role != "system":
            return messages
        system = messages[0].content + "\n\nWhat this turn did (tell the person):\n"
        system += "\n".join(f"- {n}" for n in notes)
        return [ChatMessage("system", system), *messages[1:]]

    def _record_items(self, text: str) -> list[RecordItem]:
        """The owner's records an offline answer to ``text`` may quote (see
        :meth:`RecordsView.items_for`)."""
        text = spelled_out(text)
        if not is_question(text):
            return []  # only a question's answer reads them (offline_reply)
        return records_view(self.records).items_for(text)

    async def reply(
        self, text: str, model_reply: AsyncIterator[str], recalled: Sequence[RecalledItem]
    ) -> AsyncIterator[str]:
        lead = self.first_in_chat + "\n" if self.first_in_chat else ""
        if self.care_text is not None:
            await _close(model_reply)
            self.said[self.key] = self.care_text
            yield lead + self.care_text
        elif self.actions.ask_when is not None and not self.offline:
            # The bot's own question, whatever model answers the chat: one that only chats
            # set nothing (s36); the answer, the next message, is read as its time.
            await _close(model_reply)
            self.fell_back = True  # a question of the bot's: no fact to recall
            yield lead + ask_when_line(self.actions.ask_when)
        elif self.offline:
            await _close(model_reply)
            said = "\n".join(filter(None, [self._offline_answer(text, recalled), self.zone_note]))
            yield lead + (with_notice(said) if self.notice else said)
        else:
            said = ""
            try:
                async for delta in model_reply:
                    said += delta
                    yield lead + delta
                    lead = ""
            except ModelUnreachable as down:
                self.fell_back = True
                if self.answering is not None:
                    await self.answering()
                done = f"\n{down.done}" if down.done else ""
                yield f"{lead}{self._offline_answer(text, recalled)}{done}\n{MODEL_UNREACHABLE}"
            else:
                if unconfirmed := self._unconfirmed(said):
                    yield "".join(f"\n{line}" for line in unconfirmed)
        if self.zone_note and not self.offline:  # offline: said before the notice
            yield "\n" + self.zone_note
        if self.break_text:
            yield "\n\n" + self.break_text

    def _unconfirmed(self, said: str) -> list[str]:
        """The bot's own line for each reminder this turn's rules set that the model's reply
        does not name (it was asked to confirm it; one that only chatted left the person
        not knowing that "saturday at 10am" set anything)."""
        words = set(re.findall(r"\w{3,}", said.lower()))
        return [
            reminder_line(r)
            for r in self.actions.reminders
            if not set(re.findall(r"\w{3,}", r.task.lower())) <= words
        ]

    def _offline_answer(self, text: str, recalled: Sequence[RecalledItem]) -> str:
        """The one offline answerer's reply to ``text`` (remembered for "what did you say?")."""
        view = records_view(self.records)
        said = offline_reply(
            text,
            actions=self.actions,
            items=[*recalled, *self._record_items(text)],
            is_group=self.is_group,
            name=self.name,
            meant=self._answers(text, recalled),
            unknown=self.unknown,
            now=self.now,
            last_reply=self.said.get(self.key, ""),
            familiar=self.agent_name,
            kept=view.kept(self.is_group),
            on_now=on_in_span(text, self.now, view.spoken(self.is_group)),
            after_care=self.after_care,
            asked=self.asked,
        )
        self.said[self.key] = said
        return said


def _zone_or_utc(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


async def _close(stream: AsyncIterator[str]) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


class TurnPlanner:
    """Per-dialogue conversation state (in memory): pending reminders, whether the offline
    notice was said, session starts, the last message's node."""

    def __init__(self, services: TurnServices) -> None:
        self.services = services
        care = services.settings.care
        self.sessions = Sessions(gap_s=care.session_gap_s, after_s=care.break_after_s)
        self.pending: dict[tuple[str, str], PendingReminder] = {}
        #: Each dialogue's person's last message ("remind me the day before" counts from the
        #: event it named).
        self.told: dict[tuple[str, str], str] = {}
        self.noticed: set[tuple[str, str]] = set()
        self.last_q: dict[tuple[str, str], int] = {}
        self.said: dict[tuple[str, str], str] = {}
        #: The dialogues whose last reply was the crisis reply.
        self.cared: set[tuple[str, str]] = set()
        #: (person, zone or place) whose zone read from their home was said: said once.
        self.zone_said: set[tuple[str, str]] = set()
        #: Each dialogue's crisis replies this conversation (the second on is no repeat).
        self.care_logs: dict[tuple[str, str], CareLog] = {}
        #: Set by the scheduler's wiring: ``care_pause(user_key, until)``.
        self.on_pause: Callable[[str, datetime], Awaitable[None] | None] | None = None

    def forget(self, report: ForgetReport) -> None:
        """The Forgetter's hook: a dialogue's last reply that held forgotten words goes, or
        "what did you just say?" would say them again (and its reply keep them anew)."""
        if not report.texts:
            return
        gone = forgotten_of((), report.texts, replies=report.replies)
        replies = [" ".join(r.split()) for r in report.replies]
        for key, told in list(self.told.items()):
            if gone.holds(told):
                del self.told[key]
        for key, said in list(self.said.items()):
            flat = " ".join(said.split())
            if gone.holds(said) or any(flat and flat in r for r in replies):
                del self.said[key]

    def _told(self, key: tuple[str, str], said: str) -> str:
        """The person's message before ``said`` in this dialogue ("" for none); ``said`` is
        kept as the next one's."""
        previous = self.told.get(key, "")
        self.told[key] = said
        return previous

    async def begin(self, turn: Turn) -> TurnPlan:
        """Everything the turn must know before its reply (see the module map); reads the
        person's records from ``turn.records`` (read once, by the read stage)."""
        settings = self.services.settings
        agent, info, now, user_key = turn.agent, turn.info, turn.now, turn.user_key
        key = turn.key
        offline = self.services.model_for(agent) is None
        plan = TurnPlan(key, agent.name, info.is_group, offline)
        if settings.care.ai_disclosure and info.last_bot_at is None and key not in self.last_q:
            plan.first_in_chat = disclosure(settings, agent.name)
        if settings.care.break_reminder and self.sessions.note(key, now):
            plan.break_text = settings.care.break_text
        self.last_q[key] = turn.q_id
        pending = self.pending.pop(key, None)
        # The person's homes and zone, read once off the records (none in a group).
        homes = turn_homes(turn)
        turn.zone = await self._timezone(turn)
        tz, own_zone = turn.zone.name, turn.zone.own
        plan.after_care = key in self.cared
        self.cared.discard(key)
        if await self._cares(plan, turn, tz, homes):
            return plan
        if offline and key not in self.noticed:
            self.noticed.add(key)
            plan.notice = True
        existing = turn.records
        plan.name = derived_of(existing, "name", _name_in_records)
        plan.records = derived_of(existing, "spoken of", _user_and_dialogue)
        plan.now, plan.said = now.astimezone(_zone_or_utc(tz)), self.said
        plan_now = partial(
            plan_actions,
            turn.said,
            existing=existing,
            now=now,
            timezone=tz,
            dialogue_id=info.dialogue_id,
            grace_s=settings.scheduler.reminder_grace_s,
            pending=pending,
            max_chars=settings.memory.max_record_chars,  # as the writer cuts them
            understanding=self.services.understanding,
            user_key=user_key,
            previous=self._told(key, turn.said),
        )
        await self._understand(plan, turn, plan_now, offline=offline)
        if not own_zone:  # "I live in Melbourne", said now or before
            await self._home_said(plan, turn, plan_now, homes, offline=offline)
        if self.services.takes_tools(agent) and pending is None:
            # A model with tools sets reminders itself with set_reminder: the rules do not
            # set one behind its back, and it is not told one was set. A reminder with no
            # time is still the bot's question (``ask_when``), and the answer to it is the
            # bot's to set (``pending``).
            plan.actions = replace(
                plan.actions, reminders=[], unreadable_time=None, passed_time=None
            )
        if plan.actions.ask_when is not None:
            self.pending[key] = plan.actions.ask_when
        await self._store_reminders(
            plan.actions, agent.id, info.dialogue_id, user_key, turn.q_id, now
        )
        return plan

    async def _understand(
        self, plan: TurnPlan, turn: Turn, plan_now: Callable[[], TurnActions], *, offline: bool
    ) -> None:
        """The turn's actions and answering records: read now offline; with a model, only
        the actions now and the answering if the model fails (the offline answer stands in).
        A message cut for length (the note says so) is a paste, answered but never mined: its
        words are not the person telling about themselves (tester s36: a 100 KB word salad
        became "your dog is called Fluffy", burying the real dog)."""
        if turn.left_out:
            plan.actions = TurnActions(writer_text="")
        else:
            await self._read(plan, turn, plan_now)
        if not offline:
            plan.answering = partial(self._answering, plan, turn)

    async def _read(self, plan: TurnPlan, turn: Turn, plan_now: Callable[[], TurnActions]) -> None:
        """The turn's actions, and an offline question's answering records; with the
        understanding they embed (the message's clauses, the question): off the event loop,
        in one hop, the message's vector handed over first (recall embedded it)."""
        understanding = self.services.understanding
        if understanding is None:
            plan.actions = plan_now()
            return
        asked = as_asked(turn.said)  # "wat do u know about me", "tell me my name"
        understanding.know(turn.said, turn.said_vector)
        plan.actions, meant, plan.unknown, each = await asyncio.to_thread(
            _read_message, plan_now, plan.records, understanding,
            asked if plan.offline and is_question(asked) else None,
        )  # fmt: skip
        _answered(plan, meant, each, group=turn.info.is_group)

    async def _answering(self, plan: TurnPlan, turn: Turn) -> None:
        """What a question asks about, as :meth:`_read` reads it for an offline turn."""
        understanding = self.services.understanding
        asked = as_asked(turn.said)
        if understanding is None or not is_question(asked):
            return
        meant, plan.unknown, each = await asyncio.to_thread(
            _answer_to, asked, plan.records, understanding
        )
        _answered(plan, meant, each, group=turn.info.is_group)

    async def _cares(self, plan: TurnPlan, turn: Turn, tz: str, homes: Sequence[str]) -> bool:
        """The crisis reply in ``plan`` when the message worries (and proactive messages
        paused), the full text the first time in a conversation and a shorter one after
        (:func:`follow_up`); the lines again when asked for; whether it did either."""
        care = self.services.settings.care
        log = self.care_logs.get(turn.key, CareLog()).fresh(turn.now, care.session_gap_s)
        if log.count and says_safe(turn.said):  # "I'm safe tonight": not asked again
            log = self.care_logs[turn.key] = replace(log, safe=True)
        if not care.crisis_replies:
            return False
        # In a group the speaker's home record stays private (``homes`` is empty): the
        # lines follow the setting and the time zone there.
        countries = countries_of(tz, care.country, homes)
        if not await self._worrying(turn, self.services.understanding):
            if asks_for_a_line(turn.said, cared=log.count > 0):
                plan.care_text = lines_reply(care, countries)
            return plan.care_text is not None
        if log.count:  # in the owner's words where they wrote the crisis text
            plan.care_text = later_reply(care, turn.said, countries, log.count, safe=log.safe)
        else:
            plan.care_text = crisis_reply(care.crisis_text, countries)
        self.care_logs[turn.key] = replace(log, count=log.count + 1, last=turn.now)
        self.cared.add(turn.key)
        await self._pause(turn.user_key, turn.now)
        return True

    def after_command(
        self, invocation: CommandInvocation, response: CommandResponse
    ) -> CommandResponse:
        """``/help`` says the offline notice when the chat's agent has no model."""
        services = self.services
        agent = services.agent_for(invocation.platform, invocation.chat_id)
        if invocation.name == "help" and services.model_for(agent) is None:
            return replace(response, text=f"{response.text}\n\n{OFFLINE_NOTICE}")
        return response

    # ------------------------------------------------------------------ the parts

    async def _pause(self, user_key: str, now: datetime) -> None:
        until = now + timedelta(seconds=self.services.settings.care.crisis_pause_s)
        logger.info("care: unsolicited nudges paused for %s until %s", user_key, until)
        if self.on_pause is not None:
            paused = self.on_pause(user_key, until)
            if inspect.isawaitable(paused):  # the scheduler saves off the event loop
                await paused

    async def _worrying(self, turn: Turn, understanding: Understanding | None) -> bool:
        """Self-harm said outright (the rule), or indirectly (by meaning, when loaded; over
        the message's vector recall embedded, when the model reads case alike)."""
        if speaks_of_self_harm(turn.said):
            return True
        if understanding is None or asks_a_reminder(turn.said):
            return False
        if understanding.harm_is_ready(turn.said, turn.said_vector):  # no model: no thread
            return understanding.sounds_like_harm(turn.said, turn.said_vector)
        return await asyncio.to_thread(understanding.sounds_like_harm, turn.said, turn.said_vector)

    async def _home_said(
        self,
        plan: TurnPlan,
        turn: Turn,
        plan_now: Callable[..., TurnActions],
        known: Sequence[str],
        *,
        offline: bool,
    ) -> None:
        """The zone note, and a message that names a new home read again in its zone: "I
        live in Oslo. Remind me to stretch every Tuesday at 9" is 09:00 in Oslo, as the next
        message's "at 9" is (it was 09:00 in the zone before, and the note's follow came
        before the reminder was stored, so missed it)."""
        if turn.info.is_group:  # a home said in a group changes no zone unsaid
            return
        #: Only what says where the person lives: "my sister Ana lives in Lisbon" is noted
        #: too, and its zone was said as theirs (lead s39), though no zone followed it.
        told = [
            w.entry.content
            for w in plan.actions.writes
            if w.op != "skip" and w.scope == "user" and says_a_home(w.entry.content, w.entry.tags)
        ]
        homes = [*known, *told]
        found = home_zone(homes) if told else None
        tz = turn.zone.name if turn.zone is not None else ""
        if found is not None and found.zone and found.zone != tz and not turn.left_out:
            plan.now = turn.now.astimezone(ZoneInfo(found.zone))
            await self._understand(
                plan, turn, partial(plan_now, timezone=found.zone), offline=offline
            )
        plan.zone_note = await self._zone_note(turn, homes)

    async def _zone_note(self, turn: Turn, homes: Sequence[str]) -> str:
        """Said once per person and zone (and per place of several zones): the time zone
        read from where they live, while they have set none. Never in a group: the home
        record is private. Their repeating reminders follow it as ``/timezone`` makes them
        (``every Monday at 8`` set before stays at 08:00 there), said in the same line."""
        found = home_zone(homes)
        if turn.info.is_group or found is None:
            return ""
        key = (turn.user_key, found.zone or found.place.lower())
        if key in self.zone_said:
            return ""
        self.zone_said.add(key)
        tools = self.services.turn_tools
        if not found.zone or tools is None:
            return found.said()
        moved = await tools.book.follow_zone(turn.user_key, found.zone, turn.now)
        return found.said() + repeating_followed(moved, ZoneInfo(found.zone), turn.now)

    def forgot(self, report: ForgetReport) -> None:
        """A forget hook: a zone note said for a home now forgotten is said again when the
        home is said again (its reminders follow it then), and no zone of it is held."""
        words = " ".join(report.texts).lower()
        self.zone_said = {key for key in self.zone_said if key[1] not in words}
        for text in report.texts:
            found = home_zone([text])
            if found is not None:
                self.zone_said -= {k for k in self.zone_said if k[1] == found.zone}

    async def _timezone(self, turn: Turn) -> PersonZone:
        """The person's zone (:func:`turn_zone`), once a turn: the later stages read it off
        ``turn.zone``. In a group their private home gives none."""
        person = await self.services.state.person(turn.user_key)
        own = person.timezone if person else None
        return turn_zone(turn, own, self.services.settings.scheduler.timezone)

    async def _store_reminders(
        self,
        actions: TurnActions,
        agent_id: str,
        dialogue_id: str,
        user_key: str,
        q_id: int,
        now: datetime,
    ) -> None:
        """Reminders are written now: the reply confirms them, so they must exist whatever the
        writer decides later (it finds the same text live and skips it)."""
        for reminder in actions.reminders:
            write = reminder.record
            entry = write.entry
            # The asker rides on the loop, as the writer records it: /reminders finds it.
            extra = (
                {"open_loop": {**entry.open_loop.stored(), "user_key": user_key}}
                if entry.open_loop
                else {}
            )
            record = make_record(
                entry.content,
                scope=write.scope,
                category=write.category,
                agent_id=agent_id,
                dialogue_id=dialogue_id,
                tags=list(entry.tags),
                salience=entry.salience,
                ttl=entry.ttl,
                evidence={"dialogue_id": dialogue_id, "turn_id": q_id},
                epistemic_status=entry.epistemic_status,
                source_quote=list(entry.source_quote),
                extra=extra,
            )
            try:
                await self.services.store.append(record, dedupe=not reminder.again)
            except (ValueError, OSError):
                logger.exception("could not store a reminder; the writer will try again")


def _read_message(
    plan_now: Callable[[], TurnActions],
    records: Sequence[MemoryRecord],
    understanding: Understanding,
    asked: str | None,
) -> tuple[TurnActions, list[MemoryRecord], bool, list[Asked]]:
    """The turn's actions; for ``asked`` (an offline question), the records that answer it,
    whether it surely asks of one of the person's slots that none is kept for, and each of
    its questions when it asks several. Each may embed, so they run in one thread, not one
    each."""
    actions = plan_now()
    if asked is None:
        return actions, [], False, []
    return actions, *_answer_to(asked, records, understanding)


def _answer_to(
    asked: str, records: Sequence[MemoryRecord], understanding: Understanding
) -> tuple[list[MemoryRecord], bool, list[Asked]]:
    """The records that answer the question ``asked``, whether it surely asks of one of
    the person's slots that none is kept for, and each of its questions (when several)."""
    each = asked_each(asked, records, understanding)
    meant = answer_records(asked, records, understanding)
    return meant, not meant and asks_unknown(asked, records, understanding), each


def _name_in_records(records: Sequence[MemoryRecord]) -> str:
    return name_of([r.content for r in records if r.scope == "user"])


def _user_and_dialogue(records: Sequence[MemoryRecord]) -> Kept:
    """The records an offline answer may speak from (kept with the person's records)."""
    return Kept(r for r in records if r.scope in ("user", "dialogue"))


def _answered(
    plan: TurnPlan, meant: Sequence[MemoryRecord], each: Sequence[Asked], *, group: bool
) -> None:
    """What answers the question in ``plan``; in a group, never the speaker's private
    records (a question of several keeps only the answers that may be said there)."""
    private = {r.content for r in plan.records if r.scope == "user"} if group else set()
    plan.meant = [r.content for r in meant if not (group and r.scope == "user")]
    plan.asked = [replace(a, meant=tuple(m for m in a.meant if m not in private)) for a in each]


__all__ = ["MODEL_UNREACHABLE", "ModelUnreachable", "TurnPlanner", "TurnPlan", "user_node_marks"]
