"""Session 33 review (fixf), item 3: forgetting a relative whose name is a month took every
"in May", names chained ("forget everything about Leeds" took every "in May"), and the boss
"Mr Smith" was named "Mr"."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from familiars.bot._forget_match import names_in as _names_in
from familiars.bot._forget_match import names_said as _names_said
from familiars.bot._forget_texts import window_done_text
from familiars.bot._forget_window import Window
from familiars.memory import ForgetReport, TurnsPlan
from tests.bot.test_forget_everywhere import running

pytestmark = pytest.mark.timeout(180)

SAID = (
    "My sister May lives in Leeds.",
    "My birthday is in May.",
    "I'm going to Spain in May.",
    "May's dog is called Rex.",
)


@pytest.mark.parametrize(
    "ask", ["forget my sister", "forget everything about May", "forget everything about Leeds"]
)
async def test_forgetting_may_leaves_the_month_of_may(tmp_path: Path, ask: str) -> None:
    async with running(tmp_path / "ws") as bot:
        for text in SAID:
            await bot.say(text)
        asked = await bot.say(ask)
        assert asked.startswith("About to forget") and "Leeds" in asked, asked
        assert "Spain" not in asked and "birthday" not in asked, asked
        if ask != "forget everything about Leeds":
            assert "Rex" in asked, asked  # what is said of her, by her name
        assert (await bot.say("no")).startswith("Kept")


def test_a_title_is_not_a_name_nor_a_month_a_time() -> None:
    boss = SimpleNamespace(content="The user's boss Mr Smith is strict.")
    assert _names_in([boss]) == {"Smith"}  # type: ignore[list-item]
    assert not _names_said({"May"}, "The user is going to Spain in May.")
    assert not _names_said({"May"}, "The user's exam is on May 3.")
    assert not _names_said({"May"}, "The user's exam is on the 3rd of May.")
    assert _names_said({"May"}, "The user's sister May lives in Leeds.")
    assert _names_said({"May"}, "May's dog is called Rex.")


def test_a_window_forget_counts_its_merged_memories_once() -> None:
    """Review item 9: a merged memory made again was counted as a memory "I noted from
    them" and listed again as merged: the done message said more than the question."""
    plan = TurnsPlan(turns=("n1",), replies=("n2",), records=("r1",))
    report = ForgetReport(
        records=["r1", "m1", "m3"], nodes=["n1", "n2"], rederived={"m1": "m2"}, dropped=["m3"]
    )
    window = Window(0.0, 1.0, "in the last 2 minutes")
    done = window_done_text(window, plan, report)
    assert "and 1 memory I noted from it," in done, done
    assert "1 merged memory made again" in done and "1 merged memory dropped" in done, done
