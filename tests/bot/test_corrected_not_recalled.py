"""A corrected memory no longer answers (tester F5): after ``/memory edit`` the replaced
record was still recalled through the people graph ("how old is my son?" answered both the
old and the new age; ``/memory why`` showed the old one with "graph 1.00"). Driven through a
chat turn, the slash commands and the recaller every turn uses; only ``/memory show``
(history) still shows the old text."""

from __future__ import annotations

from pathlib import Path

from tests.bot.test_forget_everywhere import NOW, offline


async def test_a_corrected_memory_is_not_recalled_by_any_road(tmp_path: Path) -> None:
    async with offline(tmp_path / "ws") as bot:
        await bot.say("my son Leo just turned 7")
        [old] = [r for r in await bot.app.memory.store.list(scope="user") if "Leo" in r.content]
        assert "7" in old.content, old.content
        done = await bot.command("edit", old.id, "The user's son Leo is 8 now.")
        assert done.startswith("Corrected"), done
        for question in ("how old is my son?", "how old is Leo now?", "tell me about my son"):
            reply = await bot.say(question)
            assert "turned 7" not in reply, (question, reply)
            why = await bot.command("why")
            assert old.id not in why, (question, why)
            items = await bot.app.services.recaller.recall(
                question, agent_id="agent_0", dialogue_id="dialogue_0",
                user_key=old.user_key, is_group=False, now=NOW, k=20,
            )  # fmt: skip
            assert all(old.id not in it.record_ids for it in items), (question, items)
        assert "replaced" in await bot.command("show", old.id)  # history still says it
