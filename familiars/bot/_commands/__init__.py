"""Platform-neutral commands, one declared object each: ``/help``, ``/memory ...``,
``/link``, ``/proactive``, ``/reminders ...``, ``/timezone``, ``/find``. Every answer is private
(ephemeral on Discord, a private chat on Telegram).

- ``_declare``: :class:`Command`, :class:`Subcommand`, :class:`Argument`, :class:`Caller`;
  usage lines, parsing, completion and the adapters' :class:`CommandSpec` come from them;
- ``_set``: :class:`CommandSet` (runs, completes, lists; errors) and :func:`default_commands`,
  the one list of commands;
- one module per command: ``_help``, ``_memory``, ``_link``, ``_proactive``, ``_reminders``,
  ``_timezone``, ``_find``.

Adding a command: a module with a :class:`Command` subclass (its services through its
constructor) and one line in :func:`default_commands`.
"""

from familiars.bot._commands._declare import Argument, Call, Caller, Command, Subcommand
from familiars.bot._commands._find import FindCommand
from familiars.bot._commands._forget import ForgetCommand
from familiars.bot._commands._help import HelpCommand
from familiars.bot._commands._link import LinkCommand, merge_user_scope
from familiars.bot._commands._memory import MemoryCommand
from familiars.bot._commands._proactive import ProactiveCommand
from familiars.bot._commands._reminders import RemindersCommand
from familiars.bot._commands._set import CommandSet, default_commands
from familiars.bot._commands._timezone import TimezoneCommand

__all__ = [
    "Argument",
    "Call",
    "Caller",
    "Command",
    "CommandSet",
    "FindCommand",
    "ForgetCommand",
    "HelpCommand",
    "LinkCommand",
    "MemoryCommand",
    "ProactiveCommand",
    "RemindersCommand",
    "Subcommand",
    "TimezoneCommand",
    "default_commands",
    "merge_user_scope",
]
