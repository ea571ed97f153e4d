from __future__ import annotations

import io
import zipfile

import pytest

from familiars.memory._documents import extract
from familiars.memory._documents.errors import (
    BadFileNameError,
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    UnsupportedFileError,
)
from familiars.memory._documents.extract import check_file_name
from tests.memory.documents.builders import (
    encrypt_pdf,
    make_docx,
    make_docx_sections,
    make_pdf,
)


def test_pdf_gives_one_text_per_page() -> None:
    data = make_pdf(["Lease between Ann and Bob", "Pets: one cat is allowed"])
    out = extract("lease.pdf", data)
    assert out.kind == "pdf" and out.paginated
    assert len(out.pages) == 2
    assert "Lease between Ann" in out.pages[0]
    assert "one cat" in out.pages[1]


def test_encrypted_pdf_is_skipped_with_a_reason() -> None:
    locked = encrypt_pdf(make_pdf(["secret page"]))
    with pytest.raises(EncryptedFileError) as info:
        extract("locked.pdf", locked)
    assert "password" in info.value.reason


def test_pdf_with_blank_user_password_is_read() -> None:
    data = encrypt_pdf(make_pdf(["open to anyone"]), password="")
    assert "open to anyone" in extract("open.pdf", data).pages[0]


def test_corrupt_pdf_is_skipped() -> None:
    with pytest.raises(CorruptFileError):
        extract("broken.pdf", b"%PDF-1.4\nthis is not a pdf at all\n")


def test_docx_page_breaks_make_pages() -> None:
    data = make_docx([["Page one text"], ["Page two text", "more"], ["Page three"]])
    out = extract("notes.docx", data)
    assert out.paginated
    assert [p.split("\n")[0] for p in out.pages] == ["Page one text", "Page two text", "Page three"]


def test_docx_without_breaks_splits_at_headings() -> None:
    data = make_docx_sections([("Intro", "hello there"), ("Pets", "cats are fine")])
    out = extract("policy.docx", data)
    assert out.paginated
    assert out.titles == ["Intro", "Pets"]
    assert "cats are fine" in out.pages[1]


def test_corrupt_and_legacy_docx_are_skipped() -> None:
    with pytest.raises(CorruptFileError):
        extract("x.docx", b"PK\x03\x04 not really a zip")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "no word parts here")
    with pytest.raises(CorruptFileError):
        extract("y.docx", buf.getvalue())
    with pytest.raises(EncryptedFileError):
        extract("old.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)


@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("empty.txt", b"", EmptyFileError),
        ("blank.md", b"   \n\t\n", EmptyFileError),
        ("photo.jpg", b"\xff\xd8\xff\xe0 jpeg bytes", UnsupportedFileError),
        ("blob", b"\x00\x01\x02binary", UnsupportedFileError),
    ],
)
def test_bad_input_gets_a_reason(name: str, data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        extract(name, data)
    assert info.value.reason  # type: ignore[attr-defined]


def test_text_kinds_and_encodings() -> None:
    assert extract("a.md", b"# Title\nbody").kind == "markdown"
    assert extract("a.csv", b"a,b\n1,2").kind == "csv"
    assert extract("a.py", b"print(1)").kind == "source"
    assert extract("README", b"plain words").kind == "text"
    assert extract("cp.1", b"copy files").kind == "text"
    assert extract("legacy.txt", "caf\xe9 \u20ac".encode("cp1252")).pages[0] == "caf\xe9 \u20ac"
    assert extract("bom.txt", b"\xef\xbb\xbfhello").pages[0] == "hello"


@pytest.mark.parametrize(
    "name", ["", "..", "a/b.txt", "bad\nname.txt", "bell\x07.txt", "x" * 300, "bad\udcff.txt"]
)
def test_odd_names_are_refused(name: str) -> None:
    with pytest.raises(BadFileNameError):
        check_file_name(name)


def test_ordinary_names_pass() -> None:
    for name in ("lease 2024 (final).pdf", "Überweisung.docx", "日本語.txt", "a-b_c.md"):
        assert check_file_name(name) == name
