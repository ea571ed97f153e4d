"""The HTTP API: memory status, record listing and releasing an agent's resident models."""

from familiars.bot.api.app import create_app
from familiars.bot.api.auth import ApiToken, resolve_token
from familiars.bot.api.status import GateLike, StatusSources, collect_status

__all__ = [
    "ApiToken",
    "GateLike",
    "StatusSources",
    "collect_status",
    "create_app",
    "resolve_token",
]
