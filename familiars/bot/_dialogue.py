"""DialogueManager: one turn end to end (DESIGN.md "One turn, end to end"), as named stages
over one :class:`~familiars.bot._turn.Turn` value (:mod:`familiars.bot._stages`).

:meth:`DialogueManager.respond` receives (who, where, what was said; a yes or no to a
command's question, "forget that" and "cancel the landlord reminder" are answered before any
turn), then :meth:`DialogueManager._turn` runs the stages in order: record the
message (Q node), and beside it read the person's records once -> plan (care, actions,
reminders: :class:`~familiars.bot._turn_plan.TurnPlanner`) -> recall -> compose the prompt ->
answer -> send (groups through the one group check, ``Outbound``) -> keep the reply (its
stats, its A node deferred, durable). Once the reply is handed over, after (the writer's
turn, the chat's times) runs in a task that holds the dialogue's lock
(:class:`~familiars.bot._after_reply.AfterReplies`), and beside it the ephemeral records of
the previous turn are cleared. An owner's "behave like this" runs them before the reply
ends, and is said as saved. Commands go
through :class:`CommandSet`, their group answers through the same group check.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime

from familiars.bot import _stages as stages
from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
)
from familiars.bot._care import speaks_of_self_harm
from familiars.bot._commands import Caller, CommandSet, ForgetCommand, default_commands
from familiars.bot._forget_words import command_said
from familiars.bot._forgetting import (
    KEPT,
    NOT_FRESH_YES,
    STILL_ASKED,
    ForgetByWords,
    is_clear_yes,
    is_no,
    is_yes,
)
from familiars.bot._outbound import Outbound
from familiars.bot._reminder_words import ReminderWords
from familiars.bot._stages import RecallLog, TurnServices
from familiars.bot._state import BotState
from familiars.bot._turn import DialogueLog, Recaller, Turn
from familiars.bot._turn_plan import TurnPlanner
from familiars.bot._turn_stats import TurnStats
from familiars.bot._yes_no import answers_unclearly, asks_what_goes, is_plain_no
from familiars.config import AgentSettings, Settings
from familiars.llm import ChatModel
from familiars.memory import MemoryStore, WriterQueue, is_disk_full

logger = logging.getLogger(__name__)

#: The one limit on what a person may say in one message, on every road in (console,
#: Discord, Telegram: they all come through :meth:`DialogueManager.respond`). Past it the
#: rest is left out, nothing is noted from the message (``TurnPlanner.begin``: a paste, not
#: the person telling about themselves), and the reply says so (:func:`too_long_note`).
MAX_MESSAGE_CHARS = 16_000
#: Said when saving the turn found the disk full (issue 19): plainly, and the chat goes on.
DISK_FULL_REPLY = (
    "My disk is full, so I may not have kept what you just said, and I can't note anything "
    "new until some space is freed. What you told me before is kept."
)
#: Said first in a dialogue's next reply when saving its last turn, after that reply was
#: handed over, found the disk full (that reply could no longer say it).
DISK_FULL_AFTER = (
    "(My disk filled up while I was saving our last exchange, so I may not have kept all of "
    "it, and I can't note anything new until some space is freed. What you told me before "
    "is kept.)"
)
#: Said when a forget or a change to a reminder found the disk full: it may not be done (a
#: forget begun goes on when there is space: its intent is on disk).
DISK_FULL_NOT_DONE = (
    "My disk is full, so I could not finish that: ask me again once some space is freed."
)


class DialogueManager:
    """Implements the adapters' ``TurnHandler``: routes a message to its turn and composes
    the turn's stages; commands go to the :class:`CommandSet`."""

    def __init__(
        self,
        services: TurnServices,
        *,
        forget_words: ForgetByWords,
        reminder_words: ReminderWords | None = None,
        commands: CommandSet | None = None,
        on_care_pause: Callable[[str, datetime], Awaitable[None] | None] | None = None,
    ) -> None:
        #: What the stages use (storage, recall, models, the one group check), built by the
        #: runtime (:mod:`familiars.bot._services`).
        self.services = services
        self.planner = TurnPlanner(self.services)  # what a turn did, duty of care (issue 14)
        #: The scheduler's care pause: no unsolicited nudges for a person in crisis.
        self.planner.on_pause = on_care_pause
        self.forget_words = forget_words  # "forget that ...": the one Forgetter (issue 19)
        #: Its last replies kept for "what did you just say?" go with what is forgotten.
        forget_words.forgetter.hooks.append(self.planner.forget)
        #: "cancel the landlord reminder", "snooze that": the one ReminderBook (issue 23).
        self.reminder_words = reminder_words
        #: The runtime builds the commands with their services; alone, the manager's own.
        self.commands = commands or _own_commands(self.services, forget_words, self._note_used)
        forget = self.commands.find("forget")
        if isinstance(forget, ForgetCommand):  # "/forget my old address": by words
            forget.by_words = self._forget_in_words
        #: When each dialogue's last turn started (its ephemeral records go at the next).
        self._turn_started: dict[tuple[str, str], str] = {}
        #: The turn whose reply is whole and kept, per dialogue: respond hands it, with the
        #: dialogue's lock, to its after-reply task.
        self._handing: dict[tuple[str, str], Turn] = {}
        #: The dialogues whose last after() found the disk full (said in their next reply;
        #: in memory only: a restart forgets to say it).
        self._full_after: set[tuple[str, str]] = set()
        #: What each stage of the last turn took, in ms (``Turn.spent``).
        self.last_spent: dict[str, float] = {}
        #: (agent, dialogue, person) -> the command a "yes" in their next message runs
        #: (``CommandResponse.on_yes``: ``/memory forget ID`` asked first).
        self._on_yes: dict[tuple[str, str, str], tuple[CommandInvocation, Caller]] = {}
        #: The question each of those showed, said again to "what goes?".
        self._asked_text: dict[tuple[str, str, str], str] = {}

    # ------------------------------------------------------------------ what others read

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def access(self) -> AccessPolicy:
        """The bot's one access policy: who owns the bot (owner-only commands, recall)."""
        return self.services.access

    @property
    def store(self) -> MemoryStore:
        return self.services.store

    @property
    def state(self) -> BotState:
        return self.services.state

    @property
    def log(self) -> DialogueLog:
        return self.services.log

    @property
    def recaller(self) -> Recaller | None:
        return self.services.recaller

    @property
    def writer_queue(self) -> WriterQueue | None:
        return self.services.writer_queue

    @property
    def stats(self) -> TurnStats:
        return self.services.stats

    @property
    def outbound(self) -> Outbound:
        """The one check of all said in a group (issue 19), shared with the proactive sender."""
        return self.services.outbound

    @property
    def recall_log(self) -> RecallLog:
        return self.services.recall_log

    # ------------------------------------------------------------------ routing

    def agent_for(self, platform: str, chat_id: str) -> AgentSettings:
        return self.services.agent_for(platform, chat_id)

    def is_owner(self, platform: str, user_id: str) -> bool:
        return self.services.is_owner(platform, user_id)

    def model_for(self, agent: AgentSettings) -> ChatModel | None:
        """The agent's own provider when it names one, else the shared router."""
        return self.services.model_for(agent)

    def takes_tools(self, agent: AgentSettings) -> bool:
        """Whether this agent's turns go through the tools (a model that takes them)."""
        return self.services.takes_tools(agent)

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
            is_group=inv.is_group,
        )

    # ------------------------------------------------------------------ TurnHandler

    def command_specs(self) -> list[CommandSpec]:
        return self.commands.specs()

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        caller = await self.caller_for(invocation)
        invocation = self._confirms_only_when_asked(invocation, caller)
        response = await self.commands.run(invocation, caller)
        if response.on_yes is not None and caller.dialogue_id is not None:
            asked = replace(invocation, args=response.on_yes)
            self._on_yes[(caller.agent_id, caller.dialogue_id, caller.user_key)] = (asked, caller)
            self._asked_text[(caller.agent_id, caller.dialogue_id, caller.user_key)] = response.text
        response = self.planner.after_command(invocation, response)  # issue 14: /help
        return await self._guarded_answer(invocation, caller, response)

    def _confirms_only_when_asked(
        self, invocation: CommandInvocation, caller: Caller
    ) -> CommandInvocation:
        """A forget's own "confirm" counts only as the answer to the question this dialogue
        showed this person for the same thing, typed after it was shown (:attr:`fresh`);
        else the forget asks first and a yes (or the confirm) after the question goes on.
        A single pasted "/memory forget everything confirm" erased a person unasked (tester
        s38); a confirm typed ahead, forwarded or naming something else asks too."""
        target = _confirmed_forget(invocation)
        if target is None:
            return invocation
        if caller.dialogue_id is None:  # no dialogue, no question shown in it
            return replace(invocation, args=invocation.args[:-1])
        key = (caller.agent_id, caller.dialogue_id, caller.user_key)
        waiting = self._on_yes.get(key)
        if invocation.fresh and waiting is not None and _confirmed_forget(waiting[0]) == target:
            del self._on_yes[key]  # answered: a later yes answers nothing
            self._asked_text.pop(key, None)
            self.forget_words.drop(*key)
            return invocation
        return replace(invocation, args=invocation.args[:-1])

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
        verdict = await self.outbound.guard(
            info, response.text, public=[typed], what="answer", answering=typed
        )
        if not verdict.changed:
            return response
        return CommandResponse(verdict.text, private=False)

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        caller = await self.caller_for(invocation)
        return await self.commands.complete(invocation, caller, partial)

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        """Receive (who, where, what was said), then the turn, one at a time per dialogue."""
        turn = await self._receive(message)
        if turn is None:
            return
        if turn.left_out:  # said first, whatever answers the rest
            yield too_long_note(turn.left_out) + "\n\n"
        # One turn at a time per dialogue: in this process, and in the database home across
        # workers (an advisory lock per dialogue); different dialogues run in parallel. The
        # lock goes to the turn's after-reply task when there is one, so the dialogue's
        # next message waits for it.
        lock = contextlib.AsyncExitStack()
        await lock.enter_async_context(self.state.files.home.dialogue_lock(*turn.key))
        try:
            if turn.key in self._full_after:  # the last reply's after() found the disk full
                self._full_after.discard(turn.key)
                verdict = await self.outbound.guard(  # in a group, the one group check
                    turn.info, DISK_FULL_AFTER, public=[turn.text], what="notice"
                )
                yield verdict.text + "\n\n"
            # Closed here, not by the loop's finalizer later: a stop while the adapter
            # awaits a send or edit closes this generator, and the turn's cleanup (what was
            # shown kept, its held work released) must end before the lock is let go.
            async with contextlib.aclosing(self._locked(turn)) as deltas:
                async for delta in deltas:
                    yield delta
        finally:
            # No delta follows a kept reply: its turn is handed over whatever ends this.
            if (handed := self._handing.pop(turn.key, None)) is not None:
                self.services.afters.start(
                    turn.key,
                    self._after_reply(handed),
                    held=lock.pop_all(),
                    unstarted=lambda: stages.release_cut_off(handed, self.services),
                )
            await lock.aclose()

    async def _locked(self, turn: Turn) -> AsyncGenerator[str, None]:
        """The early answers, else (or after "scratch that") the turn, under the lock."""
        try:
            asked = await self._early_answer(turn)
        except Exception as exc:  # a forget or a change to a reminder: its writes
            if not is_disk_full(exc):
                raise
            logger.warning("an answer could not be saved: %s", exc)
            yield DISK_FULL_NOT_DONE
            return
        if asked is not None:  # said in a group only through the one outbound check
            verdict = await self.services.outbound.guard(
                turn.info, asked[0], public=[turn.text], what=asked[1], answering=turn.text
            )
            yield verdict.text
            instead = self.forget_words.said_instead(
                turn.agent.id, turn.info.dialogue_id, turn.user_key
            )
            if instead is None:
                return
            # "scratch that, <what is true>", answered: what is true is a turn of its own.
            yield "\n\n"
            turn = replace(turn, text=instead, message=replace(turn.message, text=instead))
        async with contextlib.aclosing(_said_plainly_when_full(self._turn(turn))) as deltas:
            async for delta in deltas:
                yield delta

    async def _early_answer(self, turn: Turn) -> tuple[str, str] | None:
        """A reply before the message is a turn, and what gave it: a question a command
        asked, a forget by words, a change to a reminder. Never for a message that speaks of
        self-harm: that goes to the turn, where the care check answers it (review of s32:
        "any reminders won't matter, I'm going to kill myself" got the reminder list)."""
        if speaks_of_self_harm(turn.text):
            return None
        if not turn.message.fresh and is_yes(turn.text) and self._question_waits(turn):
            # A forget goes on a yes typed after its question only: one typed ahead, or
            # sent along with the request, answered nothing (tester s38). It still waits.
            return NOT_FRESH_YES, "forget answer"
        asked = await self._answer_command_question(turn)
        words = self.reminder_words
        # "forget it" (never mind) to a reminder's question is its no, not a forget of the
        # last message (it forgot the reminder just set: tester s39).
        declines = (
            words is not None
            and is_plain_no(turn.text)
            and words.waits(turn.agent.id, turn.info.dialogue_id, turn.user_key)
        )
        if not declines:
            asked = asked or await self.forget_words.answer(  # asked, confirmed: not a turn
                turn.text,
                agent_id=turn.agent.id,
                dialogue_id=turn.info.dialogue_id,
                user_key=turn.user_key,
                now=turn.now,
                is_group=turn.info.is_group,
            )
        what = "forget answer"
        if asked is None and words is not None and not self.services.takes_tools(turn.agent):
            # A model that takes tools changes reminders with its own (the same book).
            what = "reminder answer"
            asked = await words.answer(  # a change to a reminder: not a turn
                turn.text,
                agent_id=turn.agent.id,
                dialogue_id=turn.info.dialogue_id,
                user_key=turn.user_key,
                now=turn.now,
                is_group=turn.info.is_group,
            )
        return None if asked is None else (asked, what)

    def _question_waits(self, turn: Turn) -> bool:
        """Whether a forget's question waits for this person's answer here."""
        return (*turn.key, turn.user_key) in self._on_yes or self.forget_words.waits(
            turn.agent.id, turn.info.dialogue_id, turn.user_key
        )

    async def _forget_in_words(
        self, words: str, caller: Caller, invocation: CommandInvocation
    ) -> str | None:
        """``/forget WORDS``: "forget WORDS" said, asked and confirmed as in a message."""
        if caller.dialogue_id is None:
            return None
        return await self.forget_words.answer(
            command_said(words),
            agent_id=caller.agent_id,
            dialogue_id=caller.dialogue_id,
            user_key=caller.user_key,
            now=invocation.ts,
            is_group=invocation.is_group,
        )

    async def _answer_command_question(self, turn: Turn) -> str | None:
        """The answer when ``turn`` says yes or no to what a command of this person's just
        asked here (``/memory forget ID``: "yes" forgets, as ``confirm`` would), or asks
        what it would remove (the question again); None for any other message, which drops
        the question."""
        key = (*turn.key, turn.user_key)
        pending = self._on_yes.pop(key, None)
        shown = self._asked_text.pop(key, "")  # it quotes what would go: kept while asked
        if pending is None:
            return None
        if is_no(turn.text):
            return KEPT
        invocation, caller = pending
        everything = invocation.args[:2] == ("forget", "everything")  # a whole person
        yes = is_clear_yes(turn.text) if everything else is_yes(turn.text)
        again = bool(shown) and asks_what_goes(turn.text)
        if again or (not yes and (answers_unclearly(turn.text) or is_yes(turn.text))):
            # "what does everything mean": the question again; "hmm", "ok": still asked
            self._on_yes[key], self._asked_text[key] = pending, shown
            return shown if again else STILL_ASKED
        if not yes:
            return None
        self.forget_words.drop(caller.agent_id, turn.info.dialogue_id, caller.user_key)
        return (await self.commands.run(replace(invocation, ts=turn.now), caller)).text

    async def _receive(self, message: IncomingMessage) -> Turn | None:
        """The stage before the turn: the message's person and dialogue; None: nothing said."""
        text, left_out = _clean_text(message.text)
        if not text and not message.attachments:
            return None
        if not text:
            text = f"(sent {', '.join(a.filename for a in message.attachments)})"
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
        now = message.ts if message.ts.tzinfo else message.ts.replace(tzinfo=UTC)
        started = time.perf_counter()
        return Turn(message, text, agent, user_key, info, now, started, left_out=left_out)

    # ------------------------------------------------------------------ the turn

    async def _turn(self, turn: Turn) -> AsyncGenerator[str, None]:
        """The stages, in order (see :mod:`familiars.bot._stages`)."""
        s = self.services
        turn.mark("receive")
        try:
            async with contextlib.aclosing(self._answered(turn)) as deltas:
                async for delta in deltas:
                    yield delta
        except BaseException as exc:  # no reply (a failure, a stop): the message is recalled
            # A stop is a cancel inside the turn (the terminal), or this generator closed
            # while the adapter awaited a send or edit (Discord, Telegram: GeneratorExit).
            stopped = isinstance(exc, asyncio.CancelledError | GeneratorExit)
            if not (stopped and await stages.keep_shown(turn, s)):  # what was shown is kept
                s.log.embed_later(*turn.key)
            stages.release_cut_off(turn, s)  # and its facts are still written
            raise

    async def _answered(self, turn: Turn) -> AsyncGenerator[str, None]:
        """The stages from the message's node down to after()."""
        s = self.services
        # The person's records are read while the message is embedded and placed: neither
        # needs the other, and each waits on a thread (the read's share shows in the first).
        await _all_of(stages.record_message(turn, s), stages.read_records(turn, s))
        turn.mark("record_message")
        turn.mark("read_records")
        turn.plan = await self.planner.begin(turn)  # issue 14: care, actions, reminders
        await stages.drop_unwritten(turn, s)  # a care turn's held work goes at once
        turn.mark("plan")
        await stages.recall(turn, s)
        turn.mark("recall")
        await stages.compose(turn, s)
        turn.mark("compose")
        async with contextlib.aclosing(stages.send(turn, s, stages.answer(turn, s))) as deltas:
            async for delta in deltas:
                yield delta
        turn.mark("answer")  # and send: the reply is whole
        await stages.keep_reply(turn, s)  # durable before it is handed over
        turn.mark("keep_reply")
        if not stages.may_save_behaviour(turn, s):
            self._handing[turn.key] = turn  # after() runs once the reply is handed over
            return
        try:
            await self._after(turn)  # the writer must have kept the directive to say it
        finally:
            self._ended(turn)  # its ephemeral records go next turn, whatever failed
        turn.mark("after")
        if saved := await stages.behaviour_saved(turn, s):  # said before the reply ends
            yield saved

    async def _after(self, turn: Turn) -> None:
        """after(), and beside it the ephemeral clear: a listing and two fsynced writes,
        each in a thread, wait for each other no longer. A failed clear does not keep the
        writer from the turn (after() runs to its end), and is raised after it."""
        await _all_of(self._clear_ephemeral(turn.key), stages.after(turn, self.services))

    async def _after_reply(self, turn: Turn) -> None:
        """after() once the reply is handed over, its task holding the dialogue's lock (its
        next message waits for it; ``settle()`` and shutdown too, through
        ``AfterReplies``). A failure is logged (the reply was delivered already) and handled
        as a turn cut off: the message's held writer work is released as held. A full disk
        is said at the start of the dialogue's next reply (:data:`DISK_FULL_AFTER`). The
        turn ends either way: its ephemeral records go with the next turn."""
        started = time.perf_counter()
        try:
            await self._after(turn)
            turn.spent["after"] = (time.perf_counter() - started) * 1000
        except BaseException as exc:
            stages.release_cut_off(turn, self.services)
            if not isinstance(exc, Exception):
                raise
            if is_disk_full(exc):
                logger.warning("a turn could not be saved after its reply: %s", exc)
                self._full_after.add(turn.key)  # under the lock: the next turn sees it
            else:
                logger.exception("saving a turn after its reply failed")
        finally:
            self._ended(turn)

    def _ended(self, turn: Turn) -> None:
        self._turn_started[turn.key] = turn.now.isoformat(timespec="seconds")
        self.last_spent = turn.spent

    async def _clear_ephemeral(self, key: tuple[str, str]) -> None:
        """Ephemeral records live for one turn: the writer adds them after a turn, the next
        turn may use them, and at its end they go."""
        started = self._turn_started.get(key)
        if started is None:
            return
        agent_id, dialogue_id = key
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
        """Every reply's after() ended, and every deferred reply node added (before
        shutdown, between piped lines)."""
        await self.services.afters.drain()
        await self.log.flush_all()

    def _note_used(self, record_id: str) -> None:
        self.stats.used += 1

    async def flush_access(self) -> int:
        """Write the batched recall counts to the records (one store batch)."""
        if self.recaller is None:
            return 0
        return await self.recaller.flush_access()


