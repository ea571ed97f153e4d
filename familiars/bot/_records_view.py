"""What a turn reads off the person's records that depends on the records alone
(:class:`RecordsView`), worked out once and kept while the turn reads the same records.

A person asks far more often than their records change, and every turn used to walk all of
them (a thousand and more) several times: for the prompt's directives and profile, for the
offline answer's items and word index, for the records a reply may speak from. A view is
found by :func:`records_view` for the records a turn read: the store makes each change a new
record object and the read filters by liveness at the turn's time, so the same records are
the same objects, in the same order, and nothing derived from them can have changed. A
different list (a record written, replaced, forgotten or expired) gets a new view; what each
text gives (its words, its relations) is cached by text beside it, so that rebuild is quick.
Only what depends on the clock (a record's TTL running out) is read again each time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from familiars.bot._answers import answerable, words_index
from familiars.llm import text_store
from familiars.memory import DEFAULT_MAX_RECORD_CHARS, MemoryRecord, cut_text, is_live

#: Views kept: a turn reads two (its records, and the plan's share of them) per dialogue.
MAX_VIEWS = 8


@dataclass
class RecordItem:
    """A record as an offline answer may quote it (an ``Item`` of :mod:`._answers`)."""

    kind: str
    text: str
    score: float
    private: bool
    #: A record this turn wrote from the speaker's own message: never another's words.
    foreign: bool = False

    @classmethod
    def of(cls, record: MemoryRecord, max_chars: int = DEFAULT_MAX_RECORD_CHARS) -> RecordItem:
        """A record as an answer may quote it: a hand-written 5 MB entry is shown cut."""
        return cls("record", cut_text(record.content, max_chars), 0.0, record.scope == "user")


@dataclass(frozen=True)
class _Spoken:
    """The records a reply may speak from (before the clock is read), their user-scope
    texts, and those of them that may expire."""

    records: list[MemoryRecord]
    kept: list[str]
    timed: tuple[MemoryRecord, ...]


class RecordsView:
    """One list of records and what is read off it, each part worked out when first asked."""

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self.records = list(records)
        self._scoped: dict[tuple[str, ...], list[MemoryRecord]] = {}
        self._ids: dict[tuple[str, ...], frozenset[str]] = {}
        self._shown: list[str] | None = None
        self._index: dict[str, tuple[int, ...]] | None = None
        self._items: dict[int, RecordItem] = {}
        self._spoken: dict[bool, _Spoken] = {}

    def of_scope(self, scope: str, *categories: str) -> list[MemoryRecord]:
        """The records of ``scope``, of ``categories`` (in the order named, each oldest
        first); all of the scope when none is named. Shared: not to be changed."""
        key = (scope, *categories)
        found = self._scoped.get(key)
        if found is None:
            found = [r for r in self.records if r.scope == scope]
            if categories:
                found = [r for c in categories for r in found if r.category == c]
            self._scoped[key] = found
        return found

    def newest(self, n: int, scope: str, *categories: str) -> list[MemoryRecord]:
        """The ``n`` newest of :meth:`of_scope`, pinned ones last (kept when others go),
        oldest first."""
        key = (f"newest {n}", scope, *categories)
        found = self._scoped.get(key)
        if found is None:
            records = self.of_scope(scope, *categories)
            found = self._scoped[key] = sorted(records, key=lambda r: (r.pinned, r.ts))[-n:]
        return found

    def ids_of(self, scope: str, *categories: str) -> frozenset[str]:
        """The ids of :meth:`of_scope`."""
        key = (scope, *categories)
        ids = self._ids.get(key)
        if ids is None:
            ids = self._ids[key] = frozenset(r.id for r in self.of_scope(scope, *categories))
        return ids

    def items_for(self, question: str) -> list[RecordItem]:
        """The records an offline answer to ``question`` may quote: only those it can find
        relevant (``may_answer``); the rest would score 0 and be dropped."""
        if self._shown is None:
            self._shown = [cut_text(r.content, DEFAULT_MAX_RECORD_CHARS) for r in self.records]
            self._index = words_index(self._shown)
        assert self._index is not None
        return [self._item(i) for i in answerable(question, self._index, len(self._shown))]

    def _item(self, i: int) -> RecordItem:
        item = self._items.get(i)
        if item is None:
            item = self._items[i] = RecordItem.of(self.records[i])
        return item

    def spoken(self, is_group: bool) -> list[MemoryRecord]:
        """The live records a reply may speak from now: in a group never the speaker's own
        (user scope is private to them: review s34 F7, the family, likes and plans answers
        named a private wife and a taste for gin in a group)."""
        part = self._spoken_part(is_group)
        expired = {id(r) for r in part.timed if not is_live(r)}
        if not expired:
            return part.records
        return [r for r in part.records if id(r) not in expired]

    def kept(self, is_group: bool) -> list[str]:
        """The texts of :meth:`spoken`'s user-scope records."""
        part = self._spoken_part(is_group)
        if not any(not is_live(r) for r in part.timed):
            return part.kept
        return [r.content for r in self.spoken(is_group) if r.scope == "user"]

    def _spoken_part(self, is_group: bool) -> _Spoken:
        part = self._spoken.get(is_group)
        if part is None:
            records = [
                r for r in self.records if not r.deprecated and not (is_group and r.scope == "user")
            ]
            kept = [r.content for r in records if r.scope == "user"]
            part = _Spoken(records, kept, tuple(r for r in records if r.ttl))
            self._spoken[is_group] = part
        return part


_VIEWS: list[RecordsView] = []
# The views hold the records' texts and their words: a forget empties them.
text_store(__name__ + "._VIEWS", _VIEWS.clear, lambda: len(_VIEWS))


def records_view(records: Sequence[MemoryRecord]) -> RecordsView:
    """The view of ``records``: the one kept for the same records, else a new one (kept in
    place of the view least recently asked for)."""
    read = records if isinstance(records, list) else list(records)
    for i, view in enumerate(_VIEWS):
        if view.records == read:  # the same objects: compared by identity first, in C
            if i:
                _VIEWS.insert(0, _VIEWS.pop(i))
            return view
    view = RecordsView(read)
    _VIEWS.insert(0, view)
    del _VIEWS[MAX_VIEWS:]
    return view


__all__ = ["MAX_VIEWS", "RecordItem", "RecordsView", "records_view"]
