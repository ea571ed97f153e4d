from __future__ import annotations

import asyncio
from pathlib import Path

from familiars.memory._documents import Debouncer, FolderWatcher, IndexResult


class FakeIndexer:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.changed = asyncio.Event()

    async def add_file(self, path: Path | str, *, user_key: str | None = None) -> IndexResult:
        self.calls.append(("add", Path(path).name))
        self.changed.set()
        return IndexResult(str(path), "indexed")

    async def add_folder(self, folder: Path | str, *, user_key: str | None = None):
        self.calls.append(("folder", Path(folder).name))
        return []

    async def remove_file(self, path: Path | str, *, user_key: str | None = None) -> IndexResult:
        self.calls.append(("remove", Path(path).name))
        return IndexResult(str(path), "removed")

    async def remove_missing_under(self, root: Path) -> list[IndexResult]:
        return []


def test_debouncer_restarts_the_wait_on_each_event() -> None:
    d = Debouncer(3.0)
    d.note("a", now=0.0)
    d.note("a", now=2.0)  # saved again two seconds later
    assert d.pop_due(4.9) == []
    assert d.next_due() == 5.0
    assert d.pop_due(5.0) == ["a"]
    assert d.pop_due(100.0) == [] and len(d) == 0


async def test_two_saves_in_two_seconds_are_one_index_pass(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("v2")
    indexer = FakeIndexer()
    watcher = FolderWatcher(indexer, [tmp_path], debounce_s=3.0, clock=lambda: 0.0)
    path = str(tmp_path / "notes.txt")
    watcher.notify(path, now=10.0)
    watcher.notify(path, now=12.0)
    assert await watcher.process_due(now=14.0) == []
    results = await watcher.process_due(now=15.0)
    assert [r.status for r in results] == ["indexed"]
    assert indexer.calls == [("add", "notes.txt")]
    assert watcher.passes == 1


async def test_deleted_files_are_removed_and_ignored_names_never_queued(tmp_path: Path) -> None:
    indexer = FakeIndexer()
    watcher = FolderWatcher(indexer, [tmp_path], debounce_s=1.0)
    watcher.notify(str(tmp_path / "gone.txt"), now=0.0)
    watcher.notify(str(tmp_path / ".notes.txt.swp"), now=0.0)
    watcher.notify(str(tmp_path / "~$report.docx"), now=0.0)
    watcher.notify("/somewhere/else/file.txt", now=0.0)
    await watcher.process_due(now=5.0)
    assert indexer.calls == [("remove", "gone.txt")]


async def test_links_leaving_the_folder_go_through_the_folder_checks(tmp_path: Path) -> None:
    watched = tmp_path / "watched"
    watched.mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    (watched / "link.txt").symlink_to(tmp_path / "outside.txt")
    indexer = FakeIndexer()
    watcher = FolderWatcher(indexer, [watched], debounce_s=0.0)
    watcher.notify(str(watched / "link.txt"), now=0.0)
    await watcher.process_due(now=0.0)
    assert indexer.calls == [("folder", "watched")]  # add_folder refuses the link with a reason


async def test_real_observer_feeds_the_worker(tmp_path: Path) -> None:
    indexer = FakeIndexer()
    async with FolderWatcher(indexer, [tmp_path], debounce_s=0.0):
        (tmp_path / "new.md").write_text("# hello")
        await asyncio.wait_for(indexer.changed.wait(), timeout=20)
    assert ("add", "new.md") in indexer.calls


async def test_a_saved_file_becomes_findable(tmp_path: Path) -> None:
    from familiars.config import load_settings
    from familiars.memory import DocumentFinder
    from tests.fakes import HashEmbedder

    watched = tmp_path / "Documents"
    watched.mkdir()
    workspace = tmp_path / "ws"
    settings = load_settings(None, workspace=workspace, files={"watch_dirs": [str(watched)]})
    passes: asyncio.Queue[list[IndexResult]] = asyncio.Queue()
    async with DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as finder:
        watcher = FolderWatcher(finder, [watched], debounce_s=0.0, on_pass=passes.put_nowait)
        async with watcher:
            (watched / "boiler.txt").write_text("Bleed the radiators every autumn.")
            while not any(r.status == "indexed" for r in await asyncio.wait_for(passes.get(), 20)):
                pass
            found = await finder.find("bleed radiators")
            assert found and found[0].name == "boiler.txt"
            (watched / "boiler.txt").unlink()
            while not any(r.status == "removed" for r in await asyncio.wait_for(passes.get(), 20)):
                pass
        assert await finder.list_files() == []
        assert watcher.errors == []
