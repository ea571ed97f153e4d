"""The README's first command from the checkout's own folder: the default workspace is the
relative ``workspace``, and a relative ``--workspace`` or ``FAMILIARS_WORKSPACE`` works the
same (issue 20: the first message used to end the chat with "relative path can't be
expressed as a file URI")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from familiars.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]


def _checkout(tmp_path: Path) -> Path:
    """A copy of the package as a fresh clone lays it out (no config file, empty workspace)."""
    clone = tmp_path / "clone"
    shutil.copytree(
        ROOT / "familiars", clone / "familiars", ignore=shutil.ignore_patterns("__pycache__")
    )
    (clone / "config").mkdir()
    (clone / "workspace").mkdir()
    return clone


def _chat(
    clone: Path, root_args: list[str], env_extra: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(clone), **env_extra}
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        env.pop(name, None)
    if "FAMILIARS_WORKSPACE" not in env_extra:
        env.pop("FAMILIARS_WORKSPACE", None)
    return subprocess.run(
        [sys.executable, "-m", "familiars", *root_args, "chat", "--user", "alice"],
        input="My name is Alice.\nWhat is my name?\n",
        capture_output=True,
        text=True,
        cwd=clone,
        env=env,
        timeout=300,
        check=False,
    )


def test_settings_hold_the_workspace_as_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FAMILIARS_WORKSPACE", raising=False)
    monkeypatch.delenv("FAMILIARS_CONFIG", raising=False)
    assert Settings().workspace == tmp_path / "workspace"
    assert load_settings(workspace=Path("data")).workspace == tmp_path / "data"
    monkeypatch.setenv("FAMILIARS_WORKSPACE", "elsewhere/ws")
    assert load_settings().workspace == tmp_path / "elsewhere" / "ws"
    # Resolved once: a later change of folder does not move the data.
    settings = load_settings()
    os.chdir("/")
    assert settings.workspace == tmp_path / "elsewhere" / "ws"


@pytest.mark.slow
def test_chat_from_a_fresh_checkout_with_the_default_workspace(tmp_path: Path) -> None:
    clone = _checkout(tmp_path)
    done = _chat(clone, [], {})
    assert done.returncode == 0, done.stderr
    assert "error:" not in done.stderr, done.stderr
    assert "Your name is Alice." in done.stdout
    assert (clone / "workspace" / "users" / "alice" / "profile.md").is_file()


@pytest.mark.slow
def test_chat_with_a_relative_workspace_option_and_variable(tmp_path: Path) -> None:
    clone = _checkout(tmp_path)
    by_option = _chat(clone, ["--workspace", "data"], {})
    assert by_option.returncode == 0, by_option.stderr
    assert "Your name is Alice." in by_option.stdout
    assert (clone / "data" / "users" / "alice" / "profile.md").is_file()
    by_env = _chat(clone, [], {"FAMILIARS_WORKSPACE": "ws2"})
    assert by_env.returncode == 0, by_env.stderr
    assert (clone / "ws2" / "users" / "alice" / "profile.md").is_file()


def test_an_error_written_for_the_person_is_one_line_from_any_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The console script is ``familiars.cli:main``: a ``UserFacingError`` that escapes a
    command is its one line and exit 1 (issue 20: the CLI did not catch it)."""
    from familiars import cli
    from familiars.cli import _main
    from familiars.config import UserFacingError

    def boom() -> None:
        raise UserFacingError("the disk said no; free some space and try again")

    monkeypatch.setattr(_main, "app", boom)
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == 1
    err = capsys.readouterr().err
    assert "the disk said no; free some space and try again" in err
    assert "Traceback" not in err
