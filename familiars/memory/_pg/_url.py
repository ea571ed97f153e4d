"""The database's URL from the settings, without importing the driver (an optional extra).

:class:`DatabaseError` is a :class:`~familiars.config.UserFacingError`: the CLI prints it as
one line and exits 1, never a traceback.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from familiars.config import Settings, UserFacingError

#: The PostgreSQL schema our tables live in (tests use one per test).
DEFAULT_SCHEMA = "familiars"


class DatabaseError(UserFacingError):
    """The database cannot be used as the memory's home; the text says why and what to do."""


def database_url(settings: Settings) -> str | None:
    """The ``postgresql://`` URL of the memory's database, or None: the workspace's files."""
    url = settings.secret(settings.database.url_env)
    if url is None:
        return None
    scheme = urlsplit(url).scheme
    if scheme not in ("postgresql", "postgres"):
        raise DatabaseError(
            f"{settings.database.url_env} must be a postgresql:// URL, not {scheme or 'empty'}://"
        )
    return url


def driver_missing() -> DatabaseError:
    return DatabaseError(
        "the memory's database needs the PostgreSQL driver: pip install 'familiars[postgres]'"
    )


def shown_url(url: str) -> str:
    """The URL as it may be printed: without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    user = f"{parts.username}:***@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{host}{port}"))
