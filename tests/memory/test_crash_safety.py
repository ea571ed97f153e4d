"""A writer killed with SIGKILL at random moments leaves every file parseable and every
acknowledged write on disk."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from familiars.memory._entries import read_file
from familiars.memory._history import read_events

CHILD = r"""
import asyncio, sys
from pathlib import Path
from familiars.memory import MemoryStore, make_record

async def main(ws, seed):
    async with MemoryStore(Path(ws)) as store:
        i = 0
        while True:
            users = ["alice", "bob"]
            batch = [
                make_record(f"fact {seed}-{i}-{j} " + "x" * (j * 37 % 300), scope="user",
                            category=("preference", "knowledge")[j % 2], user_key=users[j % 2])
                for j in range(5)
            ]
            stored = await store.append_many(batch)
            if i % 3 == 2:
                await store.update(stored[0].id, f"changed {seed}-{i}")
            if i % 4 == 3:
                await store.forget(stored[1].id)
            for r in stored:
                sys.stdout.write(r.id + "\n")
            sys.stdout.flush()
            i += 1

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


@pytest.mark.slow
def test_sigkill_at_random_points_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(1234)
    ws = tmp_path / "ws"
    acked: set[str] = set()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for round_no in range(25):
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(ws), str(round_no)],
            stdout=subprocess.PIPE,
            env=env,
        )
        assert proc.stdout is not None
        # Wait until the child is writing (however slow the machine is to start Python),
        # then kill it at a random moment of its write loop.
        first = proc.stdout.readline().decode().strip()
        time.sleep(rng.random() * 0.4)
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        lines = [first, *out.decode().split("\n")[:-1]]
        acked.update(line for line in lines if line.startswith("m_"))
        on_disk: set[str] = set()
        for md in ws.rglob("*.md"):
            parsed = read_file(md)
            assert parsed.errors == [], f"round {round_no}: {parsed.errors}"
            on_disk.update(r.id for r in parsed.records)
            read_events(md)  # a torn last history line is skipped, never fatal
        forgotten = set()
        for md in ws.rglob("*.md"):
            forgotten.update(e["id"] for e in read_events(md).events if e.get("forgotten"))
        missing = acked - on_disk - forgotten
        assert not missing, f"round {round_no}: acknowledged but lost: {sorted(missing)[:3]}"
    assert len(acked) > 50
