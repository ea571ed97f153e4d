"""Issue 14's must-show, the tool path: a scripted conversation through the real runtime, the
real python-telegram-bot client and the fake Bot API server, with a scripted model that uses
the bot's tools. Each reply the person sees is checked: a reminder set (in their time zone),
one without a time asked about and completed by the answer, the list, a cancel, a fact
remembered and found again, a broken call and an unknown tool that still get answers, the
commands that show what the tools did, and a group where someone else gets nothing private."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from familiars.bot import Application
from familiars.bot._adapters.telegram import TelegramAdapter
from familiars.config import load_settings
from tests.bot.fake_telegram import TOKEN, FakeTelegram
from tests.bot.tool_script import ToolScript, one, relay, tool_results
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app


@pytest.fixture(autouse=True)
def _no_ai_disclosure(monkeypatch: pytest.MonkeyPatch) -> None:
    """These replies are compared whole: the first-reply AI disclosure is tested elsewhere."""
    monkeypatch.setenv("FAMILIARS_CARE__AI_DISCLOSURE", "false")


pytestmark = pytest.mark.timeout(120)

ALICE, BOB, GROUP = 101, 102, -1001
LISBON = ZoneInfo("Europe/Lisbon")
_LOCAL = re.compile(r"(\w{3}) (\d{1,2}) (\w{3}) (\d{2}):(\d{2})")


def answers_from_memory(body: dict[str, Any]) -> Reply:
    """What a model says after search_memory: the fact when it was found, else not knowing."""
    found = " ".join(tool_results(body))
    return Reply.text("Your dog is called Biscuit." if "Biscuit" in found else "I don't know that.")


@asynccontextmanager
async def telegram_bot(workspace: Path, script: ToolScript) -> AsyncIterator[Conversation]:
    async with FakeOpenAI(script) as model, FakeTelegram() as tg:
        settings = load_settings(
            workspace=workspace,
            llm={"providers": [{"name": "local", "base_url": model.base_url, "model": "m"}]},
            telegram={"overall_max_rate": 0, "group_max_rate": 0},
        )
        app = make_app(settings, scheduler=True)
        async with app:
            assert app.dialogues is not None
            adapter = TelegramAdapter(app.dialogues, settings, TOKEN, base_url=tg.base_url)
            await adapter.start()
            try:
                yield Conversation(tg, app, script)
            finally:
                await adapter.stop()


class Conversation:
    def __init__(self, tg: FakeTelegram, app: Application, script: ToolScript) -> None:
        self.tg, self.app, self.script = tg, app, script

    async def _answer(self, chat: int, send: Callable[[], object]) -> str:
        before = len(self.tg.chat_texts(chat))
        send()
        await self.tg.wait_for(lambda: len(self.tg.chat_texts(chat)) > before, timeout=30)
        await self.app.settle()
        return " ".join(self.tg.chat_texts(chat)[-1].split())

    async def last_text(self, chat: int, done: Callable[[str], bool]) -> str:
        """The chat's last message once ``done`` holds for it (a reply's later edit)."""
        await self.tg.wait_for(lambda: done(self.tg.chat_texts(chat)[-1]), timeout=30)
        return " ".join(self.tg.chat_texts(chat)[-1].split())

    async def alice(self, text: str, *steps: Any) -> str:
        self.script.turn(*steps)
        if text.startswith("/"):
            chat = self.tg.private_chat(ALICE)
            return await self._answer(ALICE, lambda: self.tg.command(chat, ALICE, text))
        return await self._answer(
            ALICE, lambda: self.tg.private_message(ALICE, text, first_name="Alice")
        )

    async def bob_in_group(self, text: str, *steps: Any) -> str:
        self.script.turn(*steps)
        return await self._answer(
            GROUP,
            lambda: self.tg.group_message(GROUP, BOB, text, first_name="Bob", mention=True),
        )

    def reminder_jobs(self) -> list[str]:
        assert self.app.scheduler is not None
        jobs = self.app.scheduler.jobs.scheduler.get_jobs()
        return [str(job.id) for job in jobs if str(job.id).startswith("reminder:")]


def local_day(said: str) -> tuple[date, str]:
    """The day and clock time of "Wed 2 Dec 09:00" in a reply (this year or the next)."""
    m = _LOCAL.search(said)
    assert m, said
    today = datetime.now(LISBON).date()
    for year in (today.year, today.year + 1):
        day = datetime.strptime(f"{m.group(2)} {m.group(3)} {year}", "%d %b %Y").date()
        if day >= today and f"{day:%a}" == m.group(1):
            return day, f"{m.group(4)}:{m.group(5)}"
    raise AssertionError(f"no coming day reads {m.group(0)!r}")


async def test_a_conversation_on_telegram_with_a_model_that_uses_tools(workspace: Path) -> None:
    script = ToolScript()
    async with telegram_bot(workspace, script) as chat:
        said = await chat.alice("/timezone Europe/Lisbon")
        assert said.startswith("Your time zone is now Europe/Lisbon")

        said = await chat.alice("Hi! I'm Alice.", Reply.text("Hi Alice, nice to meet you!"))
        assert said == "Hi Alice, nice to meet you!"

        today = datetime.now(LISBON).date()
        said = await chat.alice(
            "remind me tomorrow at 9am to call mom",
            one("set_reminder", {"task": "call mom", "when": "tomorrow at 9am"}),
            relay("Sure! "),
        )
        assert said.startswith("Sure! Reminder set: call mom, ") and "(Europe/Lisbon)" in said
        day, clock = local_day(said)
        assert clock == "09:00" and day - today in (timedelta(days=1), timedelta(days=2))
        assert len(chat.reminder_jobs()) == 1  # the scheduler's exact job, at once

        # No time: the bot's own question (the model is not asked), and the answer sets it;
        # the model's reply that does not say what was set gets the bot's line.
        said = await chat.alice("remind me to water the plants")
        assert said == "When should I remind you to water the plants?"
        await chat.alice("in 2 hours", Reply.text("Done!"))
        said = await chat.last_text(ALICE, lambda text: "remind you" in text)
        assert said.startswith("Done! Okay, I'll remind you to water the plants on "), said
        assert len(chat.reminder_jobs()) == 2

        said = await chat.alice("what reminders do I have?", one("list_reminders", {}), relay())
        assert said.startswith("The person's reminders (times in Europe/Lisbon):")
        assert said.index("water the plants") < said.index("call mom")

        said = await chat.alice(
            "cancel the plants one",
            one("cancel_reminder", {"reminder": "water the plants"}),
            relay("OK. "),
        )
        assert said.startswith("OK. Cancelled: water the plants (")
        assert len(chat.reminder_jobs()) == 1

        said = await chat.alice("/reminders")
        assert "call mom" in said and "water the plants" not in said

        said = await chat.alice(
            "My dog's name is Biscuit, please remember that.",
            one("remember", {"text": "The user's dog is called Biscuit.", "category": "relation"}),
            relay("Noted! "),
        )
        assert said.startswith("Noted! Remembered (private to the person): The user's dog is")

        said = await chat.alice(
            "What's my dog called?",
            one("search_memory", {"query": "dog name"}),
            answers_from_memory,
        )
        assert said == "Your dog is called Biscuit."

        said = await chat.alice(
            "remember that I like green tea",
            one("remember", '{"text": "The user likes green tea", '),  # cut-off JSON
            one("remember", {"text": "The user likes green tea.", "category": "preference"}),
            relay("Got it. "),
        )
        assert said.startswith("Got it. Remembered (private to the person): The user likes green")
        assert any("not valid JSON" in r for r in script.tool_messages())

        said = await chat.alice(
            "empty the whole database for me",  # "delete all my data" is the bot's own ask
            one("delete_everything", {}),
            Reply.text("I can't do that; /memory forget removes one memory at a time."),
        )
        assert said == "I can't do that; /memory forget removes one memory at a time."
        assert "no tool named 'delete_everything'" in script.tool_messages()[-1]

        said = await chat.alice("/memory list")
        assert "Biscuit" in said and "green tea" in said

        said = await chat.bob_in_group(
            "what is Alice's dog called? look it up",
            one("search_memory", {"query": "Alice dog name Biscuit"}),
            answers_from_memory,
        )
        assert said == "I don't know that."
        assert script.tool_messages()[-1] == "Nothing remembered matches that."

        said = await chat.alice("thanks, bye!", Reply.text("Bye Alice!"))
        assert said == "Bye Alice!"
    assert not script.steps  # every scripted step was used, none left over
