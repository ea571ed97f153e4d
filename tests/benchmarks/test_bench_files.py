"""Pure parts of ``familiars bench files`` (the full run needs minutes of embedding)."""

from __future__ import annotations

from familiars.benchmarks._files import score_ranking, summarise
from familiars.benchmarks._files_corpus import deroff
from familiars.benchmarks._files_queries import QUERIES


def test_score_ranking_and_summary() -> None:
    assert score_ranking(["a", "b"], ("a",)) == (1, 1, 1.0)
    assert score_ranking(["x", "y", "b"], ("a", "b")) == (0, 1, 1 / 3)
    assert score_ranking(["x"] * 10, ("a",)) == (0, 0, 0.0)
    assert summarise([(1, 1, 1.0), (0, 1, 0.5)]) == {"hit@1": 0.5, "hit@5": 1.0, "mrr": 0.75}


def test_queries_have_targets_and_are_enough() -> None:
    assert len(QUERIES) >= 50
    assert len({q for q, _ in QUERIES}) == len(QUERIES)
    assert all(targets and all("/" in t for t in targets) for _, targets in QUERIES)


def test_deroff_keeps_words_and_drops_markup() -> None:
    roff = (
        '.\\" comment\n.TH CP 1\n.SH NAME\ncp \\- copy files\n'
        ".SH DESCRIPTION\n.B cp\ncopies \\fBSOURCE\\fR to DEST\n"
    )
    text = deroff(roff)
    assert "copy files" in text and "copies SOURCE to DEST" in text
    assert "\\f" not in text and "comment" not in text and "NAME" in text
