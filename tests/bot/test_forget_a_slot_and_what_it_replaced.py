"""A description names what it means: "forget my address", "delete where I live", "forget
my job", "forget my age" take "The user lives in Otley.", "works as", "years old" (tester
s35 U3: "forget my address" answered "I found nothing of yours" while the home was live).

Forgetting a record offers what it replaced in the same question: after "we moved from
Headingley to Otley", "forget that I live in Otley" + yes left "The user lives in
Headingley." in the memory file, its history, the turns and the database; and "forget that
I used to live in Headingley" found nothing (tester s35 U4)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from familiars.bot._forget_match import says
from familiars.cli import app as cli_app
from familiars.memory import terms
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, TOKEN, running

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(
    ("asked", "record"),
    [
        ("my address", "The user lives in Otley."),
        ("where I live", "The user lives in Otley."),
        ("my home", "The user lives in Otley."),
        ("my job", "The user works as a baker."),
        ("what I do for work", "The user works as a baker."),
        ("my age", "The user is 34 years old."),
        ("I used to live in Headingley", "The user lives in Headingley."),
        ("I lived in Headingley", "The user lives in Headingley."),
    ],
)
def test_a_description_says_what_its_slot_says(asked: str, record: str) -> None:
    assert says(terms(asked), record), (asked, terms(asked), terms(record))


@pytest.mark.parametrize(
    ("asked", "record"),
    [
        ("my address", "The user works as a baker."),
        ("my job", "The user lives in Otley."),
        ("that I live in Otley", "The user lives in Headingley."),
    ],
)
def test_another_slot_is_not_said(asked: str, record: str) -> None:
    assert not says(terms(asked), record)


@pytest.mark.parametrize(
    "ask", ["please forget my address", "forget my address", "delete where I live"]
)
async def test_forget_my_address_takes_the_home(tmp_path: Path, ask: str) -> None:
    async with running(tmp_path / "ws") as bot:
        await bot.say("I live in Otley and I work as a baker.")
        asked = await bot.say(ask)
        assert asked.startswith("About to forget") and "Otley" in asked, asked
        assert "found nothing" not in asked
        assert (await bot.say("yes")).startswith("Forgotten")
        listed = await bot.command("list")
        assert "Otley" not in listed and "baker" in listed, listed


async def test_forgetting_a_home_takes_the_home_it_replaced(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say("I live in Headingley.", ago=120)
        await bot.say("we moved from Headingley to Otley", ago=60)
        asked = await bot.say("forget that I live in Otley")
        assert "Otley" in asked and "Headingley" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert files_holding(ws, "Headingley") == []
        assert files_holding(ws, "Otley") == []


async def test_used_to_live_finds_the_home_replaced(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say("I live in Headingley.", ago=120)
        await bot.say("I live in Otley now.", ago=60)
        asked = await bot.say("forget that I used to live in Headingley")
        assert asked.startswith("About to forget") and "Headingley" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert "Otley" in await bot.command("list")
        assert files_holding(ws, "Headingley") == []


@pytest.mark.parametrize("door", ["command", "api", "cli"])
async def test_every_door_takes_what_a_record_replaced(
    tmp_path: Path, door: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", TOKEN)
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say("I live in Headingley.", ago=120)
        await bot.say("we moved from Headingley to Otley", ago=60)
        [rec] = [
            r
            for r in await bot.app.memory.store.list(scope="user", user_key=ALICE)
            if "Otley" in r.content
        ]
        assert rec.supersedes, rec
        if door == "command":
            asked = await bot.command("forget", rec.id)
            assert "Headingley" in asked and "(since replaced)" in asked, asked
            assert (await bot.command("forget", rec.id, "confirm")).startswith("Forgotten")
        elif door == "api":
            assert bot.app.api is not None
            auth = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx.AsyncClient(base_url=bot.app.api.url) as client:
                done = await client.delete(f"/api/memory/{rec.id}", headers=auth)
            assert done.status_code == 200 and rec.supersedes in done.json()["records"]
    if door == "cli":
        result = await asyncio.to_thread(
            CliRunner().invoke, cli_app, ["--workspace", str(ws), "memory", "forget", rec.id]
        )
        assert result.exit_code == 0, result.output
    assert files_holding(ws, "Headingley") == []
