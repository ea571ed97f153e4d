"""``/memory search`` lists what was searched for (tester s35 U22): "/memory search craig"
listed a teacher's job and "coeliac" beside the record naming Craig, and "/memory search
Otley", after Otley was forgotten, listed "The user's name is Maren." (raw cosines of the
bundled model, each over its floor). A hit no keyword matched must be near the best by
meaning, and for a search of words no common English has, close by meaning."""

from __future__ import annotations

from familiars.bot._recall import _what_was_searched_for
from familiars.bot._turn import RecalledItem


def _hit(text: str, cosine: float, bm25: float = 0.0) -> RecalledItem:
    return RecalledItem(text, "record", text, 1.0, raw={"cosine": cosine, "bm25": bm25})


def _found(query: str, *hits: RecalledItem) -> list[str]:
    return [it.text for it in _what_was_searched_for(list(hits), query)]


def test_a_name_found_by_keyword_leaves_out_what_only_scored_near_the_floor() -> None:
    craig = _hit("The user's sparky is called Craig.", 0.58, bm25=2.1)
    teacher = _hit("The user works as a teacher.", 0.28)
    coeliac = _hit("The user is coeliac.", 0.28)
    assert _found("craig", craig, teacher, coeliac) == [craig.text]


def test_a_word_no_common_english_has_needs_a_keyword_or_a_close_meaning() -> None:
    name = _hit("The user's name is Maren.", 0.26)
    cork = _hit("The user's sister lives in Cork.", 0.30)
    assert _found("Otley", name, cork) == []
    otley = _hit("The user lives in Otley.", 0.31, bm25=1.5)
    assert _found("otley", name, otley) == [otley.text]
    husband = _hit("The user's husband is called Craig.", 0.45)
    assert _found("hubby", husband, name) == [husband.text]  # slang: by meaning (R8)


def test_a_word_found_by_meaning_keeps_every_hit_near_the_best() -> None:
    nurse = _hit("The user works as a nurse.", 0.28)
    teacher = _hit("The user's wife works as a teacher.", 0.29)
    assert _found("job", nurse, teacher) == [nurse.text, teacher.text]
    dog = _hit("The user has a dog called Rex.", 0.47)
    name = _hit("The user's name is Maren.", 0.26)
    assert _found("pet", dog, name) == [dog.text]
