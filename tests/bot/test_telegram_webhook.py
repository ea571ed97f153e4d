"""Telegram in webhook mode, end to end: the real runtime (offline) with its API server, the
fake Bot API posting updates to it as Telegram does (``tests/bot/fake_telegram.py``), and a
runtime in polling mode taking the same bot back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application
from familiars.bot._adapters.telegram import TelegramAdapter, TelegramStartError
from familiars.config import ConfigError, load_settings
from tests.bot.fake_telegram import TOKEN, FakeHandler, FakeTelegram
from tests.harness import make_app

pytestmark = pytest.mark.timeout(60)

SECRET = "s3cret_token-for-tests"
PUBLIC = "https://bot.example.org/telegram/hook"  # behind the load balancer; never contacted
ALICE, BOB = 301, 302


def webhook_settings(workspace: Path, tg: FakeTelegram, **telegram: Any) -> Any:
    return load_settings(
        workspace=workspace,
        api={"enabled": True, "port": 0},
        telegram={
            "base_url": tg.base_url,
            "webhook_url": PUBLIC,
            "overall_max_rate": 0,
            "group_max_rate": 0,
            **telegram,
        },
    )


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def hooked(
    tg: FakeTelegram, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Application]:
    """A running offline bot taking Telegram updates on its API server; the fake posts them
    to that server's address (as a load balancer in front of the public one would)."""
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", SECRET)
    app = make_app(webhook_settings(workspace, tg), model=None, platforms=True)
    async with app:
        assert app.api is not None
        tg.spread_webhook([app.api.url + "/telegram/hook"])
        yield app


async def test_updates_come_by_post_and_are_answered(tg: FakeTelegram, hooked: Application) -> None:
    [call] = tg.calls_of("setWebhook")
    assert call.params["url"] == PUBLIC
    assert call.params["secret_token"] == SECRET
    tg.private_message(ALICE, "hello, I'm Alice", first_name="Alice")
    tg.private_message(BOB, "hi there", first_name="Bob")
    await tg.wait_for(lambda: len(tg.deliveries) == 2)  # each answered once its turn is done
    assert tg.chat_texts(ALICE) and tg.chat_texts(BOB)
    assert [status for _, status in tg.deliveries] == [200, 200]
    assert not tg.calls_of("getUpdates")
    assert tg.pending_updates == 0


@pytest.mark.parametrize("secret", [None, "", "wrong", SECRET + "x", SECRET[:-1]])
async def test_a_wrong_or_missing_secret_is_refused_and_nothing_runs(
    tg: FakeTelegram, hooked: Application, secret: str | None
) -> None:
    assert hooked.api is not None
    update = {
        "update_id": 9001,
        "message": {
            "message_id": 1,
            "date": 1_700_000_000,
            "chat": {"id": ALICE, "type": "private", "first_name": "Alice"},
            "from": {"id": ALICE, "is_bot": False, "first_name": "Alice"},
            "text": "forged",
        },
    }
    url = hooked.api.url + "/telegram/hook"
    assert await tg.post_update(update, secret=secret, url=url) == 403
    # The same update with the right secret is then taken: the refused one left no trace
    # (neither answered nor remembered as seen).
    assert await tg.post_update(update, secret=SECRET, url=url) == 200
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 1)
    await hooked.settle()
    assert len(tg.chat_texts(ALICE)) == 1


async def test_an_update_posted_twice_is_handled_once(
    tg: FakeTelegram, hooked: Application
) -> None:
    assert hooked.api is not None
    url = hooked.api.url + "/telegram/hook"
    update = tg.private_message(ALICE, "remember that I like tea", first_name="Alice")
    await tg.wait_for(lambda: len(tg.deliveries) == 1)  # answered, its turn done
    # Telegram posts it again (its first answer was late): accepted, not handled again.
    assert await tg.post_update(update, secret=SECRET, url=url) == 200
    tg.private_message(ALICE, "I like coffee", first_name="Alice")
    # One chat's messages are handled in order: once "coffee" is answered, a second turn
    # for the tea message would have been too.
    await tg.wait_for(lambda: any("coffee" in t for t in tg.chat_texts(ALICE)))
    await hooked.settle()
    assert len(tg.chat_texts(ALICE)) == 2, tg.chat_texts(ALICE)
    turns = [m for m in tg.calls_of("sendMessage") if m.params.get("chat_id") == ALICE]
    assert len(turns) == 2


