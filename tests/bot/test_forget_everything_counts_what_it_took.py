""" "forget everything about me" says the numbers it removes: the question counted the live
memories and the person's messages, the answer every record and every node the forget took
(replaced memories, the bot's replies and a reminder it sent), so it asked about 22 and
said 29 (person-tester, session 36). Both now count the same things, from one place each:
the scope before, the report after."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.memory import is_forgotten
from tests.harness import console_bot

pytestmark = pytest.mark.timeout(180)

NOW = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)
_COUNTS = re.compile(r"(\d+|no) memor\w+.*?, (\d+|no) messages? of yours and (\d+) of mine")


def _counts(text: str) -> tuple[int, int, int]:
    m = _COUNTS.search(text)
    assert m is not None, text
    return tuple(0 if g == "no" else int(g) for g in m.groups())  # type: ignore[return-value]


async def test_the_answer_says_the_numbers_the_question_asked(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), [NOW]) as bot:
        for said in (
            "I work as a nurse.",
            "my sister is called Meera",
            "actually I work as a midwife now",  # replaces the nurse: both go
            "remind me in 2 minutes to water the ferns",
        ):
            await bot.say(said)
            bot.clock[0] += timedelta(minutes=1)
        bot.clock[0] += timedelta(minutes=2)
        assert bot.app.scheduler is not None and bot.app.trees is not None
        await bot.app.scheduler.run_due(bot.clock[0])  # a reminder the bot sent on its own
        records = await bot.app.memory.store.list(live_only=False)
        tree = bot.app.trees.get("agent_0", "dialogue_0")
        nodes = [n for n in tree.node_list if not is_forgotten(n)]
        asked = await bot.say("forget everything about me")
        memories, yours, mine = _counts(asked)
        assert memories == len(records) and any(r.deprecated for r in records), records
        assert yours == sum(1 for n in nodes if n.node_type == "Q") == 4
        assert mine == sum(1 for n in nodes if n.node_type == "A") == 5
        done = await bot.say("yes")
        assert done.startswith("Forgotten everything about you"), done
        assert _counts(done) == (memories, yours, mine), (asked, done)
        assert await bot.app.memory.store.list(live_only=False) == []
        assert not [n for n in tree.node_list if n.content and not is_forgotten(n)]
