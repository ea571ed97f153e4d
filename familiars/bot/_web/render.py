"""Templates and static files of the memory page.

- :class:`Renderer` - Jinja2 over ``templates/`` with autoescape on for every template, so a
  stored ``<script>`` or ``onerror=`` is shown as written; each page gets the signed-in
  person, their CSRF token and the navigation.
- :class:`StaticFiles` - the files of ``static/`` read once at start, served by exact name
  only: a name that is not one of them (``../app.py``, an encoded slash) is a 404.
"""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path
from typing import Any

import jinja2
from starlette.responses import HTMLResponse, Response

from familiars.bot._web.guard import PAGE_HEADERS
from familiars.bot._web.sessions import Session, csrf_token

HERE = Path(__file__).parent
STATIC_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}\.(?:css|js|svg)$")


class Renderer:
    def __init__(self, folder: Path = HERE / "templates") -> None:
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(folder)),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def page(
        self,
        name: str,
        *,
        session: Session | None = None,
        cookie: str | None = None,
        status: int = 200,
        **values: Any,
    ) -> HTMLResponse:
        context = {
            "session": session,
            "csrf": csrf_token(cookie) if cookie else "",
            "flash": values.pop("flash", None),
            **values,
        }
        html = self.env.get_template(name).render(**context)
        return HTMLResponse(html, status_code=status)

    def message(
        self,
        title: str,
        text: str,
        *,
        status: int,
        session: Session | None = None,
        cookie: str | None = None,
    ) -> HTMLResponse:
        return self.page(
            "message.html", session=session, cookie=cookie, status=status, title=title, text=text
        )


class StaticFiles:
    def __init__(self, folder: Path = HERE / "static") -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        for path in sorted(folder.iterdir()):
            if path.is_file() and STATIC_NAME.fullmatch(path.name):
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                self.files[path.name] = (path.read_bytes(), kind)

    def response(self, name: str) -> Response | None:
        found = self.files.get(name) if STATIC_NAME.fullmatch(name) else None
        if found is None:
            return None
        data, kind = found
        headers = {**PAGE_HEADERS, "cache-control": "max-age=300"}
        return Response(data, media_type=kind, headers=headers)
