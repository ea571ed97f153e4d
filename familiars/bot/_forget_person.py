"""Forgetting a whole person in the running bot: the words that ask for it, what the
question and the answer say, and the bot's state as the Forgetter needs it.

Map:

- :func:`asks_to_forget_me` - whether a message asks to forget everything about the person
  ("forget everything about me", "delete all my data", "wipe my memory", "can you erase
  everything you know about me?"), read by meaning: a verb of removal and, as its object,
  the person or all of their data; "forget everything I said about work" or "delete my
  reminder" is not that.
- :class:`PeopleState` - :class:`~familiars.memory.PeopleForgetting` over
  :class:`~familiars.bot._state.BotState` and the memory page's sign-ins;
  :func:`people_of_workspace` opens one for a process that is not the bot (the CLI).

What the question and the answer say is :mod:`familiars.bot._forget_texts`'
(``person_ask_text``, ``person_done_text``). The forget itself is the one Forgetter's
(``person:KEY``; see :mod:`familiars.memory._forget_person` for what goes and what stays).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Protocol

from familiars.bot._state import BotState
from familiars.bot._web.sessions import WebSessions
from familiars.config import Settings
from familiars.memory import StateHome

# --------------------------------------------------------------------------- the words

#: What may come before or after the request and changes nothing of it.
_BEFORE = (
    r"(?:(?:please|pls|ok(?:ay)?|hey|so|now|just|actually|alright|right|well|then|and|"
    r"(?:can|could|would|will)\s+you|i(?:\s+(?:want|need|would\s+like)|'d\s+like)\s+(?:you\s+)?to|"
    r"you\s+(?:can|should|must|may)|i\s+(?:ask|request)\s+(?:you\s+)?to)\s+)*"
)
_AFTER = (
    r"(?:\s+(?:please|pls|now|right\s+now|for\s+good|forever|completely|entirely|totally|"
    r"permanently|for\s+ever|once\s+and\s+for\s+all|thanks|thank\s+you|asap))*"
)
_VERB = (
    r"(?:forget|delete|erase|wipe(?:\s+out)?|remove|clear(?:\s+out)?|purge|destroy|"
    r"scrub|get\s+rid\s+of|throw\s+away)"
)
_ME = r"(?:me|myself)"
#: What of the person is theirs to have forgotten: "all my data", "my memories".
_DATA = (
    r"(?:personal\s+)?(?:data|info|information|memory|memories|records|details|history|"
    r"profile|account|stuff|everything)"
)
_KNOW = (
    r"(?:you\s+(?:know|have|keep|hold|store|stored|saved|remember|collected|learned|"
    r"'ve\s+(?:got|stored|saved|learned|collected))|you've\s+(?:got|stored|saved|learned|"
    r"collected)|is\s+stored|there\s+is)"
)
_ALL = r"(?:everything|all|anything|all\s+the\s+(?:data|info|information|stuff))"
_OBJECT = (
    rf"(?:{_ME}|(?:all\s+)?about\s+{_ME}|"
    rf"(?:{_ALL}|what)(?:\s+{_KNOW})?\s+(?:about|on|of)\s+{_ME}|"
    rf"(?:all\s+(?:of\s+)?)?my\s+{_DATA}|"
    rf"(?:all\s+)?(?:the\s+)?(?:data|info|information|memories)\s+(?:{_KNOW}\s+)?"
    rf"(?:about|on|of)\s+{_ME}|"
    rf"your\s+(?:memory|memories)\s+of\s+{_ME}|{_ME}\s+from\s+your\s+(?:memory|memories)|"
    rf"(?:all\s+)?(?:every\s+)?traces?\s+of\s+{_ME}|"
    r"(?:everything|all)\s+i(?:'ve|\s+have)?\s+ever\s+(?:said|told\s+you|wrote|written)|"
    r"everything)"
)
_FROM_YOU = r"(?:\s+from\s+your\s+(?:memory|memories|records|database))?"
_FORGET_ME = re.compile(rf"^{_BEFORE}{_VERB}\s+{_OBJECT}{_FROM_YOU}(?:\s+clean)?{_AFTER}$")
#: "I want my data deleted", "I want to be forgotten", "forget that I exist".
_DONE_TO = r"(?:deleted|erased|removed|wiped(?:\s+out)?|forgotten|purged|destroyed)"
_FORGET_ME_TOO = re.compile(
    rf"^{_BEFORE}(?:(?:i(?:\s+(?:want|need|would\s+like)|'d\s+like)|please\s+have)\s+"
    rf"(?:all\s+(?:of\s+)?)?my\s+{_DATA}\s+{_DONE_TO}|i(?:\s+(?:want|need|would\s+like)|'d\s+like)"
    rf"\s+to\s+be\s+{_DONE_TO}|forget\s+(?:that\s+)?i\s+(?:ever\s+)?exist(?:ed)?){_AFTER}$"
)


def _plain(text: str) -> str:
    flat = " ".join(text.lower().replace("\u2019", "'").split())
    return re.sub(r"[\s,]*[.!?]+$", "", flat.replace(",", "")).strip()


def asks_to_forget_me(text: str) -> bool:
    """Whether ``text`` asks to forget everything about its writer (see the module map)."""
    plain = _plain(text)
    return any(r.fullmatch(plain) is not None for r in (_FORGET_ME, _FORGET_ME_TOO))


# --------------------------------------------------------------------------- the state


class _SignIns(Protocol):
    def revoke(self, user_key: str) -> int: ...


class PeopleState:
    """The bot's state as a whole-person forget needs it (``PeopleForgetting``)."""

    def __init__(self, state: BotState, sign_ins: _SignIns | None = None) -> None:
        self.state = state
        self.sign_ins = sign_ins

    async def keys_of(self, user_key: str) -> list[str]:
        return await self.state.keys_of(user_key)

    async def forget_people(self, keys: Sequence[str]) -> list[str]:
        gone = await self.state.forget_people(list(keys))
        if self.sign_ins is not None:
            ended = 0
            for key in keys:
                ended += await asyncio.to_thread(self.sign_ins.revoke, key)
            if ended:
                gone.append(f"web sign-ins: {ended}")
        return gone


@contextlib.asynccontextmanager
async def people_of_workspace(settings: Settings, home: StateHome) -> AsyncIterator[PeopleState]:
    """The bot's state of a workspace, for a process that is not the running bot
    (``familiars memory forget --person KEY`` with nothing running)."""
    workspace = Path(settings.workspace)
    state = BotState(workspace, home)
    await state.open()
    try:
        yield PeopleState(state, WebSessions(workspace, home=home))
    finally:
        await state.close()


__all__ = ["PeopleState", "asks_to_forget_me", "people_of_workspace"]
