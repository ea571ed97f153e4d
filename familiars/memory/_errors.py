"""Errors of the memory package.

    MemoryError_ (base)
    ├── InvalidIdError        an id that would become part of a path fails its pattern
    ├── InvalidCellError      a (scope, category) pair outside VALID_CELLS
    ├── RecordNotFoundError   no record with that id
    └── EntryParseError       a hand-edited entry that cannot be read (carries file and line)

Every message is written to be shown to a person as it is.
"""

from __future__ import annotations

from pathlib import Path


class MemoryError_(Exception):  # noqa: N801 - avoid shadowing the builtin MemoryError
    """Base of every error raised by ``familiars.memory``."""


class InvalidIdError(MemoryError_, ValueError):
    def __init__(self, kind: str, value: object, pattern: str) -> None:
        super().__init__(f"invalid {kind} {value!r}: must match {pattern}")
        self.kind = kind
        self.value = value


class InvalidCellError(MemoryError_, ValueError):
    def __init__(self, scope: str, category: str, valid: list[str]) -> None:
        if valid:
            detail = f"valid categories for scope {scope!r}: {', '.join(valid)}"
        else:
            detail = "valid scopes: user, identity, dialogue, ephemeral"
        super().__init__(f"({scope!r}, {category!r}) is not a valid memory cell; {detail}")
        self.scope = scope
        self.category = category
        self.valid = valid


class RecordNotFoundError(MemoryError_, KeyError):
    def __init__(self, record_id: str) -> None:
        super().__init__(record_id)
        self.record_id = record_id

    def __str__(self) -> str:
        return f"no memory with id {self.record_id!r}"


class EntryParseError(MemoryError_, ValueError):
    def __init__(self, path: Path | None, line: int, reason: str) -> None:
        where = f"{path}:{line}" if path is not None else f"line {line}"
        super().__init__(f"{where}: broken memory entry: {reason}")
        self.path = path
        self.line = line
        self.reason = reason
