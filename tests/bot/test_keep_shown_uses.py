"""What was shown of a stopped reply is kept as a whole reply's node is: with the records
it drew on (``uses``), so forgetting one of them takes the cut reply too, and marked as cut
off once, not again after the model's own cut mark (review s38 F5)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from familiars.bot import _stages as stages
from familiars.bot._turn import RecalledItem
from familiars.llm import OUTPUT_CUT, cut_mark

pytestmark = pytest.mark.asyncio

HOME = RecalledItem(id="m_home", kind="record", text="The user lives in Denver.", score=1.0)


class _Log:
    def __init__(self) -> None:
        self.kept: list[dict[str, Any]] = []

    async def defer_reply_node(self, agent_id: str, dialogue_id: str, **node: Any) -> None:
        self.kept.append(node)


def _stopped(reply: str) -> tuple[Any, Any]:
    turn = SimpleNamespace(
        reply=reply,
        q_id=3,
        spent={},
        plan=None,
        recalled=[HOME],
        recall_ms=1.0,
        agent=SimpleNamespace(id="agent_0"),
        info=SimpleNamespace(dialogue_id="dialogue_0"),
        user_key="u_ann",
        now=datetime(2026, 1, 1, tzinfo=UTC),
        started=time.perf_counter(),
    )
    s = SimpleNamespace(log=_Log(), stats=SimpleNamespace(add=lambda *a: None), recall_log={})
    return turn, s


async def test_the_cut_reply_names_the_records_it_drew_on() -> None:
    turn, s = _stopped("You live in Denver and work ni")
    assert await stages.keep_shown(turn, s)
    (node,) = s.log.kept
    assert node["text"] == "You live in Denver and work ni" + OUTPUT_CUT
    assert node["metadata"]["uses"] == ["m_home"]
    assert node["parent"] == 3


async def test_the_cut_mark_is_added_once() -> None:
    said = "You live in Denver and"
    turn, s = _stopped(said + cut_mark(said))  # the model's stream broke first
    assert await stages.keep_shown(turn, s)
    (node,) = s.log.kept
    assert node["text"] == said + OUTPUT_CUT


async def test_a_reply_kept_whole_already_is_not_kept_again() -> None:
    turn, s = _stopped("You live in Denver.")
    turn.spent["keep_reply"] = 1.0  # stopped while a note after the reply was sent
    assert await stages.keep_shown(turn, s)
    assert s.log.kept == []
