"""The on-disk entry format of §5.3.1 and its parser.

An entry is one line ``<!-- {json} -->`` followed by the markdown body. Entries are separated
by one blank line. So that any body round-trips, a body line that begins with optional
backslashes and ``<!--`` gets one more backslash when rendered, and loses one when parsed; the
JSON never contains ``-->`` (its ``>`` is written as ``\\u003e``).

Parsing never gives up on a file: text before the first entry and broken entries are kept as
raw :class:`Segment` text, so rewriting a file preserves what a person typed even where it
does not parse.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from familiars.memory._errors import EntryParseError
from familiars.memory._paths import RECORD_ID_RE
from familiars.memory._records import (
    CATEGORIES,
    ENTRY_FIELDS,
    EPISTEMIC_STATUSES,
    SCHEMA_VERSION,
    SCOPES,
    VALID_CELLS,
    MemoryRecord,
    parse_ts,
    valid_categories,
)

_HEADER_START = re.compile(r"^<!--\s*\{")
_ESCAPED = re.compile(r"^(\\*)<!--")

_LIST_FIELDS = ("tags", "derived_from", "source_quote")
_DICT_OR_NONE = ("ttl", "evidence")
_STR_OR_NONE = ("supersedes", "last_accessed_ts")
#: The header's known keys (and the body's), as a set: every record read looks its keys up.
_NOT_EXTRA = frozenset((*ENTRY_FIELDS, "content"))


@dataclass
class Segment:
    """A stretch of a memory file: a parsed entry, or raw text kept as it is."""

    text: str
    line: int
    record: MemoryRecord | None = None
    error: EntryParseError | None = None


@dataclass
class ParsedFile:
    path: Path | None
    segments: list[Segment] = field(default_factory=list)

    @property
    def records(self) -> list[MemoryRecord]:
        return [s.record for s in self.segments if s.record is not None]

    @property
    def errors(self) -> list[EntryParseError]:
        return [s.error for s in self.segments if s.error is not None]


def _escape_body(body: str) -> str:
    lines = body.split("\n")
    return "\n".join(("\\" + ln) if _ESCAPED.match(ln) else ln for ln in lines)


def _unescape_body(body: str) -> str:
    lines = body.split("\n")
    return "\n".join(ln[1:] if _ESCAPED.match(ln) and ln.startswith("\\") else ln for ln in lines)


def record_header(record: MemoryRecord) -> dict[str, Any]:
    data: dict[str, Any] = {name: getattr(record, name) for name in ENTRY_FIELDS}
    for key, value in record.extra.items():
        if key not in data and key != "content":
            data[key] = value
    return data


def render_entry(record: MemoryRecord) -> str:
    """One entry, ending in a newline."""
    header = json.dumps(record_header(record), ensure_ascii=False, separators=(",", ":"))
    header = header.replace(">", "\\u003e")
    return f"<!-- {header} -->\n{_escape_body(record.content)}\n"


def render_file(parsed: ParsedFile) -> str:
    """The file text. A rendered entry is followed by one blank line when another segment
    follows; raw segments are written back verbatim (they carry their own separators)."""
    out: list[str] = []
    prev_was_record = False
    for seg in parsed.segments:
        if out and (prev_was_record or not out[-1].endswith("\n")):
            out.append("\n")
        if seg.record is not None:
            out.append(render_entry(seg.record))
            prev_was_record = True
        else:
            out.append(seg.text)
            prev_was_record = False
    return "".join(out)


#: Header fields whose value is a word from a fixed list: read whatever its case ("Profile" is
#: profile), as a person typing one means; names chosen freely (ids, tags) are exact.
_WORDS: dict[str, tuple[str, ...]] = {
    "scope": SCOPES,
    "category": CATEGORIES,
    "epistemic_status": EPISTEMIC_STATUSES,
}


def _word(data: dict[str, Any], name: str) -> str | None:
    """The header's ``name`` (one of :data:`_WORDS`), lower-cased; None when absent."""
    if name not in data:
        return None
    value = data[name]
    allowed = _WORDS[name]
    word = value.strip().lower() if isinstance(value, str) else None
    if word not in allowed:
        raise ValueError(f'"{name}" {json.dumps(value)} is not one of {", ".join(allowed)}')
    return word


