"""The bot's commands as one set: :class:`CommandSet` runs, completes and lists them;
:func:`default_commands` is the one list of the bot's commands.

Errors: a :class:`UserFacingError` raised by a command is its answer, as it is; anything else
is a bug, logged with its traceback, and the person gets ``SOMETHING_WENT_WRONG``.
The runtime builds ``CommandSet(default_commands(...))`` with the services each command uses
and hands it to the dialogue manager.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

from familiars.bot._adapters.base import CommandInvocation, CommandResponse, CommandSpec
from familiars.bot._commands._declare import Caller, Command
from familiars.bot._commands._find import FindCommand, Finder
from familiars.bot._commands._forget import ForgetCommand
from familiars.bot._commands._help import HelpCommand
from familiars.bot._commands._link import LinkCommand
from familiars.bot._commands._memory import (
    FanoutLog,
    MemoryCommand,
    RecallLog,
    Search,
    WebLinks,
)
from familiars.bot._commands._proactive import ProactiveCommand
from familiars.bot._commands._reminders import RemindersCommand
from familiars.bot._commands._timezone import TimezoneCommand
from familiars.bot._errors import SOMETHING_WENT_WRONG
from familiars.bot._home_zone import zone_reader
from familiars.bot._state import BotState
from familiars.config import UserFacingError
from familiars.memory import Forgetter, MemoryStore
from familiars.scheduler import ReminderBook

logger = logging.getLogger(__name__)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def default_commands(
    store: MemoryStore,
    state: BotState,
    *,
    search: Search | None = None,
    find: Finder | None = None,
    recall_log: RecallLog | None = None,
    fanout_log: FanoutLog | None = None,
    on_used: Callable[[str], None] | None = None,
    on_proactive: Callable[[Caller, bool], Awaitable[None] | None] | None = None,
    reminders: ReminderBook | None = None,
    forgetter: Forgetter,
    now: Callable[[], datetime] = _utc_now,
    web: WebLinks | None = None,
    max_record_chars: int | None = None,
) -> list[Command]:
    """The bot's commands (``/help`` is added by :class:`CommandSet`); ``/find`` only with a
    document finder. ``reminders`` is the running scheduler's book (its ledger and jobs);
    without one ``/reminders`` works on the records alone."""
    book = reminders or ReminderBook(store)
    memory = MemoryCommand(
        store,
        search=search,
        recall_log=recall_log,
        fanout_log=fanout_log,
        on_used=on_used,
        forgetter=forgetter,
        now=now,
        zone_of=zone_reader(state, store, book.default_timezone),
        web=web,
        max_record_chars=max_record_chars,
    )
    commands: list[Command] = [
        memory,
        ForgetCommand(memory),
        LinkCommand(store, state, now=now),
        ProactiveCommand(state, on_change=on_proactive),
        RemindersCommand(book, state, now=now),
        TimezoneCommand(state, store, default_timezone=book.default_timezone, now=now, book=book),
    ]
    if find is not None:
        commands.append(FindCommand(find))
    return commands


class CommandSet:
    """``/help`` first, then ``commands`` in order."""

    def __init__(self, commands: Sequence[Command]) -> None:
        self._commands: list[Command] = [HelpCommand(self.specs), *commands]

    def specs(self) -> list[CommandSpec]:
        return [command.spec() for command in self._commands]

    def find(self, name: str) -> Command | None:
        name = name.lower()
        return next((c for c in self._commands if name in (c.name, *c.aliases)), None)

    async def run(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        command = self.find(inv.name)
        if command is None:
            return CommandResponse(f"Unknown command /{inv.name}. Try /help.")
        try:
            response = await command.run(inv, caller)
        except UserFacingError as exc:
            response = CommandResponse(str(exc))
        except Exception:  # a bug: the cause goes to the log, the person gets a short line
            logger.exception("command /%s %s failed", inv.name, " ".join(inv.args))
            response = CommandResponse(SOMETHING_WENT_WRONG)
        return dataclasses.replace(response, private=True) if command.private else response

    async def complete(self, inv: CommandInvocation, caller: Caller, partial: str) -> list[str]:
        """Choices for the argument being typed: sub-commands, categories, memory ids."""
        command = self.find(inv.name)
        return [] if command is None else await command.complete(inv, caller, partial)
