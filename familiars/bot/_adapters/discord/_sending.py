"""Putting text into Discord channels: a :class:`MessageSink` with retries, best-effort typing,
and replies to commands (ephemeral for interactions)."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import aiohttp
import discord

from familiars.bot._adapters.base import CommandResponse, split_message, without_file
from familiars.bot._adapters.discord._retry import RetryPolicy, Sleep, with_retries

logger = logging.getLogger(__name__)

LIMIT = 2000
#: The largest attachment a bot may upload without a boosted server (10 MiB since 2024).
FILE_LIMIT = 10 * 1024 * 1024
NOTHING_TO_SHOW = "(nothing to show)"


def visible(text: str) -> str:
    """Discord refuses messages without visible text."""
    return text if text.strip() else NOTHING_TO_SHOW


def file_of(response: CommandResponse) -> discord.File | None:
    if response.file_data is None:
        return None
    return discord.File(io.BytesIO(response.file_data), filename=response.file_name or "export.md")


class ChannelSink:
    """Sends and edits messages in one channel; the first piece replies to ``reference``."""

    def __init__(
        self,
        channel: discord.abc.Messageable,
        *,
        policy: RetryPolicy,
        sleep: Sleep,
        remember: Callable[[int], None],
        reference: discord.MessageReference | None = None,
    ) -> None:
        self._channel = channel
        self._policy = policy
        self._sleep = sleep
        self._remember = remember
        self._reference = reference

    async def send(self, text: str, *, file: discord.File | None = None) -> discord.Message:
        reference, self._reference = self._reference, None
        kwargs: dict[str, object] = {"mention_author": False}
        if reference is not None:
            kwargs["reference"] = reference
        if file is not None:
            kwargs["file"] = file

        async def call() -> discord.Message:
            if file is not None:
                file.reset()
            return await self._channel.send(visible(text), **kwargs)  # type: ignore[call-overload]

        message = await with_retries(call, what="send", policy=self._policy, sleep=self._sleep)
        self._remember(message.id)
        return message

    async def edit(self, message: discord.Message, text: str) -> None:
        async def call() -> discord.Message:
            return await message.edit(content=visible(text))

        await with_retries(call, what="edit", policy=self._policy, sleep=self._sleep)


@asynccontextmanager
async def typing(channel: discord.abc.Messageable) -> AsyncIterator[None]:
    """Show "typing…" while the body runs; a failure to show it never stops the reply."""
    indicator = channel.typing()
    try:
        await indicator.__aenter__()
    except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
        logger.debug("typing indicator failed: %s", exc)
        yield
        return
    try:
        yield
    finally:
        await indicator.__aexit__(None, None, None)


async def send_command_response(sink: ChannelSink, response: CommandResponse) -> None:
    """A command's answer as ordinary messages (text commands in a DM)."""
    response = without_file(response, FILE_LIMIT, "Discord")
    pieces = split_message(response.text, LIMIT) or [""]
    for index, piece in enumerate(pieces):
        last = index == len(pieces) - 1
        await sink.send(piece, file=file_of(response) if last else None)


async def answer_interaction(
    interaction: discord.Interaction,
    response: CommandResponse,
    *,
    policy: RetryPolicy,
    sleep: Sleep,
) -> None:
    """A command's answer to a slash command: ephemeral when ``response.private``."""
    response = without_file(response, FILE_LIMIT, "Discord")
    pieces = split_message(response.text, LIMIT) or [""]
    file = file_of(response)
    first = visible(pieces[0]) if pieces[0] or file is None else None
    private = response.private
    if interaction.response.is_done():  # deferred: the answer is a follow-up
        if file is None:
            await interaction.followup.send(content=first, ephemeral=private)  # type: ignore[arg-type]
        else:
            await interaction.followup.send(content=first, ephemeral=private, file=file)  # type: ignore[arg-type]
    elif file is None:
        await interaction.response.send_message(first, ephemeral=private)
    else:
        await interaction.response.send_message(first, ephemeral=private, file=file)
    for piece in pieces[1:]:

        async def follow_up(piece: str = piece) -> None:
            await interaction.followup.send(visible(piece), ephemeral=private)

        await with_retries(follow_up, what="follow-up", policy=policy, sleep=sleep)
