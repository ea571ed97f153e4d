"""A question about something never told is answered "I don't know", never with another
fact that shares its words (tester s37): a favourite of another kind, a named person's
other fact, a wife for a "mate"."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from familiars.bot._answers import favourite_fits, offline_reply
from familiars.bot._turn_actions import TurnActions
from tests.harness import make_app, message, say


@dataclass
class _Record:
    text: str
    kind: str = "record"
    score: float = 0.0
    private: bool = True
    foreign: bool = False


def _reply(question: str, records: list[str], meant: tuple[str, ...] = ()) -> str:
    return offline_reply(
        question,
        actions=TurnActions(),
        items=[_Record(r) for r in records],
        is_group=False,
        meant=meant,
        kept=records,
    )


def test_a_favourite_of_another_kind_is_no_answer() -> None:
    film = "The user's favourite film is Alien."
    assert not favourite_fits("what's my favourite band?", film)
    assert favourite_fits("what's my favourite movie?", film)
    assert favourite_fits("what do I like?", film)
    said = _reply("what's my favourite band?", [film], meant=(film,))
    assert "Alien" not in said and "I don't know" in said
    assert "Alien" in _reply("which is my favourite movie?", [film], meant=(film,))


def test_a_named_persons_fact_of_another_kind_is_said_as_what_is_known() -> None:
    said = _reply("what's Sanjay's job?", ["The user's brother Sanjay lives in Glasgow."])
    assert said.startswith("I don't know that about Sanjay yet.")
    assert "Glasgow" in said  # what is known, said as such
    asked = _reply("what does Carol do?", ["The user's mum Carol works as a teacher."])
    assert asked == "Your mum Carol works as a teacher."


async def test_a_mate_is_a_friend(workspace: Path, real_embedder: Any) -> None:
    async with make_app(workspace, embedder=real_embedder, model=None) as app:
        for minute, told in enumerate(
            ["My wife Meera's birthday is on 3 June", "My best friend is Zoe"], 1
        ):
            await say(app, message(told, minutes=minute))
        said = await say(app, message("who's my closest mate?", minutes=5))
    assert "Zoe" in said and "Meera" not in said