def _own_commands(
    services: TurnServices, forget_words: ForgetByWords, on_used: Callable[[str], None]
) -> CommandSet:
    """The commands of a manager built alone (tests, tools)."""
    documents = services.documents
    return CommandSet(
        default_commands(
            services.store,
            services.state,
            find=documents.find if documents is not None else None,
            recall_log=services.recall_log,
            on_used=on_used,
            forgetter=forget_words.forgetter,
        )
    )


async def _all_of(*steps: Awaitable[None]) -> None:
    """The steps at once, each run to its end; then the first failure is raised (none is
    left running unawaited, and a step that failed does not cut another short)."""
    for failed in await asyncio.gather(*steps, return_exceptions=True):
        if isinstance(failed, BaseException):
            raise failed


#: A terminal's escape sequences, whole: CSI ("ESC [31m", colours and cursor moves), OSC
#: ("ESC ]0;title BEL", a window title), DCS/SOS/PM/APC strings, and the short ESC forms;
#: the one-byte C1 CSI and OSC too. Their parameters are no words of the person's (tester
#: s36: "\\e[31mRED\\e[0m and \\e]0;pwned\\a" became "mREDm and 0;pwned"). A DCS/SOS/PM/APC
#: string goes whole only with its terminator on the same line; a stray introducer alone
#: goes (the short form) and the words after it stay.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c\n]*(?:\x1b\\|\x9c)"
    r"|\x1b[ -/]*[0-~]?"
)


