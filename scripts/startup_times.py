"""How long the command line takes to start: median of N runs of each case.

    python scripts/startup_times.py [--runs 5] [--workspace DIR]

Cases: ``familiars --help``, ``familiars bench --help``, and ``familiars chat --user x`` up
to the first ``you>`` prompt (run under a pseudo-terminal so the chat is interactive, then
closed with Ctrl-D). Also the read-only commands that must not load the embedding model,
and ``printf 'hello\n' | familiars chat`` up to its first reply beside ``python -c 'import
torch'`` in the same loop (issue 20: at most 1.5x; the workspace's first start, which
exports the model to ONNX, is the warm-up and not counted).
Figures go to stdout as one line per case; nothing here is asserted (timings are reported,
not tested).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROMPT = b"you> "
#: A piped chat that has not ended this long after its start is killed (its time is kept).
REPLY_TIMEOUT_S = 300.0


def _env(workspace: Path) -> dict[str, str]:
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(workspace), "HF_HUB_OFFLINE": "1"}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    return env


def time_command(args: list[str], workspace: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "familiars", *args],
        env=_env(workspace),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def time_to_prompt(workspace: Path, timeout: float = 120.0) -> float:
    """Seconds from spawning ``familiars chat`` on a pty to the first ``you>`` it prints."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes the chat
        os.execvpe(
            sys.executable,
            [sys.executable, "-m", "familiars", "chat", "--user", "x"],
            _env(workspace),
        )
    seen = b""
    elapsed = timeout
    while time.perf_counter() - start < timeout:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
        if PROMPT in seen:
            elapsed = time.perf_counter() - start
            break
    os.write(fd, b"\x04")  # Ctrl-D: leave
    _drain(fd)
    _end(pid, fd)
    return elapsed


def _end(pid: int, fd: int) -> None:
    """Reap the chat; a Ctrl-D that reached the terminal before readline read it is lost, so
    it is sent again, and a chat that still lives after that is stopped (never waited on for
    ever: an earlier run of this script hung here for 26 minutes)."""
    for _ in range(20):
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        with contextlib.suppress(OSError):
            os.write(fd, b"\x04")
        time.sleep(0.5)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)


def time_to_first_reply(workspace: Path) -> float:
    """Seconds from spawning a piped ``familiars chat`` to the first line of its reply."""
    env = {**_env(workspace), "PYTHONUNBUFFERED": "1"}
    start = time.perf_counter()
    chat = subprocess.Popen(
        [sys.executable, "-m", "familiars", "chat", "--user", "x"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert chat.stdin is not None and chat.stdout is not None
    chat.stdin.write(b"hello\n")
    chat.stdin.close()
    elapsed = None
    stopper = threading.Timer(REPLY_TIMEOUT_S, chat.kill)  # never wait on a stuck chat
    stopper.start()
    for line in chat.stdout:
        if elapsed is None and line.strip():
            elapsed = time.perf_counter() - start
    chat.wait()
    stopper.cancel()
    return elapsed if elapsed is not None else float("nan")


def time_import_torch() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - start


def _drain(fd: int) -> None:
    while True:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            return
        try:
            if not os.read(fd, 4096):
                return
        except OSError:
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workspace", type=Path, default=None)
    args = parser.parse_args()
    workspace = args.workspace or Path(tempfile.mkdtemp(prefix="familiars-startup-"))
    cases: dict[str, list[float]] = {}
    time_to_prompt(workspace)  # warm the workspace (first start creates it)
    time_to_first_reply(workspace)  # and exports the model to ONNX
    for _ in range(args.runs):
        cases.setdefault("chat (first reply)", []).append(time_to_first_reply(workspace))
        cases.setdefault("import torch", []).append(time_import_torch())
        cases.setdefault("--help", []).append(time_command(["--help"], workspace))
        cases.setdefault("bench --help", []).append(time_command(["bench", "--help"], workspace))
        cases.setdefault("chat (first prompt)", []).append(time_to_prompt(workspace))
        for cmd in (["files", "list"], ["memory", "list"], ["memory", "reindex"], ["status"]):
            cases.setdefault(" ".join(cmd), []).append(time_command(cmd, workspace))
    for name, times in cases.items():
        runs = " ".join(f"{t:.2f}" for t in times)
        print(f"{name:24} median {statistics.median(times):6.2f} s   ({runs})")
    ratio = statistics.median(cases["chat (first reply)"]) / statistics.median(
        cases["import torch"]
    )
    print(f"first reply / import torch: {ratio:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
