"""Tester s38 (finding 4): "forget that my contact is Ottoline Vanderberg", "yes", and the
process killed 0.1 s later: no intent was on disk (the forget waited for the runtime's held
writes first), and after the restart the message was still in the dialogue journal and
quoted back. The confirmed forget's intent is written (fsynced) first now, and the next
start finishes it before it serves."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot import Application
from tests.harness import message, opened_app, running_app, say

pytestmark = pytest.mark.timeout(120)

SAID = (
    "My locker combination is at Paddington and my contact there is Ottoline Vanderberg "
    "who runs the cheese stall"
)


class Killed(BaseException):
    """The process dying: nothing after it runs (not an error anything catches)."""


def files_holding(root: Path, word: str) -> list[str]:
    return [
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and word.encode() in p.read_bytes()
    ]


def _dies_at_the_next_settle(app: Application) -> None:
    """The first thing a confirmed forget waits for (the runtime's held writes) is where
    the process dies: right after the yes was read."""
    assert app.dialogues is not None
    forgetter = app.dialogues.forget_words.forgetter
    held = forgetter.before

    async def die() -> None:
        forgetter.before = held  # the shutdown below may settle: the crash came once
        raise Killed

    forgetter.before = die


async def test_a_forget_confirmed_just_before_a_crash_is_finished_at_the_next_start(
    workspace: Path,
) -> None:
    async with opened_app(workspace) as app:
        await say(app, message(SAID))
        asked = await say(app, message("forget that my contact is Ottoline Vanderberg", minutes=1))
        assert "About to forget for good" in asked, asked
        _dies_at_the_next_settle(app)
        with pytest.raises(Killed):
            await say(app, message("yes", minutes=2))
        assert list((workspace / "state" / "forgetting").glob("*.json")), "no intent on disk"
    assert files_holding(workspace, "Ottoline")  # not yet: the process died
    async with running_app(workspace) as app:  # the next start
        assert files_holding(workspace, "Ottoline") == []
        assert not list((workspace / "state" / "forgetting").glob("*.json"))
        answer = await say(app, message("who is Ottoline?", minutes=3))
        assert "Vanderberg" not in answer and "cheese" not in answer, answer
