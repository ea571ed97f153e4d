"""The search index's terms of the texts every row repeats (speakers' names, dates) are
keyed by people's words: a forget empties them with the other text caches."""

from __future__ import annotations

from familiars.llm import clear_text_caches, text_cache_sizes
from familiars.memory._search_index import _terms_of

NAME = "familiars.memory._search_index._terms_of"


def test_the_speakers_terms_are_a_text_cache() -> None:
    _terms_of("Pepperoni Jordan")
    assert text_cache_sizes().get(NAME)
    clear_text_caches()
    assert not text_cache_sizes().get(NAME)
