from __future__ import annotations

from familiars.memory._documents.chunking import (
    EMBED_CHARS,
    MAX_CHUNKS,
    WINDOW_CHARS,
    WINDOW_OVERLAP,
    chunk_document,
    name_words,
)
from familiars.memory._documents.extract import Extracted


def _text(n: int) -> str:
    words = [f"w{i:05d}" for i in range(n // 7 + 1)]
    return " ".join(words)[:n]


def test_chunk_zero_is_a_summary_with_name_folder_head_and_tail() -> None:
    body = "HEAD-MARK " + _text(5000) + " TAIL-MARK"
    chunks = chunk_document(
        "LeaseAgreement_2024.txt", "/home/ann/Rentals", Extracted("text", [body], False)
    )
    summary = chunks[0]
    assert summary.seq == 0 and summary.kind == "summary"
    assert "LeaseAgreement_2024.txt" in summary.text
    assert "/home/ann/Rentals" in summary.text
    assert "lease agreement 2024" in summary.text
    assert "HEAD-MARK" in summary.text and "TAIL-MARK" in summary.text
    assert len(summary.text) < 1200


def test_long_text_gets_1500_char_windows_with_200_overlap() -> None:
    body = _text(4000)
    chunks = chunk_document("a.txt", "", Extracted("text", [body], False))[1:]
    assert [c.kind for c in chunks] == ["window"] * 3
    assert all(len(c.text) <= WINDOW_CHARS for c in chunks)
    step = WINDOW_CHARS - WINDOW_OVERLAP
    assert chunks[1].text == body[step : step + WINDOW_CHARS]
    assert chunks[0].text[-WINDOW_OVERLAP:] == chunks[1].text[:WINDOW_OVERLAP]
    assert body.endswith(chunks[-1].text[-50:])


def test_short_text_is_one_window() -> None:
    chunks = chunk_document("a.txt", "", Extracted("text", ["short"], False))
    assert [c.kind for c in chunks] == ["summary", "window"]


def test_at_most_20_chunks_and_1800_embedded_chars() -> None:
    pages = [f"page {i} " + "x" * 5000 for i in range(100)]
    chunks = chunk_document("big.pdf", "", Extracted("pdf", pages, True))
    assert len(chunks) == MAX_CHUNKS
    assert [c.page for c in chunks[1:4]] == [1, 2, 3]
    assert all(len(c.embed_text) <= EMBED_CHARS for c in chunks)
    assert len(chunks[1].text) > EMBED_CHARS  # the page itself is kept whole for keywords
    long_text = chunk_document("t.txt", "", Extracted("text", [_text(200_000)], False))
    assert len(long_text) == MAX_CHUNKS


def test_pages_keep_their_numbers_when_blank_pages_are_dropped() -> None:
    chunks = chunk_document("s.pdf", "", Extracted("pdf", ["one", "", "three"], True))
    assert [(c.seq, c.page) for c in chunks] == [(0, None), (1, 1), (2, 3)]


def test_csv_windows_repeat_the_header() -> None:
    rows = ["date,amount,shop"] + [
        f"2024-01-{i % 28 + 1:02d},{i}.50,Grocer {i}" for i in range(300)
    ]
    chunks = chunk_document("spend.csv", "", Extracted("csv", ["\n".join(rows)], False))[1:]
    assert len(chunks) > 1
    assert all(c.text.startswith("date,amount,shop\n") for c in chunks)


def test_name_words_split_camel_case_digits_and_separators() -> None:
    assert name_words("2024_TaxReturn-final.pdf") == ["2024", "tax", "return", "final", "pdf"]
