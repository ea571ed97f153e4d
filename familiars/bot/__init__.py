from familiars.bot._adapters.base import (
    IncomingMessage,
)
from familiars.bot._api.queries import (
    IndexReader,
)
from familiars.bot._api.server import (
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
    "ApiServerError",
    "Application",
    "IncomingMessage",
    "IndexReader",
    "StatusSources",
    "collect_status",
    "serve_alone",
]
