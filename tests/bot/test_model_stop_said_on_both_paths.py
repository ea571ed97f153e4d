"""A reply that stopped short (``finish_reason`` "length", "error" or "abort") is marked
" ...(cut off)" on both of the model's paths: streamed, and answered whole through the tools
(that one came as if complete: review s37). One check reads the reason for both
(``familiars.llm.reply_stop``), and the mark follows the text with one space, never two
(a stream's pieces end in a space: "and I  ...(cut off)"). The server is the scripted
OpenAI-compatible one on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from familiars.config import load_settings
from familiars.llm import OUTPUT_CUT, OpenAIChatModel, cut_mark, reply_stop
from familiars.memory import is_forgotten
from tests.fake_openai import FakeOpenAI, Reply
from tests.harness import make_app, message, say

pytestmark = pytest.mark.timeout(120)

SAID = "Your sister Meera sounds lovely, and I"


def test_one_check_reads_why_a_reply_stopped() -> None:
    assert reply_stop("length") == "length"
    assert reply_stop("error") == reply_stop("abort") == "failed"
    assert reply_stop("stop") is reply_stop("tool_calls") is reply_stop(None) is None
    assert "and I " + cut_mark("and I ") == "and I" + cut_mark("and I") == SAID[-5:] + OUTPUT_CUT


@pytest.mark.parametrize("finish", ["length", "error", "abort"])
@pytest.mark.parametrize("path", ["tools", "stream"])
async def test_a_reply_that_stopped_short_is_marked_cut_off_on_both_paths(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, path: str, finish: str
) -> None:
    monkeypatch.setenv("FAMILIARS_CARE__AI_DISCLOSURE", "false")

    def model(body: dict[str, Any]) -> Reply:
        if "tools" in body or body.get("stream"):
            return Reply.stops(SAID, finish)
        return Reply.json({"writes": []})  # the memory writer

    async with FakeOpenAI(model) as server:
        tools = "on" if path == "tools" else "off"
        provider = {"name": "a", "base_url": server.base_url, "model": "m", "tools": tools}
        app = make_app(load_settings(workspace=workspace, llm={"providers": [provider]}))
        async with app:
            reply = await say(app, message("my sister is called Meera"))
            assert app.trees is not None
            tree = app.trees.get("agent_0", "dialogue_0")
            kept = [n.content for n in tree.node_list if n.node_type == "A" and not is_forgotten(n)]
        asked_with_tools = [r for r in server.requests if "tools" in r.body]
    assert bool(asked_with_tools) == (path == "tools")
    assert reply == SAID + OUTPUT_CUT, reply
    assert kept == [SAID + OUTPUT_CUT], kept


async def test_a_whole_answer_that_stopped_short_is_marked_in_the_client() -> None:
    async with FakeOpenAI() as server:
        server.script(Reply.stops("half a thought ", "length"), Reply.stops("whole", "stop"))
        model = OpenAIChatModel(name="a", base_url=server.base_url, model="m")
        try:
            cut = await model.chat([])
            whole = await model.chat([])
        finally:
            await model.aclose()
    assert (cut.text, cut.cut) == ("half a thought" + OUTPUT_CUT, True)
    assert (whole.text, whole.cut) == ("whole", False)