async def test_an_update_answered_by_a_worker_that_then_died_runs_again_silent(
    tg: FakeTelegram, hooked: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taken over from a worker killed after the platform took its answer (the claim says
    ``replied``): the turn runs again, so what it writes is kept, and nothing is sent."""
    [adapter] = [a for a in hooked.adapters if isinstance(a, TelegramAdapter)]
    assert adapter.webhook is not None
    home = adapter.webhook._home
    claim = home.claim_update
    monkeypatch.setattr(
        home, "claim_update", lambda *a: "replied" if claim(*a) == "mine" else "busy"
    )
    tg.private_message(ALICE, "I live in Lisbon.", first_name="Alice")
    await tg.wait_for(lambda: len(tg.deliveries) == 1)
    await hooked.settle()
    assert tg.deliveries[0][1] == 200
    assert tg.chat_texts(ALICE) == []  # answered before: not again
    tree = await hooked.services.trees.aget("agent_0", "dialogue_0")
    assert "I live in Lisbon." in [n.content for n in tree.node_list]  # the turn ran


async def test_the_claim_hears_the_moment_an_answer_went_out(
    tg: FakeTelegram, hooked: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    [adapter] = [a for a in hooked.adapters if isinstance(a, TelegramAdapter)]
    assert adapter.webhook is not None
    home = adapter.webhook._home
    heard: list[tuple[int, int]] = []

    async def reply_sent(bot: str, update_id: int) -> None:
        heard.append((update_id, len(tg.chat_texts(ALICE))))  # the answer already out

    monkeypatch.setattr(home, "reply_sent", reply_sent)
    update = tg.private_message(ALICE, "hello there", first_name="Alice")
    await tg.wait_for(lambda: len(tg.deliveries) == 1)
    assert heard == [(update["update_id"], 1)]


async def test_an_answer_is_marked_out_once_the_whole_of_it_went_out(
    tg: FakeTelegram, hooked: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A streamed answer's first piece is not the answer: the claim hears ``replied`` once
    all of it was shown. Marked at the first piece, a worker killed mid-stream left a
    fragment as the whole answer (the worker taking the update over ran it silently)."""
    [adapter] = [a for a in hooked.adapters if isinstance(a, TelegramAdapter)]
    assert adapter.webhook is not None
    heard: list[list[str]] = []

    async def reply_sent(bot: str, update_id: int) -> None:
        heard.append(tg.chat_texts(ALICE))

    class Streamed:
        async def respond(self, incoming: Any) -> AsyncIterator[str]:
            yield "Lisbon is"
            await asyncio.sleep(0)
            yield " lovely in spring."

    monkeypatch.setattr(adapter.webhook._home, "reply_sent", reply_sent)
    monkeypatch.setattr(adapter._turns, "_handler", Streamed())
    tg.private_message(ALICE, "tell me about Lisbon", first_name="Alice")
    await tg.wait_for(lambda: len(tg.deliveries) == 1)
    assert heard == [["Lisbon is lovely in spring."]]


async def test_a_body_that_is_not_an_update_is_refused(
    tg: FakeTelegram, hooked: Application
) -> None:
    import httpx

    assert hooked.api is not None
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    async with httpx.AsyncClient() as client:
        for body in (b"not json", b"[1, 2]", b'{"message": {}}'):
            answer = await client.post(
                hooked.api.url + "/telegram/hook", content=body, headers=headers
            )
            assert answer.status_code == 400
    assert not tg.calls_of("sendMessage")


async def test_polling_again_removes_the_webhook(tg: FakeTelegram, tmp_path: Path) -> None:
    """A bot moved back to polling deletes the webhook Telegram still has, then polls."""
    await tg._m_setWebhook({"url": PUBLIC, "secret_token": SECRET})  # left by webhook mode
    settings = load_settings(
        workspace=tmp_path, telegram={"overall_max_rate": 0, "group_max_rate": 0}
    )
    adapter = TelegramAdapter(FakeHandler(), settings, TOKEN, base_url=tg.base_url)
    await adapter.start()
    try:
        assert tg.calls_of("deleteWebhook") and tg.webhook is None
        tg.private_message(ALICE, "back to polling")
        await tg.wait_for(lambda: tg.chat_texts(ALICE) == ["echo: back to polling"])
    finally:
        await adapter.stop()


def test_webhook_needs_the_api_server(workspace: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[api\] enabled = true"):
        load_settings(workspace=workspace, telegram={"webhook_url": PUBLIC})


@pytest.mark.parametrize("path", ["/api/telegram", "/web", "/healthz", "/"])
def test_webhook_path_may_not_take_an_api_route(workspace: Path, path: str) -> None:
    with pytest.raises(ConfigError, match="taken by the API"):
        load_settings(
            workspace=workspace,
            api={"enabled": True},
            telegram={"webhook_url": PUBLIC, "webhook_path": path},
        )


@pytest.mark.parametrize("url", ["bot.example.org/hook", "ftp://x/y", ""])
def test_webhook_url_must_be_an_address(workspace: Path, url: str) -> None:
    with pytest.raises(ConfigError, match="webhook_url must be an http"):
        load_settings(workspace=workspace, api={"enabled": True}, telegram={"webhook_url": url})


@pytest.mark.parametrize(("secret", "says"), [(None, "needs a secret"), ("a b!", "may hold only")])
def test_webhook_secret_missing_or_malformed_is_one_clear_line(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, secret: str | None, says: str
) -> None:
    if secret is None:
        monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)
    else:
        monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", secret)
    settings = load_settings(
        workspace=workspace, api={"enabled": True}, telegram={"webhook_url": PUBLIC}
    )
    with pytest.raises(TelegramStartError, match=says):
        TelegramAdapter(FakeHandler(), settings, TOKEN)


# ---------------------------------------------------------------------- acknowledging


def _update_body(update_id: int) -> bytes:
    import json

    message = {
        "message_id": 1,
        "date": 1_700_000_000,
        "chat": {"id": ALICE, "type": "private", "first_name": "Alice"},
        "from": {"id": ALICE, "is_bot": False, "first_name": "Alice"},
        "text": "hi",
    }
    return json.dumps({"update_id": update_id, "message": message}).encode()


HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}


