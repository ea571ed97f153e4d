"""Load run through the fake Telegram server: 50 people, 20 messages each, all at once.

Each person waits for the answer before sending the next message (as people do); the 50
people run concurrently. Checked: every message answered exactly once, every fact stored
exactly once, no person ever sees another person's fact. The time per turn (update pushed ->
the adapter finished answering it) is printed as p50/p95, never asserted.

Run with ``-s`` to see the figures::

    .venv/bin/python -m pytest tests/bot/test_telegram_load.py -q -s
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from pathlib import Path

import pytest

from familiars.bot.adapters.base import IncomingMessage
from familiars.bot.adapters.telegram import TelegramAdapter
from familiars.config._settings import Settings
from tests.bot.fake_telegram import TOKEN, FakeHandler, FakeTelegram

pytestmark = pytest.mark.timeout(120)

PEOPLE = int(__import__("os").environ.get("TG_LOAD_PEOPLE", "50"))
MESSAGES = 20
FIRST_USER = 50_000


def message_text(person: int, n: int) -> str:
    """Even turns tell a fact, odd turns ask for the fact just told."""
    if n % 2 == 0:
        return f"remember fact{n}=p{person}v{n}"
    return f"recall fact{n - 1}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class TurnClock:
    """Pairs each pushed update with the adapter's end of that turn."""

    def __init__(self) -> None:
        self._done: dict[str, asyncio.Event] = {}
        self.finished: list[str] = []

    def expect(self, message_id: int) -> asyncio.Event:
        return self._done.setdefault(str(message_id), asyncio.Event())

    def turn_done(self, message: IncomingMessage) -> None:
        self.finished.append(message.message_id or "")
        self.expect(int(message.message_id or 0)).set()


async def run_person(
    tg: FakeTelegram, clock: TurnClock, person: int, latencies: list[float]
) -> None:
    user = FIRST_USER + person
    for n in range(MESSAGES):
        started = time.perf_counter()
        update = tg.private_message(user, message_text(person, n))
        await asyncio.wait_for(clock.expect(update["message"]["message_id"]).wait(), 60)
        latencies.append(time.perf_counter() - started)


async def test_fifty_people_twenty_messages_each(tmp_path: Path) -> None:
    settings = Settings(
        workspace=tmp_path,
        telegram={"overall_max_rate": 0, "group_max_rate": 0, "max_concurrent_turns": 64},
    )
    handler = FakeHandler()
    clock = TurnClock()
    latencies: list[float] = []
    async with FakeTelegram() as tg:
        adapter = TelegramAdapter(
            handler, settings, TOKEN, base_url=tg.base_url, on_turn_done=clock.turn_done
        )
        await adapter.start()
        started = time.perf_counter()
        try:
            await asyncio.gather(*(run_person(tg, clock, p, latencies) for p in range(PEOPLE)))
        finally:
            elapsed = time.perf_counter() - started
            await adapter.stop()
        replies = {p: tg.chat_texts(FIRST_USER + p) for p in range(PEOPLE)}

    total = PEOPLE * MESSAGES
    # every message answered once
    assert len(handler.messages) == total
    assert len(set(clock.finished)) == len(clock.finished) == total
    for person, texts in replies.items():
        assert len(texts) == MESSAGES, f"person {person} got {len(texts)} replies"
        # every fact stored once, and answered back to the person who told it
        for n in range(0, MESSAGES, 2):
            assert handler.facts[(str(FIRST_USER + person), f"fact{n}")] == [f"p{person}v{n}"]
            assert texts[n + 1] == f"fact{n} is p{person}v{n}"
        # no cross-person leak
        owners = {int(m) for t in texts for m in re.findall(r"\bp(\d+)v\d+", t)}
        assert owners <= {person}
    print(
        f"\ntelegram load (fake handler): {PEOPLE} people x {MESSAGES} messages = {total} "
        f"turns in {elapsed:.2f}s ({total / elapsed:.0f} turns/s); per turn "
        f"p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p95 {percentile(latencies, 0.95) * 1000:.1f} ms"
    )
