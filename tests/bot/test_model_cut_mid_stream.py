"""A model reply the server cuts under way (an error event, ``finish_reason`` "error",
"abort" or "length", the connection closed) is said with what arrived and a note that it
was cut; the message and the cut reply are still recorded, and the writer still runs. It
came as a truncated reply with no word of it (person-tester, session 36). The server is a
scripted OpenAI-compatible one on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.llm import OUTPUT_CUT, OpenAIChatModel, StreamCutError
from familiars.memory import is_forgotten
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app, message, say

pytestmark = pytest.mark.timeout(120)

SAID = "Your sister Meera sounds lovely, and I"


@pytest.fixture(autouse=True)
def _no_ai_disclosure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAMILIARS_CARE__AI_DISCLOSURE", "false")


@pytest.mark.parametrize(
    "scripted",
    [
        Reply.stops(SAID, "error"),
        Reply.stops(SAID, "abort"),
        Reply.stops(SAID, "length"),
        Reply.fails_midway(SAID),
        Reply.cut(SAID),
    ],
    ids=["finish-error", "finish-abort", "finish-length", "error-event", "closed"],
)
async def test_a_reply_cut_under_way_says_so_and_the_turn_is_kept(
    workspace: Path, scripted: Reply
) -> None:
    async with FakeOpenAI(Reply.json({"writes": []})) as server:
        server.script(scripted)
        provider = {"name": "a", "base_url": server.base_url, "model": "m", "tools": "off"}
        app = make_app(load_settings(workspace=workspace, llm={"providers": [provider]}))
        async with app:
            reply = await say(app, message("my sister is called Meera"))
            assert app.trees is not None
            tree = app.trees.get("agent_0", "dialogue_0")
            kept = [n for n in tree.node_list if n.content and not is_forgotten(n)]
            noted = [r.content for r in await app.memory.store.list()]
        writer_asked = [r for r in server.requests if not r.body.get("stream")]
    assert " ".join(reply.split()).startswith(SAID), reply
    assert OUTPUT_CUT.strip() in reply, reply
    assert [n.content for n in kept if n.node_type == "Q"] == ["my sister is called Meera"]
    assert any(OUTPUT_CUT.strip() in n.content for n in kept if n.node_type == "A"), kept
    # the writer ran on the turn: through the model, or (the model resting after its
    # failure) with the offline rules
    assert writer_asked or any("Meera" in r for r in noted), noted


@pytest.mark.parametrize(
    ("scripted", "raises"),
    [
        (Reply.stops("half a thought", "error"), True),
        (Reply.fails_midway("half a thought"), True),
        (Reply.stops("half a thought", "length"), False),
        (Reply.stops("a whole thought", "stop"), False),
    ],
)
async def test_the_client_tells_a_cut_stream_from_a_whole_one(
    scripted: Reply, raises: bool
) -> None:
    async with FakeOpenAI() as server:
        server.script(scripted)
        model = OpenAIChatModel(name="a", base_url=server.base_url, model="m")
        seen: list[str] = []
        try:
            async for chunk in model.stream([]):
                seen.append(chunk)
        except StreamCutError:
            assert raises
        else:
            assert not raises
        finally:
            await model.aclose()
    said = "".join(seen)
    assert said.split()[:2] == scripted.content.split()[:2]
    assert said.endswith(OUTPUT_CUT) == (scripted.finish == "length")
