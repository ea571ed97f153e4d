"""Issue 20, the turn is cheap: the plan reads the person's name from their records every
turn; each record's text is read for it once, not once a turn. Counts, times nothing."""

from __future__ import annotations

from familiars.bot._answers import _name_in, name_of


def test_the_name_is_read_from_each_text_once_across_turns() -> None:
    contents = [f"The user read book {i} this week." for i in range(300)]
    contents.append("The user's name is Ana Lopez.")
    assert name_of(contents) == "Ana Lopez"
    before = _name_in.cache_info()
    assert name_of(contents) == "Ana Lopez"  # the next turn, the same records
    after = _name_in.cache_info()
    assert after.misses == before.misses
    assert after.hits - before.hits == len(contents)


def test_the_first_record_naming_the_person_wins() -> None:
    assert (
        name_of(["The user likes tea.", "The user's name is Bo.", "The user's name is Al."]) == "Bo"
    )
    assert name_of(["The user likes tea."]) == ""
