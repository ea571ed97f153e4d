"""Chunks per file type, as the file finder we adopt does it.

- Chunk 0 is a summary: file name, folder path, head and tail. People remember names and
  places better than contents, and this one chunk answers many queries by itself.
- Paginated documents (PDF, DOCX) get one chunk per page, so a hit names its page.
- Long unpaginated text gets a 1,500-character window sliding by 1,300 (200 overlap).
- At most 20 chunks per file; at most 1,800 characters of a chunk are embedded, so one
  400-page transcript cannot crowd everything else out of the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from familiars.memory._documents.extract import Extracted

MAX_CHUNKS = 20
WINDOW_CHARS = 1500
WINDOW_OVERLAP = 200
EMBED_CHARS = 1800
SUMMARY_HEAD_CHARS = 600
SUMMARY_TAIL_CHARS = 300

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")
_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Chunk:
    seq: int
    kind: str  # "summary" | "page" | "window"
    text: str
    page: int | None = None

    @property
    def embed_text(self) -> str:
        return self.text[:EMBED_CHARS]

    def to_json(self) -> dict[str, object]:
        return {"seq": self.seq, "kind": self.kind, "page": self.page, "text": self.text}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Chunk:
        page = data.get("page")
        return cls(
            seq=int(data["seq"]),  # type: ignore[call-overload]
            kind=str(data["kind"]),
            text=str(data["text"]),
            page=int(page) if page is not None else None,  # type: ignore[call-overload]
        )


def name_words(name: str) -> list[str]:
    """``2024_TaxReturn-final.pdf`` -> ['2024', 'tax', 'return', 'final', 'pdf']."""
    spaced = _CAMEL.sub(" ", name)
    return [w.lower() for w in _SEPARATORS.split(spaced) if w]


def chunk_document(name: str, folder: str, extracted: Extracted) -> list[Chunk]:
    """The chunks of one file: the summary, then pages or windows, never more than 20."""
    chunks = [summary_chunk(name, folder, extracted.text)]
    if extracted.paginated:
        body = _page_chunks(extracted)
    elif extracted.kind == "csv":
        body = _csv_windows(extracted.text)
    else:
        body = _windows(extracted.text)
    for chunk in body[: MAX_CHUNKS - 1]:
        chunks.append(Chunk(len(chunks), chunk.kind, chunk.text, chunk.page))
    return chunks


def summary_chunk(name: str, folder: str, text: str) -> Chunk:
    body = text.strip()
    if len(body) <= SUMMARY_HEAD_CHARS + SUMMARY_TAIL_CHARS:
        excerpt = body
    else:
        head = body[:SUMMARY_HEAD_CHARS]
        tail = body[-SUMMARY_TAIL_CHARS:]
        excerpt = f"{head}\n…\n{tail}"
    lines = [name, folder, " ".join(name_words(name)), excerpt]
    return Chunk(0, "summary", "\n".join(line for line in lines if line))


def _page_chunks(extracted: Extracted) -> list[Chunk]:
    chunks: list[Chunk] = []
    titles = extracted.titles or [None] * len(extracted.pages)
    for number, (page, title) in enumerate(zip(extracted.pages, titles, strict=False), start=1):
        text = page.strip()
        if not text:
            continue
        if title and not text.startswith(title):
            text = f"{title}\n{text}"
        chunks.append(Chunk(0, "page", text, number))
    return chunks


def _windows(text: str) -> list[Chunk]:
    text = text.strip()
    if not text:
        return []
    step = WINDOW_CHARS - WINDOW_OVERLAP
    starts = range(0, max(len(text) - WINDOW_OVERLAP, 1), step)
    return [Chunk(0, "window", text[s : s + WINDOW_CHARS]) for s in starts]


def _csv_windows(text: str) -> list[Chunk]:
    """Rows in windows, each starting with the header so a passage stays readable."""
    lines = text.strip().split("\n")
    header, rows = lines[0], lines[1:]
    if not rows:
        return [Chunk(0, "window", header)]
    chunks: list[Chunk] = []
    current: list[str] = [header]
    size = len(header)
    for row in rows:
        if size + len(row) + 1 > WINDOW_CHARS and len(current) > 1:
            chunks.append(Chunk(0, "window", "\n".join(current)))
            current, size = [header], len(header)
        current.append(row)
        size += len(row) + 1
    chunks.append(Chunk(0, "window", "\n".join(current)))
    return chunks
