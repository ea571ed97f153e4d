"""The HTTP API: memory status, record listing and releasing an agent's resident models."""

from familiars.bot.api.app import create_app
from familiars.bot.api.auth import ApiToken, resolve_token
from familiars.bot.api.server import ApiServer, ApiServerError, serve_alone
from familiars.bot.api.status import GateLike, StatusSources, collect_status

__all__ = [
    "ApiServer",
    "ApiServerError",
    "ApiToken",
    "GateLike",
    "StatusSources",
    "collect_status",
    "create_app",
    "resolve_token",
    "serve_alone",
]
