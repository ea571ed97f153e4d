"""``scripts/fault_sim.py`` in a small size: 3 real ``familiars run`` workers on one
PostgreSQL behind the fake Telegram in webhook mode, people telling facts (some as double
texts that reach two workers at once) and asking for reminders, one worker SIGKILLed mid-run
and restarted. The full size of issue 21 is
``scripts/fault_sim.py --people 50 --messages 20 --reminders 30 --kills 2``.

Checked: every message (and each person's ``/proactive off``) answered by the end (late
answers count: how long a turn takes on a loaded machine is not asserted), no fact told
missing from the database (acknowledged or not), every reminder asked for sent (one whose
worker died between claim and send is sent by another; its confirmation late or not), and,
measured inside through each worker's dialogue locks, no moment when one dialogue was
served by two workers. Printed (``-s``), not asserted: answers or reminders given twice,
which a worker killed while its reply streamed, or between the platform taking a message
and the one statement that writes it, may still cause (the windows the README names).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fault_sim.py"


def test_workers_on_one_database_lose_nothing_when_one_is_killed(
    pg_server: str, tmp_path: Path
) -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--database", pg_server, "--json", "--keep",
         str(tmp_path / "sim"), "--people", "4", "--messages", "5", "--reminders", "2",
         "--kills", "1", "--commands"],
        capture_output=True, text=True, timeout=850, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    print("\nfault simulation:", result)
    assert result["kills"] == 1
    assert result["messages"] == 4 * 5
    assert result["by_end_never_answered"] == 0, result
    assert result["acknowledged_writes"] > 0
    assert result["acknowledged_writes_lost"] == 0, result
    assert result["facts_never_written"] == 0, result  # told, answered or not
    assert result["reminders_confirmed"] > 0
    assert result["reminders_never_sent"] == 0, result
    assert result["reminders_asked"] == 2 and result["reminders_asked_never_sent"] == 0, result
    assert result["dialogue_holds"] > 0
    assert result["one_dialogue_served_by_two_workers"] == 0, result
