from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

from familiars.memory import MemoryIndex, MemoryStore, MemoryWatcher, make_record
from familiars.memory._watcher import new_observer
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


def test_watchdogs_warning_on_a_new_folder_is_kept_off_the_terminal() -> None:
    """watchdog 7 warns (on the person's terminal, in the middle of the first reply) when its
    recursive watch meets a folder made while it runs, as a new dialogue's is; it happens by
    chance of timing, so the warning is raised here as watchdog words it. After the package's
    observer is made (``new_observer``) it is not shown; other warnings still are."""
    text = (
        "Callback with id '139908023760720' already exists for watch <Watch(wd=12)>."
        " It will be Overwritten."
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        new_observer()
        warnings.warn_explicit(text, RuntimeWarning, "inotify.py", 365, "watchdog.observers")
        warnings.warn_explicit("other", RuntimeWarning, "inotify.py", 366, "watchdog.observers")
    assert [str(w.message) for w in caught] == ["other"]


async def test_a_stop_as_an_edit_arrives_ends_the_watcher(workspace: Path) -> None:
    """A file event landing as the stop cancels the debounce wait: on Python 3.11 wait_for
    swallowed that cancel and the watcher waited for ever, so SIGTERM never ended the chat
    (stop 31's CI). The cancel must end the task."""
    async with (
        MemoryIndex(workspace, HashEmbedder()) as index,
        MemoryStore(workspace, listeners=[index]) as store,
    ):
        watcher = MemoryWatcher(store, index, debounce_s=30)
        await watcher.start()
        try:
            md = workspace / "users/alice/preference.md"
            watcher.notify(md)
            await asyncio.sleep(0.05)  # in the debounce wait now
            task = asyncio.all_tasks() - {asyncio.current_task()}
            worker = next(t for t in task if t.get_name() == "memory-watcher")
            watcher.notify(md)  # the event and the cancel in one turn of the loop
            worker.cancel()
            done, _ = await asyncio.wait({worker}, timeout=5)
            assert worker in done, "the cancelled watcher went on waiting"
        finally:
            await watcher.stop()
