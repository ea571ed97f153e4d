"""The runtime's lifecycle: a start that fails part way leaves nothing running, and the full
application builds from the example config and answers a console turn."""

from __future__ import annotations

import asyncio
import io
import socket
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from familiars.bot import Application
from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    IncomingMessage,
    PlatformAdapter,
)
from familiars.config import Settings, load_settings
from tests.fakes import HashEmbedder

EXAMPLE_CONFIG = Path(__file__).resolve().parents[2] / "config" / "familiars.example.toml"


class AdapterStartError(RuntimeError):
    pass


class NoTurns:
    """A turn handler for adapters that never receive a message."""

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        return
        yield ""

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        return CommandResponse("")

    def command_specs(self) -> list[CommandSpec]:
        return []

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        return []


class RecordingAdapter(PlatformAdapter):
    """Starts fine; says when it was stopped."""

    def __init__(self, name: str) -> None:
        super().__init__(NoTurns())
        self.name = name
        self.events: list[str] = []

    async def start(self) -> None:
        self.events.append("start")

    async def stop(self) -> None:
        self.events.append("stop")

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        return "1"


class FailingAdapter(RecordingAdapter):
    """Its start fails after the rest of the runtime (API included) is up: it notes the API's
    address first, so the test can see the server was listening and is gone."""

    def __init__(self, app: list[Application]) -> None:
        super().__init__("failing")
        self.app = app
        self.api_address: tuple[str, int] | None = None

    async def start(self) -> None:
        self.events.append("start")
        api = self.app[0].api
        assert api is not None
        self.api_address = (api.host, api.bound_port)
        assert _listening(self.api_address)
        raise AdapterStartError("the platform refused the token")


def _listening(address: tuple[str, int]) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return sock.connect_ex(address) == 0


def _failing_start_settings(workspace: Path, watched: Path) -> Settings:
    return load_settings(
        workspace=workspace,
        api={"enabled": True, "host": "127.0.0.1", "port": 0},
        memory={"watch": True},
        files={"watch_dirs": [str(watched)]},
    )


def test_an_adapter_whose_start_fails_leaves_no_task_thread_or_server_running(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", "s3cret-token")
    watched = tmp_path / "watched"
    watched.mkdir()
    settings = _failing_start_settings(workspace, watched)
    threads_before = set(threading.enumerate())
    holder: list[Application] = []
    first, failing = RecordingAdapter("first"), FailingAdapter(holder)

    async def scenario() -> None:
        app = Application(
            settings,
            embedder=HashEmbedder(),
            model=None,
            platforms=False,
            adapters=[first, failing],
        )
        holder.append(app)
        with pytest.raises(AdapterStartError, match="refused the token"):
            async with app:
                pytest.fail("the body must not run when the start failed")
        assert not app.running and not app.initialized
        assert len(app.running_adapters) == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(scenario())

    assert first.events == ["start", "stop"]
    assert failing.events == ["start", "stop"]  # stopped for what it had begun
    assert failing.api_address is not None and not _listening(failing.api_address)
    assert set(threading.enumerate()) - threads_before == set()


async def test_the_example_config_builds_a_full_application_that_answers_the_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN", "FAMILIARS_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("My name is Alice.\nWhat is my name?\n"))
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    settings = load_settings(EXAMPLE_CONFIG, workspace=tmp_path / "ws")
    app = Application(settings, embedder=HashEmbedder(), console_user="alice")
    async with app:
        assert app.running
        assert [a.name for a in app.adapters] == ["console"]
        assert app.scheduler is not None  # the example enables it
        console = app.adapters[0]
        await console.finished.wait()  # type: ignore[attr-defined]
    assert not app.running
    first, second = [block for block in out.getvalue().split("\n\n") if block.strip()][:2]
    assert "Alice" in second, out.getvalue()


class _Stuck(NoTurns):
    """A console turn whose reply never comes: the stop's grace waits for it."""

    def __init__(self) -> None:
        self.began = asyncio.Event()

    async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        self.began.set()
        await asyncio.Event().wait()
        yield ""


async def test_a_second_ctrl_c_during_the_stop_still_drains_the_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second Ctrl-C during the stop's 20 s grace raised KeyboardInterrupt: the stop, and
    with it the memory writer's drain, was skipped without a word. Now it hurries the stop:
    the reply is not waited for, the writer's drain still runs, and the person is told."""
    import os
    import signal

    from familiars.bot import ConsoleAdapter
    from tests.harness import opened_app

    stuck = _Stuck()
    console = ConsoleAdapter(
        stuck, user="ann", stdin=_Waiting("I am typing.\n"), stdout=io.StringIO(), interactive=False
    )
    settings = load_settings(workspace=tmp_path / "ws")
    drained: list[bool] = []
    async with opened_app(settings, model=None, console=console) as app:
        stop_writer = app.writer_queue.stop

        async def stop_and_note() -> None:
            await stop_writer()
            drained.append(True)

        app.writer_queue.stop = stop_and_note  # type: ignore[method-assign]
        await app.start()
        running = asyncio.ensure_future(app.run_until_stopped())
        await asyncio.wait_for(stuck.began.wait(), 10)
        os.kill(os.getpid(), signal.SIGINT)  # the stop: waits for the reply (the grace)
        await asyncio.sleep(0.3)
        assert not running.done()
        os.kill(os.getpid(), signal.SIGINT)  # again: hurry
        await asyncio.wait_for(running, 15)
    assert drained == [True]
    assert "Stopping without waiting for the reply" in capsys.readouterr().err


class _Waiting(io.StringIO):
    """A keyboard: one typed line, then it waits (never an end of input)."""

    def readline(self, *args: object) -> str:  # type: ignore[override]
        line = super().readline()
        if not line:
            threading.Event().wait(10)
        return line
