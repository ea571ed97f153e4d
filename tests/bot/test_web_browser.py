"""The memory page in a real browser (issue 22): Playwright driving Debian's Chromium against
the running bot's API on 127.0.0.1. A person signs in by link, lists, searches, corrects,
forgets, cancels a reminder, opens a conversation's tree and their people's graph; a second
person's link sees
none of the first's memories; the owner sees the status. Screenshots (1280 and 390 wide)
go to ``$FAMILIARS_WEB_SHOTS`` (else a temp folder).

Skipped, saying why, where Chromium or the ``playwright`` package is missing; ``.ci/run``
installs Chromium so CI runs them."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.memory import make_record
from tests.bot.web_fixtures import ANN, BOB_KEY, OWNER, command, link_for, running, say, seed

CHROMIUM = os.environ.get("FAMILIARS_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

playwright_api = pytest.importorskip(
    "playwright.async_api",
    reason="the playwright package is not installed (pip install playwright)",
)
pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(
        not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)),
        reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)",
    ),
]


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("FAMILIARS_WEB_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
async def browser() -> AsyncIterator[object]:
    async with playwright_api.async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


async def _page(browser: object, size: dict[str, int]) -> object:
    context = await browser.new_context(viewport=size)  # type: ignore[attr-defined]
    return await context.new_page()


async def _sign_in(page: object, url: str) -> None:
    await page.goto(url)  # type: ignore[attr-defined]
    await page.get_by_role("button", name="Sign in").click()  # type: ignore[attr-defined]
    await page.wait_for_url("**/web/memories")  # type: ignore[attr-defined]


async def test_a_person_tends_their_memory_in_a_browser(
    tmp_path: Path, browser: object, shots: Path
) -> None:
    async with running(tmp_path / "ws", serve=True) as app:
        await seed(app)
        # Back to the first topic hours later: with the pull of the last message and the
        # attach threshold off, the attach rule hangs it under the first message (a branch).
        tree = app.trees.get("agent_0", "dialogue_0")
        tree.delta, tree.tau_attach = 0.0, 0.0
        later = datetime.now(UTC) + timedelta(hours=3)
        await say(app, "My name is Robert, not Bob", at=later)
        tree.delta, tree.tau_attach = 0.35, 0.35
        page = await _page(browser, DESKTOP)
        errors: list[str] = []
        page.on(
            "console",
            lambda m: errors.append(f"{m.text} {m.location}") if m.type == "error" else None,
        )  # type: ignore[attr-defined]
        await _sign_in(page, await link_for(app))
        body = page.locator("main")  # type: ignore[attr-defined]
        await playwright_api.expect(body).to_contain_text("green tea")
        await page.screenshot(path=str(shots / "memories-desktop.png"), full_page=True)  # type: ignore[attr-defined]
        phone = await _page(browser, PHONE)
        await _sign_in(phone, await link_for(app))
        await phone.screenshot(path=str(shots / "memories-phone.png"), full_page=True)  # type: ignore[attr-defined]
        width = await phone.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width <= PHONE["width"]  # nothing sticks out sideways at phone width

        await page.get_by_label("Search").fill("tea")  # type: ignore[attr-defined]
        await page.get_by_role("button", name="Show").click()  # type: ignore[attr-defined]
        await playwright_api.expect(body).to_contain_text("1 memory matching")
        await playwright_api.expect(body).not_to_contain_text("name is")

        await page.get_by_role("link", name="The user likes green tea.").click()  # type: ignore[attr-defined]
        await page.get_by_label("Correct it").fill("The user likes oolong tea.")  # type: ignore[attr-defined]
        await page.get_by_role("button", name="Save the correction").click()  # type: ignore[attr-defined]
        await playwright_api.expect(page.locator(".flash")).to_contain_text("Corrected")  # type: ignore[attr-defined]
        history = page.locator(".history")  # type: ignore[attr-defined]
        await playwright_api.expect(history).to_contain_text("replaced by a correction")
        await playwright_api.expect(history).to_contain_text("you, on this page")
        await playwright_api.expect(history).to_contain_text("green tea")
        await page.screenshot(path=str(shots / "record-history.png"), full_page=True)  # type: ignore[attr-defined]
        assert "oolong" in await command(app, "memory", "list")

        await page.get_by_role("link", name="Forget…").click()  # type: ignore[attr-defined]
        await playwright_api.expect(body).to_contain_text("Forget this for good?")
        await page.get_by_role("button", name="Yes, forget it").click()  # type: ignore[attr-defined]
        await playwright_api.expect(page.locator(".flash")).to_contain_text("Forgotten")  # type: ignore[attr-defined]
        assert "oolong" not in await command(app, "memory", "list")

        await page.get_by_role("link", name="Reminders").click()  # type: ignore[attr-defined]
        await playwright_api.expect(body).to_contain_text("water the plants")
        await page.get_by_role("button", name="Cancel water the plants").click()  # type: ignore[attr-defined]
        await playwright_api.expect(page.locator(".flash")).to_contain_text("Cancelled")  # type: ignore[attr-defined]
        assert "water the plants" not in await command(app, "reminders")

        await page.get_by_role("link", name="Conversations").click()  # type: ignore[attr-defined]
        await page.locator(".timeline a").first.click()  # type: ignore[attr-defined]
        tree = page.locator(".tree svg")  # type: ignore[attr-defined]
        await playwright_api.expect(tree).to_be_visible()
        assert await page.locator(".tree svg g.node").count() >= 4  # type: ignore[attr-defined]
        await playwright_api.expect(body).not_to_contain_text(" 0 branching points")
        await page.screenshot(path=str(shots / "tree.png"), full_page=True)  # type: ignore[attr-defined]
        assert errors == []  # nothing the CSP blocked, no script errors


async def test_a_second_persons_link_sees_none_of_the_first_persons_memories(
    tmp_path: Path, browser: object, shots: Path
) -> None:
    async with running(tmp_path / "ws", serve=True) as app:
        await seed(app)
        page = await _page(browser, DESKTOP)
        await _sign_in(page, await link_for(app, ANN))
        body = page.locator("main")  # type: ignore[attr-defined]
        await playwright_api.expect(body).to_contain_text("climbing")
        for bobs in ("green tea", "Bob"):
            await playwright_api.expect(body).not_to_contain_text(bobs)
        await page.get_by_role("link", name="Reminders").click()  # type: ignore[attr-defined]
        await playwright_api.expect(body).not_to_contain_text("water the plants")

        owner = await _page(browser, DESKTOP)
        await say(app, "My name is Olga", user=OWNER)
        await _sign_in(owner, await link_for(app, OWNER))
        await owner.get_by_role("link", name="Status").click()  # type: ignore[attr-defined]
        await playwright_api.expect(owner.locator(".chart").first).to_be_visible()  # type: ignore[attr-defined]
        await owner.screenshot(path=str(shots / "status-owner.png"), full_page=True)  # type: ignore[attr-defined]


#: (days ago, what Bob's records say): people, relations between them, a change of boss.
BOBS_PEOPLE = (
    (200, "The user's boss is called Priya."),
    (90, "The user's mother is called Ruth."),
    (40, "The user's friend is called Marco."),
    (30, "Marco's girlfriend is called Lena."),
    (20, "The user's boss is called Dana."),
    (12, "The user has a dog called Rex."),
    (6, "The user's sister is called Emma."),
    (5, "Emma's husband is called Joaquin."),
    (3, "Emma is training for a marathon."),
    (2, "Emma and the user went to Lisbon together."),
    (1, "Rex is scared of thunder."),
)


async def test_a_person_sees_their_people_drawn_and_listed(
    tmp_path: Path, browser: object, shots: Path
) -> None:
    async with running(tmp_path / "ws", serve=True) as app:
        await seed(app)
        now = datetime.now(UTC)
        for days, text in BOBS_PEOPLE:
            at = (now - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
            rec = make_record(text, scope="user", category="relation", user_key=BOB_KEY, ts=at)
            await app.memory.store.append(rec, dedupe=False)
        page = await _page(browser, DESKTOP)
        errors: list[str] = []
        page.on(
            "console",
            lambda m: errors.append(f"{m.text} {m.location}") if m.type == "error" else None,
        )  # type: ignore[attr-defined]
        await _sign_in(page, await link_for(app))
        await page.get_by_role("link", name="People").click()  # type: ignore[attr-defined]
        graph = page.locator(".people-graph svg")  # type: ignore[attr-defined]
        await playwright_api.expect(graph).to_be_visible()
        assert await page.locator(".people-graph g.person").count() == 9  # type: ignore[attr-defined]
        await playwright_api.expect(graph).to_contain_text("Emma's husband")
        await playwright_api.expect(graph).to_contain_text("was boss until")
        assert await page.locator(".people-graph g.rel.past").count() == 1  # type: ignore[attr-defined]
        await page.screenshot(path=str(shots / "people-desktop.png"), full_page=True)  # type: ignore[attr-defined]

        phone = await _page(browser, PHONE)
        await _sign_in(phone, await link_for(app))
        await phone.goto(page.url)  # type: ignore[attr-defined]
        await playwright_api.expect(phone.locator(".person-row").first).to_be_visible()  # type: ignore[attr-defined]
        await phone.screenshot(path=str(shots / "people-phone.png"), full_page=True)  # type: ignore[attr-defined]
        width = await phone.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width <= PHONE["width"]

        await page.get_by_role("link", name="Memories that mention Emma").click()  # type: ignore[attr-defined]
        body = page.locator("main")  # type: ignore[attr-defined]
        await playwright_api.expect(body).to_contain_text("training for a marathon")
        await playwright_api.expect(body).not_to_contain_text("Priya")
        assert errors == []  # nothing the CSP blocked

        other = await _page(browser, DESKTOP)
        await _sign_in(other, await link_for(app, ANN))
        await other.get_by_role("link", name="People").click()  # type: ignore[attr-defined]
        await playwright_api.expect(other.locator("main")).to_contain_text("not told the familiar")  # type: ignore[attr-defined]
        await playwright_api.expect(other.locator("main")).not_to_contain_text("Emma")  # type: ignore[attr-defined]
