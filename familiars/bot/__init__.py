"""The bot: adapters, dialogue, commands, the runtime and its HTTP API.

The face is lazy: each name below is imported from its private module when first asked for
(``_FACE`` maps names to modules), so ``from familiars.bot import ConsoleAdapter`` does not
load the memory system, the models or the API server (fastapi), and the terminal chat can
show its prompt while the rest loads.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from familiars.bot._access import AccessPolicy
    from familiars.bot._adapters.base import CommandInvocation, IncomingMessage
    from familiars.bot._adapters.console import ConsoleAdapter, on_ctrl_c
    from familiars.bot._answers import answer_lines, offline_reply
    from familiars.bot._api.app import create_app
    from familiars.bot._api.auth import ApiToken
    from familiars.bot._api.queries import IndexReader
    from familiars.bot._api.server import ApiServer, ApiServerError, serve_alone
    from familiars.bot._api.status import StatusSources, collect_status
    from familiars.bot._care import speaks_of_self_harm
    from familiars.bot._errors import (
        AdapterError,
        AdapterSendError,
        AdapterStartError,
        UserFacingError,
    )
    from familiars.bot._forget_person import people_of_workspace
    from familiars.bot._home_zone import forgotten_home_hook
    from familiars.bot._leak_guard import GuardVerdict, Secrets, guard_text, secrets_of
    from familiars.bot._pending import LOADING_NOTICE, PendingHandler
    from familiars.bot._prompt import PromptParts, build_messages
    from familiars.bot._questions import as_asked, asked_each
    from familiars.bot._recall import ReaderRecaller
    from familiars.bot._runtime import Application
    from familiars.bot._turn_actions import TurnActions
    from familiars.bot._web import sign_in_link

#: Each exported name and the private module that defines it.
_FACE: dict[str, str] = {
    "AccessPolicy": "_access",
    "AdapterError": "_errors",
    "AdapterSendError": "_errors",
    "AdapterStartError": "_errors",
    "ApiServer": "_api.server",
    "ApiServerError": "_api.server",
    "ApiToken": "_api.auth",
    "Application": "_runtime",
    "CommandInvocation": "_adapters.base",
    "ConsoleAdapter": "_adapters.console",
    "GuardVerdict": "_leak_guard",
    "IncomingMessage": "_adapters.base",
    "IndexReader": "_api.queries",
    "LOADING_NOTICE": "_pending",
    "PendingHandler": "_pending",
    "PromptParts": "_prompt",
    "ReaderRecaller": "_recall",
    "Secrets": "_leak_guard",
    "StatusSources": "_api.status",
    "TurnActions": "_turn_actions",
    "UserFacingError": "_errors",
    "answer_lines": "_answers",
    "as_asked": "_questions",
    "asked_each": "_questions",
    "build_messages": "_prompt",
    "collect_status": "_api.status",
    "create_app": "_api.app",
    "forgotten_home_hook": "_home_zone",
    "guard_text": "_leak_guard",
    "offline_reply": "_answers",
    "on_ctrl_c": "_adapters.console",
    "people_of_workspace": "_forget_person",
    "secrets_of": "_leak_guard",
    "serve_alone": "_api.server",
    "sign_in_link": "_web",
    "speaks_of_self_harm": "_care",
}


def __getattr__(name: str) -> Any:
    """Import ``name``'s module now (once; Python caches it) and hand back the name."""
    module = _FACE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "LOADING_NOTICE",
    "AccessPolicy",
    "AdapterError",
    "AdapterSendError",
    "AdapterStartError",
    "ApiServer",
    "ApiServerError",
    "ApiToken",
    "Application",
    "CommandInvocation",
    "ConsoleAdapter",
    "GuardVerdict",
    "IncomingMessage",
    "IndexReader",
    "PendingHandler",
    "PromptParts",
    "ReaderRecaller",
    "Secrets",
    "StatusSources",
    "TurnActions",
    "UserFacingError",
    "answer_lines",
    "as_asked",
    "asked_each",
    "build_messages",
    "collect_status",
    "create_app",
    "forgotten_home_hook",
    "guard_text",
    "offline_reply",
    "on_ctrl_c",
    "people_of_workspace",
    "secrets_of",
    "serve_alone",
    "sign_in_link",
    "speaks_of_self_harm",
]
