"""Issue 23 (s38): what is not the speaker's own fact and what is said in other shapes, each
through the offline writer as the runtime calls it, with the bundled understanding. Others'
words (reported speech holding an apostrophe, a saying applied), someone else as the subject
of what meaning reads, a hedge after a value, lists under a header, texting spellings,
liking idioms, a relative's value put right, a name that is a preposition."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryRecord, Understanding, offline_writes, understanding_for

NOW = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def understanding(real_embedder: object) -> Understanding:
    found = understanding_for(real_embedder.embed_batch, *real_embedder.space)  # type: ignore[attr-defined]
    assert found is not None
    return found


def _kept(text: str, understanding: Understanding, *prior: MemoryRecord) -> list[str]:
    out = offline_writes(
        text, existing=list(prior), now=NOW, timezone="Europe/London", understanding=understanding
    )
    return [w.entry.content for w in out.writes if w.op != "skip"]


@pytest.mark.parametrize(
    "text",
    [
        "my gran always said 'I'm nobody's fool, I love a good argument'",
        "as my dad would say, I'm a man of leisure",
        "Tom from the pub has a greyhound called Dash",
        "my coworker Linda has two sons and a husband called Phil",
        "my name is on the rota for Sunday",
        "shopping list: bread, milk, teabags",
    ],
)
def test_what_is_not_the_speakers_own_keeps_nothing(
    text: str, understanding: Understanding
) -> None:
    assert _kept(text, understanding) == []


def test_a_relatives_pronoun_clause_gives_the_speaker_no_job(
    understanding: Understanding,
) -> None:
    kept = _kept("my husband is from Poland, he is working as a welder", understanding)
    assert not any(c.startswith("The user works") for c in kept)


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I'm a paramedic basically", "The user works as a paramedic."),
        ("alergic to kiwi lol", "The user is allergic to kiwi."),
        ("i wrk at lidl", "The user works at Lidl."),
        ("am a retired postman", "retired postman"),
        ("gave up meat ages ago lol I'm vegan now", "vegan"),
        ("I'm more of a tea person", "The user likes tea."),
        ("not really a cat person", "cat"),
        (
            "we had a lovely long walk by the river with the kids and the dog I'm a childminder",
            "The user works as a childminder.",
        ),
        ("I am sixty-five years of age", "The user is 65 years old."),
    ],
)
def test_plain_and_texted_wordings(text: str, wanted: str, understanding: Understanding) -> None:
    assert any(wanted in c for c in _kept(text, understanding))


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Things I love: 1) gin 2) crosswords", ["gin", "crosswords"]),
        ("Allergies:\n- aspirin\n- wasps", ["aspirin", "wasps"]),
        ("- name: Omar\n- age: 52", ["Omar", "52"]),
        ("Pets:\n- Dot (hamster)\n- Ziggy (rabbit)", ["Dot", "Ziggy"]),
    ],
)
def test_a_list_under_a_header_is_read_item_by_item(
    text: str, wanted: list[str], understanding: Understanding
) -> None:
    kept = _kept(text, understanding)
    for value in wanted:
        assert any(value in c for c in kept), (value, kept)


def test_a_relatives_value_put_right_supersedes_their_record(
    understanding: Understanding,
) -> None:
    son = MemoryRecord(
        id="m_son", scope="user", category="relation", content="The user's son Leo is a chef.",
        tags=["family", "topic:leo"], user_key="u", ts=NOW.isoformat(),
    )  # fmt: skip
    out = offline_writes(
        "Leo's a baker, not a chef", existing=[son], now=NOW, understanding=understanding
    )
    assert [(w.entry.content, w.entry.supersedes_id) for w in out.writes] == [
        ("The user's son Leo is a baker.", "m_son")
    ]
