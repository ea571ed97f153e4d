"""The README's promise, through the real command and the bundled model: piped lines are
messages, and the second line is answered from what the first taught."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run(args: list[str], stdin: str, workspace: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(workspace), "HF_HUB_OFFLINE": "1"}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "familiars", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_chat_answers_the_second_line_from_the_first(tmp_path: Path) -> None:
    done = _run(
        ["chat", "--user", "alice"],
        "My name is Alice and I love hiking.\nWhat is my name?\n",
        tmp_path / "ws",
    )
    assert done.returncode == 0, done.stderr
    first, second = [block for block in done.stdout.split("\n\n") if block.strip()][:2]
    assert "Offline mode" in first and "Offline mode" not in second  # once per conversation
    assert second.strip() == "Your name is Alice."


@pytest.mark.slow
def test_run_without_a_token_chats_in_the_terminal(tmp_path: Path) -> None:
    done = _run(["run"], "hello there\n/memory list\n", tmp_path / "ws")
    assert done.returncode == 0, done.stderr
    assert "No platform token is configured" in done.stderr
    assert "DISCORD_BOT_TOKEN" in done.stderr
    assert "Offline mode" in done.stdout


def test_chat_refuses_a_bad_user_key(tmp_path: Path) -> None:
    done = _run(["chat", "--user", "../etc"], "hi\n", tmp_path / "ws")
    assert done.returncode != 0
    assert "invalid user_key" in done.stderr
    assert not (tmp_path / "ws").exists() or not any((tmp_path / "ws").rglob("*.md"))


def test_a_slow_stop_writes_every_threads_stack_to_the_log(tmp_path: Path) -> None:
    """What the chat's stop arms: a stop still running after SLOW_STOP_S leaves the stacks."""
    log = tmp_path / "familiars.log"
    code = (
        "import pathlib, time\n"
        "from familiars.cli import _runtime\n"
        "_runtime.SLOW_STOP_S = 0.2\n"
        f"log = pathlib.Path({str(log)!r})\n"
        "_runtime._stacks_if_slow(log)\n"
        "end = time.monotonic() + 60\n"
        "while 'most recent call first' not in log.read_text() and time.monotonic() < end:\n"
        "    time.sleep(0.05)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    text = log.read_text(encoding="utf-8")
    assert "most recent call first" in text and 'File "<string>"' in text


@pytest.mark.slow
def test_sigterm_stops_the_bot_cleanly_with_memories_written(tmp_path: Path) -> None:
    import signal

    from familiars.memory import read_memory_file as read_file

    ws = tmp_path / "ws"
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(ws), "HF_HUB_OFFLINE": "1"}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "familiars", "chat", "--user", "bob"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("My name is Bob and I work at Acme.\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip()  # the reply came
    while proc.stdout.readline().strip():  # ... to its end (a blank line): the turn is done
        pass
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # a stop that hangs: its log holds every thread's stack
        proc.kill()
        proc.communicate()
        log = (ws / "logs" / "familiars.log").read_text(encoding="utf-8", errors="replace")
        pytest.fail(f"the chat did not stop within 120 s; its log ends with:\n{log[-30000:]}")
    assert proc.returncode == 0, err
    contents = [r.content for md in ws.rglob("users/bob/*.md") for r in read_file(md).records]
    assert "The user's name is Bob." in contents
    assert any("Acme" in c for c in contents)


@pytest.mark.slow
def test_two_chats_on_one_database_share_what_they_were_told(pg_url: str, tmp_path: Path) -> None:
    """Issue 21's transcript: told on one worker, known on the other (its very first line:
    a message typed at once is answered only once the recall index is loaded); a memory
    forgotten on the second is gone on the first, with the message it was written from (the
    dialogue is found in the database, not in the second worker's folder)."""
    told = _run(["chat", "--user", "ann"], "I am allergic to walnuts.\n", tmp_path / "a")
    assert told.returncode == 0, told.stderr
    assert "walnuts" in told.stdout
    seen = _run(["chat", "--user", "ann"], "/memory search walnuts\n", tmp_path / "b")
    assert seen.returncode == 0, seen.stderr
    assert "1 found" in seen.stdout and "allergic to walnuts" in seen.stdout, seen.stdout
    record_id = seen.stdout.split("`")[1]
    # The confirm counts only as the answer to the question shown (s39): asked, then said.
    asked = f"/memory forget {record_id}\n/memory forget {record_id} confirm\n"
    gone = _run(["chat", "--user", "ann"], asked, tmp_path / "b")
    assert "Forgotten: you are allergic to walnuts." in gone.stdout, gone.stdout
    assert "no messages" not in gone.stdout, gone.stdout  # the turn it came from, on A
    after = _run(
        ["chat", "--user", "ann"],
        "/memory search walnuts\n/memory list\nWhat am I allergic to?\n",
        tmp_path / "a",
    )
    assert after.returncode == 0, after.stderr
    assert "walnuts" not in after.stdout, after.stdout


@pytest.mark.parametrize("user", ["zoë", "zoe smith", "../evil"])
def test_a_bad_user_is_refused_before_the_start_in_words(tmp_path: Path, user: str) -> None:
    """Tester F14: ``--user zoë`` was refused with the raw pattern after the whole start
    (the model's load, ~40 s). It is refused first, nothing written, in words."""
    from typer.testing import CliRunner

    from familiars.cli import app

    ws = tmp_path / "ws"
    result = CliRunner().invoke(app, ["--workspace", str(ws), "chat", "--user", user], input="hi\n")
    assert result.exit_code == 1, result.output
    assert "letters" in result.output and "digits" in result.output, result.output
    assert "^[" not in result.output and "{0,63}" not in result.output, result.output
    assert not ws.exists() or not any(ws.rglob("*")), sorted(ws.rglob("*"))


def test_memory_add_refuses_a_bad_category_in_words(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from familiars.cli import app

    args = ["--workspace", str(tmp_path / "ws"), "memory", "add", "-s", "user", "-u", "zoe"]
    result = CliRunner().invoke(app, [*args, "--category", "../../x", "The user likes tea."])
    assert result.exit_code == 1, result.output
    assert "('user'" not in result.output and "../../x" in result.output, result.output
    assert "profile" in result.output, result.output  # the valid ones are named