async def test_an_update_is_acknowledged_once_its_turn_is_done() -> None:
    """A worker killed mid-turn has not said 200: Telegram posts the update again."""
    import asyncio

    from telegram import Bot

    from familiars.bot._adapters.telegram._webhook import TelegramWebhook

    turn_done = asyncio.Event()
    taken: list[int] = []

    async def take(update: Any) -> None:
        taken.append(update.update_id)
        await turn_done.wait()

    hook = TelegramWebhook("/tg", SECRET)
    hook.open(Bot(TOKEN), take)
    answer = asyncio.ensure_future(hook.deliver(HEADERS, _update_body(1)))
    while not taken:
        await asyncio.sleep(0)
    assert not answer.done()  # the turn runs: no answer yet
    # Posted again meanwhile (to this worker or another): not taken twice, and not
    # acknowledged either (503: posted again later), lest this turn die and it be lost.
    assert await hook.deliver(HEADERS, _update_body(1)) == 503
    turn_done.set()
    assert await answer == 200
    assert await hook.deliver(HEADERS, _update_body(1)) == 200  # answered: dropped
    assert taken == [1]


async def test_a_turn_dropped_by_a_stop_is_answered_503() -> None:
    import asyncio

    from telegram import Bot

    from familiars.bot._adapters.telegram._webhook import TelegramWebhook

    async def dropped(update: Any) -> None:
        raise asyncio.CancelledError

    taken: list[int] = []

    async def kept(update: Any) -> None:
        taken.append(update.update_id)

    hook = TelegramWebhook("/tg", SECRET)
    hook.open(Bot(TOKEN), dropped)
    assert await hook.deliver(HEADERS, _update_body(2)) == 503
    hook.open(Bot(TOKEN), kept)  # its turn never ended: posted again, it is answered
    assert await hook.deliver(HEADERS, _update_body(2)) == 200
    assert taken == [2]
    hook.close()
    assert await hook.deliver(HEADERS, _update_body(3)) == 503  # stopped: Telegram keeps it


async def test_a_turn_longer_than_ack_after_is_acknowledged_while_it_runs() -> None:
    import asyncio

    from telegram import Bot

    from familiars.bot._adapters.telegram._webhook import TelegramWebhook

    forever = asyncio.Event()

    async def slow(update: Any) -> None:
        await forever.wait()

    hook = TelegramWebhook("/tg", SECRET, ack_after_s=0.01)
    hook.open(Bot(TOKEN), slow)
    assert await hook.deliver(HEADERS, _update_body(4)) == 200
    forever.set()


# ---------------------------------------------------------------------- commands, once


