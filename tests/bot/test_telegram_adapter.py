"""The Telegram adapter end to end: the real python-telegram-bot client against the fake Bot
API server in fake_telegram.py, with a scripted TurnHandler."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import (
    Attachment,
    CommandInvocation,
    CommandResponse,
    IncomingMessage,
    split_message,
)
from familiars.bot._adapters.telegram import (
    NOT_ALLOWED,
    SENT_PRIVATELY,
    SORRY,
    START_PRIVATE_FIRST,
    TelegramAdapter,
    TelegramSendError,
    TelegramStartError,
)
from familiars.config import AccessSettings, Settings, TelegramSettings
from tests.bot.fake_telegram import TOKEN, FakeHandler, FakeTelegram

pytestmark = pytest.mark.timeout(60)

ALICE, BOB, CAROL = 101, 102, 103
GROUP = -1001


class FakeClock:
    """Monotonic time that only moves when told; ``sleep`` moves it instead of waiting."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(seconds, 0.0)


def make_settings(tmp_path: Path, **access: Any) -> Settings:
    return Settings(
        workspace=tmp_path,
        telegram=TelegramSettings(
            poll_timeout_s=5, overall_max_rate=0, group_max_rate=0, send_backoff_s=0.25
        ),
        access=AccessSettings(**access),
    )


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def bot(
    tg: FakeTelegram, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Callable[..., Any]]:
    """``await bot(handler=None, **access)`` starts an adapter against ``tg``."""
    started: list[TelegramAdapter] = []

    async def _start(handler: Any = None, **access: Any) -> tuple[TelegramAdapter, FakeHandler]:
        handler = handler or FakeHandler()
        adapter = TelegramAdapter(
            handler,
            make_settings(tmp_path, **access),
            TOKEN,
            base_url=tg.base_url,
            clock=clock,
            sleep=clock.sleep,
        )
        await adapter.start()
        started.append(adapter)
        return adapter, handler

    yield _start
    for adapter in started:
        await adapter.stop()


# ---------------------------------------------------------------------- private chats


