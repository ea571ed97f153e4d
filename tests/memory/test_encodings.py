"""Encodings and line endings: a BOM, CRLF and a bad byte each hide nothing but the bad
entry, ``check`` names its file and line, and writes into the file keep the bad bytes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from familiars.memory import MemoryStore, make_record
from familiars.memory._entries import read_file, render_entry


def _entry(text: str, n: int) -> bytes:
    rec = make_record(text, scope="user", category="knowledge", user_key="cy", id=f"m_{n:026d}")
    return render_entry(rec).encode()


def _file(ws: Path) -> Path:
    path = ws / "users" / "cy" / "knowledge.md"
    path.parent.mkdir(parents=True)
    return path


def test_a_bom_and_crlf_hide_nothing(tmp_path: Path) -> None:
    path = _file(tmp_path)
    body = _entry("Cy likes tea.", 1) + b"\n" + _entry("Cy has two cats.", 2)
    path.write_bytes(b"\xef\xbb\xbf" + body.replace(b"\n", b"\r\n"))
    parsed = read_file(path)
    assert [r.content for r in parsed.records] == ["Cy likes tea.", "Cy has two cats."]
    assert not parsed.errors


def test_a_bad_byte_hides_only_its_entry_and_survives_writes(tmp_path: Path) -> None:
    path = _file(tmp_path)
    bad = _entry("Cy was born in M\xfcnchen.", 2).replace("ü".encode(), b"\xfc")
    path.write_bytes(_entry("Cy likes tea.", 1) + b"\n" + bad + b"\n" + _entry("Cy runs.", 3))
    parsed = read_file(path)
    assert [r.content for r in parsed.records] == ["Cy likes tea.", "Cy runs."]
    [err] = parsed.errors
    assert err.line == 5 and "not UTF-8" in err.reason and str(path) in str(err)

    async def write() -> list[str]:
        async with MemoryStore(tmp_path) as store:
            await store.append(
                make_record("Cy swims.", scope="user", category="knowledge", user_key="cy")
            )
            return [str(e) for e in await store.parse_errors()]

    errors = asyncio.run(write())
    assert len(errors) == 1 and "knowledge.md" in errors[0]
    data = path.read_bytes()
    assert b"M\xfcnchen" in data  # the bad bytes are kept verbatim
    assert [r.content for r in read_file(path).records] == [
        "Cy likes tea.",
        "Cy runs.",
        "Cy swims.",
    ]
