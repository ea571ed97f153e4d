"""Small talk: questions, openers, reactions and sentences about no one count; what a person
says about themselves does not; records read 0."""

from __future__ import annotations

import numpy as np
import pytest

from familiars.memory._search_index import Doc, RecallIndex
from familiars.memory._small_talk import is_small_talk, small_talk_share


@pytest.mark.parametrize(
    "sentence",
    [
        "Did you make it?",
        "Hey Jon! Good to see you.",
        "Thanks, Melanie!",
        "Wow, that's awesome!",
        "That sounds like so much fun.",
        "The colors really pop.",
        "Sorry to hear that, I hope you're okay.",
    ],
)
def test_small_talk(sentence: str) -> None:
    assert is_small_talk(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm colorblind, red and green look alike to me.",
        "Since I started therapy, I've been arguing less with my partner.",
        "We went camping with the kids last weekend.",
        "My back pain disappeared after I switched to a standing desk.",
        "Loud neighbors put me on edge.",
    ],
)
def test_said_about_oneself(sentence: str) -> None:
    assert not is_small_talk(sentence)


def test_share_over_sentences_ignores_brackets_and_empty_text() -> None:
    text = "Wow, Caroline! I'm learning the piano. What made you try pottery?"
    assert small_talk_share(text) == pytest.approx(2 / 3)
    assert small_talk_share("I love it. [shares a photo: a bowl]") == 0.0
    assert small_talk_share("") == 1.0
    assert small_talk_share("!!!") == 1.0


def test_index_reads_small_talk_for_nodes_and_zero_for_records() -> None:
    index = RecallIndex(4)
    v = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
    index.add(Doc(key="n", kind="node", group="g", text="Thanks! Did you make it?", timestamp=0), v)
    index.add(Doc(key="r", kind="record", group="g", text="Likes pottery.", timestamp=0), v)
    assert index.small_talk(np.array([0, 1])).tolist() == [1.0, 0.0]
