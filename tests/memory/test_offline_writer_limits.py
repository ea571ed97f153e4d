"""The offline writer skips what no record could hold (a word or a clause over
``memory.max_record_chars``), never the whole message (issue 13: one 2,500-character word
lost every fact of its message)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from familiars.memory import MemoryStore, offline_writes
from familiars.memory._writer._model import MemoryWriter
from familiars.memory._writer._turn import TurnContext

NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
WORD = "x" * 2500


def said(text: str, **kw: int) -> list[str]:
    return [w.entry.content for w in offline_writes(text, existing=[], now=NOW, **kw).writes]


@pytest.mark.parametrize(
    "text",
    [
        f"My name is Ann. I like {WORD}. I live in Oslo.",
        f"My name is Ann and I like {WORD} and I live in Oslo",
        f"My name is Ann, I live in Oslo, and remember that my code is {WORD}!",
    ],
    ids=["sentences", "clauses", "note"],
)
def test_a_2500_character_word_loses_only_its_clause(text: str) -> None:
    assert said(text) == ["The user's name is Ann.", "The user lives in Oslo."]


def test_a_clause_over_the_limit_is_skipped_and_the_rest_kept() -> None:
    long_clause = "I love " + "long walks by the sea " * 120  # ~2,600 characters of words
    assert said(f"{long_clause}. My name is Ann.") == ["The user's name is Ann."]
    # Under a larger configured limit the same clause is a fact like any other.
    assert len(said(f"{long_clause}. My name is Ann.", max_chars=4000)) == 2


def test_a_fact_sentence_over_the_limit_is_left_out() -> None:
    assert said("I like " + "y" * 1995 + ". I live in Rome") == ["The user lives in Rome."]


async def test_the_writer_stores_the_other_facts_of_the_message(tmp_path) -> None:
    async with MemoryStore(tmp_path) as store:
        writer = MemoryWriter(store)
        text = f"My name is Ann. I like {WORD}. I live in Oslo."
        report = await writer.process_turn(
            TurnContext(agent_id="agent_0", dialogue_id="dialogue_1", user_key="u1", user_text=text)
        )
        assert report.added == 2 and report.rejected == 0


async def test_the_store_refuses_a_memory_that_says_nothing(tmp_path) -> None:
    """Every write road passes the store: an empty or blank text is refused there, and a
    correction to nothing too (``familiars memory add ""`` kept an empty record)."""
    from familiars.memory import MemoryError_, make_record

    async with MemoryStore(tmp_path) as store:
        for text in ("", "  \n "):
            rec = make_record(text, scope="user", category="profile", user_key="u1")
            with pytest.raises(MemoryError_, match="empty: a memory needs some text"):
                await store.append(rec)
        kept = await store.append(
            make_record("Ann lives in Oslo.", scope="user", category="profile", user_key="u1")
        )
        with pytest.raises(MemoryError_, match="empty"):
            await store.update(kept.id, " ")
        assert [r.content for r in await store.list(scope="user")] == ["Ann lives in Oslo."]
