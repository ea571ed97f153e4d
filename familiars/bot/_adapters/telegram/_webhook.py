"""Webhook mode: Telegram posts each update to the bot's own HTTP server.

:class:`TelegramWebhook` is what the API's route hands the request to. The secret header is
compared in constant time (wrong or missing: 403 and the body is not read); a body that is
not an update is 400. Each update is claimed through the worker's
:class:`~familiars.memory.StateHome` (in the database: shared by every worker) before its
turn and marked answered after it: one answered already (Telegram posts an update again when
its 200 was late or lost, maybe to another worker) is answered 200 and dropped; one another
live worker is answering now is answered 503 (posted again later); a claim left by a worker
that died mid-turn is taken over, so that update is answered. The rest is handled by the
same python-telegram-bot handlers as a polled update, and answered 200 only once its turn is
done (or after ``ack_after_s``, so a slow turn is not posted again): a worker killed mid-turn
never said 200, and Telegram posts the update again, to another worker. While the adapter is
not running, or its turn was dropped by a stop, the answer is 503 and the claim is let go:
Telegram keeps the update.

The moment the whole answer is shown (the platform took its last piece or edit), the claim
is marked ``replied`` (:class:`Receipt`, awaited before the turn goes on). A worker that
takes over the update of one killed after that runs the turn again without sending anything
(its writes are kept, the person is not answered twice). A worker killed while the answer
was still streaming leaves the update to be answered again, whole: never a fragment as the
only answer.

The update as posted is kept with its claim until it is done. A worker killed after its
200 went out (a slow turn, acknowledged at ``ack_after_s``) is posted the update no more:
every live worker looks for such claims every ``sweep_s`` (:meth:`TelegramWebhook.sweep`),
and the one that takes it over answers it (silently when its answer went out already).
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from telegram import Bot, Update

from familiars.memory import FileStateHome, StateHome

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: How often a worker looks for updates a dead worker acknowledged and never answered.
SWEEP_S = 5.0
#: What the Bot API accepts as ``secret_token``.
SECRET_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


@dataclass(frozen=True)
class Receipt:
    """One webhook update's turn: ``silent`` when its answer went out already (run the turn,
    send nothing); ``sent()`` to be awaited the moment its answer went out."""

    silent: bool
    sent: Callable[[], Awaitable[None]]


class TelegramWebhook:
    """``deliver(headers, body)`` -> HTTP status, for the route at ``path``."""

    def __init__(
        self,
        path: str,
        secret: str,
        *,
        ack_after_s: float = 30.0,
        home: StateHome | None = None,
        sweep_s: float = SWEEP_S,
    ) -> None:
        self._path = path
        self.secret = secret  # told to Telegram by setWebhook
        self._secret = secret.encode()
        self._ack_after_s = ack_after_s
        # Without a home (one process, tests) the files' home: its claims are in-process.
        self._home: StateHome = home or FileStateHome(Path())
        self._bot: Bot | None = None
        self._take: Callable[[Update], Awaitable[None]] | None = None
        self._marks: set[asyncio.Future[None]] = set()
        self._bot_key = ""
        self._replied: set[int] = set()  # taken over with their answer sent: run silently
        self._acked: set[int] = set()  # answered 200 before their turn ended
        #: Updates whose turn runs here now: a sweep that finds one (this worker's session
        #: was lost and opened again) takes its claim back, never starts it a second time.
        self._running: set[int] = set()
        self._sweep_s = sweep_s
        self._sweeping: asyncio.Task[None] | None = None
        self.refused = 0
        self.duplicates = 0
        self.taken_over = 0

    @property
    def path(self) -> str:
        return self._path

    def open(self, bot: Bot, take: Callable[[Update], Awaitable[None]]) -> None:
        """Take updates from now on: ``take(update)`` returns once it is handled."""
        self._bot, self._take = bot, take
        self._bot_key = bot.token.split(":", 1)[0]
        if self._home.kind != "files" and self._sweeping is None:  # many workers: look
            self._sweeping = asyncio.ensure_future(self._sweep_often())

    def close(self) -> None:
        """Answer 503 from now on: Telegram keeps the updates for the next worker."""
        self._bot = self._take = None
        if self._sweeping is not None:
            self._sweeping.cancel()
            self._sweeping = None

    async def _sweep_often(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:  # noqa: BLE001 - tried again at the next look
                logger.warning("Telegram webhook: looking for orphaned updates failed",
                               exc_info=True)  # fmt: skip
            await asyncio.sleep(self._sweep_s)

    async def sweep(self) -> int:
        """Take over the updates workers that died claimed and did not finish (their 200
        may have gone out: Telegram would not post them again) and answer them, as if
        posted now; how many were taken."""
        bot, take = self._bot, self._take
        if bot is None or take is None:
            return 0
        bot_key = self._bot_key
        found = await asyncio.to_thread(self._home.orphaned_updates, bot_key)
        for update_id, payload, replied in found:
            if update_id in self._running:  # ours: the claim names this session again
                continue
            update = _parse(payload.encode("utf-8"), bot)
            if update is None:  # never kept so: claimed as posted, parsed then
                await asyncio.to_thread(self._home.finish_update, bot_key, update_id, done=True)
                continue
            logger.info("Telegram webhook: update %s left by a worker that died, answered "
                        "here%s", update_id, " (silent)" if replied else "")  # fmt: skip
            if replied:
                self._replied.add(update_id)
            self._acked.add(update_id)  # no one posts it again
            self.taken_over += 1
            self._running.add(update_id)
            task = asyncio.ensure_future(take(update))
            task.add_done_callback(functools.partial(self._finished, bot_key, update_id))
        return len(found)

    def _finished(self, bot_key: str, update_id: int, task: asyncio.Future[None]) -> None:
        self._finish(task, bot_key, update_id)

    def authentic(self, headers: Mapping[str, str]) -> bool:
        given = headers.get(SECRET_HEADER) or headers.get(SECRET_HEADER.lower())
        return given is not None and hmac.compare_digest(given.encode(), self._secret)

    async def deliver(self, headers: Mapping[str, str], body: bytes) -> int:
        if not self.authentic(headers):
            self.refused += 1
            logger.warning("Telegram webhook: a request without the right secret, refused")
            return 403
        bot, take = self._bot, self._take
        if bot is None or take is None:
            return 503
        update = _parse(body, bot)
        if update is None:
            return 400
        bot_key = bot.token.split(":", 1)[0]
        claim = await asyncio.to_thread(
            self._home.claim_update, bot_key, update.update_id, body.decode("utf-8", "replace")
        )
        if claim in ("mine", "replied") and update.update_id in self._running:
            self._acked.add(update.update_id)  # its turn runs here: the claim is ours again
            return 200
        if claim == "replied":
            logger.info(
                "Telegram webhook: update %s was answered; its turn runs again, silent",
                update.update_id,
            )
            self._replied.add(update.update_id)
            claim = "mine"
        if claim != "mine":
            self.duplicates += 1
            logger.info("Telegram webhook: update %s came again (%s)", update.update_id, claim)
            return 200 if claim == "done" else 503
        self._running.add(update.update_id)
        task = asyncio.ensure_future(take(update))
        task.add_done_callback(lambda t: self._finish(t, bot_key, update.update_id))
        return await self._handled(task, update.update_id)

    def receipt(self, update_id: int) -> Receipt:
        """The :class:`Receipt` of the update being taken now."""
        bot_key = self._bot_key

        async def sent() -> None:
            try:
                await self._home.reply_sent(bot_key, update_id)
            except Exception:  # noqa: BLE001 - the answer is out; a re-post may repeat it
                logger.warning("Telegram webhook: marking update %s replied failed", update_id)

        return Receipt(update_id in self._replied, sent)

    def _finish(self, task: asyncio.Future[None], bot_key: str, update_id: int) -> None:
        """Mark the update answered once its turn ended (a dropped turn: let go, unless it
        was acknowledged: Telegram will not post it again, so its claim stays for a live
        worker to take over once this one is gone)."""
        self._replied.discard(update_id)
        self._running.discard(update_id)
        acked = update_id in self._acked
        self._acked.discard(update_id)
        done = not task.cancelled()
        if not done and acked:
            return
        self._marks.add(
            asyncio.ensure_future(
                asyncio.to_thread(self._home.finish_update, bot_key, update_id, done=done)
            )
        )

    async def _handled(self, task: asyncio.Future[None], update_id: int) -> int:
        """200 once ``task`` is done or has run ``ack_after_s``; 503 when a stop dropped it."""
        done, _ = await asyncio.wait({task}, timeout=self._ack_after_s)
        if not done:
            logger.info("Telegram webhook: update %s still running; acknowledged", update_id)
            self._acked.add(update_id)
            return 200
        await self.settled()
        if task.cancelled():
            return 503
        if task.exception() is not None:  # reported by the handler's own error path
            logger.debug("Telegram webhook: update %s failed", update_id)
        return 200

    async def settled(self) -> None:
        """Every mark of an ended turn written (before its 200 goes out)."""
        marks, self._marks = self._marks, set()
        for mark in marks:
            try:
                await mark
            except Exception:  # noqa: BLE001 - the claim stays; a re-post is answered
                logger.warning("Telegram webhook: marking an update answered failed", exc_info=True)


def _parse(body: bytes, bot: Bot) -> Update | None:
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            raise ValueError("no update_id")
        return Update.de_json(data, bot)
    except (ValueError, TypeError, KeyError) as exc:
        logger.warning("Telegram webhook: a body that is not an update (%s), refused", exc)
        return None
