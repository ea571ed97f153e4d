"""split_message: pieces within the limit, paragraph breaks preferred, code blocks closed and
reopened across pieces, and stable prefixes (the Discord reply stream relies on that)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from familiars.bot._adapters.base import split_message

TOKENS = st.sampled_from(
    ["a", "b", " ", "\n", "\n\n", "xxxxxxxxxx", "\n```\n", "\n```yy\n", "\n```" + "y" * 30 + "\n"]
)
TEXTS = st.lists(TOKENS, max_size=200).map("".join)


def content(text: str) -> str:
    """What a reader sees, ignoring whitespace, fences and the fences' info strings (y)."""
    return "".join(text.replace("`", "").replace("y", "").split())


def fence_lines(piece: str) -> int:
    return sum(1 for line in piece.split("\n") if line.strip().startswith("```"))


def test_short_text_is_one_piece_and_empty_text_none() -> None:
    assert split_message("hello", 2000) == ["hello"]
    assert split_message("", 2000) == []


def test_too_small_a_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        split_message("hello", 15)


def test_prefers_paragraph_breaks() -> None:
    text = "first paragraph " * 5 + "\n\n" + "second paragraph " * 5
    pieces = split_message(text, 100)
    assert pieces[0] == ("first paragraph " * 5) + "\n\n"
    assert pieces[1] == ("second paragraph " * 5).strip() + " "


def test_code_block_is_closed_and_reopened_with_its_fence_line() -> None:
    code = "\n".join(f"print({i})" for i in range(300))
    text = f"Here:\n```python\n{code}\n```\nDone."
    pieces = split_message(text, 2000)
    assert len(pieces) > 1
    assert all(len(p) <= 2000 for p in pieces)
    assert pieces[0].endswith("\n```")
    for piece in pieces[1:]:
        assert piece.startswith("```python\n")
    for piece in pieces[:-1]:
        assert fence_lines(piece) % 2 == 0
    assert pieces[-1].endswith("```\nDone.")


def test_fence_line_too_long_to_repeat_is_reopened_plain() -> None:
    text = "```" + "y" * 40 + "\n" + "code line\n" * 20
    pieces = split_message(text, 40)
    assert all(len(p) <= 40 for p in pieces)
    assert all(p.startswith("```\n") for p in pieces[1:])


def test_a_hundred_kilobytes_without_spaces() -> None:
    pieces = split_message("z" * 100_000, 2000)
    assert all(len(p) <= 2000 for p in pieces)
    assert "".join(pieces) == "z" * 100_000


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.integers(16, 80))
def test_pieces_fit_keep_the_content_and_close_their_blocks(text: str, limit: int) -> None:
    pieces = split_message(text, limit)
    assert all(len(p) <= limit for p in pieces)
    assert content("".join(pieces)) == content(text)
    assert all(fence_lines(p) % 2 == 0 for p in pieces[:-1])


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.integers(16, 80), TEXTS)
def test_pieces_before_the_last_do_not_change_when_text_is_appended(
    text: str, limit: int, more: str
) -> None:
    pieces = split_message(text, limit)
    settled = pieces[:-1]
    assert split_message(text + more, limit)[: len(settled)] == settled
