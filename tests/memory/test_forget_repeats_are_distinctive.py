"""A forgotten memory takes the person's other messages only where they say its value in
their own words, a value that names something of theirs (review s38 F3): a number of an
address, an age, "I'm", a title, the bot's name or an everyday word never take an unrelated
message; the town, the pet's name and the full address still do."""

from __future__ import annotations

import asyncio
import threading

import pytest

from familiars.memory import DialogTree, MemoryRecord, make_record, mentions, repeats_of
from familiars.memory._forget_values import values_of

BOB = "telegram:42"
EVE = "telegram:43"


def _record(content: str, tags: tuple[str, ...] = ()) -> MemoryRecord:
    return make_record(content, scope="user", category="fact", user_key=BOB, tags=list(tags))


def _tree(*said: tuple[str, str], agent: str = "luna", dialogue: str = "dm") -> DialogTree:
    tree = DialogTree()
    tree.agent_id, tree.dialogue_id = agent, dialogue
    for n, (user_key, text) in enumerate(said):
        kind, meta = (
            ("A", {"speaker": "Luna"}) if user_key == "bot" else ("Q", {"user_key": user_key})
        )
        tree.add_node(text, [1.0, 0.0], node_type=kind, timestamp=float(n), metadata=meta)
    return tree


def _taken(content: str, *said: str, tags: tuple[str, ...] = ()) -> list[str]:
    tree = _tree(*((BOB, s) for s in said))
    return [r.text for r in repeats_of([_record(content, tags)], [tree])]


@pytest.mark.parametrize(
    ("content", "unrelated"),
    [
        ("The user lives at 12 Park Road, Leeds.", "see you at 12"),
        ("The user is 34 years old.", "the 34 bus was late again"),
        ("The user is 34 years old.", "it was 34 degrees"),
        ("The user said: I'm vegan and I'm tired.", "I'm off to bed"),
        ("The user's cat is called Mr. Whiskers", "Mr Smith came round"),
        ("The user calls the familiar Luna.", "thanks Luna!"),
        ("The user prefers replies in English.", "my english homework is due"),
        ("The user prefers replies in English.", "I speak English and French"),
        ("The user is learning Python.", "there was a python at the zoo"),
    ],
)
def test_an_unrelated_message_is_not_taken(content: str, unrelated: str) -> None:
    assert _taken(content, unrelated) == []


@pytest.mark.parametrize(
    ("content", "repeat"),
    [
        ("The user lives in Leeds.", "I'm Mia, dental hygienist in Leeds"),
        ("The user lives at 12 Park Road, Leeds.", "I moved into 12 Park Road last spring"),
        ("The user lives in London.", "I live in London now"),
        ("The user's cat is called Mr. Whiskers", "Whiskers knocked over a vase"),
        ("The user is 34 years old.", "I'm 34 years old next week"),
        ("The user works as a dental hygienist.", "as a dental hygienist I see teeth"),
    ],
)
def test_a_true_repeat_still_goes(content: str, repeat: str) -> None:
    assert _taken(content, repeat) == [repeat]


def test_a_number_is_a_value_only_in_its_phrase() -> None:
    assert values_of("The user lives at 12 Park Road, Leeds.") == ["12 Park Road", "Leeds"]
    assert not mentions("12 Park Road", "the 12 park road buses")  # everyday words: as written
    assert not mentions("Leeds", "leedsy")


def test_only_the_persons_own_messages_are_taken_in_any_dialogue() -> None:
    rec = _record("The user lives in Leeds.")
    dm = _tree((BOB, "back in Leeds"), ("bot", "Leeds is lovely"))
    group = _tree((EVE, "I'm in Leeds too"), (BOB, "Leeds again"), dialogue="group")
    found = repeats_of([rec], [dm, group])
    assert [(r.ref.dialogue_id, r.text, r.records) for r in found] == [
        ("dm", "back in Leeds", (rec.id,)),
        ("group", "Leeds again", (rec.id,)),
    ]


def test_the_repeats_are_found_off_the_event_loop(tmp_path: object) -> None:
    """Forgetter.repeating reads the messages in a worker thread: the loop keeps serving."""
    from familiars.memory import _forget

    seen: list[str] = []

    def spy(*args: object, **kwargs: object) -> list[object]:
        seen.append(threading.current_thread().name)
        return []

    class Trees:
        def stored(self) -> list[tuple[str, str]]:
            return []

    forgetter = object.__new__(_forget.Forgetter)
    forgetter.trees = Trees()  # type: ignore[assignment]
    forgetter.bot_names = set()
    original = _forget.repeats_of
    _forget.repeats_of = spy  # type: ignore[assignment]
    try:
        asyncio.run(forgetter.repeating([_record("The user lives in Leeds.")]))
    finally:
        _forget.repeats_of = original
    assert seen and seen[0] != threading.main_thread().name


def test_the_agents_configured_name_is_no_value() -> None:
    rec = _record("The user calls the familiar Nyx.")
    tree = _tree((BOB, "good night Nyx"), agent="agent_0")
    assert repeats_of([rec], [tree]) and repeats_of([rec], [tree], names=["Nyx"]) == []
