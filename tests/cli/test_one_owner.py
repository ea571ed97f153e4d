"""Two processes on one workspace: a running chat owns it, a second chat is refused naming
it, and ``memory add/forget`` from another shell go through the running one (nothing
acknowledged lost, no forget undone)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from familiars.memory import read_memory_file as read_file
from familiars.memory import read_owner


def _env(workspace: Path) -> dict[str, str]:
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(workspace), "HF_HUB_OFFLINE": "1"}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    return env


def _cli(args: list[str], workspace: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "familiars", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(workspace),
        timeout=300,
        check=False,
    )


def _contents(workspace: Path, user: str) -> list[str]:
    return [r.content for md in workspace.glob(f"users/{user}/*.md") for r in read_file(md).records]


@pytest.fixture
def running_chat(tmp_path: Path):  # type: ignore[no-untyped-def]
    ws = tmp_path / "ws"
    proc = subprocess.Popen(
        [sys.executable, "-m", "familiars", "chat", "--user", "ann"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(ws),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("My name is Ann and I work at Initech.\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip()  # answered: the chat is up and owns the workspace
    yield ws, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_the_running_chat_owns_the_workspace_and_a_second_is_refused(running_chat) -> None:  # type: ignore[no-untyped-def]
    ws, proc = running_chat
    owner = read_owner(ws)
    assert owner is not None and owner.pid == proc.pid
    assert "chat --user ann" in owner.command
    assert owner.control is not None
    assert (os.stat(owner.control).st_mode & 0o777) == 0o600

    second = _cli(["chat", "--user", "ann"], ws, "I live in Oslo.\n")
    assert second.returncode != 0
    assert f"pid {proc.pid}" in second.stderr and "chat --user ann" in second.stderr
    assert "Traceback" not in second.stderr
    assert "Oslo" not in json.dumps(_contents(ws, "ann"))


@pytest.mark.slow
def test_cli_writes_go_through_the_running_chat(running_chat) -> None:  # type: ignore[no-untyped-def]
    ws, proc = running_chat
    kept_ids, gone_ids = [], []
    for n in range(4):
        added = _cli(
            [
                "memory",
                "add",
                f"Ann's locker is number {n}.",
                "-s",
                "user",
                "-C",
                "knowledge",
                "-u",
                "ann",
            ],
            ws,
        )
        assert added.returncode == 0, added.stderr
        (gone_ids if n % 2 else kept_ids).append(added.stdout.strip())
    for record_id in gone_ids:
        done = _cli(["memory", "forget", record_id], ws)
        assert done.returncode == 0, done.stderr
    pinned = _cli(["memory", "pin", kept_ids[0]], ws)
    assert pinned.returncode == 0, pinned.stderr
    listed = _cli(["memory", "list", "-u", "ann", "--json"], ws)  # a read: no lock needed
    assert listed.returncode == 0, listed.stderr
    listed_ids = {json.loads(line)["id"] for line in listed.stdout.splitlines()}
    assert set(kept_ids) <= listed_ids and not set(gone_ids) & listed_ids

    assert proc.stdin is not None
    out, err = proc.communicate("I also love sailing.\n", timeout=120)
    assert proc.returncode == 0, err

    contents = _contents(ws, "ann")
    assert "Ann's locker is number 0." in contents and "Ann's locker is number 2." in contents
    assert "Ann's locker is number 1." not in contents
    assert "Ann's locker is number 3." not in contents
    assert any("Initech" in c for c in contents) and any("sailing" in c for c in contents)
    history = "".join(p.read_text() for p in ws.glob("users/ann/*.history.jsonl"))
    assert "number 1" not in history and "number 3" not in history
    assert read_owner(ws) is None

    after = _cli(
        ["memory", "add", "Ann drinks tea.", "-s", "user", "-C", "knowledge", "-u", "ann"], ws
    )
    assert after.returncode == 0, after.stderr  # nothing runs now: it writes directly
    assert "Ann drinks tea." in _contents(ws, "ann")


_HOLD = """
import sys, time
from pathlib import Path
from familiars.memory import WorkspaceLock
with WorkspaceLock(Path(sys.argv[1]), "familiars run (the first)"):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.mark.slow
@pytest.mark.parametrize("command", [["run"], ["chat"]])
def test_a_second_run_on_an_owned_workspace_is_refused_before_anything_else(
    command: list[str], tmp_path: Path
) -> None:
    """A tester's second ``familiars run`` first said "No platform token... chatting here in
    the terminal" and only then refused on the lock: the refusal comes first, alone."""
    ws = tmp_path / "ws"
    ws.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(ws)], stdout=subprocess.PIPE, text=True, env=_env(ws)
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        second = _cli(command, ws, "I live in Oslo.\n")
    finally:
        holder.kill()
        holder.wait()
    assert second.returncode != 0
    assert "already in use" in second.stderr and f"pid {holder.pid}" in second.stderr
    assert "No platform token" not in second.stderr and "Traceback" not in second.stderr
    assert "Oslo" not in second.stdout


