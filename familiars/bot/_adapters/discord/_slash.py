"""The handler's commands as ephemeral slash commands (``app_commands``), with autocomplete
through ``handler.complete``."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    CommandInvocation,
    CommandResponse,
    CommandSpec,
    TurnHandler,
)
from familiars.bot._adapters.discord._access import allows
from familiars.bot._adapters.discord._convert import PLATFORM, Place, place_of
from familiars.bot._adapters.discord._inflight import InFlight
from familiars.bot._adapters.discord._layout import (
    Option,
    args_of,
    options_of,
    short,
    subcommands_of,
)
from familiars.bot._adapters.discord._retry import RetryPolicy, Sleep
from familiars.bot._adapters.discord._sending import answer_interaction

logger = logging.getLogger(__name__)

NOT_ALLOWED = "Sorry, you are not allowed to use this bot here."
FAILED = "Sorry, that command failed. Please try again later."
MAX_CHOICES = 25

Invoke = Callable[[discord.Interaction, list[str | None]], Awaitable[None]]
Complete = Callable[
    [discord.Interaction[Any], str], Coroutine[Any, Any, list[app_commands.Choice[str]]]
]
Callback = Callable[..., Coroutine[Any, Any, None]]


def interaction_place(interaction: discord.Interaction) -> Place:
    return place_of(interaction.channel, interaction.channel_id or 0, interaction.guild_id)


def make_callback(options: tuple[Option, ...], invoke: Invoke) -> Callback:
    """A callback whose signature declares ``options`` (app_commands reads the signature)."""

    async def callback(interaction: discord.Interaction, **values: str | None) -> None:
        await invoke(interaction, [values.get(option.name) for option in options])

    params = [
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        )
    ]
    for option in options:
        params.append(
            inspect.Parameter(
                option.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=str if option.required else str | None,
                default=inspect.Parameter.empty if option.required else None,
            )
        )
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    if options:
        app_commands.describe(**{o.name: short(o.description) for o in options})(callback)
    return callback


class SlashCommands(commands.Cog):
    """Registers one app command (or group) per :class:`CommandSpec` on load."""

    def __init__(
        self,
        bot: commands.Bot,
        handler: TurnHandler,
        access: AccessPolicy,
        *,
        retry: RetryPolicy,
        sleep: Sleep,
        in_flight: InFlight,
        defer_after_s: float = 2.0,
    ) -> None:
        self.bot = bot
        self._handler = handler
        self._access = access
        self._retry = retry
        self._sleep = sleep
        self._defer_after_s = defer_after_s
        self._in_flight = in_flight
        self._names: list[str] = []
        self._private: set[str] = set()

    async def cog_load(self) -> None:
        for spec in self._handler.command_specs():
            if spec.private:
                self._private.add(spec.name)
            try:
                command = self.build(spec)
            except (ValueError, TypeError) as exc:  # a name Discord would refuse
                logger.warning("Discord: /%s is not registered: %s", spec.name, exc)
                continue
            self.bot.tree.add_command(command, override=True)
            self._names.append(spec.name)

    async def cog_unload(self) -> None:
        for name in self._names:
            self.bot.tree.remove_command(name)
        self._names.clear()

    def build(self, spec: CommandSpec) -> app_commands.Command[Any, ..., Any] | app_commands.Group:
        layout = subcommands_of(spec)
        if not layout:
            return self._command(spec.name, None, spec.description, options_of(spec))
        group = app_commands.Group(name=spec.name, description=short(spec.description))
        for sub, (description, options) in layout.items():
            group.add_command(self._command(spec.name, sub, description, options))
        return group

    def _command(
        self, name: str, sub: str | None, description: str, options: tuple[Option, ...]
    ) -> app_commands.Command[Any, ..., Any]:
        async def invoke(interaction: discord.Interaction, values: list[str | None]) -> None:
            await self.run(interaction, name, args_of(sub, values))

        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=sub or name,
            description=short(description),
            callback=make_callback(options, invoke),
        )
        for option in options:
            if option.autocomplete:
                command.autocomplete(option.name)(self._completer(name, sub, option))
        return command

    def _completer(self, name: str, sub: str | None, option: Option) -> Complete:
        async def complete(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            head, partial = _split_partial(current) if sub is None else ((), current)
            invocation = self._invocation(interaction, name, args_of(sub, list(head)))
            try:
                found = await self._handler.complete(invocation, partial)
            except Exception:  # autocomplete is a hint: a failure shows no choices
                logger.exception("autocomplete for /%s %s failed", name, sub or "")
                return []
            values = [" ".join((*head, choice)) for choice in found[:MAX_CHOICES]]
            return [app_commands.Choice(name=short(v), value=v[:100]) for v in values]

        return complete

    def _invocation(
        self, interaction: discord.Interaction, name: str, args: tuple[str, ...]
    ) -> CommandInvocation:
        place = interaction_place(interaction)
        return CommandInvocation(
            platform=PLATFORM,
            chat_id=place.chat_id,
            user_id=str(interaction.user.id),
            display_name=interaction.user.display_name,
            name=name,
            args=args,
            is_group=place.is_group,
            thread_id=place.thread_id,
            ts=interaction.created_at,
        )

    async def run(self, interaction: discord.Interaction, name: str, args: tuple[str, ...]) -> None:
        with self._in_flight.track():
            await self._run(interaction, name, args)

    async def _run(
        self, interaction: discord.Interaction, name: str, args: tuple[str, ...]
    ) -> None:
        invocation = self._invocation(interaction, name, args)
        place = interaction_place(interaction)
        if not allows(self._access, invocation.user_id, place):
            await interaction.response.send_message(NOT_ALLOWED, ephemeral=True)
            return
        response = await self._respond(interaction, invocation)
        if name in self._private:
            response = dataclasses.replace(response, private=True)
        await answer_interaction(interaction, response, policy=self._retry, sleep=self._sleep)

    async def _respond(
        self, interaction: discord.Interaction, invocation: CommandInvocation
    ) -> CommandResponse:
        """The handler's answer; defers the interaction (Discord waits only 3 s) if slow."""
        task = asyncio.ensure_future(self._handler.command(invocation))
        done, _ = await asyncio.wait({task}, timeout=self._defer_after_s)
        if not done:
            await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            return await task
        except Exception:  # the person gets an apology; the cause goes to the log
            logger.exception("command /%s %s failed", invocation.name, " ".join(invocation.args))
            return CommandResponse(FAILED)


def _split_partial(current: str) -> tuple[tuple[str, ...], str]:
    """Free-text arguments being typed: (finished words, the word being typed)."""
    words = current.split()
    if not words or current[-1:].isspace():
        return tuple(words), ""
    return tuple(words[:-1]), words[-1]
