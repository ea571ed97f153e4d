"""Issue 20: the care check reads the message's vector the turn embedded for recall (the
bundled model reads case alike), instead of embedding the lowercase message again; where
the model reads case, or lowercasing a word depends on its place (Greek final sigma), it
embeds the lowercase text as before. The answer is the same either way."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from familiars.memory import understanding_for

MESSAGES = [
    "Some Nights I Wish I Could Just DISAPPEAR And Not Wake Up",
    "This Traffic Is KILLING Me, Honestly",
    "İstanbul Was Lovely In May, I Want To Go Back",
    "ÉCOLE Was Hard But I Never Wanted To Give Up",
    "Die Straße Ist GROSS Und Ich Weiß Nicht Mehr Weiter",
    "I Don't See The Point Of Going On Anymore",
    "My Cat Mr. Whiskers Knocked Over The Plant 🐱",
]


class Counting:
    """The real model's ``embed_batch``, remembering every text asked for."""

    def __init__(self, embed: Any) -> None:
        self.embed, self.texts = embed, []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts += list(texts)
        return self.embed(texts)


def _understanding(real_embedder: Any, counting: Counting) -> Any:
    found = understanding_for(counting, *real_embedder.space)
    assert found is not None
    return found


@pytest.mark.slow
def test_the_bundled_model_reads_case_alike_and_the_turns_vector_answers_the_same(
    real_embedder: Any,
) -> None:
    counting = Counting(real_embedder.embed_batch)
    understanding = _understanding(real_embedder, counting)
    assert understanding.reads_case_alike()
    answers = [understanding.sounds_like_harm(m) for m in MESSAGES]
    assert answers[0] and not answers[1]  # the check itself still tells them apart
    vectors = real_embedder.embed_batch(MESSAGES)  # as recall embeds the message: as said
    for m, v in zip(MESSAGES, vectors, strict=True):
        assert np.allclose(v, real_embedder.embed_batch([m.lower()])[0], atol=1e-6), m
    understanding.forget_cache(force=True)
    counting.texts.clear()
    reused = [understanding.sounds_like_harm(m, v) for m, v in zip(MESSAGES, vectors, strict=True)]
    assert reused == answers
    assert not any(m.lower() in counting.texts for m in MESSAGES)  # no second model call


def test_a_word_ending_in_a_capital_sigma_is_embedded_again(real_embedder: Any) -> None:
    counting = Counting(real_embedder.embed_batch)
    understanding = _understanding(real_embedder, counting)
    text = "ΣΊΣΥΦΟΣ pushed his stone up the hill again today"
    vector = real_embedder.embed_batch([text])[0]
    assert not np.allclose(vector, real_embedder.embed_batch([text.lower()])[0], atol=1e-3)
    understanding.sounds_like_harm(text, vector)
    assert text.lower() in counting.texts


def test_a_model_that_reads_case_embeds_the_lowercase_message(real_embedder: Any) -> None:
    def cased(texts: list[str]) -> np.ndarray:  # a case-sensitive stand-in of the same space
        return real_embedder.embed_batch([t.swapcase() if t[:1].isupper() else t for t in texts])

    counting = Counting(cased)
    understanding = _understanding(real_embedder, counting)
    assert not understanding.reads_case_alike()
    text = MESSAGES[0]
    understanding.sounds_like_harm(text, real_embedder.embed_batch([text])[0])
    assert text.lower() in counting.texts


@pytest.mark.parametrize("text", ["Ok Bye", "ok"])
def test_short_messages_are_not_read_for_harm_at_all(real_embedder: Any, text: str) -> None:
    counting = Counting(real_embedder.embed_batch)
    understanding = _understanding(real_embedder, counting)
    assert not understanding.sounds_like_harm(text, real_embedder.embed_batch([text])[0])
    assert counting.texts == []


def test_once_the_exemplars_are_in_the_check_needs_no_model(real_embedder: Any) -> None:
    """The turn runs the check inline (no hop to a thread) only when it is a product of
    vectors at hand: the exemplars embedded, the case probe done, the message's vector
    given; then the model is not called."""
    counting = Counting(real_embedder.embed_batch)
    understanding = _understanding(real_embedder, counting)
    text, vector = MESSAGES[5], real_embedder.embed_batch([MESSAGES[5]])[0]
    assert understanding.harm_is_ready("ok bye")  # too short to be read at all
    assert not understanding.harm_is_ready(text, vector)  # nothing embedded yet
    answer = understanding.sounds_like_harm(text, vector)
    assert understanding.harm_is_ready(text, vector)
    assert not understanding.harm_is_ready(text)  # no vector: the model would run
    counting.texts.clear()
    assert understanding.sounds_like_harm(text, vector) == answer and counting.texts == []
