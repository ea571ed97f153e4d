"""A document goes through the one Forgetter too (``file:<id>``, as ``/find`` shows it), on
both homes: the ``/memory forget`` command, the control socket, the HTTP API and the CLI with
nothing running. After it no file of the workspace (``familiars.db*``, the person's
``files/`` folder and its edit history) and no table of the database (every ``doc_*`` row,
``doc_blobs`` read as bytes) holds the document's words, and no finder returns it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from familiars.bot._adapters.base import CommandInvocation
from familiars.cli import app as cli_app
from familiars.memory import read_owner, send_request
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, NOW, TOKEN, Bot, running

pytestmark = pytest.mark.timeout(120)

SECRET = "Zanzibarquokka"
NOTE = f"The {SECRET} safe code is QX4471, kept in the blue drawer.\n".encode()
KEPT = b"Shopping list: apples, bread and cheese.\n"


async def _find(bot: Bot, query: str) -> str:
    assert bot.app.dialogues is not None
    inv = CommandInvocation("telegram", "u1", "u1", "Alice", "find", (query,), ts=NOW)
    return (await bot.app.dialogues.command(inv)).text


async def _attached(bot: Bot) -> str:
    """Alice's two attachments; the id of the secret one, as ``/find`` shows it."""
    finder = bot.app.services.forgetter.documents
    assert finder is not None
    await finder.add_attachment(ALICE, "safe.txt", NOTE)  # type: ignore[attr-defined]
    await finder.add_attachment(ALICE, "shopping.txt", KEPT)  # type: ignore[attr-defined]
    found = await _find(bot, f"{SECRET} safe code")
    assert found.startswith("1. safe.txt `file:"), found
    assert files_holding(bot.workspace, SECRET)  # stored: in the file, the rows, the history
    return found.split("`")[1]


async def by_command(bot: Bot, ref: str) -> None:
    assert "About to forget for good the file safe.txt" in await bot.command("forget", ref)
    done = await bot.command("forget", ref, "confirm")
    assert done.startswith("Forgotten: the file safe.txt\n(Gone from everywhere I kept it: 1 file,")


async def by_control_socket(bot: Bot, ref: str) -> None:
    owner = read_owner(bot.workspace)
    assert owner is not None and owner.control
    answer = await asyncio.to_thread(send_request, owner.control, {"op": "forget", "id": ref})
    assert [Path(p).name for p in answer["files"]] == ["safe.txt"]


async def by_api(bot: Bot, ref: str) -> None:
    assert bot.app.api is not None
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=bot.app.api.url) as client:
        missing = await client.delete(f"/api/memory/file:{'0' * 24}", headers=auth)
        assert missing.status_code == 404
        done = await client.delete(f"/api/memory/{ref}", headers=auth)
    assert done.status_code == 200 and [Path(p).name for p in done.json()["files"]] == ["safe.txt"]


async def nothing(bot: Bot, ref: str) -> None:
    """The CLI case forgets after the bot stopped."""


WAYS = {"command": by_command, "control_socket": by_control_socket, "api": by_api}


@pytest.mark.parametrize("way", [*WAYS, "cli"])
async def test_every_way_to_forget_a_document_leaves_no_trace(
    way: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_home: str
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", TOKEN)
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        ref = await _attached(bot)
        await WAYS.get(way, nothing)(bot, ref)
    if way == "cli":
        result = await asyncio.to_thread(
            CliRunner().invoke, cli_app, ["--workspace", str(ws), "memory", "forget", ref]
        )
        assert result.exit_code == 0, result.output
    for trace in (SECRET, "QX4471", "blue drawer"):
        assert files_holding(ws, trace) == [], trace
    assert files_holding(ws, "apples, bread")  # the other file stays
    async with running(ws) as bot:  # started again: nothing comes back
        assert (await _find(bot, f"{SECRET} safe code drawer")).startswith("1. shopping.txt")
        assert "safe.txt" not in await _find(bot, "safe code drawer QX4471")


async def test_a_file_of_someone_else_cannot_be_forgotten(tmp_path: Path) -> None:
    async with running(tmp_path / "ws") as bot:
        finder = bot.app.services.forgetter.documents
        assert finder is not None
        bob = await finder.add_attachment("telegram_u2", "safe.txt", NOTE)  # type: ignore[attr-defined]
        said = await bot.command("forget", f"file:{bob.file_id}", "confirm")
        assert said == "I have no memory with that id that you can see."
        assert files_holding(bot.workspace, SECRET)
