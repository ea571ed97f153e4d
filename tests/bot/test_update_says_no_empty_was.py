"""An update that only adds to a record says no "(was ...)" of words that are no value
(s37: "Dev is 25 now" after "my brother is called Dev" said "(was called)")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.harness import make_app, message, say


async def test_an_age_added_to_a_named_relative_says_no_was(
    workspace: Path, real_embedder: Any
) -> None:
    async with make_app(workspace, embedder=real_embedder, model=None) as app:
        await say(app, message("my brother is called Dev", minutes=1))
        aged = await say(app, message("Dev is 25 now", minutes=2))
        dog = await say(app, message("my whippet is called Mabel", minutes=3))
        dog_aged = await say(app, message("Mabel turned 3 on Sunday!", minutes=4))
        moved = await say(app, message("I live in Leeds", minutes=5))
        moved_again = await say(app, message("I've moved to York", minutes=6))
    assert "25" in aged, aged
    assert "(was called)" not in aged and "(was" not in aged, aged
    assert "Mabel" in dog and "3" in dog_aged and "(was" not in dog_aged, dog_aged
    assert "Leeds" in moved
    assert "(was Leeds)" in moved_again, moved_again