def _check_header(data: dict[str, Any], cell: tuple[str, str] | None) -> dict[str, Any]:
    """The header's id, scope, category, ts and epistemic_status, checked (as every path
    and the index need them) and ready for :class:`MemoryRecord`. ``cell``: the (scope,
    category) of the file the entry is in; an entry of another cell is refused, and one
    without a category takes the file's."""
    rid = data.get("id")
    if not isinstance(rid, str) or not RECORD_ID_RE.fullmatch(rid):
        raise ValueError(
            '"id" must be "m_" followed by 1-64 letters, digits, "_" or "-" '
            f"(it is {json.dumps(rid, ensure_ascii=False)})"
        )
    if "scope" not in data:
        raise ValueError(f'"scope" is missing: one of {", ".join(SCOPES)}')
    kwargs: dict[str, Any] = {"id": rid}
    for name in _WORDS:
        word = _word(data, name)
        if word is not None:
            kwargs[name] = word
    if "category" not in kwargs:
        kwargs["category"] = cell[1] if cell is not None else "knowledge"
    scope, category = kwargs["scope"], kwargs["category"]
    if (scope, category) not in VALID_CELLS:
        raise ValueError(
            f'there is no category "{category}" in scope "{scope}" (its categories: '
            f"{', '.join(valid_categories(scope))})"
        )
    if cell is not None and (scope, category) != cell:
        raise ValueError(
            f'the entry says scope "{scope}", category "{category}", but this file holds '
            f'scope "{cell[0]}", category "{cell[1]}" entries: move it to its own file or '
            "correct its header"
        )
    if "ts" in data:  # "" (a record's default) is no time, as a missing one
        if not isinstance(data["ts"], str) or (data["ts"] and parse_ts(data["ts"]) is None):
            raise ValueError(
                f'"ts" {json.dumps(data["ts"], ensure_ascii=False)} is not a date and time '
                '(ISO 8601, such as "2026-12-07T20:45:00+00:00")'
            )
        kwargs["ts"] = data["ts"]
    return kwargs


def record_from_header(data: dict[str, Any], cell: tuple[str, str] | None = None) -> MemoryRecord:
    """Build a record from header JSON, checking types; raises ValueError with the reason.
    ``cell``: the (scope, category) of the file it was read from, when known."""
    kwargs = _check_header(data, cell)
    for name in _LIST_FIELDS:
        if name in data:
            value = data[name]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f'"{name}" must be a list of strings')
            kwargs[name] = list(value)
    for name in _DICT_OR_NONE:
        if name in data:
            if data[name] is not None and not isinstance(data[name], dict):
                raise ValueError(f'"{name}" must be an object or null')
            kwargs[name] = data[name]
    for name in _STR_OR_NONE:
        if name in data:
            if data[name] is not None and not isinstance(data[name], str):
                raise ValueError(f'"{name}" must be a string or null')
            kwargs[name] = data[name]
    for name in ("deprecated", "pinned"):
        if name in data:
            if not isinstance(data[name], bool):
                raise ValueError(f'"{name}" must be true or false')
            kwargs[name] = data[name]
    if "salience" in data:
        sal = data["salience"]
        if isinstance(sal, bool) or not isinstance(sal, int | float):
            raise ValueError('"salience" must be a number')
        kwargs["salience"] = float(sal)
    for name in ("schema_version", "access_count"):
        if name in data:
            if isinstance(data[name], bool) or not isinstance(data[name], int):
                raise ValueError(f'"{name}" must be an integer')
            kwargs[name] = data[name]
    extra = {k: v for k, v in data.items() if k not in _NOT_EXTRA}
    record = MemoryRecord(**kwargs, extra=extra)
    return upgrade(record)


def upgrade(record: MemoryRecord) -> MemoryRecord:
    """Bring a record of an older schema_version up to date, in memory only.

    Version 1 entries had no epistemic provenance or access statistics (their defaults apply)
    and named the TTL kind ``expires``; that spelling maps to ``absolute``.
    """
    if record.schema_version >= SCHEMA_VERSION:
        return record
    ttl = record.ttl
    if ttl and ttl.get("kind") == "expires" and "expires_at" in ttl:
        ttl = {**ttl, "kind": "absolute"}
    return record.replace(ttl=ttl, schema_version=SCHEMA_VERSION)


def _parse_header(line: str) -> dict[str, Any]:
    stripped = line.rstrip("\r")
    if not stripped.rstrip().endswith("-->"):
        raise ValueError("the comment is not closed with --> on the same line")
    inner = stripped.rstrip()[4:-3].strip()
    try:
        data = json.loads(inner)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad JSON: {exc.msg} at column {exc.colno}") from exc
    if not isinstance(data, dict):
        raise ValueError("the JSON is not an object")
    return data


