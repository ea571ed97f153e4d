"""A turn's home and zone are kept only once its records are read (lead s39): the message's
held writer work asks for the zone beside the read stage, and when it asked first the turn
kept "no home" for good, so "I live in Melbourne" then "remind me every Monday at 8am" was
set in UTC now and then (a CI run failed on it twice)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from familiars.bot._home_zone import turn_homes, turn_zone
from familiars.bot._state import DialogueInfo
from familiars.bot._turn import Turn
from familiars.config import AgentSettings
from familiars.memory import make_record
from tests.harness import message

NOW = datetime(2037, 12, 6, 20, 0, tzinfo=UTC)


def _turn() -> Turn:
    info = DialogueInfo("agent_0", "dialogue_0", "console", "c1", None, False, "alice")
    said = message("remind me every Monday at 8am to water the plants", at=NOW)
    return Turn(said, said.text, AgentSettings(), "alice", info, NOW, time.perf_counter())


def test_a_zone_asked_before_the_read_is_not_kept() -> None:
    turn = _turn()
    early = turn_zone(turn, None, "UTC")  # the held writer work, before the read
    assert early.name == "UTC" and turn.zone is None and turn.homes is None
    home = make_record("The user lives in Melbourne.", scope="user", category="profile",
                       user_key="alice", tags=["home"])  # fmt: skip
    turn.records, turn.records_read = [home], True
    assert turn_homes(turn) == ["The user lives in Melbourne."]
    assert turn_zone(turn, None, "UTC").name == "Australia/Melbourne"
    assert turn.zone is not None  # kept now: every later stage reads this one
