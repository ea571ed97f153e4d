"""F1: a warning said above the chat's prompt is in the person's words; the exception's
class and text stay in the log file."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from familiars.cli._chat_logs import log_to_workspace

#: An exception class's name as a person should never read it: "EmbedderUnavailableError".
_CLASS_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")


@pytest.fixture
def chat_log(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    """The chat's logging on ``tmp_path``: the log file, and what the person was told."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    said: list[str] = []
    path = log_to_workspace(tmp_path, "INFO", say=said.append)
    assert path is not None
    try:
        yield path, said
    finally:
        for handler in root.handlers[:]:
            if handler not in before:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(level)


def test_the_fallback_embedder_is_told_in_plain_words(
    tmp_path: Path, chat_log: tuple[Path, list[str]]
) -> None:
    from familiars.config import Settings
    from familiars.memory import embedder_from_settings

    path, said = chat_log
    settings = Settings(workspace=tmp_path / "ws", embedding={"model": "no-such/model-f1"})
    embedder_from_settings(settings)
    for handler in logging.getLogger().handlers:
        handler.flush()
    [note] = [s for s in said if "no-such/model-f1" in s]
    assert _CLASS_NAME.search(note) is None, note
    assert "search my memory" in note and "built-in" in note
    logged = path.read_text()
    assert "EmbedderUnavailableError" in logged  # the why: in the file only


def test_a_warning_with_words_for_the_person_says_those(chat_log: tuple[Path, list[str]]) -> None:
    path, said = chat_log
    logging.getLogger("familiars.llm._router").warning(
        "provider %s cools down: %s",
        "local",
        "ProviderConnectionError: refused",
        extra={"notice": "the language model could not be used just now"},
    )
    logging.getLogger("familiars.llm._router").warning("provider %s key missing", "other")
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert said == [
        "(note: the language model could not be used just now)",
        "(note: provider other key missing)",  # without words of its own: the log's
    ]
    assert "ProviderConnectionError: refused" in path.read_text()
