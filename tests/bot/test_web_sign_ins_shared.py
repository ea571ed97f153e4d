"""Memory-page sign-ins in the database home are the workers' together (issue 21's homes):
a link made on one worker signs in on another, the cookie holds on every worker, and each
way a sign-in ends (``/memory web off``, the page's sign-out, forgetting the whole person)
ends it on every worker at once. Before, each worker kept its own in its workspace's
``state/web_sessions.json``: another worker's stayed valid for up to 12 hours."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

from familiars.bot import Application
from familiars.memory import person_ref
from tests.bot.web_fixtures import (
    BOB,
    BOB_KEY,
    client,
    command,
    csrf_of,
    link_for,
    post,
    running,
    say,
    sign_in,
)

Door = Callable[[Application, httpx.AsyncClient], Awaitable[None]]


async def web_off(app: Application, http: httpx.AsyncClient) -> None:
    assert "signed out" in (await command(app, "memory", "web", "off", user=BOB)).lower()


async def sign_out(app: Application, http: httpx.AsyncClient) -> None:
    page = await http.get("/web/memories")
    done = await post(http, "/web/logout", {"csrf": csrf_of(page.text)})
    assert done.status_code in (200, 303), done.text


async def forget_person(app: Application, http: httpx.AsyncClient) -> None:
    report = await app.services.forgetter.forget(person_ref(BOB_KEY))
    assert any("web sign-ins" in line for line in report.state), report.state


DOORS: dict[str, Door] = {"web_off": web_off, "sign_out": sign_out, "forget": forget_person}


@pytest.mark.parametrize("door", list(DOORS))
async def test_a_sign_in_holds_on_every_worker_and_ends_on_every_worker_at_once(
    door: str, tmp_path: Path, pg_url: str
) -> None:
    async with running(tmp_path / "a") as a, running(tmp_path / "b") as b:
        await say(a, "My name is Bob and I like tea.")
        url = await link_for(a)  # made on worker A
        async with client(b) as on_b, client(a) as on_a:
            assert (await sign_in(on_b, url)).status_code in (200, 303)  # redeemed on B
            on_a.cookies = on_b.cookies
            assert (await on_a.get("/web/memories")).status_code == 200  # and good on A
            assert (await on_b.get("/web/memories")).status_code == 200
            await DOORS[door](a, on_a)  # ended on A
            assert (await on_b.get("/web/memories")).status_code == 401  # B at once
            assert (await on_a.get("/web/memories")).status_code == 401
