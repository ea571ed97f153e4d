"""Kill loop over a running chat and CLI writes at once (issue 13): SIGKILL the chat at a
random moment while ``memory add``/``forget`` run from other processes, many times, then
count the acknowledged writes that were lost and the forgets that were undone.

    python scripts/kill_loop_owner.py WORKSPACE [--kills 50] [--seed 1]
    python scripts/kill_loop_owner.py WORKSPACE --check     # figures from the saved ledger

The ledger (``WORKSPACE.ledger.json``) is saved after every kill, so a long run can be read
part way through (``--check`` drains the writer queue with one clean chat first).

Acknowledged: a chat line whose reply was read, an add/forget that exited 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from familiars.memory._entries import read_file


def _env(ws: Path) -> dict[str, str]:
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(ws), "HF_HUB_OFFLINE": "1"}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    return env


def _cli(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "familiars", "memory", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(ws), check=False)


def _cli_writes(ws: Path, tag: str, acked: dict[str, str], forgot: list[str]) -> None:
    for j in range(2):
        content = f"Kay's locker {tag}-{j} is blue."
        done = _cli(ws, "add", content, "-s", "user", "-C", "knowledge", "-u", "kay")
        if done.returncode == 0:
            acked[done.stdout.strip()] = content
    live = [i for i in acked if i not in forgot]
    if len(live) > 2:
        victim = random.choice(live[:-2])
        if _cli(ws, "forget", victim).returncode == 0:
            forgot.append(victim)


def _chat(ws: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "familiars", "chat", "--user", "kay"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(ws),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workspace", type=Path)
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        ledger = json.loads(_ledger(args.workspace).read_text())
        _report(args.workspace, ledger["acked"], ledger["forgot"], ledger["said"], ledger["kills"])
        return
    random.seed(args.seed)
    ws: Path = args.workspace
    acked: dict[str, str] = {}
    forgot: list[str] = []
    said: list[str] = []
    kills = 0
    for i in range(args.kills):
        proc = _chat(ws)
        assert proc.stdin is not None and proc.stdout is not None
        line = f"I have a pet called Pet{i}x."
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        if proc.stdout.readline().strip():
            said.append(f"Pet{i}x")
        writes = threading.Thread(target=_cli_writes, args=(ws, str(i), acked, forgot))
        writes.start()
        time.sleep(random.uniform(0.0, 4.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        writes.join()
        data = {"acked": acked, "forgot": forgot, "said": said, "kills": kills}
        _ledger(ws).write_text(json.dumps(data))
        print(f"kill {kills}: {len(acked)} adds, {len(forgot)} forgets", file=sys.stderr)
    _report(ws, acked, forgot, said, kills)


def _ledger(ws: Path) -> Path:
    return ws.with_name(ws.name + ".ledger.json")


def _report(
    ws: Path, acked: dict[str, str], forgot: list[str], said: list[str], kills: int
) -> None:
    final = _chat(ws)  # one clean run drains the writer queue the kills left
    final.communicate("goodbye\n", timeout=600)
    contents = [r.content for md in ws.glob("users/kay/*.md") for r in read_file(md).records]
    text = "\n".join(contents)
    lost = [i for i in acked if i not in forgot and acked[i] not in contents]
    undone = [i for i in forgot if acked[i] in contents]
    pets_lost = [p for p in said if p not in text]
    print(
        json.dumps(
            {
                "kills": kills,
                "cli_adds_acknowledged": len(acked),
                "cli_adds_lost": len(lost),
                "forgets_acknowledged": len(forgot),
                "forgets_undone": len(undone),
                "chat_facts_acknowledged": len(said),
                "chat_facts_lost": len(pets_lost),
                "lost_examples": pets_lost[:5],
            }
        )
    )


if __name__ == "__main__":
    main()
