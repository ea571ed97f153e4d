"""A hostile or broken writer model never drops a turn and never stops the queue (issue 13):
deep JSON, truncated JSON, wrong types, huge content, a model that raises RecursionError or
MemoryError inside its call. Each turn is kept by the offline writer, a copy of it goes to
``failed/`` with the reason, and the queue goes on, across restarts too."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from familiars.llm import ChatMessage, ChatModel, ChatResult, OpenAIChatModel
from familiars.memory import MemoryStore
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._queue import WriterQueue
from familiars.memory._writer._status import load_status, pending_turn_files, queue_dir
from familiars.memory._writer._turn import TurnContext
from tests.fake_openai import FakeOpenAI, Reply

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
DEEP = 100_000


def turn(text: str) -> TurnContext:
    return TurnContext(
        agent_id="agent_0",
        dialogue_id="dialogue_1",
        user_key="u1",
        user_text=text,
        reply_text="Nice!",
        now=NOW.isoformat(),
    )


def add(content: Any, **entry: Any) -> dict[str, Any]:
    return {
        "op": "add",
        "scope": "user",
        "category": "preference",
        "entry": {"content": content, **entry},
    }


HOSTILE = {
    "deep-array": "[" * DEEP + "]" * DEEP,
    "deep-writes": '{"writes": ' + "[" * DEEP + "]" * DEEP + "}",
    "deep-object": '{"a": ' * DEEP + "1" + "}" * DEEP,
    "truncated": '{"writes": [{"op": "add", "scope": "user", "category": "pref',
    "list-of-lists": json.dumps([[1, 2], [3, [4]]]),
    "null-writes": json.dumps({"writes": None}),
    "nulls-everywhere": json.dumps(
        {"writes": [None, {"op": None, "scope": None, "category": None, "entry": None}]}
    ),
    "wrong-types": json.dumps(
        {"writes": [add(42), add(["The user likes tea."]), add({"x": 1}), "add", 7]}
    ),
    "huge-content": json.dumps({"writes": [add("The user likes tea. " * 250_000)]}),
}


async def facts(store: MemoryStore) -> set[str]:
    return {r.content for r in await store.list(scope="user", user_key="u1", now=NOW)}


def failed_reasons(workspace: Path) -> dict[str, str]:
    folder = queue_dir(workspace) / "failed"
    return {
        p.name.removesuffix(".reason.txt"): p.read_text(encoding="utf-8")
        for p in sorted(folder.glob("*.reason.txt"))
    }


async def run_turns(store: MemoryStore, model: ChatModel) -> WriterQueue:
    queue = WriterQueue(MemoryWriter(store, model=model))
    await queue.start()
    await queue.enqueue(turn("I like tea"))
    await queue.enqueue(turn("My name is Ann"))
    await queue.drain()
    return queue


def assert_every_turn_kept(workspace: Path, queue: WriterQueue, found: set[str]) -> None:
    assert found == {"The user likes tea.", "The user's name is Ann."}
    assert pending_turn_files(workspace) == []
    stats = queue.stats()
    assert stats["running"]  # the queue never exits
    assert stats["turns_processed"] == 2 and stats["offline_fallbacks"] == 2
    reasons = failed_reasons(workspace)
    assert len(reasons) == 2  # a copy of each turn, with the reason beside it
    for name in reasons:
        kept = json.loads((queue_dir(workspace) / "failed" / f"{name}.json").read_text("utf-8"))
        assert kept["user_text"] in ("I like tea", "My name is Ann")


@pytest.mark.parametrize("raw", list(HOSTILE.values()), ids=list(HOSTILE))
async def test_hostile_output_keeps_every_turn_and_the_queue_goes_on(
    tmp_path: Path, raw: str
) -> None:
    async with FakeOpenAI(Reply.text(raw)) as server, MemoryStore(tmp_path) as store:
        model = OpenAIChatModel(name="local", base_url=server.base_url, model="m")
        queue = await run_turns(store, model)
        try:
            assert_every_turn_kept(tmp_path, queue, await facts(store))
        finally:
            await queue.stop()
        # One repair at most per turn, and the repair never echoes megabytes back.
        assert len(server.requests) <= 4
        assert all(len(json.dumps(r.body)) < 100_000 for r in server.requests)
    for reason in failed_reasons(tmp_path).values():
        assert "model answer set aside" in reason


class Raising(ChatModel):
    """A model whose call itself raises what a hostile reply can make a client raise."""

    name = "raising"
    model = "raising"

    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:
        raise self.exc


@pytest.mark.parametrize(
    "exc",
    [RecursionError("maximum recursion depth exceeded"), MemoryError(), TypeError("bad")],
    ids=["recursion", "memory", "type"],
)
async def test_a_model_that_raises_inside_its_call(tmp_path: Path, exc: BaseException) -> None:
    async with MemoryStore(tmp_path) as store:
        queue = await run_turns(store, Raising(exc))
        try:
            assert_every_turn_kept(tmp_path, queue, await facts(store))
        finally:
            await queue.stop()
    reasons = failed_reasons(tmp_path).values()
    assert all(type(exc).__name__ in reason for reason in reasons)
    assert type(exc).__name__ in (load_status(tmp_path).last_error or "")


async def test_good_writes_beside_a_huge_one_are_kept_without_a_repair(tmp_path: Path) -> None:
    raw = json.dumps({"writes": [add("x" * 3000), add("The user likes tea.")]})
    async with FakeOpenAI(Reply.text(raw)) as server, MemoryStore(tmp_path) as store:
        model = OpenAIChatModel(name="local", base_url=server.base_url, model="m")
        writer = MemoryWriter(store, model=model)
        report = await writer.process_turn(turn("I like tea"))
        assert await facts(store) == {"The user likes tea."}
        assert len(server.requests) == 1 and report.set_aside is None
        assert report.rejected == 1
        assert "3,000 characters; the limit is 2,000" in report.problems[0]


def poisoned_queue(workspace: Path) -> list[Path]:
    folder = queue_dir(workspace)
    folder.mkdir(parents=True)
    good = turn("I live in Oslo")
    files = {
        "t_00000000000000000001.json": "[" * DEEP + "]" * DEEP,
        "t_00000000000000000002.json": json.dumps({**json.loads(good.to_json()), "user_text": 5}),
        "t_00000000000000000003.json": '{"agent_id": "agent_0", "user_te',
        "t_00000000000000000004.json": good.to_json(),
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / ".t_00000000000000000005.json.x1y2.tmp").write_text("{half", encoding="utf-8")
    return [folder / name for name in files]


async def test_a_restart_survives_poisoned_pending_files(tmp_path: Path) -> None:
    deep, typed, torn, good = poisoned_queue(tmp_path)
    async with MemoryStore(tmp_path) as store:
        async with WriterQueue(MemoryWriter(store)) as queue:
            await queue.drain()
            assert queue.stats()["running"]
            await queue.enqueue(turn("I like tea"))  # and it goes on afterwards
            await queue.drain()
        assert await facts(store) == {"The user lives in Oslo.", "The user likes tea."}
    assert pending_turn_files(tmp_path) == []
    assert list(queue_dir(tmp_path).glob("*.tmp")) == []  # temp files cleaned on start
    reasons = failed_reasons(tmp_path)
    assert sorted(reasons) == sorted(p.stem for p in (deep, typed, torn))
    assert "RecursionError" in reasons[deep.stem]
    assert "user_text must be text" in reasons[typed.stem]
    assert good.name not in {p.name for p in (queue_dir(tmp_path) / "failed").iterdir()}


def reminder(text: str, due: str, every: dict[str, Any] | None = None) -> dict[str, Any]:
    loop: dict[str, Any] = {"kind": "reminder", "due": due}
    if every is not None:
        loop["every"] = every
    return {
        "op": "add",
        "scope": "dialogue",
        "category": "event",
        "entry": {"content": text, "open_loop": loop},
    }


async def test_a_reminder_in_the_past_or_with_a_rule_that_cannot_run_is_refused(
    tmp_path: Path,
) -> None:
    """A tester's model wrote 28 reminders due on 1 January 2020, each 'every' with a rule no
    code reads ({"unit": "minute"}): /reminders listed them as "(every day at None)". A rule
    every 10**9 days has next_due count days for seconds, then overflow. A writer's reminder
    is due after the turn and its rule is one the scheduler reads; the good one is kept."""
    soon = "2026-12-01T09:00:00+00:00"
    raw = json.dumps(
        {
            "writes": [
                reminder("Remind the user to visit the site.", "2020-01-01T00:00:00+00:00"),
                reminder("Remind the user to stretch.", soon, {"unit": "minute", "interval": 1}),
                reminder(
                    "Remind the user to water the ferns.",
                    soon,
                    {"unit": "day", "at": "09:00", "interval": 10**9, "start": "2026-12-01"},
                ),
                reminder("Remind the user to call Ann.", soon, {"unit": "week", "weekday": "x"}),
                reminder("Remind the user to feed the cat.", soon, {"unit": "day", "at": "25:00"}),
                reminder(
                    "Remind the user to put the bins out.",
                    soon,
                    {"unit": "week", "weekday": 0, "at": "08:00", "tz": "Europe/London"},
                ),
            ]
        }
    )
    async with FakeOpenAI(Reply.text(raw)) as server, MemoryStore(tmp_path) as store:
        model = OpenAIChatModel(name="local", base_url=server.base_url, model="m")
        report = await MemoryWriter(store, model=model).process_turn(turn("remind me"))
        kept = [r for r in await store.list(scope="dialogue", now=NOW) if r.open_loop]
    assert [r.content for r in kept] == ["Remind the user to put the bins out."]
    assert report.rejected == 5


async def test_an_unreadable_answer_is_told_to_the_person_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A tester saw "(note: the language model gave notes I could not read, ...)" twice for
    one message: the repair's failure and the fallback each gave the person's notice (the
    terminal chat says every warning of the writer's logger, in its ``notice`` words)."""
    async with MemoryStore(tmp_path / "ws") as store, FakeOpenAI() as server:
        server.script(Reply.text("not json at all"), Reply.text("still not json"))
        model = OpenAIChatModel(name="m", base_url=server.base_url, model="m", timeout_s=5)
        with caplog.at_level("INFO", logger="familiars.memory._writer._model"):
            await MemoryWriter(store, model=model).process_turn(turn("I like tea."))
    said = [
        r
        for r in caplog.records
        if r.name == "familiars.memory._writer._model" and r.levelname == "WARNING"
    ]
    assert len(said) == 1 and "could not read" in said[0].notice
    assert any("raw output" in r.getMessage() for r in caplog.records)  # still in the log


