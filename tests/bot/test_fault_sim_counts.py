"""How ``scripts/fault_sim.py`` counts, on chats written by hand (no workers): a fact is
acknowledged when a message of the bot, as it reads at the end, says it noted it (a streamed
reply's first part may not name it yet when the person stops waiting), and a reminder is
counted for everyone who asked for one, its confirmation late or not."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fault_sim.py"


def _sim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fault_sim_counts", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class _Chats:
    def __init__(self, texts: dict[int, list[str]]) -> None:
        self.texts = texts

    def chat_texts(self, chat_id: int) -> list[str]:
        return self.texts.get(chat_id, [])


def test_a_fact_is_acknowledged_by_the_noted_line_at_the_end_and_by_its_own_name() -> None:
    sim = _sim()
    person = sim.Person(3, messages=13, reminder_at=0)
    person.sent = [(i, 1) for i in range(13)]
    chats = _Chats({person.user_id: [
        "Okay, I'll remind you to water fern3x on Mon 7 Dec 02:26.",
        "Noted: you like hobby3x2.\n(Offline mode: ...)",
        "Noted: you like hobby3x12.",  # not hobby3x1
        "I see. Tell me more?",
        "hobby3x5 Noted",  # no "Noted:" before the fact on its line
    ]})  # fmt: skip
    assert sim.noted(chats, person) == ["hobby3x2", "hobby3x12"]


def test_reminders_are_counted_for_everyone_who_asked_confirmed_or_not() -> None:
    sim = _sim()
    asked = sim.Person(1, messages=5, reminder_at=2)
    asked.sent = [(i, 1) for i in range(5)]  # asked; its confirmation never seen in time
    not_yet = sim.Person(2, messages=5, reminder_at=4)
    not_yet.sent = [(i, 1) for i in range(3)]  # stopped before asking
    chats = _Chats({
        asked.user_id: ["⏰ Reminder: water fern1x", "⏰ Reminder: water fern1x"],
        not_yet.user_id: ["⏰ Reminder: water fern2x"],
    })  # fmt: skip
    assert asked.reminder is None and sim.asked_reminder(asked)
    assert sim.reminded(chats, asked) == 2
    assert not sim.asked_reminder(not_yet) and sim.reminded(chats, not_yet) == 0
