"""The memory page's locks: the session cookie, the checks every change passes, and the
headers every page sends.

- :data:`COOKIE` - the session cookie: HttpOnly, SameSite=Strict, ``Path=/web``, with a
  ``Max-Age``; ``Secure`` when the page is served over https.
- :func:`read_form` - a change's url-encoded form (bounded: a body over :data:`MAX_FORM`
  bytes is refused).
- :func:`check_origin` - a change must come from this page's own origin (``Origin``, else
  ``Referer``; neither, or another, is refused).
- :func:`check_csrf` - and carry the session's CSRF token.
- :class:`PageHeaders` - ASGI middleware: a strict Content-Security-Policy (nothing inline,
  nothing from elsewhere), no framing, no sniffing, no caching, a same-origin referrer.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from familiars.bot._web.sessions import Session, WebSessions, csrf_token

COOKIE = "familiars_session"
MAX_FORM = 64 * 1024
PREFIX = "/web"

CSP = "; ".join(
    (
        "default-src 'none'",
        "style-src 'self'",
        "script-src 'self'",
        "img-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    )
)
PAGE_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
}


class Refused(Exception):
    """A request the page will not act on: ``status`` and a line for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_form(request: Request) -> dict[str, str]:
    """The body as ``application/x-www-form-urlencoded`` fields (the first of each name)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "This page takes its own forms only.")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise Refused(413, "That is more than the page takes at once.")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(400, "The form could not be read.") from exc
    return {name: values[0] for name, values in fields.items()}


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.headers.get('host', '')}".lower()


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else ""


def check_origin(request: Request, also: str | None = None) -> None:
    """Refuse a change unless it comes from this page (or ``also``, the public URL)."""
    allowed = {own_origin(request)}
    if also:
        allowed.add(_origin_of(also))
    origin = request.headers.get("origin")
    if origin is None:
        referer = request.headers.get("referer")
        origin = _origin_of(referer) if referer else None
    if origin is None:
        raise Refused(403, "This change did not say where it came from, so it was refused.")
    if origin.lower() not in allowed:
        raise Refused(403, "This change came from another site, so it was refused.")


def check_csrf(form: dict[str, str], cookie: str) -> None:
    given = form.get("csrf", "")
    if not given or not hmac.compare_digest(given.encode(), csrf_token(cookie).encode()):
        raise Refused(403, "This form has expired or was not made by this page; try again.")


def signed_in(request: Request, sessions: WebSessions) -> tuple[str, Session] | None:
    """The cookie and its live session, or None."""
    cookie = request.cookies.get(COOKIE)
    session = sessions.session(cookie)
    if cookie is None or session is None:
        return None
    return cookie, session


def cookie_header(request: Request, token: str, max_age: int) -> str:
    secure = "; Secure" if request.url.scheme == "https" else ""
    return f"{COOKIE}={token}; Path={PREFIX}; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}"


def clear_cookie_header() -> str:
    return f"{COOKIE}=; Path={PREFIX}; Max-Age=0; HttpOnly; SameSite=Strict"


class PageHeaders:
    """Adds :data:`PAGE_HEADERS` to every response under ``/web``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == PREFIX or path.startswith(PREFIX + "/")):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in PAGE_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
