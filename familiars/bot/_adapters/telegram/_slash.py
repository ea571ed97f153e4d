"""Running a command and delivering its answer: an answer that is private (the response says
so, or the command is declared private) goes to the person's private chat when asked in a
group, and the group only hears that it was sent (or that they must start a private chat
with the bot first)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from familiars.bot._adapters.base import CommandInvocation, TurnHandler
from familiars.bot._adapters.telegram._errors import TelegramSendError
from familiars.bot._adapters.telegram._layout import CommandMenu
from familiars.bot._adapters.telegram._sending import Sender
from familiars.bot._adapters.telegram._webhook import Receipt

logger = logging.getLogger(__name__)

START_PRIVATE_FIRST = (
    "I can only answer that in a private chat. Open a chat with @{username}, press Start, "
    "and send the command there."
)
SENT_PRIVATELY = "I've answered you in a private chat."


class CommandAnswers:
    def __init__(
        self,
        handler: TurnHandler,
        sender: Sender,
        *,
        menu: Callable[[], CommandMenu],
        username: Callable[[], str],
    ) -> None:
        self._handler = handler
        self._sender = sender
        self._menu = menu
        self._username = username

    async def run(self, invocation: CommandInvocation, receipt: Receipt | None = None) -> None:
        """Run the command and deliver its answer. ``receipt`` (webhook mode), as a
        message's: told the moment the answer went out; a silent one (its answer went out
        before its worker died) is neither run again nor answered (a command's work is done
        before its answer goes)."""
        if receipt is not None and receipt.silent:
            logger.info("Telegram: /%s was answered before; not run again", invocation.name)
            return
        response = await self._handler.command(invocation)
        private = response.private or invocation.name in self._menu().private
        if not (private and invocation.is_group):
            await self._sender.response(
                invocation.chat_id, response, thread_id=invocation.thread_id
            )
            await _told(receipt)
            return
        try:
            await self._sender.response(invocation.user_id, response)
        except TelegramSendError as exc:
            if not exc.unreachable:
                logger.error("Telegram: private answer to %s failed: %s", invocation.user_id, exc)
                return
            notice = START_PRIVATE_FIRST.format(username=self._username())
        else:
            notice = SENT_PRIVATELY
            await _told(receipt)
        await self._notify_group(invocation, notice)

    async def _notify_group(self, invocation: CommandInvocation, notice: str) -> None:
        try:
            await self._sender.text(invocation.chat_id, notice, thread_id=invocation.thread_id)
        except TelegramSendError as exc:
            logger.error("Telegram: notice in group %s failed: %s", invocation.chat_id, exc)


async def _told(receipt: Receipt | None) -> None:
    """The answer went out: the update's claim hears it (webhook mode)."""
    if receipt is not None:
        await receipt.sent()
