"""``familiars run`` and ``familiars chat``: the bot itself."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from typing import Annotated

import typer

from familiars.config import Settings
from familiars.memory import MemoryError_
from familiars.terminal import err_console, fail, get_ctx

NO_PLATFORM_HINT = (
    "No platform token is configured, so I'm chatting here in the terminal.\n"
    "To put me on Discord, set DISCORD_BOT_TOKEN; on Telegram, set TELEGRAM_BOT_TOKEN "
    "(see README.md). Type /help for commands, Ctrl-D to leave."
)


def _configure_logging(settings: Settings, quiet: bool) -> None:
    level = logging.WARNING if quiet else getattr(logging, settings.log_level.upper(), logging.INFO)
    root = logging.getLogger()
    root.setLevel(level)
    for handler in root.handlers:
        handler.setLevel(level)


async def _run(settings: Settings, *, user: str | None, platforms: bool) -> None:
    from familiars.bot import Application

    app = Application(settings, console_user=user, platforms=platforms)
    await app.initialize()
    try:
        if not app.adapters:
            fail("nothing to run: no platform token and no terminal chat")
        await app.start()
        await app.run_until_stopped()
    finally:
        await app.shutdown()


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        ctx: typer.Context,
        user: Annotated[str, typer.Option("--user", help="Your name in the terminal chat.")] = "me",
    ) -> None:
        """Start the bot: Discord and Telegram where a token is set, else the terminal chat."""
        settings = get_ctx(ctx).settings
        has_token = any(
            settings.secret(env)
            for env in (settings.discord.token_env, settings.telegram.token_env)
        )
        _configure_logging(settings, quiet=not has_token)
        if not has_token:
            err_console.print(NO_PLATFORM_HINT, highlight=False)
        try:
            asyncio.run(_run(settings, user=None if has_token else user, platforms=True))
        except (MemoryError_, ValueError) as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            pass

    @app.command("chat")
    def chat(
        ctx: typer.Context,
        user: Annotated[str, typer.Option("--user", help="Who you are (a user key).")] = "me",
        agent: Annotated[str | None, typer.Option("--agent", help="Which familiar.")] = None,
    ) -> None:
        """Talk to a familiar in the terminal (piped stdin: one message per line)."""
        from familiars.memory import check_user_key

        settings = get_ctx(ctx).settings
        try:
            check_user_key(user)
            if agent is not None:
                settings.agent(agent)
                settings = settings.model_copy(
                    update={
                        "agents": [settings.agent(agent)]
                        + [a for a in settings.agents if a.id != agent]
                    }
                )
        except KeyError:
            fail(f"unknown agent {agent!r}; configured: {', '.join(a.id for a in settings.agents)}")
        except MemoryError_ as exc:
            fail(str(exc))
        _configure_logging(settings, quiet=True)
        if sys.stdin.isatty():
            err_console.print("Type /help for commands, Ctrl-D to leave.", highlight=False)
        try:
            with contextlib.suppress(KeyboardInterrupt):
                asyncio.run(_run(settings, user=user, platforms=False))
        except MemoryError_ as exc:  # the workspace is owned by another process, or damaged
            fail(str(exc))
