"""``familiars run`` and ``familiars chat``: the bot itself.

The terminal chat (``chat``, or ``run`` without a platform token) shows its prompt first
and builds the bot behind it: a console reading lines through a ``PendingHandler``, while
the bot is imported (in a thread) and its services built (the workspace opened). The
embedding model starts loading in a thread of its own at once, in parallel with both. A
line typed meanwhile waits, and is told so when the wait is long. Its
log goes to ``workspace/logs/familiars.log`` (``_chat_logs.py``), the warnings that matter
to the person above the prompt. ``run`` with platform tokens logs to stderr, as it always
did. Nothing heavy is imported here at module level: ``familiars --help`` loads this file.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from familiars.cli._chat_logs import LOG_FILE, log_to_workspace
from familiars.config import name_problem
from familiars.terminal import err_console, fail, get_ctx

if TYPE_CHECKING:
    from familiars.bot import Application, ConsoleAdapter
    from familiars.config import Settings

NO_PLATFORM_HINT = (
    "No platform token is configured, so I'm chatting here in the terminal.\n"
    "To put me on Discord, set DISCORD_BOT_TOKEN; on Telegram, set TELEGRAM_BOT_TOKEN "
    "(see README.md). Type /help for commands, Ctrl-D to leave."
)


#: A stop still running after this many seconds writes every thread's stack to the log
#: (again each time as long again passes), so a stop that hangs says where it hangs.
SLOW_STOP_S = 30.0
#: The file those stacks go to, kept open until the process ends.
_stop_log: Any = None


def _stacks_if_slow(where: Path | None) -> None:
    """From now on: if the process is still alive after :data:`SLOW_STOP_S`, every thread's
    stack goes to ``where`` (the workspace's log; None: stderr). The process ending is what
    calls it off. Armed once: a second call (the stop's end after its start) leaves it."""
    global _stop_log
    if _stop_log is not None:
        return
    logging.getLogger(__name__).info("stopping (thread stacks follow if it takes %.0f s)",
                                     SLOW_STOP_S)  # fmt: skip
    try:
        _stop_log = sys.stderr if where is None else open(where, "a", encoding="utf-8")  # noqa: SIM115
        faulthandler.dump_traceback_later(SLOW_STOP_S, repeat=True, file=_stop_log)
    except (OSError, ValueError, AttributeError):  # no file to write to: no stacks
        return
    with contextlib.suppress(RuntimeError):  # on the loop: its tasks' awaits too
        _tasks_later(asyncio.get_running_loop(), _stop_log)


def _tasks_later(loop: asyncio.AbstractEventLoop, out: Any) -> None:
    """Every :data:`SLOW_STOP_S` while the loop runs: each task's await, written to ``out``
    (a stop hung on an await leaves every thread idle: their stacks alone say nothing)."""

    def dump() -> None:
        with contextlib.suppress(Exception):
            print(f"-- asyncio tasks after a slow stop ({len(asyncio.all_tasks(loop))}):",
                  file=out)  # fmt: skip
            for task in asyncio.all_tasks(loop):
                task.print_stack(limit=8, file=out)
            out.flush()
        loop.call_later(SLOW_STOP_S, dump)

    loop.call_later(SLOW_STOP_S, dump)


def _user_errors() -> tuple[type[BaseException], ...]:
    """The errors whose text is the whole message (imported only once one happened)."""
    from familiars.memory import MemoryError_

    return (MemoryError_, ValueError)


def _configure_logging(settings: Settings, quiet: bool) -> None:
    level = logging.WARNING if quiet else getattr(logging, settings.log_level.upper(), logging.INFO)
    root = logging.getLogger()
    root.setLevel(level)
    for handler in root.handlers:
        handler.setLevel(level)


async def _run(settings: Settings) -> None:
    """The bot on its platforms (a token is set)."""
    from familiars.bot import Application

    app = Application(settings, console_user=None, platforms=True)
    await app.initialize()
    try:
        if not app.adapters:
            fail("nothing to run: no platform token and no terminal chat")
        await app.start()
        await app.run_until_stopped(stopping=lambda: _stacks_if_slow(None), at_once=_end_now())
    finally:
        _stacks_if_slow(None)
        await app.shutdown()


def _prepare(settings: Settings, user: str, console: ConsoleAdapter) -> Application:
    """In a thread, behind the prompt: import the bot, check the user key, build the app."""
    from familiars.bot import Application
    from familiars.memory import check_user_key

    check_user_key(user)
    return Application(settings, console=console, platforms=False)


def _load_model_early(settings: Settings) -> None:
    """In a thread from the first moment: the embedding model loads while the bot is
    imported (the services' own load then finds it loaded). A failure is left to that load
    to report."""
    from familiars.memory import embedder_from_settings

    with contextlib.suppress(Exception):
        embedder_from_settings(settings)


def _on_loop(loop: asyncio.AbstractEventLoop, say: Callable[[str], None]) -> Callable[[str], None]:
    """``say`` called on ``loop``'s thread whichever thread logs."""

    def call(text: str) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(say, text)

    return call


async def _chat(settings: Settings, user: str) -> None:
    """The prompt at once; the bot behind it (see the module's docstring)."""
    from familiars.bot import LOADING_NOTICE, ConsoleAdapter, PendingHandler, on_ctrl_c

    interactive = sys.stdin.isatty()
    pending = PendingHandler(notice=LOADING_NOTICE if interactive else None)
    console = ConsoleAdapter(pending, user=user, settle=pending.settle, interactive=interactive)
    loop = asyncio.get_running_loop()
    # While the bot loads, a Ctrl-C is the console's too (the wait for a reply stops; a
    # second one at an empty prompt leaves); the running bot's own handler takes over.
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_ctrl_c(console, _leave_now))
    say = _on_loop(loop, console.notice)
    log_to_workspace(Path(settings.workspace), settings.log_level, say=say)
    early = asyncio.ensure_future(asyncio.to_thread(_load_model_early, settings))
    await console.start()
    try:
        app = await asyncio.to_thread(_prepare, settings, user, console)
    except BaseException as exc:
        pending.failed(exc)
        await console.stop()
        raise
    log = Path(settings.workspace) / LOG_FILE
    try:
        await _serve(app, pending, stopping=lambda: _stacks_if_slow(log), at_once=_end_now(console))
    finally:
        _stacks_if_slow(log)
        await app.shutdown()
        await console.stop()
        await early


def _leave_now() -> None:
    """A Ctrl-C that ends the chat before the bot runs: as Python's own handler does."""
    raise KeyboardInterrupt


#: Said when a Ctrl-C comes once the stop is over or was cut short: the process ends then.
ENDED_NOW = "Stopped now. What was not yet written to memory is kept for the next start."


def _end_now(console: ConsoleAdapter | None = None) -> Callable[[], None]:
    """What a Ctrl-C does once the bot's stop is over or cut short: one line, the terminal
    put back, and the process ends (rc 130, as a Ctrl-C's). Python's KeyboardInterrupt
    there was raised wherever the shutdown was, and at exit printed a traceback and
    "terminate called" from a model's threads (rc 134). Nothing is lost: every write is
    atomic, the queued turns are on disk, a forget under way is finished at the next start."""

    def end() -> None:
        if console is not None:
            console.put_back_terminal()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a write under way holds its lock
                stream.flush()
        with contextlib.suppress(OSError):
            os.write(2, f"\n{ENDED_NOW}\n".encode())
        os._exit(130)

    return end


async def _serve(
    app: Application,
    pending: Any,
    stopping: Callable[[], None],
    at_once: Callable[[], None] | None = None,
) -> None:
    try:
        await app.initialize()
    except BaseException as exc:
        pending.failed(exc)
        raise
    await app.start()
    # Only once started: the recall index is loaded in start (a message typed at once was
    # recalled against an empty index: "/memory search" found nothing on a database home).
    pending.ready(app.dialogues, settle=app.settle)
    await app.run_until_stopped(stopping=stopping, at_once=at_once)


def _run_chat(settings: Settings, user: str) -> None:
    try:
        asyncio.run(_chat(settings, user))
    except KeyboardInterrupt:
        pass
    except _user_errors() as exc:
        # One line for the person, the same in the workspace's log (the traceback at DEBUG).
        log = logging.getLogger(__name__)
        log.error("the chat stopped: %s", exc)
        log.debug("the chat stopped", exc_info=True)
        fail(str(exc))
    except OSError as exc:
        _fail_if_disk_full(exc)
        raise


def _fail_if_disk_full(exc: OSError) -> None:
    """A full disk ends the process with one line (what was acknowledged is on disk)."""
    from familiars.memory import is_disk_full

    if is_disk_full(exc):
        fail(f"stopped: the disk is full ({exc.strerror or exc}); free some space and start again")


#: How long a start waits for a short-lived holder (a CLI command writing) to let go; a
#: ``run`` or ``chat`` holding the workspace is refused at once.
OWNER_WAIT_S = 15.0


def _take_workspace(settings: Settings) -> Any:
    """The workspace's lock, taken first, before anything slow: a workspace another
    ``run``/``chat`` owns is refused at once in one line naming it (two chats started
    together on a fresh workspace both passed a mere look at the lock, and the loser was
    told after the model's load, ~77 s, then left thread stacks in the winner's log). The
    application built later serves under this same lock; the process's end lets it go."""
    import shlex

    from familiars.memory import MemoryError_, WorkspaceLock

    lock = WorkspaceLock(
        Path(settings.workspace), shlex.join(["familiars", *sys.argv[1:]]), serving=True
    )
    try:
        lock.acquire(wait_s=OWNER_WAIT_S)
    except MemoryError_ as exc:  # busy, or a workspace that cannot be written
        fail(str(exc))
    return lock


def _run_platforms(settings: Settings) -> None:
    try:
        asyncio.run(_run(settings))
    except KeyboardInterrupt:
        pass
    except _user_errors() as exc:
        fail(str(exc))
    except OSError as exc:
        _fail_if_disk_full(exc)
        raise


def _with_agent(settings: Settings, agent: str | None) -> Settings:
    """``settings`` with ``agent`` first (the terminal chat talks to the first one)."""
    if agent is None:
        return settings
    try:
        chosen = settings.agent(agent)
    except KeyError:
        fail(f"unknown agent {agent!r}; configured: {', '.join(a.id for a in settings.agents)}")
    return settings.model_copy(
        update={"agents": [chosen] + [a for a in settings.agents if a.id != agent]}
    )


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        ctx: typer.Context,
        user: Annotated[str, typer.Option("--user", help="Your name in the terminal chat.")] = "me",
    ) -> None:
        """Start the bot: Discord and Telegram where a token is set, else the terminal chat."""
        settings = get_ctx(ctx).settings
        lock = _take_workspace(settings)
        has_token = any(
            settings.secret(env)
            for env in (settings.discord.token_env, settings.telegram.token_env)
        )
        try:
            if not has_token:
                err_console.print(NO_PLATFORM_HINT, highlight=False)
                _run_chat(settings, user)
            else:
                _configure_logging(settings, quiet=False)
                _run_platforms(settings)
        finally:
            lock.release()

    @app.command("chat")
    def chat(
        ctx: typer.Context,
        user: Annotated[str, typer.Option("--user", help="Who you are (a user key).")] = "me",
        agent: Annotated[str | None, typer.Option("--agent", help="Which familiar.")] = None,
    ) -> None:
        """Talk to a familiar in the terminal (piped stdin: one message per line)."""
        if problem := name_problem("user_key", user):  # before the start: nothing written
            fail(problem)
        settings = _with_agent(get_ctx(ctx).settings, agent)
        lock = _take_workspace(settings)
        if sys.stdin.isatty():
            err_console.print("Type /help for commands, Ctrl-D to leave.", highlight=False)
        try:
            with contextlib.suppress(KeyboardInterrupt):
                _run_chat(settings, user)
        finally:
            lock.release()
