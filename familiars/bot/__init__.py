from familiars.bot._adapters.base import (
    IncomingMessage,
)
from familiars.bot._api.app import (
    create_app,
)
from familiars.bot._api.auth import (
    ApiToken,
)
from familiars.bot._api.queries import (
    IndexReader,
)
from familiars.bot._api.server import (
    ApiServer,
    ApiServerError,
    serve_alone,
)
from familiars.bot._api.status import (
    StatusSources,
    collect_status,
)
from familiars.bot._runtime import (
    Application,
)

__all__ = [
    "ApiServer",
    "ApiServerError",
    "ApiToken",
    "Application",
    "IncomingMessage",
    "IndexReader",
    "StatusSources",
    "collect_status",
    "create_app",
    "serve_alone",
]
