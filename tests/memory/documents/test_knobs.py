from __future__ import annotations

import pytest

from familiars.memory._documents.knobs import (
    KNOBS,
    FileFacts,
    ablated_knobs,
    apply_knobs,
    is_opaque_name,
    parse_query,
)


def test_parse_query_finds_words_types_and_history_cues() -> None:
    q = parse_query("find the lease PDF from before the addendum")
    assert q.words == ("lease", "addendum")
    assert q.wanted_exts == frozenset({".pdf"})
    assert q.wants_history
    assert {"tenancy", "rental"} <= set(q.expanded)


def test_weak_type_words_need_a_noun() -> None:
    assert parse_query("the csv module").wanted_exts == frozenset()
    assert "csv" in parse_query("the csv module").words
    assert parse_query("the csv file of expenses").wanted_exts == frozenset({".csv"})
    assert parse_query("my word document").wanted_exts == frozenset({".docx", ".doc"})


def test_synonym_expansion_can_be_switched_off() -> None:
    assert parse_query("lease", ablate={"synonyms"}).expanded == ("lease",)


@pytest.mark.parametrize(
    ("name", "opaque"),
    [
        ("AgADBAADr6cxG_4321.jpg", True),
        ("3f2a1b9c-1234-4abc-9def-0123456789ab.pdf", True),
        ("d41d8cd98f00b204e9800998ecf8427e.txt", True),
        ("BQACAgIAAxkBAAIBQ2X.pdf", True),
        ("lease_2024.pdf", False),
        ("README.md", False),
        ("Meeting notes March.docx", False),
    ],
)
def test_opaque_names(name: str, opaque: bool) -> None:
    assert is_opaque_name(name) is opaque


def _score(
    query: str, facts: FileFacts, ablate: set[str] | None = None
) -> tuple[float, dict[str, float]]:
    return apply_knobs(0.5, parse_query(query, ablate=ablate or ()), facts, ablate=ablate or ())


def test_each_knob_fires_and_can_be_ablated() -> None:
    pdf = FileFacts("tenancy.pdf", "/home/a/2024-Returns", ".pdf")
    cases = {
        "extension_boost": ("the lease pdf", pdf),
        "wrong_extension": ("the lease spreadsheet", pdf),
        "opaque_name": ("lease", FileFacts("AgADBAADr6cxG_4321.pdf", "", ".pdf")),
        "folder_synonym": ("my taxes", pdf),
        "filename_overlap": ("tenancy", pdf),
        "filename_coverage": ("tenancy", pdf),
        "synonyms": ("lease", pdf),  # lease -> tenancy reaches the file name
    }
    for knob, (query, facts) in cases.items():
        on_score, on_parts = _score(query, facts)
        off_score, off_parts = _score(query, facts, {knob})
        assert on_score != off_score, knob
        if knob != "synonyms":
            assert knob in on_parts and knob not in off_parts


def test_boost_and_penalty_factors() -> None:
    pdf = FileFacts("x.pdf", "", ".pdf")
    txt = FileFacts("x.txt", "", ".txt")
    assert _score("zzz pdf", pdf)[0] == pytest.approx(1.0)
    assert _score("zzz pdf", txt)[0] == pytest.approx(0.25)


def test_coverage_rewards_names_holding_most_query_words() -> None:
    full = _score("garden shed plans", FileFacts("garden-shed-plans.txt", "", ".txt"))[0]
    one = _score("garden shed plans", FileFacts("garden.txt", "", ".txt"))[0]
    assert full > one


def test_ablate_parsing() -> None:
    assert ablated_knobs("synonyms, opaque_name") == {"synonyms", "opaque_name"}
    assert ablated_knobs(None) == frozenset()
    assert ablated_knobs(",".join(KNOBS)) == frozenset(KNOBS)
    with pytest.raises(ValueError, match="unknown ranking knob"):
        ablated_knobs("synonym")