def _clean_text(text: str) -> tuple[str, int]:
    """Printable text only, within a sane size, and how many characters of it were left
    out: terminal escape sequences (whole, with their parameters), binary junk and 100 KB
    pastes do not break the turn (the rest of an over-long message is cut, and the cut is
    said: to the model in the text, to the person in the reply)."""
    plain = _ESCAPES.sub("", text)
    cleaned = "".join(c for c in plain if c.isprintable() or c in "\n\t").strip()
    if len(cleaned) <= MAX_MESSAGE_CHARS:
        return cleaned, 0
    kept = cleaned[:MAX_MESSAGE_CHARS].rstrip()
    return kept + "\n[message cut: too long]", len(cleaned) - MAX_MESSAGE_CHARS


def too_long_note(left_out: int) -> str:
    """What the person is told when their message was over :data:`MAX_MESSAGE_CHARS`."""
    return (
        f"(Your message was too long for me: I read its first {MAX_MESSAGE_CHARS:,} "
        f"characters and left out the last {left_out:,}, and I noted nothing from it. If "
        "something in it matters, tell me in a shorter message.)"
    )


async def _said_plainly_when_full(
    turn: AsyncGenerator[str, None],
) -> AsyncGenerator[str, None]:
    """``turn``'s deltas; when a write of it finds the disk full, :data:`DISK_FULL_REPLY`
    instead of a traceback (after what was already said), and one line in the log."""
    said = False
    try:
        async with contextlib.aclosing(turn) as deltas:  # closed before this one ends
            async for delta in deltas:
                said = said or bool(delta)
                yield delta
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        logger.warning("a turn could not be saved: %s", exc)
        yield ("\n\n" if said else "") + DISK_FULL_REPLY


def _confirmed_forget(invocation: CommandInvocation) -> tuple[str, ...] | None:
    """What a forget command with its own "confirm" (or "yes") names, its words lowercased
    (``/memory forget today confirm`` and ``/forget today confirm``: ("today",)); None for
    any other command."""
    args = tuple(a.lower() for a in invocation.args)
    if invocation.name == "memory":
        if args[:1] != ("forget",):
            return None
        args = args[1:]
    elif invocation.name != "forget":
        return None
    elif args[:1] == ("forget",):  # a "yes" replays /memory's own words: /forget forget ...
        args = args[1:]
    if not args or args[-1] not in ("confirm", "yes"):
        return None
    return args[:-1]


__all__ = [
    "DISK_FULL_AFTER",
    "DISK_FULL_NOT_DONE",
    "DISK_FULL_REPLY",
    "MAX_MESSAGE_CHARS",
    "DialogueManager",
]
