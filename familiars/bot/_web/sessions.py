"""Signing in to the memory page: one-time links and the sessions they open.

Map:

- :meth:`WebSessions.new_link` - a link token bound to one person (and the agent that gave
  it), valid :data:`LINK_TTL`; ``familiars memory link`` and ``/memory web`` call it.
- :meth:`WebSessions.redeem` - trade a link token for a session token, once: a used or
  expired link signs nobody in.
- :meth:`WebSessions.session` - the session a cookie names, while it lasts.
- :meth:`WebSessions.revoke` - ``/memory web off``: every link and session of a person ends.
- :func:`csrf_token` - the session's CSRF token, derived from the cookie (nothing stored).

Only SHA-256 digests of the tokens are kept, in the state document ``state/web_sessions.json``:
it can be read without handing anyone a way in, and it lives with the rest of the bot's
state, so losing ``familiars.db`` signs nobody out and a restart keeps every session.

- On files (0600) each change reads and rewrites the file under an exclusive ``flock`` on
  ``state/web_sessions.lock``, so the command line (which makes links) and the running bot
  (which redeems them) never race.
- In the database home it is a row every worker shares (``StateHome.update``, one worker's
  change at a time): a link made on one worker signs in on any, and a sign-out, ``/memory
  web off`` or a forget on one ends the sign-in on every worker at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import hmac
import json
import logging
import os
import secrets
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from familiars.bot._state_files import ensure_dir, write_json
from familiars.config import Settings
from familiars.memory import (
    StateHome,
    check_agent_id,
    check_user_key,
    open_state_home,
    read_owner,
)

logger = logging.getLogger(__name__)

SESSIONS_FILE = "web_sessions.json"
#: The same document as a state name (the database home's row).
SESSIONS_NAME = f"state/{SESSIONS_FILE}"
LOCK_FILE = "web_sessions.lock"
LINK_TTL = timedelta(minutes=10)
DEFAULT_SESSION_TTL = timedelta(hours=12)
#: Tokens are 32 random bytes, URL-safe: 43 characters.
TOKEN_CHARS = 43
_VERSION = 1
T = TypeVar("T")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def csrf_token(session_token: str) -> str:
    """The CSRF token of the session this cookie opened: a keyed digest of the cookie, so a
    page that cannot read the cookie cannot make it, and nothing more is stored."""
    return hmac.new(session_token.encode(), b"familiars-web-csrf", hashlib.sha256).hexdigest()


def looks_like_token(text: str | None) -> bool:
    return (
        bool(text)
        and len(text or "") == TOKEN_CHARS
        and all(c.isalnum() or c in "-_" for c in text or "")
    )


@dataclass(frozen=True)
class Session:
    """Who a link or a session signs in: a person, the agent whose page it is, and whether
    that person is one of the bot's owners (decided when the link was made)."""

    user_key: str
    agent_id: str
    is_owner: bool
    expires_at: str

    def expired(self, now: datetime) -> bool:
        return self.expires_at <= now.astimezone(UTC).isoformat(timespec="seconds")


