"""Text out of files: PDF (pypdf), DOCX (python-docx), plain text, markdown, CSV and source.

:func:`extract` returns an :class:`Extracted` (pages for paginated documents, one text for the
rest) or raises a :class:`~familiars.memory._documents.errors.DocumentSkipped` subclass whose
``reason`` says, in words a person understands, why the file was left out.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from familiars.memory._documents.errors import (
    BadFileNameError,
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    UnsupportedFileError,
)

logger = logging.getLogger(__name__)

MARKDOWN_EXTS = frozenset({".md", ".markdown", ".mdown", ".rst"})
CSV_EXTS = frozenset({".csv", ".tsv"})
SOURCE_EXTS = frozenset(
    {
        ".py", ".pyi", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".c", ".h", ".cc", ".cpp", ".hpp",
        ".java", ".kt", ".go", ".rs", ".rb", ".php", ".pl", ".pm", ".lua", ".sh", ".bash",
        ".zsh", ".sql", ".r", ".swift", ".cs", ".scala", ".el", ".vim", ".css", ".scss",
        ".html", ".htm", ".xml", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf",
    }
)  # fmt: skip
TEXT_EXTS = frozenset({".txt", ".text", ".log", ".me", ".1st", ".nfo"})
PAGINATED_EXTS = frozenset({".pdf", ".docx"})
SUPPORTED_EXTS = MARKDOWN_EXTS | CSV_EXTS | SOURCE_EXTS | TEXT_EXTS | PAGINATED_EXTS

_SNIFF_BYTES = 8192
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_NAME_CHARS = 255
#: Pages the chunker can use (20 chunks per file, the first is the summary).
PDF_PAGE_LIMIT = 19
#: Suffixes that are not file types: man sections (cp.1, openssl.1ssl), README.Debian ...
_MAN_SECTION = re.compile(r"[0-9][a-z]{0,6}")
_PLAIN_SUFFIXES = frozenset({"debian", "old", "gnu", "linux", "unix", "in", "source", "emacs"})


@dataclass(frozen=True)
class Extracted:
    """What a file says. ``pages`` holds one text per page (PDF), per page or section (DOCX),
    or a single text for unpaginated files; ``titles`` names DOCX sections when known."""

    kind: str
    pages: list[str]
    paginated: bool
    titles: list[str | None] | None = None

    @property
    def text(self) -> str:
        return "\n\n".join(self.pages)

    @property
    def has_text(self) -> bool:
        return any(p.strip() for p in self.pages)


def check_file_name(name: str, path: Path | str | None = None) -> str:
    """``name`` if it is a plain file name a person could type; else :class:`BadFileNameError`."""
    where = path if path is not None else repr(name)
    if not name or name in (".", ".."):
        raise BadFileNameError(where, "the file has no usable name")
    if "/" in name or "\\" in name:
        raise BadFileNameError(where, "the file name contains a path separator")
    if _CONTROL.search(name):
        raise BadFileNameError(where, "the file name contains control characters")
    if any(0xDC80 <= ord(ch) <= 0xDCFF for ch in name):
        raise BadFileNameError(where, "the file name is not valid UTF-8")
    if len(name) > MAX_NAME_CHARS:
        raise BadFileNameError(where, f"the file name is longer than {MAX_NAME_CHARS} characters")
    if any(unicodedata.category(ch) in ("Cf", "Co", "Cs") for ch in name):
        raise BadFileNameError(where, "the file name contains invisible or private characters")
    return name


def kind_of(name: str) -> str | None:
    """The extractor a file name asks for, or None when only sniffing can tell."""
    ext = Path(name).suffix.lower()
    if ext == ".pdf":
        return "pdf"
    if ext == ".docx":
        return "docx"
    if ext in MARKDOWN_EXTS:
        return "markdown"
    if ext in CSV_EXTS:
        return "csv"
    if ext in SOURCE_EXTS:
        return "source"
    if ext in TEXT_EXTS:
        return "text"
    return None


def extract(name: str, data: bytes, *, path: Path | str | None = None) -> Extracted:
    """Extract the text of a file called ``name`` whose bytes are ``data``."""
    where = path if path is not None else name
    if not data.strip():
        raise EmptyFileError(where, "the file is empty")
    kind = kind_of(name)
    if kind == "pdf":
        return _extract_pdf(data, where)
    if kind == "docx":
        return _extract_docx(data, where)
    if kind is None:
        ext = Path(name).suffix.lower()
        if ext and not _looks_extensionless_text(name):
            raise UnsupportedFileError(where, f"files of type {ext!r} are not supported")
        kind = "text"
    return Extracted(kind=kind, pages=[_decode_text(data, where)], paginated=False)


def _looks_extensionless_text(name: str) -> bool:
    """README.Debian, NEWS.old, copyright.1: a suffix that is not a real file type."""
    suffix = Path(name).suffix.lower()[1:]
    return bool(_MAN_SECTION.fullmatch(suffix)) or suffix in _PLAIN_SUFFIXES


def _decode_text(data: bytes, where: Path | str) -> str:
    head = data[:_SNIFF_BYTES]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnsupportedFileError(where, "the file is binary, not text")
    for encoding in ("utf-8-sig", "utf-16"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if encoding == "utf-16" and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
            continue
        return _clean(text, where)
    # Not UTF-8: legacy single-byte text; cp1252 keeps curly quotes and euro signs readable.
    return _clean(data.decode("cp1252", errors="replace"), where)


def _clean(text: str, where: Path | str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise EmptyFileError(where, "the file holds only whitespace")
    return text


def _extract_pdf(data: bytes, where: Path | str) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _unlock_blank_password(reader):
            raise EncryptedFileError(where, "the PDF is password-protected")
        pages = _pdf_pages(reader)
    except EncryptedFileError:
        raise
    except (FileNotDecryptedError, DependencyError) as exc:
        raise EncryptedFileError(where, "the PDF is password-protected") from exc
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise CorruptFileError(where, f"the PDF could not be read ({_short(exc)})") from exc
    if not pages:
        raise EmptyFileError(where, "the PDF has no pages")
    return Extracted(kind="pdf", pages=pages, paginated=True)


def _unlock_blank_password(reader: object) -> bool:
    """Many PDFs are 'encrypted' only against editing, with an empty user password."""
    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - any failure to decrypt means it stays locked
        return False


def _pdf_pages(reader: Any) -> list[str]:
    """Text of the pages the chunker can use (the first ``PDF_PAGE_LIMIT``) and of the last
    page (the summary's tail); the others stay blank, so a 400-page manual costs 20 pages."""
    count = len(reader.pages)
    wanted = set(range(min(count, PDF_PAGE_LIMIT))) | ({count - 1} if count else set())
    return [_pdf_page_text(reader.pages[i]) if i in wanted else "" for i in range(count)]


def _pdf_page_text(page: object) -> str:
    text = page.extract_text() or ""  # type: ignore[attr-defined]
    return text.replace("\x00", "").strip()


def _extract_docx(data: bytes, where: Path | str) -> Extracted:
    if data.startswith(_OLE_MAGIC):
        raise EncryptedFileError(
            where, "the Word file is password-protected or in the old .doc format"
        )
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import LxmlError

    try:
        document = docx.Document(io.BytesIO(data))
        blocks = list(_docx_blocks(document))
    except (zipfile.BadZipFile, PackageNotFoundError, LxmlError, KeyError, ValueError) as exc:
        raise CorruptFileError(where, f"the Word file could not be read ({_short(exc)})") from exc
    return _docx_pages(blocks, where)


@dataclass(frozen=True)
class _Block:
    text: str
    heading: bool
    breaks_before: int


def _docx_blocks(document: object) -> list[_Block]:
    """Body paragraphs and tables in order, with the page breaks that precede each."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    blocks: list[_Block] = []
    body = document.element.body  # type: ignore[attr-defined]
    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            para = Paragraph(child, document)  # type: ignore[arg-type]
            style = (para.style.name if para.style is not None else "") or ""
            breaks = len(para.rendered_page_breaks) + _hard_page_breaks(child)
            blocks.append(_Block(para.text, style.lower().startswith(("heading", "title")), breaks))
        elif tag == "tbl":
            table = Table(child, document)  # type: ignore[arg-type]
            rows = [" | ".join(c.text.strip() for c in row.cells) for row in table.rows]
            blocks.append(_Block("\n".join(rows), False, 0))
    return blocks


def _hard_page_breaks(paragraph_element: object) -> int:
    xml = paragraph_element.xml  # type: ignore[attr-defined]
    return xml.count('w:type="page"') + xml.count("w:pageBreakBefore")


def _docx_pages(blocks: list[_Block], where: Path | str) -> Extracted:
    if not any(b.text.strip() for b in blocks):
        raise EmptyFileError(where, "the Word file has no text")
    if any(b.breaks_before for b in blocks[1:]):
        pages: list[list[str]] = [[]]
        for block in blocks:
            if block.breaks_before and pages[-1]:
                pages.extend([] for _ in range(block.breaks_before))
            pages[-1].append(block.text)
        return Extracted("docx", ["\n".join(p).strip() for p in pages], paginated=True)
    if any(b.heading for b in blocks):
        return _docx_sections(blocks)
    return Extracted("docx", ["\n".join(b.text for b in blocks)], paginated=False)


def _docx_sections(blocks: list[_Block]) -> Extracted:
    """No page breaks saved: one 'page' per heading section, so a hit still names a place."""
    sections: list[list[str]] = [[]]
    titles: list[str | None] = [None]
    for block in blocks:
        if block.heading and any(t.strip() for t in sections[-1]):
            sections.append([])
            titles.append(block.text.strip() or None)
        elif block.heading and titles[-1] is None:
            titles[-1] = block.text.strip() or None
        sections[-1].append(block.text)
    return Extracted(
        "docx", ["\n".join(s).strip() for s in sections], paginated=True, titles=titles
    )


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
