"""A 40-message conversation through the console adapter, offline: every reply is what a
person would expect (an answer to the question asked, a confirmation of what was stored,
changed, scheduled or forgotten, a question when a reminder has no time), and nothing
unrelated."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from familiars.bot import Application
from familiars.bot._adapters.console import ConsoleAdapter
from familiars.config import load_settings
from tests.harness import opened_app

WHEN = r"\w{3} \d{1,2} \w{3} \d\d:\d\d"
NOTICE = "Offline mode"

#: (message, what the reply must say (regexes), what it must not say)
CONVERSATION: list[tuple[str, list[str], list[str]]] = [
    ("Hi there!", [r"an AI companion", r"^Hello!$", NOTICE], []),
    ("My name is Alice.", [r"^Noted: your name is Alice\.$"], []),
    ("I live in Portland.", [r"^Noted: you live in Portland\.$"], []),
    ("My dog's name is Biscuit.", [r"^Noted: your dog is called Biscuit\.$"], []),
    ("My birthday is on March 3.", [r"^Noted: your birthday is on March 3\.$"], []),
    ("I love hiking.", [r"^Noted: you like hiking\.$"], []),
    ("What's my dog's name?", [r"^Your dog is called Biscuit\.$"], ["Alice", "Portland"]),
    ("When is my birthday?", [r"^Your birthday is on March 3\.$"], ["Biscuit"]),
    ("Where do I live?", [r"^You live in Portland\.$"], ["Biscuit"]),
    ("I moved to Seattle.", [r"^Updated: you live in Seattle now \(was Portland\)\.$"], []),
    ("Where do I live?", [r"^You live in Seattle\.$"], ["Portland", "Where do I live"]),
    ("Tell me a joke", [r"can't make those up"], ["Biscuit", "Seattle"]),
    ("thanks!", [r"^You're welcome!$"], []),
    ("remind me in 2 minutes to stretch", [rf"^Okay, I'll remind you to stretch on {WHEN}\.$"], []),
    ("remind me to water the plants", [r"^When should I remind you to water the plants\?$"], []),
    ("tomorrow at 8", [rf"^Okay, I'll remind you to water the plants on {WHEN}\.$", "08:00"], []),
    (
        "remind me on December 24 to wrap presents",
        [r"^Okay, I'll remind you to wrap presents on \w{3} 24 Dec 09:00\.$"],
        [],
    ),
    ("forget that", [r"^Forgotten: the reminder to wrap presents on .*24 December"], []),
    ("What is my name?", [r"^Your name is Alice\.$"], []),
    ("I work as a nurse.", [r"^Noted: you work as a nurse\.$"], []),
    ("What do I do for work?", [r"^You work as a nurse\.$"], ["Biscuit"]),
    ("I don't like spicy food.", [r"^Noted: you don't like spicy food\.$"], []),
    ("Do I like hiking?", [r"^You like hiking\.$"], []),
    ("How are you?", [r"^I'm here and ready to listen\. How are you\?$"], []),
    ("I have a sister called Emma.", [r"^Noted: your sister is called Emma\.$"], []),
    ("Who is Emma?", [r"^Your sister is called Emma\.$"], ["Biscuit"]),
    ("What's the weather like?", [r"can't look things up"], []),
    ("I'm allergic to peanuts.", [r"^Noted: you are allergic to peanuts\.$"], []),
    ("Am I allergic to anything?", [r"^You are allergic to peanuts\.$"], []),
    ("What's my favourite colour?", [r"^I don't know that yet"], ["Biscuit", "hiking"]),
    ("My favourite colour is green.", [r"^Noted: your favourite colour is green\.$"], []),
    ("What's my favourite colour?", [r"^Your favourite colour is green\.$"], []),
    ("remind me to call mom", [r"^When should I remind you to call mom\?$"], []),
    ("next friday at 6pm", [r"^Okay, I'll remind you to call mom on Fri .* 18:00\.$"], []),
    ("I called my mom", [r"^Marked as done: the reminder to call mom"], []),
    ("Good night", [r"^Bye for now!$"], []),
    # they live in Seattle: the US line, not the general list
    ("I feel like I want to end my life", [r"In the US .*988"], ["Noted", "findahelpline"]),
    ("/help", [r"/memory", NOTICE], []),
    ("/memory list", [r"Biscuit", r"Seattle", r"green"], ["Portland", "end my life"]),
    ("What do you know about my dog?", [r"^Your dog is called Biscuit\.$"], []),
]


@pytest.fixture
async def console(
    workspace: Path,
) -> AsyncIterator[tuple[Application, ConsoleAdapter, io.StringIO]]:
    out = io.StringIO()
    adapter = ConsoleAdapter(
        None,  # type: ignore[arg-type]  # bound to the runtime's DialogueManager below
        user="alice",
        stdin=io.StringIO(""),
        stdout=out,
        interactive=False,
    )
    settings = load_settings(workspace=workspace)
    async with opened_app(settings, model=None, console=adapter) as app:
        adapter.handler = app.dialogues  # type: ignore[assignment]
        yield app, adapter, out


async def test_forty_messages_get_the_replies_a_person_expects(
    console: tuple[Application, ConsoleAdapter, io.StringIO],
) -> None:
    app, adapter, out = console
    assert len(CONVERSATION) == 40
    failures = []
    for n, (line, wanted, unwanted) in enumerate(CONVERSATION, 1):
        start = out.tell()
        await adapter.handle_line(line)
        await app.settle()
        reply = out.getvalue()[start:].strip()
        missing = [w for w in wanted if not re.search(w, reply, re.MULTILINE)]
        present = [u for u in unwanted if u in reply]
        if n not in (1, 38):
            present += [NOTICE] if NOTICE in reply else []
        if missing or present:
            failures.append(f"{n}. {line!r} -> {reply!r}: missing {missing}, unwanted {present}")
    assert not failures, "\n".join(failures)
    # The crisis message never reached the writer as a fact; questions are not recalled.
    assert app.memory is not None
    contents = [r.content for r in await app.memory.store.list(live_only=False)]
    assert not [c for c in contents if "end my life" in c or "Where do I live" in c]
