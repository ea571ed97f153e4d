"""The MemoryWriter driven by a chat model: a local OpenAI-compatible server on 127.0.0.1
replies good JSON, broken JSON, JSON outside VALID_CELLS, a timeout, a 429 and a 500."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from familiars.llm import OpenAIChatModel, ProviderRouter
from familiars.memory import MemoryStore
from familiars.memory._writer._dedupe import EmbedderVectors
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._turn import TurnContext
from tests.fake_openai import FakeOpenAI, Reply
from tests.fakes import HashEmbedder

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)


class Clock:
    t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
async def store(tmp_path):
    async with MemoryStore(tmp_path / "ws") as s:
        yield s


@pytest.fixture
async def server():
    async with FakeOpenAI() as srv:
        yield srv


def model(server, name="local", timeout_s=5.0, clock=None):
    kw = {"clock": clock} if clock else {}
    return OpenAIChatModel(
        name=name, base_url=server.base_url, model="m", timeout_s=timeout_s, **kw
    )


def turn(text) -> TurnContext:
    return TurnContext(
        agent_id="agent_0",
        dialogue_id="dialogue_1",
        user_key="u1",
        user_text=text,
        reply_text="Nice!",
        now=NOW.isoformat(),
        turn_id=3,
    )


def writes(*items):
    return Reply.json({"writes": list(items)})


def add(content, scope="user", category="preference", **entry):
    return {
        "op": "add",
        "scope": scope,
        "category": category,
        "entry": {"content": content, "salience": 0.7, **entry},
    }


async def user_records(store):
    return await store.list(scope="user", user_key="u1", now=NOW)


async def test_good_json_is_written_and_prompt_shows_cells_and_existing(store, server):
    server.script(writes(add("The user likes jazz.")), writes(add("The user plays piano.")))
    writer = MemoryWriter(store, model=model(server))
    await writer.process_turn(turn("I like jazz"))
    await writer.process_turn(turn("I play the piano"))
    assert {r.content for r in await user_records(store)} == {
        "The user likes jazz.",
        "The user plays piano.",
    }
    prompt = server.requests[1].body["messages"]
    assert "user/preference" in prompt[0]["content"]  # the valid cells
    assert "The user likes jazz." in prompt[1]["content"]  # existing memories shown
    assert "User: I play the piano" in prompt[1]["content"]
    assert server.requests[0].body["response_format"]["type"] == "json_schema"


async def test_broken_json_gets_one_repair_with_the_error(store, server):
    server.script(Reply.text('{"writes": [{"op": "add",,}'), writes(add("The user likes tea.")))
    writer = MemoryWriter(store, model=model(server))
    report = await writer.process_turn(turn("I like tea"))
    assert report.added == 1 and writer.stats.repairs == 1 and writer.stats.failures == 0
    repair = server.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"writes": [{"op": "add",,}'}
    assert "invalid" in repair[-1]["content"] and "not JSON" in repair[-1]["content"]


async def test_broken_twice_falls_back_offline_and_counts_the_failure(store, server, caplog):
    server.script(Reply.text("I think the user likes tea"), Reply.text("{still not json"))
    writer = MemoryWriter(store, model=model(server))
    with caplog.at_level("WARNING"):
        report = await writer.process_turn(turn("I like tea"))
    # The turn is not dropped: the offline writer keeps the fact, and the reason is kept.
    assert [r.content for r in await user_records(store)] == ["The user likes tea."]
    assert report.added == 1 and "invalid after repair" in (report.set_aside or "")
    assert writer.stats.failures == 1 and writer.stats.repairs == 1
    assert writer.stats.offline_fallbacks == 1
    assert "invalid after repair" in (writer.stats.last_error or "")
    assert any("{still not json" in r.getMessage() for r in caplog.records)  # raw output logged


async def test_outside_valid_cells_is_rejected_and_good_writes_kept(store, server):
    server.script(writes(add("bad cell", category="directive"), add("The user likes tea.")))
    writer = MemoryWriter(store, model=model(server))
    report = await writer.process_turn(turn("I like tea"))
    assert report.added == 1 and report.rejected == 1
    assert len(server.requests) == 1  # a good write came through: no repair needed
    # All writes outside the cells: one repair, then rejected, nothing written.
    server.script(
        writes(add("x", scope="user", category="state")),
        writes(add("y", scope="identity", category="profile")),
    )
    report = await writer.process_turn(turn("whatever"))
    assert report.added == 0 and writer.stats.failures == 1 and writer.stats.repairs == 1
    assert [r.content for r in await user_records(store)] == ["The user likes tea."]


async def test_timeout_falls_back_to_offline_writer_and_cools_the_provider(store):
    clock = Clock()
    async with FakeOpenAI() as srv:
        srv.script(Reply.hang())
        router = ProviderRouter(
            [model(srv, timeout_s=0.3, clock=clock)], cooldown_error_s=60, clock=clock
        )
        writer = MemoryWriter(store, model=router)
        report = await writer.process_turn(turn("My name is Alice"))
        assert report.added == 1 and writer.stats.offline_fallbacks == 1
        assert [r.content for r in await user_records(store)] == ["The user's name is Alice."]
        [state] = writer.provider_states()
        assert state["status"] == "cooling" and state["cooldown_left_s"] == 60
        # While cooling: no request at all, the offline writer answers.
        await writer.process_turn(turn("I like tea"))
        assert len(srv.requests) == 1


async def test_429_and_500_fail_over_to_the_next_provider(store):
    clock = Clock()
    async with FakeOpenAI() as first, FakeOpenAI() as second:
        first.script(Reply.status(429, retry_after=300))
        second.default = writes(add("The user likes tea."))
        router = ProviderRouter(
            [model(first, "first", clock=clock), model(second, "second", clock=clock)],
            cooldown_quota_s=3600,
            cooldown_error_s=60,
            clock=clock,
        )
        writer = MemoryWriter(store, model=router)
        report = await writer.process_turn(turn("I like tea"))
        assert report.added == 1
        states = {s["name"]: s for s in writer.provider_states()}
        assert states["first"]["cooldown_left_s"] == 300 and states["second"]["status"] == "ok"
        clock.t += 301
        first.script(Reply.status(500))
        second.default = writes(add("The user likes jazz."))
        await writer.process_turn(turn("I like jazz"))
        states = {s["name"]: s for s in writer.provider_states()}
        assert states["first"]["cooldown_left_s"] == 60
        assert len(await user_records(store)) == 2


PARAPHRASES = {
    "name": ["The user's name is Alice.", "The user is named Alice.", "The user is called Alice."],
    "hiking": ["The user likes hiking.", "The user enjoys hiking.", "The user loves hiking."],
    "home": [
        "The user lives in Berlin.",
        "The user resides in Berlin.",
        "The user lives in Berlin, Germany.",
    ],
    "work": ["The user works at Acme.", "The user works for Acme.", "The user is working at Acme."],
    "birthday": [
        "The user's birthday is on March 3.",
        "The user's birthday is March 3rd.",
        "The user's birthday is on the 3rd of March.",
    ],
}
CELL = {
    "name": "profile",
    "hiking": "preference",
    "home": "profile",
    "work": "profile",
    "birthday": "profile",
}


def sloppy_model(counter):
    """A model that always says "add", in varied wording, and never names supersedes_id."""

    def reply(body):
        text = body["messages"][-1]["content"]
        said = re.search(r"User: (.*)", text).group(1)
        fact = said.split("|")[0]
        counter[fact] = counter.get(fact, 0) + 1
        content = PARAPHRASES[fact][counter[fact] % 3]
        return Reply.json({"writes": [add(content, category=CELL[fact])]})

    return reply


@pytest.fixture
def real_vectors(real_embedder):
    return EmbedderVectors(real_embedder)


async def test_five_facts_fifteen_times_with_a_sloppy_model_leave_five_records(store, real_vectors):
    counter: dict[str, int] = {}
    async with FakeOpenAI(default=sloppy_model(counter)) as srv:
        # With all-MiniLM-L6-v2 paraphrases of one fact score 0.88-0.98 and different facts at
        # most 0.48 (figures in the issue note); 0.85 separates them.
        writer = MemoryWriter(store, model=model(srv), vectors=real_vectors, dedupe_cosine=0.85)
        for i in range(15):
            for fact in PARAPHRASES:
                await writer.process_turn(turn(f"{fact}|{i}"))
    records = await user_records(store)
    assert len(records) == 5, [r.content for r in records]
    assert writer.stats.turns_processed == 75 and writer.stats.added == 5
    assert writer.stats.skipped == 70
    # Not even superseded copies: the sloppy "add"s of a known fact are skipped.
    assert len(await store.list(scope="user", user_key="u1", live_only=False)) == 5


async def test_hash_vectors_are_enough_for_exact_repeats(store, server):
    server.default = writes(add("The user likes tea."))
    writer = MemoryWriter(store, model=model(server), vectors=EmbedderVectors(HashEmbedder()))
    for _ in range(5):
        await writer.process_turn(turn("I like tea"))
    assert len(await user_records(store)) == 1
    assert "The user likes tea." in server.requests[1].body["messages"][1]["content"]
