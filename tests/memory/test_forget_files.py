"""The files beside the memory lose the forgotten words (issue 19): a pending queued turn of
a forgotten turn is removed (its writes would bring the fact back), another one keeps its
turn but loses the ``recent`` line that quoted it, ``failed/`` copies and their reasons go,
``pending_reply.json`` goes, state JSON strings and log lines are replaced in place."""

from __future__ import annotations

import json
from pathlib import Path

from familiars.memory._forget_files import FORGOTTEN, forgotten_of, scrub_files

TEXT = "I live in Kalamazoo."


def _turn(turn_id: int, user_text: str, recent: list[str]) -> str:
    return json.dumps(
        {
            "agent_id": "agent_0",
            "dialogue_id": "dialogue_0",
            "user_key": "al",
            "user_text": user_text,
            "reply_text": "ok",
            "recent": recent,
            "turn_id": turn_id,
        }
    )


def test_scrub_files_reaches_the_queue_pending_replies_state_and_logs(tmp_path: Path) -> None:
    queue = tmp_path / "state" / "writer_queue"
    (queue / "failed").mkdir(parents=True)
    (queue / "t_1.json").write_text(_turn(3, "hello there", []))  # the forgotten turn
    (queue / "t_2.json").write_text(_turn(5, "and my cat?", [f"Al: {TEXT}", "Al: hi"]))
    (queue / "failed" / "t_0.json").write_text(_turn(1, TEXT, []))
    (queue / "failed" / "t_0.reason.txt").write_text("model answer set aside\n")
    (queue / "failed" / "t_9.json").write_text(_turn(9, "unrelated", []))
    dialogue = tmp_path / "agents" / "agent_0" / "dialogue_0"
    dialogue.mkdir(parents=True)
    (dialogue / "pending_reply.json").write_text(
        json.dumps({"parent": 7, "text": "You live in Kalamazoo."})
    )
    (tmp_path / "state" / "writer_status.json").write_text(
        json.dumps({"last_error": f"turn said {TEXT}", "added": 3})
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "familiars.log").write_text(f"INFO start\nINFO got {TEXT}\nINFO end\n")

    scrub_files(tmp_path, forgotten_of([("agent_0", "dialogue_0", 3)], [TEXT]))

    assert not (queue / "t_1.json").exists()
    assert json.loads((queue / "t_2.json").read_text())["recent"] == ["Al: hi"]
    assert not (queue / "failed" / "t_0.json").exists()
    assert not (queue / "failed" / "t_0.reason.txt").exists()
    assert (queue / "failed" / "t_9.json").exists()
    assert not (dialogue / "pending_reply.json").exists()
    status = json.loads((tmp_path / "state" / "writer_status.json").read_text())
    assert status == {"last_error": FORGOTTEN, "added": 3}
    assert (logs / "familiars.log").read_text() == f"INFO start\n{FORGOTTEN}\nINFO end\n"
    held = [p for p in tmp_path.rglob("*") if p.is_file() and b"Kalamazoo" in p.read_bytes()]
    assert held == []


def test_the_reminder_ledger_keeps_when_but_not_what(tmp_path: Path) -> None:
    """The scheduler's ledger keeps each reminder's task under its record id: a forget of
    that record leaves the entry (so it is never sent again) without its words, whatever the
    wording; a task that quotes a forgotten text goes too."""
    ledger = tmp_path / "scheduler" / "state.json"
    ledger.parent.mkdir()
    ledger.write_text(
        json.dumps(
            {
                "version": 1,
                "loops": {
                    "m_1": {"status": "sent", "task": "call the locksmith about the safe"},
                    "m_2": {"status": "sent", "task": f"ask about {TEXT}"},
                    "m_3": {"status": "cancelled", "task": "water the plants"},
                },
                "dialogues": {},
            }
        )
    )
    touched = scrub_files(tmp_path, forgotten_of((), [TEXT], ["m_1"]))
    assert touched == [ledger]
    loops = json.loads(ledger.read_text())["loops"]
    assert loops["m_1"] == {"status": "sent", "task": FORGOTTEN}
    assert loops["m_2"] == {"status": "sent", "task": FORGOTTEN}
    assert loops["m_3"]["task"] == "water the plants"
    assert "locksmith" not in ledger.read_text() and "Kalamazoo" not in ledger.read_text()