async def test_private_message_is_answered(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    _, handler = await bot()
    tg.private_message(ALICE, "hello there", first_name="Alice")
    await tg.wait_for(lambda: tg.chat_texts(ALICE) == ["echo: hello there"])
    [seen] = handler.messages
    assert (seen.platform, seen.chat_id, seen.user_id) == ("telegram", str(ALICE), str(ALICE))
    assert seen.display_name == "Alice" and not seen.is_group
    assert tg.calls_of("sendChatAction")[0].params["action"] == "typing"


async def test_command_menu_is_set_from_the_handler(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot()
    assert [c["command"] for c in tg.commands] == [s.name for s in handler.command_specs()]


async def test_messages_of_one_chat_are_handled_in_order(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot()
    for i in range(8):
        tg.private_message(ALICE, f"m{i}")
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 8)
    assert [m.text for m in handler.messages] == [f"m{i}" for i in range(8)]
    assert tg.chat_texts(ALICE) == [f"echo: m{i}" for i in range(8)]


async def test_chats_are_answered_concurrently(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    bob_seen = asyncio.Event()

    class WaitsForBob(FakeHandler):
        async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
            if message.user_id == str(BOB):
                bob_seen.set()
            else:
                await bob_seen.wait()  # would never return if chats were handled one by one
            yield f"hi {message.display_name}"

    await bot(WaitsForBob())
    tg.private_message(ALICE, "first", first_name="Alice")
    tg.private_message(BOB, "second", first_name="Bob")
    await tg.wait_for(lambda: bool(tg.chat_texts(ALICE)) and bool(tg.chat_texts(BOB)))
    assert tg.chat_texts(ALICE) == ["hi Alice"]


async def test_stop_waits_for_the_turn_in_flight(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    release = asyncio.Event()
    started = asyncio.Event()

    class Slow(FakeHandler):
        async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
            started.set()
            await release.wait()
            yield "done thinking"

    adapter, _ = await bot(Slow())
    tg.private_message(ALICE, "think hard")
    await started.wait()
    stopping = asyncio.create_task(adapter.stop())
    await asyncio.sleep(0)
    assert not stopping.done()
    release.set()
    await stopping
    assert tg.chat_texts(ALICE) == ["done thinking"]


async def test_long_reply_is_split_at_4096(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    long_reply = " ".join(f"word{i}" for i in range(2000))  # about 17,900 characters
    await bot(FakeHandler(reply=lambda m: [long_reply]))
    tg.private_message(ALICE, "tell me everything")
    await tg.wait_for(lambda: sum(map(len, tg.chat_texts(ALICE))) >= len(long_reply))
    pieces = tg.chat_texts(ALICE)
    assert pieces == split_message(long_reply, 4096) and len(pieces) == 5
    assert all(len(p) <= 4096 for p in pieces)
    assert "".join(pieces) == long_reply


async def test_streamed_reply_is_edited_at_most_once_a_second(
    tg: FakeTelegram, bot: Callable[..., Any], clock: FakeClock
) -> None:
    steps = [("Hello", 0.0), (" there", 0.3), (" my", 0.8), (" friend", 0.2), ("!", 0.1)]

    class Streaming(FakeHandler):
        async def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
            for delta, advance in steps:
                clock.now += advance
                yield delta

    await bot(Streaming())
    tg.private_message(ALICE, "hi")
    await tg.wait_for(lambda: tg.chat_texts(ALICE) == ["Hello there my friend!"])
    [message] = tg.chat_messages(ALICE)
    # sent "Hello" at t=0; " there" at 0.3 waits; " my" at 1.1 edits; " friend" and "!"
    # (1.3, 1.4) wait; the stream ends and a fake sleep of 0.7 leads to the final edit at 2.1.
    assert message.edits == ["Hello there my", "Hello there my friend!"]
    assert clock.slept == [pytest.approx(0.7)]


async def test_handler_failure_gets_an_apology_and_the_chat_goes_on(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    await bot()
    tg.private_message(ALICE, "boom")
    tg.private_message(ALICE, "still there?")
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 2)
    assert tg.chat_texts(ALICE) == [SORRY, "echo: still there?"]


async def test_empty_and_sticker_messages_are_ignored(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot()
    tg.private_message(ALICE, "   ")
    tg.private_message(
        ALICE,
        "",
        sticker={
            "file_id": "s1",
            "file_unique_id": "s1",
            "type": "regular",
            "width": 1,
            "height": 1,
            "is_animated": False,
            "is_video": False,
        },
    )
    tg.private_message(ALICE, "after")
    await tg.wait_for(lambda: tg.chat_texts(ALICE) == ["echo: after"])
    assert [m.text for m in handler.messages] == ["after"]


async def test_oversized_or_missing_files_reach_the_handler_without_data(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot()
    big = {"file_id": "big", "file_unique_id": "b", "file_name": "big.bin", "file_size": 10**9}
    gone = {"file_id": "gone", "file_unique_id": "g", "file_name": "gone.txt", "file_size": 3}
    tg.private_message(ALICE, "", caption="a big one", document=big)
    tg.private_message(ALICE, "", caption="a lost one", document=gone)
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 2)
    assert [(m.text, m.attachments[0].data) for m in handler.messages] == [
        ("a big one", None),
        ("a lost one", None),
    ]


async def test_huge_and_binary_laden_message_is_handled(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot(FakeHandler(reply=lambda m: [f"got {len(m.text)} characters"]))
    huge = ("a\x00b\x01\ufffd\U0001f600 " * 15_000)[:100_000]
    tg.private_message(ALICE, huge)
    await tg.wait_for(lambda: tg.chat_texts(ALICE) == ["got 100000 characters"])
    assert handler.messages[0].text == huge


async def test_document_becomes_an_attachment_the_adapter_can_download(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    adapter, handler = await bot()
    tg.add_file("f1", b"hello file")
    document = {
        "file_id": "f1",
        "file_unique_id": "u1",
        "file_name": "notes.txt",
        "mime_type": "text/plain",
        "file_size": 10,
    }
    tg.private_message(ALICE, "", caption="my notes", document=document)
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 1)
    [seen] = handler.messages
    assert seen.text == "my notes"
    [attachment] = seen.attachments
    assert (attachment.filename, attachment.content_type, attachment.size) == (
        "notes.txt",
        "text/plain",
        10,
    )
    assert attachment.data == b"hello file"  # fetched for the handler
    assert await adapter.download(attachment) == b"hello file"
    with pytest.raises(ValueError):
        await adapter.download(Attachment(filename="x", url="https://example.invalid/x"))


# ---------------------------------------------------------------------- groups


async def test_group_answers_only_on_mention_reply_or_command(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot()
    tg.group_message(GROUP, ALICE, "just chatting among ourselves")
    tg.group_message(GROUP, ALICE, "what do you think?", mention=True)
    await tg.wait_for(lambda: len(tg.chat_texts(GROUP)) == 1)
    [first] = tg.chat_messages(GROUP)
    assert first.text == "echo: what do you think?"
    tg.group_message(GROUP, BOB, "and you?", reply_to=first)
    tg.group_message(
        GROUP,
        BOB,
        "a reply to a person",
        reply_to={
            "message_id": 1,
            "date": 0,
            "chat": tg.group_chat(GROUP),
            "text": "x",
            "from": {"id": ALICE, "is_bot": False, "first_name": "Alice"},
        },
    )
    tg.command(tg.group_chat(GROUP), BOB, "/help")
    tg.command(tg.group_chat(GROUP), BOB, "/weather@other_bot")
    tg.command(tg.group_chat(GROUP), BOB, "/weather")
    await tg.wait_for(lambda: len(tg.chat_texts(GROUP)) == 3)
    assert tg.chat_texts(GROUP) == [
        "echo: what do you think?",
        "echo: and you?",
        "I am your familiar.",
    ]
    assert [m.text for m in handler.messages] == ["what do you think?", "and you?"]
    assert handler.messages[0].mentions_bot and handler.messages[0].is_group
    assert handler.messages[1].reply_to_bot and not handler.messages[1].mentions_bot
    assert [i.name for i in handler.invocations] == ["help"]
    assert first.reply_to is not None  # answers in groups quote the message they answer


async def test_text_mention_and_forum_topic(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    _, handler = await bot()
    entity = {
        "type": "text_mention",
        "offset": 0,
        "length": 8,
        "user": {"id": tg.bot_id, "is_bot": True, "first_name": "Familiar"},
    }
    tg.group_message(GROUP, ALICE, "Familiar, hello", thread_id=77, entities=[entity])
    await tg.wait_for(lambda: len(tg.chat_texts(GROUP)) == 1)
    [seen] = handler.messages
    assert seen.mentions_bot and seen.thread_id == "77"
    assert tg.chat_messages(GROUP)[0].thread_id == 77
    topic_start = {
        "message_id": 77,
        "date": 0,
        "chat": tg.group_chat(GROUP),
        "from": {"id": tg.bot_id, "is_bot": True, "first_name": "Familiar"},
        "forum_topic_created": {"name": "plans", "icon_color": 7322096},
    }
    tg.group_message(GROUP, ALICE, "just talking in the topic", thread_id=77, reply_to=topic_start)
    tg.group_message(GROUP, ALICE, "and now to you", thread_id=77, mention=True)
    await tg.wait_for(lambda: len(tg.chat_texts(GROUP)) == 2)
    assert [m.text for m in handler.messages] == ["Familiar, hello", "and now to you"]


# ---------------------------------------------------------------------- commands


async def test_memory_command_in_a_group_is_answered_in_private(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    _, handler = await bot()
    tg.command(tg.group_chat(GROUP), ALICE, "/memory@familiar_test_bot list   preferences")
    await tg.wait_for(lambda: len(tg.chat_texts(GROUP)) == 1)
    assert tg.chat_texts(ALICE) == [f"memories of {ALICE}: secret-{ALICE}"]
    assert tg.chat_texts(GROUP) == [SENT_PRIVATELY]
    [inv] = handler.invocations
    assert (inv.name, inv.args, inv.is_group) == ("memory", ("list", "preferences"), True)


async def test_memory_command_when_the_bot_cannot_write_privately(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    await bot()
    tg.block_private(BOB)
    tg.command(tg.group_chat(GROUP), BOB, "/memory list")
    await tg.wait_for(lambda: len(tg.chat_texts(GROUP)) == 1)
    [notice] = tg.chat_texts(GROUP)
    assert notice == START_PRIVATE_FIRST.format(username=tg.username)
    assert "secret" not in notice and tg.chat_texts(BOB) == []


async def test_memory_export_is_sent_as_a_document(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    await bot()
    tg.command(tg.private_chat(ALICE), ALICE, "/memory export")
    await tg.wait_for(lambda: len(tg.chat_messages(ALICE)) == 1)
    [sent] = tg.chat_messages(ALICE)
    assert sent.document is not None and sent.document["file_name"] == "memory.md"
    assert tg.files[sent.document["file_id"]] == f"# memories of {ALICE}\n".encode()
    assert sent.text == "Your memory export."


async def test_unknown_command_gets_usage_from_the_handler(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    await bot()
    tg.command(tg.private_chat(ALICE), ALICE, "/frobnicate now")
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 1)
    [text] = tg.chat_texts(ALICE)
    assert text.startswith("Unknown command /frobnicate") and "/memory list" in text


async def test_start_is_help(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    _, handler = await bot()
    tg.command(tg.private_chat(ALICE), ALICE, "/start")
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 1)
    assert [i.name for i in handler.invocations] == ["help"]


# ---------------------------------------------------------------------- errors


async def test_429_is_retried_after_retry_after(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    await bot()
    tg.fail_next("sendMessage", kind="retry_after", retry_after=1)
    tg.private_message(ALICE, "are you there?")
    await tg.wait_for(lambda: tg.chat_texts(ALICE) == ["echo: are you there?"])
    first, second = tg.calls_of("sendMessage")
    assert (first.status, second.status) == (429, 200)
    assert second.at - first.at >= 1.0


async def test_server_errors_on_send_are_retried_with_backoff(
    tg: FakeTelegram, bot: Callable[..., Any], clock: FakeClock
) -> None:
    adapter, _ = await bot()
    tg.fail_next("sendMessage", status=502, times=2)
    message_id = await adapter.send(str(ALICE), "a reminder")
    assert tg.chat_texts(ALICE) == ["a reminder"]
    assert message_id == str(tg.chat_messages(ALICE)[0].message_id)
    assert [c.status for c in tg.calls_of("sendMessage")] == [502, 502, 200]
    assert clock.slept == [0.25, 0.5]


async def test_send_gives_up_after_retries(
    tg: FakeTelegram, bot: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    adapter, _ = await bot()
    tg.fail_next("sendMessage", status=500, times=10)
    with pytest.raises(TelegramSendError, match="after 4 tries"):
        await adapter.send(str(ALICE), "a reminder")
    assert len(tg.calls_of("sendMessage")) == 4


async def test_proactive_send_to_a_topic_splits_long_text(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    adapter, _ = await bot()
    await adapter.send(str(GROUP), "x" * 5000, thread_id="9")
    messages = tg.chat_messages(GROUP)
    assert [len(m.text) for m in messages] == [4092, 908]
    assert {m.thread_id for m in messages} == {9}


async def test_a_group_upgraded_to_a_supergroup_still_gets_the_message(
    tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    adapter, _ = await bot()
    tg.migrate_chat(-5, GROUP)
    await adapter.send("-5", "good morning, everyone")
    assert tg.chat_texts(GROUP) == ["good morning, everyone"]


@pytest.mark.slow
async def test_a_failed_poll_loses_no_update(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    tg.private_message(ALICE, "first")
    tg.private_message(BOB, "second")
    tg.fail_next("getUpdates", kind="drop")
    await bot()
    await tg.wait_for(lambda: bool(tg.chat_texts(ALICE)) and bool(tg.chat_texts(BOB)))
    tg.fail_next("getUpdates", status=502)
    tg.private_message(ALICE, "third")  # answers the poll in flight; the next one fails
    await tg.wait_for(lambda: any(c.status == 502 for c in tg.calls))
    tg.private_message(ALICE, "fourth")  # pending while the client backs off
    await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 3)
    assert tg.chat_texts(ALICE) == ["echo: first", "echo: third", "echo: fourth"]
    assert tg.chat_texts(BOB) == ["echo: second"]
    statuses = [c.status for c in tg.calls_of("getUpdates")]
    assert statuses[0] == 0 and 502 in statuses


# ---------------------------------------------------------------------- access control


async def test_people_not_allowed_are_refused(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    _, handler = await bot(allowed_users=[f"telegram:{ALICE}"])
    tg.private_message(BOB, "let me in")
    tg.group_message(GROUP, BOB, "hey", mention=True)
    tg.private_message(ALICE, "hi")
    await tg.wait_for(lambda: bool(tg.chat_texts(ALICE)) and bool(tg.chat_texts(BOB)))
    assert tg.chat_texts(BOB) == [NOT_ALLOWED]
    assert [m.user_id for m in handler.messages] == [str(ALICE)]
    assert tg.chat_texts(GROUP) == []


async def test_nobody_allowed_is_said_at_start(
    bot: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="familiars.bot._adapters.telegram"):
        await bot(allowed_users=["discord:5"])
    assert any("nobody may use the bot" in r.getMessage() for r in caplog.records)


async def test_the_token_never_reaches_the_logs(
    tg: FakeTelegram, bot: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    logging.getLogger("httpx").setLevel(logging.NOTSET)
    with caplog.at_level(logging.DEBUG, logger="familiars"), caplog.at_level(logging.INFO):
        await bot()
        tg.private_message(ALICE, "hi")
        await tg.wait_for(lambda: bool(tg.chat_texts(ALICE)))
    assert caplog.records
    assert not any(TOKEN in r.getMessage() for r in caplog.records)


def test_access_rules() -> None:
    access = AccessSettings(
        owners=["telegram:1"], allowed_users=["telegram:2", "3"], allowed_chats=["telegram:-5"]
    )
    policy = AccessPolicy.from_settings(Settings(access=access))

    def allowed(p: AccessPolicy, user: str, chat: str, *, group: bool) -> bool:
        return p.allows("telegram", user, group_chat_ids=(chat,) if group else ())

    assert allowed(policy, "1", "-9", group=True)  # owner, anywhere
    assert allowed(policy, "2", "2", group=False)
    assert allowed(policy, "3", "-5", group=True)
    assert not allowed(policy, "2", "-9", group=True)  # chat not listed
    assert not allowed(policy, "4", "4", group=False)
    assert allowed(AccessPolicy(), "4", "-9", group=True)  # empty lists: everyone

    def nobody(**lists: list[str]) -> str | None:
        policy = AccessPolicy.from_settings(Settings(access=AccessSettings(**lists)))
        return policy.nobody_allowed("telegram")

    assert nobody(allowed_users=["discord:1"])
    assert not nobody(allowed_users=["discord:1"], owners=["telegram:1"])
    assert not nobody()


# ---------------------------------------------------------------------- start-up


async def test_bad_token_is_a_clear_start_error(tg: FakeTelegram, tmp_path: Path) -> None:
    adapter = TelegramAdapter(
        FakeHandler(), make_settings(tmp_path), "1:wrong", base_url=tg.base_url
    )
    with pytest.raises(TelegramStartError, match="TELEGRAM_BOT_TOKEN"):
        await adapter.start()


def test_missing_token_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(TelegramStartError, match="TELEGRAM_BOT_TOKEN"):
        TelegramAdapter(FakeHandler(), make_settings(tmp_path), "  ")


def test_from_settings_reads_the_configured_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(tmp_path)
    settings.telegram.token_env = "MY_TG_TOKEN"
    monkeypatch.delenv("MY_TG_TOKEN", raising=False)
    assert TelegramAdapter.from_settings(FakeHandler(), settings) is None
    monkeypatch.setenv("MY_TG_TOKEN", TOKEN)
    assert isinstance(TelegramAdapter.from_settings(FakeHandler(), settings), TelegramAdapter)


# ---------------------------------------------------------------------- with the real runtime


async def test_real_runtime_uses_facts_and_keeps_them_private_in_a_group(
    tg: FakeTelegram, workspace: Path
) -> None:
    from familiars.config import load_settings
    from tests.harness import make_app

    settings = load_settings(
        workspace=workspace, telegram={"overall_max_rate": 0, "group_max_rate": 0}
    )
    app = make_app(settings, model=None)
    async with app:
        assert app.dialogues is not None
        adapter = TelegramAdapter(app.dialogues, settings, TOKEN, base_url=tg.base_url)
        await adapter.start()
        try:
            tg.private_message(ALICE, "My name is Alice and I love hiking.", first_name="Alice")
            await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 1)
            await app.settle()
            tg.private_message(ALICE, "What is my name?", first_name="Alice")
            await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 2)
            assert "Alice" in tg.chat_texts(ALICE)[1]

            group = tg.group_chat(GROUP)
            asks = ["What does Alice love?", "What is Alice's name and hobby?", "hiking?"]
            for text in asks:
                tg.group_message(GROUP, BOB, text, first_name="Bob", mention=True)
            for command in ["/memory list", "/memory search hiking", "/memory export"]:
                tg.command(group, BOB, command)
            tg.command(tg.private_chat(BOB), BOB, "/memory search hiking")
            await tg.wait_for(
                lambda: len(tg.chat_messages(GROUP)) >= 6 and len(tg.chat_messages(BOB)) >= 4,
                timeout=30,
            )
            tg.command(group, ALICE, "/memory search hiking")
            await tg.wait_for(lambda: len(tg.chat_messages(ALICE)) == 3, timeout=30)
        finally:
            await adapter.stop()

    bob_saw = [m.text for m in tg.chat_messages(GROUP) + tg.chat_messages(BOB)]
    bob_files = [tg.files[m.document["file_id"]] for m in tg.chat_messages(BOB) if m.document]
    assert not any("hiking" in t.lower() for t in bob_saw), bob_saw
    assert not any(b"hiking" in f.lower() for f in bob_files)
    assert "hiking" in tg.chat_texts(ALICE)[2].lower()  # her own search, answered privately


async def test_real_runtime_keeps_a_sent_file_and_finds_it(
    tg: FakeTelegram, workspace: Path
) -> None:
    from familiars.config import load_settings
    from tests.harness import make_app

    settings = load_settings(
        workspace=workspace, telegram={"overall_max_rate": 0, "group_max_rate": 0}
    )
    app = make_app(settings, model=None)
    text = b"The spare key is under the blue flowerpot by the back door.\n"
    tg.add_file("f9", text)
    document = {
        "file_id": "f9",
        "file_unique_id": "u9",
        "file_name": "house.txt",
        "mime_type": "text/plain",
        "file_size": len(text),
    }
    async with app:
        assert app.dialogues is not None
        adapter = TelegramAdapter(app.dialogues, settings, TOKEN, base_url=tg.base_url)
        await adapter.start()
        try:
            tg.private_message(ALICE, "", caption="house notes", document=document)
            await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 1, timeout=30)
            await app.settle()
            tg.command(tg.private_chat(ALICE), ALICE, "/find spare key flowerpot")
            await tg.wait_for(lambda: any(m.document for m in tg.chat_messages(ALICE)), 30)
        finally:
            await adapter.stop()
    assert "saved house.txt" in tg.chat_texts(ALICE)[0]
    [document_sent] = [m.document for m in tg.chat_messages(ALICE) if m.document]
    assert tg.files[document_sent["file_id"]] == text


@pytest.mark.parametrize("owner", ["bare", "prefixed"])
async def test_an_owner_by_bare_or_prefixed_id_passes_the_allow_list(
    owner: str, tg: FakeTelegram, bot: Callable[..., Any]
) -> None:
    alice = str(ALICE) if owner == "bare" else f"telegram:{ALICE}"
    adapter, handler = await bot(owners=[alice], allowed_users=["telegram:1"])
    assert adapter.access.is_owner("telegram", str(ALICE))
    tg.group_message(GROUP, ALICE, "hello", mention=True)
    await tg.wait_for(lambda: bool(tg.chat_texts(GROUP)))
    assert tg.chat_texts(GROUP) == ["echo: hello"]


# ---------------------------------------------------------------------- /find sends the file


class FindingHandler(FakeHandler):
    """Answers /find with a PDF (and its path), as ``Documents.find`` does."""

    pdf = b"%PDF-1.4 the lease"

    async def command(self, invocation: CommandInvocation) -> CommandResponse:
        if invocation.name != "find":
            return await super().command(invocation)
        return CommandResponse(
            "1. lease.pdf, page 2\n   \u201crent is due on the first\u201d",
            file_name="lease.pdf",
            file_data=self.pdf,
            file_path="/ws/users/101/files/lease.pdf",
        )


async def test_find_sends_the_file_as_a_document(tg: FakeTelegram, bot: Callable[..., Any]) -> None:
    await bot(FindingHandler())
    tg.command(tg.private_chat(ALICE), ALICE, "/find the lease")
    await tg.wait_for(lambda: len(tg.chat_messages(ALICE)) == 1)
    [sent] = tg.chat_messages(ALICE)
    assert sent.document is not None and sent.document["file_name"] == "lease.pdf"
    assert tg.files[sent.document["file_id"]] == FindingHandler.pdf
    assert "rent is due" in sent.text  # the passage is the caption


async def test_find_names_a_file_over_telegrams_limit_instead_of_sending_it(
    tg: FakeTelegram, bot: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from familiars.bot._adapters.telegram import _sending

    monkeypatch.setattr(_sending, "FILE_LIMIT", len(FindingHandler.pdf) - 1)
    await bot(FindingHandler())
    tg.command(tg.private_chat(ALICE), ALICE, "/find the lease")
    await tg.wait_for(lambda: len(tg.chat_messages(ALICE)) == 1)
    [sent] = tg.chat_messages(ALICE)
    assert sent.document is None and not tg.calls_of("sendDocument")
    assert "more than Telegram takes" in sent.text and "lease.pdf" in sent.text