async def test_a_commands_answer_is_marked_out_as_a_messages_is(
    tg: FakeTelegram, hooked: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    [adapter] = [a for a in hooked.adapters if isinstance(a, TelegramAdapter)]
    assert adapter.webhook is not None
    heard: list[tuple[int, int]] = []

    async def reply_sent(bot: str, update_id: int) -> None:
        heard.append((update_id, len(tg.chat_texts(ALICE))))  # the answer already out

    monkeypatch.setattr(adapter.webhook._home, "reply_sent", reply_sent)
    update = tg.command(tg.private_chat(ALICE), ALICE, "/help")
    await tg.wait_for(lambda: len(tg.deliveries) == 1)
    assert heard == [(update["update_id"], 1)]


async def test_a_command_answered_by_a_worker_that_then_died_is_not_run_again(
    tg: FakeTelegram, hooked: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/reminders cancel 1`` taken over from a worker killed after its answer went out:
    neither done nor answered a second time."""
    [adapter] = [a for a in hooked.adapters if isinstance(a, TelegramAdapter)]
    assert adapter.webhook is not None
    home = adapter.webhook._home
    claim = home.claim_update
    monkeypatch.setattr(
        home, "claim_update", lambda *a: "replied" if claim(*a) == "mine" else "busy"
    )
    ran: list[str] = []
    answers = adapter._turns._answers
    command = answers._handler.command

    async def counted(invocation: Any) -> Any:
        ran.append(invocation.name)
        return await command(invocation)

    monkeypatch.setattr(answers._handler, "command", counted)
    tg.command(tg.private_chat(ALICE), ALICE, "/reminders cancel 1")
    await tg.wait_for(lambda: len(tg.deliveries) == 1)
    await hooked.settle()
    assert tg.deliveries[0][1] == 200
    assert ran == [] and tg.chat_texts(ALICE) == []


# ---------------------------------------------------------------------- acknowledged, then killed


async def test_an_update_acknowledged_then_cut_by_a_kill_is_answered_by_another_worker(
    pg_url: str, tmp_path: Path
) -> None:
    """A slow turn is answered 200 at ``ack_after_s``; its worker killed after that is
    posted the update no more. The update's payload is kept with its claim: a live worker
    takes the dead one's claim over and answers it, once; one whose answer went out before
    the kill runs silently."""
    from telegram import Bot

    from familiars.bot._adapters.telegram._webhook import TelegramWebhook
    from familiars.memory import open_state_home

    forever = asyncio.Event()

    async def slow(update: Any) -> None:
        await forever.wait()

    taken: list[tuple[int, bool]] = []
    home_a = open_state_home(load_settings(workspace=tmp_path / "a"))
    home_b = open_state_home(load_settings(workspace=tmp_path / "b"))
    hook_a = TelegramWebhook("/tg", SECRET, ack_after_s=0.01, home=home_a, sweep_s=3600)
    hook_b = TelegramWebhook("/tg", SECRET, home=home_b, sweep_s=3600)

    async def take(update: Any) -> None:
        taken.append((update.update_id, hook_b.receipt(update.update_id).silent))

    try:
        hook_a.open(Bot(TOKEN), slow)
        hook_b.open(Bot(TOKEN), take)
        assert await hook_a.deliver(HEADERS, _update_body(7)) == 200  # acknowledged
        assert await hook_a.deliver(HEADERS, _update_body(8)) == 200
        await hook_a.receipt(8).sent()  # 8's answer went out before the kill
        assert await hook_b.sweep() == 0  # A lives: its turns are its own
        hook_a.close()
        await home_a.close()  # killed: its session is gone

        async def swept() -> bool:
            await hook_b.sweep()
            await asyncio.sleep(0.05)
            return len(taken) == 2

        for _ in range(100):
            if await swept():
                break
        assert sorted(taken) == [(7, False), (8, True)]
        await hook_b.settled()
        assert await hook_b.sweep() == 0  # answered: never again
        assert await hook_b.deliver(HEADERS, _update_body(7)) == 200  # a late re-post
        assert sorted(taken) == [(7, False), (8, True)]
    finally:
        forever.set()
        hook_a.close()
        hook_b.close()
        await home_a.close()
        await home_b.close()


async def test_a_sweep_never_answers_again_an_update_this_worker_is_answering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This worker's state session was lost and opened again while a slow turn ran: the
    claim names the old session, so it looks orphaned. The sweep takes it back (the claim
    is this worker's again) but must not start a second turn for it: the person would be
    answered twice."""
    from telegram import Bot

    from familiars.bot._adapters.telegram._webhook import TelegramWebhook

    forever = asyncio.Event()
    started: list[int] = []

    async def slow(update: Any) -> None:
        started.append(update.update_id)
        await forever.wait()

    hook = TelegramWebhook("/tg", SECRET, ack_after_s=0.01)
    hook.open(Bot(TOKEN), slow)
    try:
        assert await hook.deliver(HEADERS, _update_body(9)) == 200  # acknowledged, running
        orphaned = [(9, _update_body(9).decode(), False)]
        monkeypatch.setattr(hook._home, "orphaned_updates", lambda bot: orphaned)
        await hook.sweep()
        await asyncio.sleep(0.05)
        assert started == [9]
        # Posted again meanwhile (the claim's session gone, so it is taken over): the same.
        monkeypatch.setattr(hook._home, "claim_update", lambda *a: "mine")
        assert await hook.deliver(HEADERS, _update_body(9)) == 200
        await asyncio.sleep(0.05)
        assert started == [9]
    finally:
        forever.set()
        hook.close()
