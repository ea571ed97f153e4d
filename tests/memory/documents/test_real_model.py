"""The finder with the bundled real embedding model (one shared session fixture)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.config import load_settings
from familiars.memory import DocumentFinder, context_lines, format_found, relevant_for_context
from tests.memory.documents.builders import make_docx, make_pdf


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "Documents"
    (root / "2024-Returns").mkdir(parents=True)
    (root / "Home").mkdir()
    (root / "Home" / "lease.pdf").write_bytes(
        make_pdf(
            [
                "Residential tenancy agreement for the flat at 12 Elm Street.",
                "Rent of 900 is due on the first of each month by bank transfer.",
                "Animals: the tenant may keep one cat. Dogs need the landlord's written consent.",
            ]
        )
    )
    (root / "2024-Returns" / "summary.txt").write_text(
        "Income 52,000. Deductions for home office. Refund expected in May."
    )
    (root / "AgADBAADr6cxG_4321.txt").write_text("Residential tenancy agreement, flat, rent, cat.")
    (root / "meeting.docx").write_bytes(
        make_docx([["Team sync notes"], ["We agreed to ship the mobile app in June."]])
    )
    (root / "groceries.md").write_text("- oat milk\n- bananas\n- coffee beans\n")
    return root


async def test_finds_the_page_that_answers(real_embedder, folder: Path, workspace: Path) -> None:
    settings = load_settings(None, workspace=workspace)
    async with DocumentFinder(workspace, real_embedder, settings, ablate=()) as finder:
        await finder.add_folder(folder)
        found = await finder.find("what does my lease say about pets?")
        assert found[0].name == "lease.pdf" and found[0].page == 3
        names = [f.name for f in found]
        assert names.index("lease.pdf") < names.index("AgADBAADr6cxG_4321.txt")
        taxes = await finder.find("my taxes")
        assert taxes[0].name == "summary.txt" and "folder_synonym" in taxes[0].parts
        docx_hit = await finder.find("when will the mobile app ship")
        assert docx_hit[0].name == "meeting.docx" and docx_hit[0].page == 2
        reply = format_found(found[:2], query="lease pets")
        assert reply.startswith("1. lease.pdf, page 3")
        context = relevant_for_context(found)
        assert context and context_lines(context)[0].startswith("[document lease.pdf, page 3]")
        assert relevant_for_context(await finder.find("quantum chromodynamics lattice")) == []
