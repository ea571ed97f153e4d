"""The HTTP API: memory status, record listing and releasing an agent's resident models."""

from familiars.bot._api.app import create_app
from familiars.bot._api.auth import ApiToken, resolve_token
from familiars.bot._api.server import ApiServer, ApiServerError, serve_alone
from familiars.bot._api.status import GateLike, StatusSources, collect_status

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
