from __future__ import annotations

import os
from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.memory import InvalidIdError
from familiars.memory._documents import DocumentFinder, FileAccessError
from tests.fakes import HashEmbedder
from tests.memory.documents.builders import encrypt_pdf, make_docx, make_pdf

# Every test here runs on both homes: familiars.db with sidecar files, and the database.
pytestmark = pytest.mark.usefixtures("memory_home")

LEASE_PAGES = [
    "Residential lease agreement between Ann Smith and Bob Jones for the flat on Elm Street.",
    "Rent is 900 per month, due on the first day of each month.",
    "Pets: the tenant may keep one cat. Dogs need written permission from the landlord.",
]


def _settings(workspace: Path, **files: object):
    return load_settings(None, workspace=workspace, files=files or {})


@pytest.fixture
async def finder(workspace: Path):
    async with DocumentFinder(workspace, HashEmbedder(), _settings(workspace), ablate=()) as f:
        yield f


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "Housing").mkdir(parents=True)
    (folder / "Housing" / "lease.pdf").write_bytes(make_pdf(LEASE_PAGES))
    (folder / "recipes.md").write_text("# Pancakes\nFlour, eggs and milk. Fry in butter.\n")
    (folder / "budget.csv").write_text("month,rent,food\njan,900,300\nfeb,900,280\n")
    (folder / "minutes.docx").write_bytes(
        make_docx([["Board meeting minutes"], ["Budget approved for the garden shed"]])
    )
    return folder


