"""Ablation as typed settings: which ranking knobs to switch off, recall and files apart.

``recall.ablate`` takes :data:`RecallKnob` names (``FAMILIARS_RECALL__ABLATE='["recency"]'``),
``files.ablate`` :data:`FileKnob` names. ``FAMILIARS_ABLATE_KNOB=a,b`` is a shorthand for
both: each known name goes to its side (:func:`split_shorthand`), an unknown one is a
one-line :class:`~familiars.config.ConfigError` when the settings load.

The names mirror the registries the rankers declare (``familiars.memory.RECALL_KNOBS`` and
``FILE_KNOBS``; config sits below memory and cannot import them): a test keeps them equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

ABLATE_ENV = "FAMILIARS_ABLATE_KNOB"

RecallKnob = Literal[
    "late_interaction",
    "keyword",
    "recency",
    "tree_distance",
    "salience",
    "speaker_prior",
    "small_talk",
    "asker_prior",
    "keyword_date",
    "keyword_speaker",
    "context_words",
    "context_dense",
    "sentences",
    "dedupe",
    "lexical_gate",
    "hubness",
    "rerank",
]
FileKnob = Literal[
    "synonyms",
    "extension_boost",
    "wrong_extension",
    "opaque_name",
    "folder_synonym",
    "filename_overlap",
    "filename_coverage",
]
RECALL_KNOB_NAMES: tuple[str, ...] = get_args(RecallKnob)
FILE_KNOB_NAMES: tuple[str, ...] = get_args(FileKnob)


class UnknownAblationKnob(ValueError):
    """A name in ``FAMILIARS_ABLATE_KNOB`` that is neither a recall nor a file knob."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(
            f"{ABLATE_ENV}: unknown knob(s) {', '.join(names)}; recall knobs: "
            f"{', '.join(RECALL_KNOB_NAMES)}; file knobs: {', '.join(FILE_KNOB_NAMES)}"
        )


def split_shorthand(value: str) -> tuple[list[str], list[str]]:
    """``"recency,synonyms"`` -> (recall knobs, file knobs); unknown names raise."""
    names = list(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    unknown = [n for n in names if n not in RECALL_KNOB_NAMES and n not in FILE_KNOB_NAMES]
    if unknown:
        raise UnknownAblationKnob(unknown)
    return [n for n in names if n in RECALL_KNOB_NAMES], [n for n in names if n in FILE_KNOB_NAMES]


def shorthand_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    """Settings overrides from ``FAMILIARS_ABLATE_KNOB`` (none when it is unset or empty)."""
    value = environ.get(ABLATE_ENV, "")
    if not value.strip():
        return {}
    recall, files = split_shorthand(value)
    return {"recall": {"ablate": recall}, "files": {"ablate": files}}
