"""Errors of the memory package.

    MemoryError_ (base)
    ├── InvalidIdError            an id that would become part of a path fails its pattern
    ├── InvalidCellError          a (scope, category) pair outside VALID_CELLS
    ├── RecordNotFoundError       no record with that id
    ├── EntryParseError           a hand-edited entry that cannot be read (file and line)
    ├── RecallError               bad recall input (empty query, unknown profile, k < 1)
    ├── DialogueError             a dialogue tree problem (``_dialog_tree``)
    │   ├── DialogueNotFoundError     no such dialogue
    │   └── DialogueLoadError         ``dialogue.json`` itself cannot be read
    ├── EmbedderUnavailableError  no embedding model could be loaded
    ├── UnknownKnobError          an ablation knob name no registry lists (``_scoring``)
    ├── WriterOutputError         the model's reply is not a WriterOutput (``_writer``)
    └── DocumentError             the document finder's tree (``_documents/errors.py``)

Every message is written to be shown to a person as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


class MemoryError_(Exception):  # noqa: N801 - avoid shadowing the builtin MemoryError
    """Base of every error raised by ``familiars.memory``."""


class InvalidIdError(MemoryError_, ValueError):
    """``rule``: what a valid one is, in words (shown to a person instead of ``pattern``)."""

    def __init__(self, kind: str, value: object, pattern: str, rule: str | None = None) -> None:
        super().__init__(f"invalid {kind} {value!r}: {rule or f'must match {pattern}'}")
        self.kind = kind
        self.value = value


class InvalidCellError(MemoryError_, ValueError):
    def __init__(self, scope: str, category: str, valid: list[str]) -> None:
        if valid:
            detail = f"valid categories for scope {scope!r}: {', '.join(valid)}"
        else:
            detail = "valid scopes: user, identity, dialogue, ephemeral"
        super().__init__(f"no category {category!r} in scope {scope!r}; {detail}")
        self.scope = scope
        self.category = category
        self.valid = valid


class RecordNotFoundError(MemoryError_, KeyError):
    def __init__(self, record_id: str) -> None:
        super().__init__(record_id)
        self.record_id = record_id

    def __str__(self) -> str:
        if self.record_id.startswith("person:"):  # a whole person (``person:KEY``)
            return f"no one with the key {self.record_id[7:]!r} is known here"
        return f"no memory with id {self.record_id!r}"


class EntryParseError(MemoryError_, ValueError):
    """A broken entry: ``reason`` (and ``str()``, which is logged) names lines, never the
    person's words; ``told`` may quote the opening of a paragraph held with it, for the owner
    only (``memory check``): a log line keeps them after a forget (review s34 F15)."""

    def __init__(self, path: Path | None, line: int, reason: str, told: str | None = None):
        where = f"{path}:{line}" if path is not None else f"line {line}"
        super().__init__(f"{where}: broken memory entry: {reason}")
        self.path = path
        self.line = line
        self.reason = reason
        self.told = told or reason

    def shown(self) -> str:
        """The error as the owner is shown it, quoting what it holds back; never logged."""
        where = f"{self.path}:{self.line}" if self.path is not None else f"line {self.line}"
        return f"{where}: broken memory entry: {self.told}"


class RecallError(MemoryError_):
    """Bad recall input, shown to the person."""


class DialogueError(MemoryError_):
    """A dialogue tree problem that is shown to the person."""


class EmbedderUnavailableError(MemoryError_, RuntimeError):
    """No embedding model could be loaded (neither the configured one nor the fallback)."""


class UnknownKnobError(MemoryError_, ValueError):
    """An ablation knob name that the registry it was checked against does not list."""

    def __init__(self, names: Sequence[str], known: Iterable[str]) -> None:
        self.names = list(names)
        super().__init__(
            f"unknown ranking knob(s) {', '.join(sorted(self.names))}; "
            f"known: {', '.join(sorted(known))}"
        )