async def test_an_update_of_someone_elses_record_is_dropped_not_added(tmp_path: Path) -> None:
    """The model named another person's record in ``supersedes_id``: theirs was untouched,
    and the speaker got a new live "The user's name is Hacked." An update whose target is
    not the speaker's, or unknown, is dropped and said in the report and the log."""
    from familiars.memory import make_record

    async with MemoryStore(tmp_path / "ws") as store, FakeOpenAI() as server:
        theirs = await store.append(
            make_record("The user's name is Maren.", scope="user", category="profile",
                        user_key="u2")
        )  # fmt: skip
        hacked = {"content": "The user's name is Hacked.", "supersedes_id": theirs.id}
        unknown = {"content": "The user's name is Nobody.", "supersedes_id": "m_0000ffff0000"}
        writes = [
            {"op": "update", "scope": "user", "category": "profile", "entry": hacked},
            {"op": "update", "scope": "user", "category": "profile", "entry": unknown},
        ]
        server.script(Reply.json({"writes": writes}))
        model = OpenAIChatModel(name="m", base_url=server.base_url, model="m", timeout_s=5)
        report = await MemoryWriter(store, model=model).process_turn(turn("hi there"))
        assert report.added == 0 and report.updated == 0 and report.rejected == 2
        assert all("not a live record of the speaker's" in p for p in report.problems)
        assert not await store.list(scope="user", user_key="u1", now=NOW)
        (still,) = await store.list(scope="user", user_key="u2", now=NOW)
        assert still.content == "The user's name is Maren."
