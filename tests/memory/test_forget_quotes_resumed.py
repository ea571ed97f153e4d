"""A forget cut off while it takes the quotes of what went out of the memories it keeps
(see ``tests/bot/test_forget_keeps_no_quote_of_it.py``) is finished at the next start.

It lives with memory's tests because its cut-off point is the store's private step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from familiars.memory import _history
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_keeps_no_quote_of_it import INTRO, dot_says, memories_of, offline

pytestmark = pytest.mark.timeout(180)


async def test_a_forget_cut_off_mid_scrub_is_finished_at_the_next_start(
    tmp_path: Path, memory_home: str, real_embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut off after the kept memory's history lost the quote but before its entry did
    (the start then notes the entry's quote as a hand edit, in a new event): the next start
    finishes the forget, and the quote goes from the entry and every event again."""
    ws = tmp_path / "ws"
    async with offline(ws, real_embedder) as bot:
        await dot_says(bot, INTRO)
        await dot_says(bot, "we live in Scarborough now")
        assert (await dot_says(bot, "forget my old address")).lstrip().startswith("About to")

        unquote_entries = _history.unquote_entries

        def cut_off(parsed: Any, *args: Any) -> Any:
            if parsed.path.name == "profile.md":  # where the bakery's quote is
                raise OSError("the disk went away")
            return unquote_entries(parsed, *args)

        with monkeypatch.context() as patched:
            patched.setattr(_history, "unquote_entries", cut_off)
            with pytest.raises(OSError):
                await dot_says(bot, "yes")
        before = await memories_of(bot)
    # Cut off mid-scrub: the forgotten town is still on disk (the writer quotes each
    # clause, so it is the message's own words that are left, not a kept memory's quote).
    assert files_holding(ws, "Whitby"), before
    async with offline(ws, real_embedder) as bot:  # its start finishes the forget
        after = await memories_of(bot)
        assert {rid: c for rid, (c, _, _) in after.items()} == {
            rid: c for rid, (c, _, _) in before.items()
        }
        assert not any("Whitby" in str(q) for _, q, _ in after.values()), after
    assert files_holding(ws, "Whitby") == []
