"""The offline answerer's reply to one message, with no memories and no actions: the
manners tests' one way of asking it (they were two copies)."""

from __future__ import annotations

from datetime import UTC, datetime

from familiars.bot._answers import offline_reply
from familiars.bot._turn_actions import TurnActions

NOW = datetime(2026, 12, 7, 12, 30, tzinfo=UTC)


def offline_said(text: str, **kw: object) -> str:
    return offline_reply(
        text,
        actions=TurnActions(),
        items=[],
        is_group=False,
        now=NOW,
        **kw,  # type: ignore[arg-type]
    )
