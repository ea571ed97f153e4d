"""Keyword search in PostgreSQL, for every script: one place for the listing, the view and
``PgMemoryIndex.keyword_search``.

``tsv`` (``to_tsvector('english', content)``) keeps a run of a script written without spaces
("李明最喜欢北京烤鸭") as one word, so '烤鸭' found nothing (issue 24). Migration
``m006_no_space_terms`` adds ``terms`` (the run's character bigrams, :func:`no_space_terms`,
written with the record: the same terms SQLite's ``records_terms`` and recall's BM25 read)
and ``terms_tsv`` (those terms as they are, no stemming, GIN-indexed). A query matches a
record whose English words match (``tsv``) or whose bigrams share one of its own
(``terms_tsv``); the rank is the sum of both ``ts_rank_cd``.
"""

from __future__ import annotations

from typing import Any

from familiars.memory._text import no_space_terms

#: The columns ``m006_no_space_terms`` adds (``terms`` is written with the record).
M005_COLUMNS = """
ALTER TABLE records ADD COLUMN terms text NOT NULL DEFAULT '';
ALTER TABLE records ADD COLUMN terms_tsv tsvector
    GENERATED ALWAYS AS (array_to_tsvector(string_to_array(terms, ' '))) STORED;
CREATE INDEX records_terms_tsv ON records USING gin (terms_tsv);
"""


#: What one shared bigram adds to a record's keyword rank (``ts_rank_cd`` gives a short
#: record 0.1 per matched English word).
TERM_RANK = 0.1


def query_words(query: str) -> list[str]:
    """The query's words for ``to_tsquery('english', ...)`` (letters and digits)."""
    return [w for w in "".join(c if c.isalnum() else " " for c in query).split() if w]


def terms_tsquery(query: str) -> str:
    """The query's no-space bigrams as a ``tsquery`` literal ('北京' | '烤鸭'), taken as they
    are (cast, not parsed); empty when the query has none."""
    terms = dict.fromkeys(no_space_terms(query).split())
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms)


def keyword_match(query: str) -> tuple[str, list[Any]] | None:
    """The SQL condition (on ``records``) and its parameters of a keyword query; None when
    the query has no word at all."""
    words = query_words(query)
    if not words:
        return None
    english = "tsv @@ to_tsquery('english', %s)"
    terms = terms_tsquery(query)
    if not terms:
        return english, [" | ".join(words)]
    return f"({english} OR terms_tsv @@ %s::tsquery)", [" | ".join(words), terms]


def keyword_rank(query: str) -> tuple[str, str, list[Any]] | None:
    """``(rank expression, condition, parameters)`` for ``keyword_search``: the parameters
    fill the expression's then the condition's placeholders; None without a word. A shared
    bigram counts :data:`TERM_RANK`, as one matched word does in ``ts_rank_cd`` of a short
    record (``terms_tsv`` has no positions, which ``ts_rank_cd`` needs)."""
    words = query_words(query)
    if not words:
        return None
    english = " | ".join(words)
    terms = terms_tsquery(query)
    if not terms:
        return (
            "ts_rank_cd(tsv, to_tsquery('english', %s))",
            "tsv @@ to_tsquery('english', %s)",
            [english, english],
        )
    shared = list(dict.fromkeys(no_space_terms(query).split()))
    return (
        "ts_rank_cd(tsv, to_tsquery('english', %s)) + %s * (SELECT count(*) FROM "
        "unnest(tsvector_to_array(terms_tsv)) AS term WHERE term = ANY(%s))",
        "(tsv @@ to_tsquery('english', %s) OR terms_tsv @@ %s::tsquery)",
        [english, TERM_RANK, shared, english, terms],
    )


def fill_terms(conn: Any) -> int:
    """Write ``terms`` of the records already there (only text with a multi-byte character
    can hold such a script); how many rows got terms."""
    rows = conn.execute(
        "SELECT id, content FROM records WHERE octet_length(content) <> char_length(content)"
    ).fetchall()
    filled = [(terms, rid) for rid, content in rows if (terms := no_space_terms(content))]
    if filled:
        with conn.cursor() as cur:
            cur.executemany("UPDATE records SET terms = %s WHERE id = %s", filled)
    return len(filled)


def m006_no_space_terms(conn: Any) -> None:
    """Migration m006: the columns, then the existing rows' terms."""
    conn.execute(M005_COLUMNS)
    fill_terms(conn)