def parse_text(
    text: str, path: Path | None = None, cell: tuple[str, str] | None = None
) -> ParsedFile:
    """Split ``text`` into entries and raw segments. Never raises on bad content: an entry
    whose header cannot be read, or does not fit ``cell`` (the file's scope and category),
    is an error segment kept as it is."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if _HEADER_START.match(ln)]
    parsed = ParsedFile(path=path)
    if not starts:
        if text:
            parsed.segments.append(Segment(text=text, line=1))
        return parsed
    if starts[0] > 0:
        pre = "\n".join(lines[: starts[0]]) + "\n"
        parsed.segments.append(Segment(text=pre, line=1))
    first_line: dict[str, int] = {}  # id -> the line of its first entry here
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        chunk_lines = lines[start:end]
        last = n + 1 == len(starts)
        raw = "\n".join(chunk_lines) + ("" if last else "\n")
        body_lines = chunk_lines[1:]
        # Undo the layout of render_file: the body's closing newline (and, between entries,
        # the blank separator line) leave exactly one empty line at the end of the chunk.
        if body_lines and body_lines[-1] == "":
            body_lines = body_lines[:-1]
        try:
            data = _parse_header(chunk_lines[0])
            record = record_from_header(data, cell)
            # A second entry with an id already here (a copy made by hand) is left out, as
            # a broken one is: both live, a forget by the id left the other (tester s34 U87).
            if record.id in first_line:
                raise ValueError(
                    f"the id {record.id} is already used at line {first_line[record.id]}; "
                    "give this entry a new id or remove it"
                )
            first_line[record.id] = start + 1
        except ValueError as exc:
            held, told = _held_text(body_lines, start + 2)
            err = EntryParseError(path, start + 1, str(exc) + held, str(exc) + told)
            parsed.segments.append(Segment(text=raw, line=start + 1, error=err))
            continue
        record.content = _unescape_body("\n".join(body_lines))
        parsed.segments.append(Segment(text=raw, line=start + 1, record=record))
    return parsed


def set_aside(seg: Segment, path: Path | None, reason: str) -> Segment:
    """The entry ``seg`` as a broken entry of ``path`` for ``reason`` (found beyond its own
    header: an id another file's entry has), its text kept as it is and held unread."""
    text = seg.text or (render_entry(seg.record) if seg.record is not None else "")
    body = text.split("\n")[1:]
    if body and body[-1] == "":
        body = body[:-1]
    held, told = _held_text(body, seg.line + 1)
    err = EntryParseError(path, seg.line, reason + held, reason + told)
    return Segment(text=text, line=seg.line, error=err)


def _held_text(body_lines: list[str], first: int) -> tuple[str, str]:
    """What a broken header hides besides itself, for its error: every line down to the next
    entry, a paragraph written by hand after it included (the format cannot tell that from a
    body of several paragraphs, so it is named rather than guessed at). Twice: by line only
    (logged), and with the paragraph's opening words (shown to the owner, never logged)."""
    while body_lines and not body_lines[-1].strip():
        body_lines = body_lines[:-1]
    if not any(ln.strip() for ln in body_lines):
        return "", ""
    last = first + len(body_lines) - 1
    where = f"line {first}" if last == first else f"lines {first}-{last}"
    opens = [
        i
        for i, ln in enumerate(body_lines)
        if ln.strip() and (i == 0 or not body_lines[i - 1].strip())
    ]
    if len(opens) == 1:
        said = f"; the text under it ({where}) is held with it, unread, until it is fixed"
        return said, said
    later = body_lines[opens[1]].strip()
    opening = later if len(later) <= 40 else later[:40].rstrip() + "…"
    said = (
        f"; the {len(opens)} paragraphs under it ({where}, down to the next entry) are held "
        f"with it, unread, until it is fixed: text written after it (from line "
        f"{first + opens[1]}"
    )
    return f"{said}) too", f'{said}: "{opening}") too'


_BOM = b"\xef\xbb\xbf"
_BAD_BYTE = re.compile("[\udc80-\udcff]")


def copies(seg: Segment, record_id: str) -> bool:
    """Whether ``seg`` is an entry left out as a second use of ``record_id`` in its file."""
    return seg.error is not None and f"the id {record_id} is already used" in seg.error.reason


def read_file(path: Path, cell: tuple[str, str] | None = None) -> ParsedFile:
    """Parse a memory file as UTF-8: a leading BOM is dropped and CRLF line ends read as LF.

    Bytes that are not UTF-8 hide only the entry that holds them: it becomes an error
    segment (file and line in the error) whose raw text is kept verbatim (surrogate escapes,
    written back as the same bytes), while the other entries of the file load."""
    data = Path(path).read_bytes()
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    text = data.decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    parsed = parse_text(text, path, cell)
    if _BAD_BYTE.search(text):
        parsed.segments = [_isolate_bad_bytes(seg, path) for seg in parsed.segments]
    return parsed


def _isolate_bad_bytes(seg: Segment, path: Path) -> Segment:
    found = _BAD_BYTE.search(seg.text)
    if found is None:
        return seg
    line = seg.line + seg.text[: found.start()].count("\n")
    byte = ord(found.group()) - 0xDC00
    err = EntryParseError(path, line, f"not UTF-8 text (byte 0x{byte:02x}); entry skipped")
    return Segment(text=seg.text, line=seg.line, error=err)