class WebSessions:
    """The links and sessions of one workspace (see the module docstring)."""

    def __init__(
        self,
        workspace: Path,
        *,
        session_ttl: timedelta = DEFAULT_SESSION_TTL,
        clock: Callable[[], datetime] | None = None,
        home: StateHome | None = None,
    ) -> None:
        self.folder = Path(workspace) / "state"
        self.path = self.folder / SESSIONS_FILE
        #: The database home (shared by every worker); None or files: the workspace's file.
        self.home = home if home is not None and home.kind != "files" else None
        self.session_ttl = session_ttl
        self._clock = clock or (lambda: datetime.now(UTC))

    def now(self) -> datetime:
        return self._clock()

    # ------------------------------------------------------------------ the document

    def _change(self, change: Callable[[dict[str, Any]], T]) -> T:
        """``change(content)`` under the lock (the file's flock, or the database's update of
        the row); what it leaves in the content is written back."""
        if self.home is None:
            with self._locked() as data:
                return change(data)
        done: list[T] = []

        def update(raw: bytes | None) -> bytes:
            data = self._parse(raw)
            self._drop_expired(data)
            done[:] = [change(data)]
            return json.dumps(data, sort_keys=True).encode("utf-8")

        self.home.update(SESSIONS_NAME, update)
        return done[0]

    def _view(self, look: Callable[[dict[str, Any]], T]) -> T:
        """``look(content)``, changing nothing (in the database: no write at all)."""
        if self.home is None:
            return self._change(look)
        return look(self._parse(self.home.read(SESSIONS_NAME)))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """The file's content, under the lock; what the body leaves in it is written back."""
        ensure_dir(self.folder)
        fd = os.open(self.folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                raw: bytes | None = self.path.read_bytes()
            except FileNotFoundError:
                raw = None
            except OSError as exc:
                logger.warning("%s cannot be read (%s)", self.path, exc)
                raw = b""
            data = self._parse(raw)
            before = json.dumps(data, sort_keys=True)
            self._drop_expired(data)
            yield data
            if json.dumps(data, sort_keys=True) != before:
                write_json(self.path, data)
        finally:
            os.close(fd)  # closing lets go of the lock

    def _parse(self, raw: bytes | None) -> dict[str, Any]:
        try:
            data = json.loads(raw.decode("utf-8")) if raw is not None else {}
        except ValueError as exc:
            # Nothing here outlives a sign-in: starting afresh signs people out, no more.
            logger.warning(
                "%s cannot be read (%s): every web session starts afresh", self.path, exc
            )
            data = {}
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            data = {}
        data.setdefault("version", _VERSION)
        for kind in ("links", "sessions"):
            if not isinstance(data.get(kind), dict):
                data[kind] = {}
        return data

    def _drop_expired(self, data: dict[str, Any]) -> None:
        stamp = self._stamp(self.now())
        for kind in ("links", "sessions"):
            for key, entry in list(data[kind].items()):
                if not isinstance(entry, dict) or str(entry.get("expires_at", "")) <= stamp:
                    del data[kind][key]

    @staticmethod
    def _stamp(when: datetime) -> str:
        return when.astimezone(UTC).isoformat(timespec="seconds")

    # ------------------------------------------------------------------ links and sessions

    def new_link(self, user_key: str, agent_id: str, *, is_owner: bool) -> str:
        """A one-time link token for ``user_key``, valid :data:`LINK_TTL`."""
        check_user_key(user_key)
        check_agent_id(agent_id)
        token = secrets.token_urlsafe(32)
        expires = self._stamp(self.now() + LINK_TTL)
        entry = asdict(Session(user_key, agent_id, is_owner, expires))
        self._change(lambda data: data["links"].__setitem__(_digest(token), entry))
        return token

    def peek_link(self, token: str) -> Session | None:
        """The person a link would sign in, without using it (the page that asks to)."""
        if not looks_like_token(token):
            return None
        return _session(self._view(lambda data: data["links"].get(_digest(token))))

    def redeem(self, token: str) -> tuple[str, Session] | None:
        """The new session's token and its person, when ``token`` is a live link; the link
        is gone afterwards either way."""
        if not looks_like_token(token):
            return None
        session_token = secrets.token_urlsafe(32)

        def trade(data: dict[str, Any]) -> Session | None:
            link = _session(data["links"].pop(_digest(token), None))
            if link is None:
                return None
            expires = self._stamp(self.now() + self.session_ttl)
            session = Session(link.user_key, link.agent_id, link.is_owner, expires)
            data["sessions"][_digest(session_token)] = asdict(session)
            return session

        session = self._change(trade)
        if session is None:
            return None
        logger.info("web session opened for %s", session.user_key)
        return session_token, session

    def session(self, token: str | None) -> Session | None:
        if token is None or not looks_like_token(token):
            return None
        session = _session(self._view(lambda data: data["sessions"].get(_digest(token))))
        if session is None or session.expired(self.now()):
            return None
        return session

    def end(self, token: str) -> None:
        """Sign this one session out."""
        self._change(lambda data: data["sessions"].pop(_digest(token), None))

    def revoke(self, user_key: str) -> int:
        """End every link and session of ``user_key``; returns how many there were."""

        def drop(data: dict[str, Any]) -> int:
            gone = 0
            for kind in ("links", "sessions"):
                for key, entry in list(data[kind].items()):
                    if entry.get("user_key") == user_key:
                        del data[kind][key]
                        gone += 1
            return gone

        gone = self._change(drop)
        if gone:
            logger.info("web sign-ins of %s revoked (%d)", user_key, gone)
        return gone


def _session(entry: Any) -> Session | None:
    if not isinstance(entry, dict):
        return None
    try:
        return Session(
            str(entry["user_key"]),
            str(entry["agent_id"]),
            bool(entry["is_owner"]),
            str(entry["expires_at"]),
        )
    except KeyError:
        return None


def link_url(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/web/login?t={token}"


def base_url(settings: Settings) -> str:
    """Where people reach the API: ``api.public_url``, else its host and port."""
    api = settings.api
    if api.public_url:
        return api.public_url.rstrip("/")
    host = f"[{api.host}]" if ":" in api.host else api.host
    return f"http://{host}:{api.port}"


class SignInLinks:
    """``/memory web``'s side of the sign-in: links printed as URLs, and revoking. ``base``
    is where the page is reached; the runtime sets it to the bound address once the API
    listens (unless ``api.public_url`` names one)."""

    def __init__(self, sessions: WebSessions, base: str) -> None:
        self.sessions = sessions
        self.base = base

    def link(self, user_key: str, agent_id: str, *, is_owner: bool) -> str:
        return link_url(self.base, self.sessions.new_link(user_key, agent_id, is_owner=is_owner))

    def revoke(self, user_key: str) -> int:
        return self.sessions.revoke(user_key)

    @classmethod
    def from_settings(
        cls, settings: Settings, *, base: str | None = None, home: StateHome | None = None
    ) -> SignInLinks:
        """``home``: the state home (the database's: sign-ins every worker shares)."""
        ttl = timedelta(hours=settings.api.web_session_hours)
        sessions = WebSessions(Path(settings.workspace), session_ttl=ttl, home=home)
        return cls(sessions, base or base_url(settings))


async def sign_in_link(settings: Settings, user_key: str, agent_id: str) -> str:
    """``familiars memory link``: a link for ``user_key`` on ``agent_id``'s page; an owner
    when one of the person's identities is in ``access.owners`` (the terminal's is)."""
    from familiars.bot._access import AccessPolicy
    from familiars.bot._state import BotState

    check_user_key(user_key)
    try:
        settings.agent(agent_id)
    except KeyError:
        known = ", ".join(a.id for a in settings.agents)
        raise ValueError(f"unknown agent {agent_id!r}; configured: {known}") from None
    home = open_state_home(settings)  # the files, or the database's rows
    state = BotState(Path(settings.workspace), home)
    try:
        await state.open()
        identities = await state.identities_of(user_key)
        policy = AccessPolicy.from_settings(settings)
        is_owner = any(policy.is_owner(platform, ident) for platform, ident in identities)
        links = SignInLinks.from_settings(settings, base=serving_url(settings), home=home)
        return await asyncio.to_thread(links.link, user_key, agent_id, is_owner=is_owner)
    finally:
        await state.close()
        await home.close()


def serving_url(settings: Settings) -> str | None:
    """Where the process that owns the workspace serves the page, when it says so and no
    ``api.public_url`` is set (``familiars api --port 8080`` serves where the config does
    not say: a link from the config's port led nowhere)."""
    owner = read_owner(Path(settings.workspace))
    return None if settings.api.public_url or owner is None else owner.api