_HOLD_STARTING = """
import sys, time
from pathlib import Path
from familiars.memory import WorkspaceLock
with WorkspaceLock(Path(sys.argv[1]), "familiars chat --user ben", serving=True):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("command", ["run", "chat"])
def test_the_chat_holds_the_workspace_before_its_slow_start(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """T16: two chats started at once on a fresh workspace both passed a look at the lock;
    the loser was told after the model's load (~77 s). The lock is taken before any of it."""
    from typer.testing import CliRunner

    from familiars.cli import _runtime, app
    from familiars.memory import is_owner

    ws = tmp_path / "ws"
    held: list[bool] = []
    monkeypatch.setattr(_runtime, "_run_chat", lambda settings, user: held.append(is_owner(ws)))
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(app, ["--workspace", str(ws), command], input="hi\n")
    assert result.exit_code == 0, result.output
    assert held == [True]
    assert not is_owner(ws)  # let go at the end


@pytest.mark.slow
def test_a_chat_still_starting_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second chat while the first is still starting (its lock taken, no control socket
    yet) is refused at once in one line, before any start work, writing nothing."""
    from typer.testing import CliRunner

    from familiars.cli import _runtime, app

    ws = tmp_path / "ws"
    ws.mkdir()
    started: list[str] = []
    monkeypatch.setattr(_runtime, "_run_chat", lambda settings, user: started.append(user))
    monkeypatch.setattr(_runtime, "OWNER_WAIT_S", 3600.0)  # a wait would show as a hang
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_STARTING, str(ws)],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(ws),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = sorted(ws.rglob("*"))
        result = CliRunner().invoke(app, ["--workspace", str(ws), "chat", "--user", "ann"])
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 1, result.output
    assert f"pid {holder.pid}" in result.output and "chat --user ben" in result.output
    assert "Traceback" not in result.output and started == []
    assert sorted(ws.rglob("*")) == before


def test_a_memory_write_while_a_chat_is_starting_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review s33 #7: a chat holds the workspace through its model load; a memory write
    then was told "already in use ... stop it first", as if the chat were in its way for
    good. It is only starting: the person is told to try again in a moment."""
    from typer.testing import CliRunner

    from familiars.cli import _memory_route, app

    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setattr(_memory_route, "LOCK_WAIT_S", 0.2)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_STARTING, str(ws)],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(ws),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        args = ["--workspace", str(ws), "memory", "add", "-s", "user", "-u", "zoe"]
        result = CliRunner().invoke(app, [*args, "-C", "preference", "The user likes tea."])
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 1, result.output
    assert f"pid {holder.pid}" in result.output, result.output
    assert "starting" in result.output and "try again in a moment" in result.output
    assert "stop it first" not in result.output and "Traceback" not in result.output
