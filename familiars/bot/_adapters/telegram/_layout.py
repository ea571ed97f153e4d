"""How the handler's commands look on Telegram: the command menu (``set_my_commands``), the
names the bot answers to in a group without an ``@bot`` suffix, and which commands always
answer in a private chat, all derived from the handler's :class:`CommandSpec` declarations."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

from telegram import BotCommand

from familiars.bot._adapters.base import CommandSpec

logger = logging.getLogger(__name__)

_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
#: Answered even when no spec names them (Telegram's deep-link start, and help).
ALWAYS_KNOWN = frozenset({"start", "help"})


@dataclass(frozen=True)
class CommandMenu:
    commands: tuple[BotCommand, ...] = ()
    known: frozenset[str] = ALWAYS_KNOWN
    #: Commands declared private: their answers go to the person's private chat.
    private: frozenset[str] = frozenset()

    @classmethod
    def from_specs(cls, specs: Iterable[CommandSpec]) -> CommandMenu:
        valid = [s for s in specs if valid_name(s)]
        return cls(
            commands=tuple(BotCommand(s.name, describe(s)) for s in valid),
            known=frozenset(s.name for s in valid) | ALWAYS_KNOWN,
            private=frozenset(s.name for s in valid if s.private),
        )


def valid_name(spec: CommandSpec) -> bool:
    if _COMMAND_NAME.match(spec.name):
        return True
    logger.warning("Telegram: command %r is not a valid Telegram command name; skipped", spec.name)
    return False


def describe(spec: CommandSpec) -> str:
    """Telegram wants 3 to 256 characters."""
    text = (spec.description or spec.usage or spec.name).strip()
    return text[:256] if len(text) >= 3 else (text + " ...")[:256]
