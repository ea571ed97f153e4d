"""Shared helpers for the memory page's tests: the real runtime (offline, API on), two people
and an owner who talked to it, and sign-in by the link ``/memory web`` gives. (No tests.)"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation, IncomingMessage
from familiars.config import load_settings
from tests.harness import opened_app, running_app

BOB, ANN, OWNER = "102", "103", "900"
BOB_KEY, ANN_KEY, OWNER_KEY = "telegram_102", "telegram_103", "telegram_900"
BASE = "http://testserver"
LINK_RE = re.compile(r"(https?://\S+/web/login\?t=[A-Za-z0-9_-]+)")
SCRIPT = '<script>document.title="pwned"</script>'
ONERROR = '<img src=x onerror="document.title=1">'


def settings_for(workspace: Path, *, port: int = 0) -> object:
    return load_settings(
        workspace=workspace,
        access={"owners": [f"telegram:{OWNER}"]},
        api={"enabled": True, "host": "127.0.0.1", "port": port},
    )


@asynccontextmanager
async def running(workspace: Path, *, serve: bool = False) -> AsyncIterator[Application]:
    """The bot with the API (and so the memory page); ``serve`` starts it on a real port."""
    settings = settings_for(workspace)
    within = running_app if serve else opened_app
    async with within(settings, model=None) as app:  # type: ignore[arg-type]
        yield app


async def say(app: Application, text: str, *, user: str = BOB, at: datetime | None = None) -> str:
    name = {BOB: "Bob", ANN: "Ann", OWNER: "Olga"}[user]
    message = IncomingMessage("telegram", user, user, name, text, ts=at or datetime.now(UTC))
    out = "".join([part async for part in app.dialogues.respond(message)])
    await app.settle()
    return out


async def command(
    app: Application, name: str, *args: str, user: str = BOB, group: bool = False
) -> str:
    chat = "-500" if group else user
    inv = CommandInvocation("telegram", chat, user, "", name, tuple(args), is_group=group)
    return (await app.dialogues.command(inv)).text


async def link_for(app: Application, user: str = BOB) -> str:
    """The sign-in link ``/memory web`` gives ``user`` in a private chat."""
    found = LINK_RE.search(await command(app, "memory", "web", user=user))
    assert found is not None, "no link in the answer"
    return found.group(1)


def path_of(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[1].join(["/", ""])


def client(app: Application) -> httpx.AsyncClient:
    assert app.api is not None
    transport = httpx.ASGITransport(app=app.api.app)
    return httpx.AsyncClient(transport=transport, base_url=BASE, follow_redirects=False)


async def sign_in(http: httpx.AsyncClient, url: str) -> httpx.Response:
    """Open the link's page, then press its button (a POST from this origin)."""
    page = await http.get(path_of(url))
    assert page.status_code == 200, page.text
    token = url.rsplit("t=", 1)[1]
    return await http.post("/web/login", data={"t": token}, headers={"Origin": BASE})


CSRF_RE = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def csrf_of(html: str) -> str:
    found = CSRF_RE.search(html)
    assert found is not None, "no CSRF token on the page"
    return found.group(1)


async def post(
    http: httpx.AsyncClient, path: str, data: dict[str, str], *, origin: str | None = BASE
) -> httpx.Response:
    headers = {"Origin": origin} if origin is not None else {}
    return await http.post(path, data=data, headers=headers)


async def seed(app: Application) -> None:
    """Bob and Ann say things the offline writer keeps; Bob asks for a reminder."""
    await say(app, "My name is Bob")
    await say(app, "I like green tea")
    await say(app, "I like hiking in the mountains")
    await say(app, "remind me tomorrow at 9am to water the plants")
    await say(app, "My name is Ann", user=ANN)
    await say(app, "I like climbing", user=ANN)
