"""How long one record may be (``memory.max_record_chars``), and what happens at the limit.

- :func:`check_record_length` refuses a write over it with :class:`RecordTooLongError`, one
  line that says the length, the limit and the setting (and an empty one with
  :class:`EmptyRecordError`);
- :func:`cut_text` is how an over-long record (a hand edit: files are never refused) is shown
  or sent to a model: the first ``limit`` characters and ``...[cut, N more characters]``;
- :func:`over_limit` lists the records over it, for ``familiars memory check``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from familiars.memory._errors import MemoryError_
from familiars.memory._records import MemoryRecord

logger = logging.getLogger(__name__)

#: The default of ``memory.max_record_chars`` (config/_settings.py says the same).
DEFAULT_MAX_RECORD_CHARS = 2000
SETTING = "memory.max_record_chars"


class RecordTooLongError(MemoryError_, ValueError):
    """A write longer than the configured maximum; its text is one line for the person."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"too long: {length:,} characters; the limit is {limit:,} ({SETTING})")
        self.length = length
        self.limit = limit


class EmptyRecordError(MemoryError_, ValueError):
    """A write with no text: a memory that says nothing is refused, not kept."""

    def __init__(self) -> None:
        super().__init__("empty: a memory needs some text")


def check_record_length(text: str, limit: int = DEFAULT_MAX_RECORD_CHARS) -> None:
    """Raise :class:`RecordTooLongError` when ``text`` (stripped) is over ``limit``, and
    :class:`EmptyRecordError` when it is nothing (``memory add ""`` kept an empty memory)."""
    length = len(text.strip())
    if length == 0:
        raise EmptyRecordError()
    if length > limit:
        raise RecordTooLongError(length, limit)


def cut_mark(more: int) -> str:
    return f"...[cut, {more:,} more characters]"


def cut_text(text: str, limit: int = DEFAULT_MAX_RECORD_CHARS) -> str:
    """``text`` as it may be shown: whole when within ``limit``, else its first ``limit``
    characters and :func:`cut_mark` (so the reader knows there is more, and how much)."""
    if len(text) <= limit:
        return text
    return text[:limit] + cut_mark(len(text) - limit)


def shown_record(record: MemoryRecord, limit: int = DEFAULT_MAX_RECORD_CHARS) -> MemoryRecord:
    """``record`` itself when within ``limit``, else a copy whose content is cut."""
    if len(record.content) <= limit:
        return record
    return record.replace(content=cut_text(record.content, limit))


@dataclass(frozen=True)
class OverLimit:
    """One record over the limit, for ``memory check``."""

    record_id: str
    path: Path | None
    length: int
    limit: int

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path is not None else ""
        return (
            f"{where}{self.record_id} is {self.length:,} characters, over the limit of "
            f"{self.limit:,} ({SETTING}); it is shown cut"
        )


def over_limit(
    records: Iterable[MemoryRecord],
    limit: int = DEFAULT_MAX_RECORD_CHARS,
    path_of: Callable[[MemoryRecord], Path] | None = None,
) -> list[OverLimit]:
    """The records whose content is longer than ``limit``, in the order given."""
    found = []
    for rec in records:
        if len(rec.content.strip()) > limit:
            path = path_of(rec) if path_of is not None else None
            found.append(OverLimit(rec.id, path, len(rec.content.strip()), limit))
    return found
