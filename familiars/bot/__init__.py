from familiars.bot._access import (
    AccessPolicy,
)
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
from familiars.bot._errors import (
    AdapterError,
    AdapterSendError,
    AdapterStartError,
    UserFacingError,
)
from familiars.bot._prompt import (
    PromptParts,
    build_messages,
)
from familiars.bot._recall import (
    ReaderRecaller,
)
from familiars.bot._runtime import (
    Application,
)

__all__ = [
    "AccessPolicy",
    "AdapterError",
    "AdapterSendError",
    "AdapterStartError",
    "ApiServerError",
    "Application",
    "IncomingMessage",
    "IndexReader",
    "PromptParts",
    "ReaderRecaller",
    "StatusSources",
    "UserFacingError",
    "build_messages",
    "collect_status",
    "serve_alone",
]
