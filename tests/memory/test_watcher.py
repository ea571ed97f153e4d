from __future__ import annotations

import asyncio
from pathlib import Path

from familiars.memory import MemoryIndex, MemoryStore, MemoryWatcher, make_record
from tests.fakes import HashEmbedder


async def test_hand_edits_are_reindexed_in_one_debounced_pass(workspace: Path) -> None:
    async with (
        MemoryIndex(workspace, HashEmbedder()) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        await store.append(
            make_record("likes tea", scope="user", category="preference", user_key="alice")
        )
        watcher = MemoryWatcher(store, index, debounce_s=0.3)
        await watcher.start()
        try:
            md = workspace / "users/alice/preference.md"
            md.write_text(md.read_text().replace("likes tea", "likes oolong"))
            md.write_text(md.read_text().replace("likes oolong", "likes rooibos"))
            await asyncio.wait_for(watcher.reconciled.wait(), timeout=20)
            assert watcher.passes == 1
            assert len(await index.keyword_search("rooibos")) == 1
            assert await index.keyword_search("tea") == []
        finally:
            await watcher.stop()