async def test_add_folder_indexes_good_files_and_skips_bad_ones_with_reasons(
    finder: DocumentFinder, docs: Path
) -> None:
    (docs / "locked.pdf").write_bytes(encrypt_pdf(make_pdf(["secret"])))
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 nonsense")
    (docs / "empty.txt").write_bytes(b"")
    (docs / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 jpeg")
    (docs / "bad\x07name.txt").write_text("bell in the name")
    (docs / ".hidden.txt").write_text("not a document")
    results = {Path(r.path).name: r for r in await finder.add_folder(docs)}
    assert {n for n, r in results.items() if r.status == "indexed"} == {
        "lease.pdf",
        "recipes.md",
        "budget.csv",
        "minutes.docx",
    }
    assert results["locked.pdf"].code == "encrypted"
    assert results["broken.pdf"].code == "corrupt"
    assert results["empty.txt"].code == "empty"
    assert results["photo.jpg"].code == "unsupported"
    assert results["bad\x07name.txt"].code == "bad_name"
    assert ".hidden.txt" not in results
    skipped = {Path(s["path"]).name: s["reason"] for s in await finder.skipped()}
    assert "password" in skipped["locked.pdf"]
    assert len(await finder.list_files()) == 4


async def test_find_returns_the_file_page_and_passage(finder: DocumentFinder, docs: Path) -> None:
    await finder.add_folder(docs)
    found = await finder.find("what does my lease say about pets? cat dogs", k=3)
    assert found[0].name == "lease.pdf"
    assert found[0].page == 3
    assert "cat" in found[0].passage
    assert {"cosine", "dense", "keyword", "fused"} <= set(found[0].parts)
    assert len({f.file_id for f in found}) == len(found)  # one row per file


async def test_docx_hit_names_its_page(finder: DocumentFinder, docs: Path) -> None:
    await finder.add_folder(docs)
    found = await finder.find("garden shed budget approved")
    assert found[0].name == "minutes.docx" and found[0].page == 2


async def test_unchanged_files_are_not_indexed_again(finder: DocumentFinder, docs: Path) -> None:
    await finder.add_folder(docs)
    calls = finder.embedder.calls  # type: ignore[attr-defined]
    again = await finder.add_folder(docs)
    assert {r.status for r in again} == {"unchanged"}
    assert finder.embedder.calls == calls  # type: ignore[attr-defined]


async def test_a_changed_file_keeps_its_old_version_as_history_across_rebuilds(
    workspace: Path, docs: Path, memory_home: str
) -> None:
    lease = docs / "Housing" / "lease.pdf"
    settings = _settings(workspace)
    async with DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as finder:
        await finder.add_file(lease)
        lease.write_bytes(make_pdf([LEASE_PAGES[0], "Addendum: no pets of any kind."]))
        os.utime(lease, (1, 1))
        result = await finder.add_file(lease)
        assert result.status == "indexed"
        now = await finder.find("lease cat")
        assert [f.is_history for f in now] == [False]
    if memory_home == "sqlite":
        (workspace / "familiars.db").unlink()  # the database's rows are cleared by rebuild
    async with DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as finder:
        report = await finder.rebuild()
        assert report.files == 1 and report.history_versions == 1
        assert report.reindexed == []
        found = await finder.find("the lease before the addendum: may the tenant keep a cat?")
        assert {f.is_history for f in found} == {True, False}
        old = next(f for f in found if f.is_history)
        assert old.page == 3 and "cat" in old.passage
        assert (await finder.list_files())[0].versions == 2


async def test_sidecar_records_upserts_and_deletes(finder: DocumentFinder, docs: Path) -> None:
    path = docs / "recipes.md"
    result = await finder.add_file(path)
    await finder.remove_file(path)
    history = finder.history.read("", result.file_id or "")
    assert len(history.versions) == 1 and history.deleted_at is not None
    assert history.bad_lines == []
    assert await finder.list_files() == []
    gone = await finder.find("pancakes", history=True)
    assert gone and gone[0].is_history


async def test_attachments_are_private_to_their_sender(
    finder: DocumentFinder, memory_home: str
) -> None:
    result = await finder.add_attachment("ann", "lease.pdf", make_pdf(LEASE_PAGES))
    assert result.status == "indexed"
    # on files, under the person; in the database only (no worker's disk keeps a copy that
    # a forget on another worker could not reach)
    stored = finder.workspace / "users" / "ann" / "files" / "lease.pdf"
    assert stored.exists() == (memory_home == "sqlite")
    assert [f.name for f in await finder.find("lease pets", user_key="ann")] == ["lease.pdf"]
    assert await finder.find("lease pets", user_key="bob") == []
    assert await finder.find("lease pets") == []  # the owner does not see it either
    blob = await finder.open_file(result.file_id or "", user_key="ann")
    assert blob.data.startswith(b"%PDF") and blob.name == "lease.pdf"
    with pytest.raises(FileAccessError):
        await finder.open_file(result.file_id or "", user_key="bob")
    assert [f.name for f in await finder.list_files("ann")] == ["lease.pdf"]
    assert await finder.list_files("bob") == []


async def test_owner_files_are_shared_only_when_asked(finder: DocumentFinder, docs: Path) -> None:
    await finder.add_folder(docs)
    assert await finder.find("pancakes", user_key="ann") == []
    shared = await finder.find("pancakes", user_key="ann", include_owner=True)
    assert shared[0].name == "recipes.md"


async def test_bad_attachments_are_refused_and_not_stored(finder: DocumentFinder) -> None:
    odd = await finder.add_attachment("ann", "../../etc/passwd", b"root:x:0:0")
    assert odd.status == "skipped" and odd.code == "bad_name"
    locked = await finder.add_attachment("ann", "s.pdf", encrypt_pdf(make_pdf(["x"])))
    assert locked.code == "encrypted"
    assert not (finder.workspace / "users" / "ann" / "files" / "s.pdf").exists()
    with pytest.raises(InvalidIdError):
        await finder.add_attachment("../ann", "a.txt", b"hi")


async def test_huge_files_are_skipped(workspace: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("word " * 300_000)  # 1.5 MB
    settings = _settings(workspace, max_file_mb=1.0)
    async with DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as finder:
        result = await finder.add_file(big)
        assert result.code == "too_large" and "1 MB limit" in (result.reason or "")
        assert (await finder.add_attachment("ann", "big.txt", big.read_bytes())).code == "too_large"


async def test_symlinks_leaving_the_folder_are_refused(
    finder: DocumentFinder, docs: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("private diary outside the watched folder")
    (docs / "diary.txt").symlink_to(outside)
    (docs / "again.md").symlink_to(docs / "recipes.md")  # stays inside: fine
    results = {Path(r.path).name: r for r in await finder.add_folder(docs)}
    assert results["diary.txt"].code == "unsafe_path"
    assert results["again.md"].status == "indexed"
    assert all(f.name != "diary.txt" for f in await finder.find("private diary outside"))


async def test_watch_dirs_scan_adds_and_removes(workspace: Path, docs: Path) -> None:
    settings = _settings(workspace, watch_dirs=[str(docs)])
    async with DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as finder:
        await finder.scan_watch_dirs()
        assert len(await finder.list_files()) == 4
        (docs / "recipes.md").unlink()
        results = await finder.scan_watch_dirs()
        assert [Path(r.path).name for r in results if r.status == "removed"] == ["recipes.md"]
        assert len(await finder.list_files()) == 3


async def test_workspace_inside_an_added_folder_is_not_indexed(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (tmp_path / "note.txt").write_text("a note")
    async with DocumentFinder(workspace, HashEmbedder(), _settings(workspace), ablate=()) as f:
        results = await f.add_folder(tmp_path)
    assert [Path(r.path).name for r in results] == ["note.txt"]


async def test_ablation_setting_switches_a_knob_off(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "AgADBAADr6cxG_4321.txt").write_text("holiday photo list from the beach trip")
    (folder / "beach-trip.txt").write_text("holiday photo list from the beach trip!")
    settings = _settings(workspace)
    async with DocumentFinder(workspace, HashEmbedder(), settings) as finder:
        await finder.add_folder(folder)
        with_knob = await finder.find("holiday photo list")
        assert with_knob[0].name == "beach-trip.txt"
        assert "opaque_name" in with_knob[1].parts
        assert with_knob[1].explain["factors"] == {"opaque_name": 0.5}
        assert with_knob[1].explain["total"] == pytest.approx(with_knob[1].score, abs=1e-4)
    monkeypatch.setenv("FAMILIARS_ABLATE_KNOB", "no_such_knob")  # the finder reads no env
    ablated = settings.model_copy(
        update={
            "files": settings.files.model_copy(
                update={"ablate": ["opaque_name", "filename_overlap", "filename_coverage"]}
            )
        }
    )
    async with DocumentFinder(workspace, HashEmbedder(), ablated) as finder:
        assert finder.ablate == {"opaque_name", "filename_overlap", "filename_coverage"}
        without = await finder.find("holiday photo list")
        assert all("opaque_name" not in f.parts for f in without)
    with pytest.raises(ValueError, match="unknown ranking knob"):
        DocumentFinder(workspace, HashEmbedder(), settings, ablate=["no_such_knob"])


async def test_rebuild_rereads_files_changed_since_they_were_indexed(
    finder: DocumentFinder, docs: Path
) -> None:
    await finder.add_folder(docs)
    (docs / "recipes.md").write_text("# Waffles\nA new recipe with yeast.\n")
    report = await finder.rebuild()
    assert [Path(r.path).name for r in report.reindexed] == ["recipes.md"]
    assert report.files == 4
    found = await finder.find("waffles yeast")
    assert found[0].name == "recipes.md" and not found[0].is_history


async def test_an_empty_index_finds_nothing(finder: DocumentFinder) -> None:
    assert await finder.find("anything at all") == []
    assert await finder.list_files() == []
    with pytest.raises(FileAccessError):
        await finder.open_file("0" * 24)


async def test_a_second_process_sees_files_another_one_added(workspace: Path, docs: Path) -> None:
    settings = _settings(workspace)
    async with (
        DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as bot,
        DocumentFinder(workspace, HashEmbedder(), settings, ablate=()) as cli,
    ):
        assert await bot.find("pancakes") == []  # the bot holds an (empty) matrix now
        await cli.add_file(docs / "recipes.md")
        assert [f.name for f in await bot.find("pancakes")] == ["recipes.md"]
        await cli.remove_file(docs / "recipes.md")
        assert await bot.find("pancakes") == []


async def test_a_new_embedding_model_sees_old_files_after_embed_missing(
    workspace: Path, docs: Path
) -> None:
    settings = _settings(workspace)
    async with DocumentFinder(workspace, HashEmbedder(model_name="old"), settings) as old:
        await old.add_file(docs / "recipes.md")
    new_model = HashEmbedder(dim=32, model_name="new")
    async with DocumentFinder(workspace, new_model, settings, ablate=()) as finder:
        assert await finder.find("pancakes") == []  # old vectors are never compared
        assert await finder.embed_missing() == 2
        assert [f.name for f in await finder.find("pancakes")] == ["recipes.md"]
        assert await finder.embed_missing() == 0


async def test_another_worker_finds_and_sends_back_an_attachment(
    finder: DocumentFinder, tmp_path: Path, memory_home: str
) -> None:
    """Database home: a file Ann sent to one worker is found by another (its own workspace,
    where the file never was) and its bytes come from the database."""
    if memory_home != "postgres":
        pytest.skip("one workspace per worker is the database home's")
    sent = make_pdf(LEASE_PAGES)
    result = await finder.add_attachment("ann", "lease.pdf", sent)
    other = tmp_path / "worker_b"
    async with DocumentFinder(other, HashEmbedder(), _settings(other), ablate=()) as worker_b:
        found = await worker_b.find("lease cat", user_key="ann")
        assert [f.file_id for f in found] == [result.file_id]
        assert await worker_b.find("lease cat", user_key="bob") == []
        blob = await worker_b.open_file(found[0].file_id, user_key="ann")
        assert blob.data == sent and not (other / "users").exists()
        assert [f.name for f in await worker_b.list_files("ann")] == ["lease.pdf"]


async def test_rows_answer_alike_on_both_homes(finder: DocumentFinder, docs: Path) -> None:
    """The queries written once for both homes (``_documents/queries.py``): a skip recorded
    again is replaced, live paths are found by prefix, vectors no chunk uses are dropped."""
    import numpy as np

    from familiars.memory._documents.history import OWNER

    rows = finder.rows
    await rows.record_skip("owner", "a/b.txt", "too_big", "first", "2026-01-01")
    await rows.record_skip("owner", "a/b.txt", "unreadable", "second", "2026-01-02")
    await rows.commit()
    assert await rows.skipped("owner") == [
        {"path": "a/b.txt", "code": "unreadable", "reason": "second", "at": "2026-01-02"}
    ]
    await finder.add_folder(docs)
    housing = str(docs / "Housing")
    assert [Path(p).name for p in await rows.live_paths(OWNER, housing)] == ["lease.pdf"]
    assert len(await rows.live_paths(OWNER, str(docs))) == 4
    await rows.put_vectors("m", 2, [("unused", np.ones(2)), ("unused", np.ones(2))])
    assert await rows.hashes_with_vectors("m", 2, ["unused"]) == {"unused"}
    await rows.erase("owner", [], [])
    assert await rows.hashes_with_vectors("m", 2, ["unused"]) == set()


def test_one_query_table_fills_each_homes_placeholder() -> None:
    from familiars.memory._documents.queries import POSTGRES, SQLITE

    for name, lite in vars(SQLITE).items():
        pg = getattr(POSTGRES, name)
        assert "%" not in lite and "?" not in pg  # a literal % would need %% for psycopg
        assert pg.count("%s") == lite.count("?") > 0 or "?" not in lite
        assert pg.replace("%s", "?") == lite
