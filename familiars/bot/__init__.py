from familiars.bot._access import (
    AccessPolicy,
)
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
    "ApiServer",
    "ApiServerError",
    "ApiToken",
    "Application",
    "IncomingMessage",
    "IndexReader",
    "PromptParts",
    "ReaderRecaller",
    "StatusSources",
    "UserFacingError",
    "build_messages",
    "collect_status",
    "create_app",
    "serve_alone",
]
