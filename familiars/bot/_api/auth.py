"""The API's bearer token: where it comes from and how requests are checked.

The token is read from the environment variable named by ``Settings.api.token_env``
(``FAMILIARS_API_TOKEN`` by default). With none set, the one in ``workspace/.api_token`` is
used (when it is a token and readable by its owner only), else a fresh one is generated and
written there with mode 0600; the log says where it is.
"""

from __future__ import annotations

import hmac
import logging
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from familiars.config import Settings

logger = logging.getLogger(__name__)

TOKEN_FILE = ".api_token"


@dataclass(frozen=True)
class ApiToken:
    """The token and where it came from: ``env:<NAME>`` or the file it was written to."""

    value: str
    source: str
    path: Path | None = None


def write_token_file(path: Path, token: str) -> None:
    """Write ``token`` to ``path`` readable by its owner only (atomic: temp file, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (token + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def resolve_token(settings: Settings) -> ApiToken:
    """The token from the environment, else the one kept in ``workspace/.api_token``, else a
    new one written there."""
    from_env = settings.secret(settings.api.token_env)
    if from_env:
        logger.info("API token taken from $%s", settings.api.token_env)
        return ApiToken(from_env, f"env:{settings.api.token_env}")
    path = Path(settings.workspace) / TOKEN_FILE
    kept = _kept_token(path)
    if kept is not None:
        logger.info("API token taken from %s", path)
        return ApiToken(kept, f"file:{path}", path)
    token = secrets.token_urlsafe(32)
    write_token_file(path, token)
    logger.warning(
        "$%s is not set: generated an API token and wrote it to %s (mode 0600)",
        settings.api.token_env,
        path,
    )
    return ApiToken(token, f"file:{path}", path)


_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{32,256}")


def _kept_token(path: Path) -> str | None:
    """The token a start before wrote, kept so that clients holding it (another server on
    this workspace, a script that read it before a restart) stay signed in (tester F20);
    None when there is none, or it is not one we wrote: not a token, or readable by others."""
    try:
        st = path.stat()
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    private = stat.S_IMODE(st.st_mode) & 0o077 == 0 and st.st_uid == os.getuid()
    return text if private and _TOKEN_RE.fullmatch(text) else None


_bearer = HTTPBearer(auto_error=False, description="The API token (FAMILIARS_API_TOKEN).")


def _unauthorized() -> HTTPException:
    return HTTPException(
        status_code=status.HTTP_401_UNAUTHORIZED,
        detail="unauthorized",
        headers={"WWW-Authenticate": "Bearer"},
    )


async def require_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """FastAPI dependency: a 401 without detail unless the bearer token matches."""
    expected: str = request.app.state.api_token.value
    if credentials is None or not token_matches(
        f"{credentials.scheme} {credentials.credentials}", expected
    ):
        raise _unauthorized()


def token_matches(header: str | None, expected: str) -> bool:
    """Whether an ``Authorization`` header value carries the expected bearer token."""
    if not header:
        return False
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        return False
    return hmac.compare_digest(
        given.strip().encode("utf-8", "surrogateescape"), expected.encode("utf-8")
    )


class BearerAuthMiddleware:
    """Refuses every request but ``open_paths`` without the token, before routing and
    parameter validation, so an unauthenticated caller learns nothing (not even which
    parameters are wrong)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: ApiToken,
        open_paths: frozenset[str],
        open_prefixes: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.token = token
        self.open_paths = open_paths
        self.open_prefixes = open_prefixes

    def _open(self, path: str) -> bool:
        """``open_paths``, and whatever lies under ``open_prefixes`` (which check their own
        sign-in: the memory page's cookie)."""
        if path in self.open_paths:
            return True
        return any(path == p or path.startswith(p + "/") for p in self.open_prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._open(str(scope.get("path", ""))):
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization")
        if not token_matches(header, self.token.value):
            response = JSONResponse(
                {"detail": "unauthorized"},
                status_code=status.HTTP_401_UNAUTHORIZED,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
