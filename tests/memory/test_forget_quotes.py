"""Which quotes a forget takes out of the memories it keeps (``_forget_quotes``): those of a
memory noted from a forgotten message, and those that are a piece of forgotten words; not a
quote a reply taken along merely resembles, nor one too short to say which."""

from __future__ import annotations

from familiars.memory import MemoryRecord
from familiars.memory._forget_files import forgotten_of
from familiars.memory._forget_quotes import from_forgotten, quotes_to_drop

TURN = ("agent_0", "dialogue_0", 0)
SAID = "evening all! I run a little bakery in Whitby and we've got a whippet called Biscuit"
REPLY = "Updated: you live in Scarborough now (was Whitby)."
GONE = forgotten_of([TURN], [SAID, REPLY, "The user lives in Whitby."], replies=[REPLY])


def _rec(rid: str, quotes: list[str], **fields: object) -> MemoryRecord:
    return MemoryRecord(id=rid, scope="user", category="profile", content="x", **fields,
                        source_quote=quotes)  # type: ignore[arg-type]  # fmt: skip


def test_a_piece_of_a_forgotten_message_goes() -> None:
    assert from_forgotten("User message: 'I run a little bakery in Whitby'", GONE)
    assert from_forgotten("I run a little bakery", GONE)


def test_a_reply_taken_along_or_a_few_words_do_not_take_a_quote() -> None:
    assert not from_forgotten("User message: 'we live in Scarborough now'", GONE)
    assert not from_forgotten("User message: 'evening all'", GONE)


def test_a_memory_told_in_the_forgotten_turn_loses_every_quote_a_merged_one_only_its() -> None:
    told = _rec("m_1", ["User message: 'we've got a whippet'"])
    merged = _rec("m_2", ["User message: 'I run a little bakery in Whitby'", "I bake"],
                  derived_from=["m_8", "m_9"])  # fmt: skip
    other = _rec("m_3", ["User message: 'we live in Scarborough now'"])
    evidence = {"m_1": [TURN], "m_2": [TURN], "m_3": [("agent_0", "dialogue_0", 2)]}
    dropped = quotes_to_drop([told, merged, other], GONE, lambda r: evidence[r.id])
    assert dropped == {
        "m_1": ["User message: 'we've got a whippet'"],
        "m_2": ["User message: 'I run a little bakery in Whitby'"],
    }
