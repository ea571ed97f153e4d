"""WriterOutput (§5.7.2): what a writer (the model or the offline rules) answers.

:class:`WriterOutput` holds :class:`WriteOp` s (``add`` / ``update`` / ``skip`` into a
valid cell) of :class:`WriterEntry` s, an entry may carry an :class:`OpenLoop`;
:func:`parse_writer_output` validates each write on its own (one bad write never
discards the good ones) and raises :class:`WriterOutputError` when there is nothing to
validate at all.
"""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from familiars.llm import extract_json
from familiars.memory._errors import MemoryError_
from familiars.memory._limits import (
    DEFAULT_MAX_RECORD_CHARS,
    EmptyRecordError,
    RecordTooLongError,
    check_record_length,
)
from familiars.memory._records import VALID_CELLS

logger = logging.getLogger(__name__)


OpenLoopKind = Literal["promise", "request", "question", "reminder"]
_TAG_OK = re.compile(r"^[\w .:/+-]{1,64}$", re.UNICODE)
#: The keys each ttl kind keeps; anything else a model adds is dropped, never stored.
_TTL_KEYS = {
    "absolute": ("expires_at",),
    "turns": ("turns", "created_turn"),
    "scope": ("scope",),
}


class OpenLoop(BaseModel):
    """Something left open in a conversation; the scheduler acts on it, a later turn closes it."""

    model_config = ConfigDict(extra="ignore")

    kind: OpenLoopKind
    due: str | None = None
    status: Literal["open", "done"] = "open"
    #: A reminder that comes back: its rule (see ``familiars.memory._offline._every``).
    every: dict[str, Any] | None = None

    def stored(self) -> dict[str, Any]:
        """As kept in a record's ``extra["open_loop"]`` (no ``every`` key for a one-off)."""
        loop = self.model_dump()
        if loop.get("every") is None:
            loop.pop("every", None)
        return loop

    @field_validator("every")
    @classmethod
    def _readable_every(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else every_rule(value)

    @model_validator(mode="after")
    def _rule_of_its_first(self) -> OpenLoop:
        """A rule that leaves out its day (a monthly rule with no day of the month, a weekly
        one with no weekday, every n-th with no start) would fall on any day: it takes the
        first due time's; with no due time it is refused, saying what is missing."""
        if self.every is None or not rule_lacks(self.every):
            return self
        if self.due is None:
            raise ValueError(
                "every: a repeating reminder needs its day: give every.day (1-31) for a "
                "monthly rule or every.weekday (0-6, Monday 0) for a weekly one, and a due "
                "time for its first occurrence"
            )
        self.every = rule_from_first(self.every, datetime.fromisoformat(self.due))
        return self

    @field_validator("due")
    @classmethod
    def _iso_due(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        try:
            dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError(f"due must be an ISO 8601 time, got {value!r}") from exc
        if dt.tzinfo is None:
            raise ValueError("due must carry a time zone offset")
        return dt.isoformat()


#: "every 3 days", "every other Monday": the most days or weeks between two occurrences.
MAX_EVERY_INTERVAL = 99
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def every_rule(value: Any) -> dict[str, Any]:
    """A repeating reminder's rule as ``familiars.memory._offline._every`` reads it (unit
    day, week or month, "HH:MM", a zone, a weekday or weekdays 0-6 or a day of the month
    1-31, every 1-99, a start date), its other keys dropped; ValueError for a rule the
    scheduler cannot run (a model's)."""
    if not isinstance(value, dict) or value.get("unit") not in ("day", "week", "month"):
        raise ValueError("every.unit must be day, week or month")
    if not isinstance(value.get("at"), str) or not _HHMM.match(value["at"]):
        raise ValueError("every.at must be a time HH:MM")
    rule = {"unit": value["unit"], "at": value["at"]}
    if value.get("tz") is not None:
        try:
            rule["tz"] = ZoneInfo(str(value["tz"])).key
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError("every.tz must be a time zone name") from exc
    interval = value.get("interval")
    if interval is not None:
        if type(interval) is not int or not 1 <= interval <= MAX_EVERY_INTERVAL:
            raise ValueError(f"every.interval must be a whole number 1-{MAX_EVERY_INTERVAL}")
        rule["interval"] = interval
    days = value.get("weekdays", [value["weekday"]] if "weekday" in value else None)
    if days is not None:
        if (
            not isinstance(days, list)
            or not days
            or any(type(d) is not int or not 0 <= d <= 6 for d in days)
        ):
            raise ValueError("every.weekday(s) must be 0 (Monday) to 6")
        rule.update(
            {"weekdays": sorted(set(days))} if "weekdays" in value else {"weekday": days[0]}
        )
    if value["unit"] == "month" and value.get("day") is not None:
        if type(value["day"]) is not int or not 1 <= value["day"] <= 31:
            raise ValueError("every.day must be a day of the month 1-31")
        rule["day"] = value["day"]
    if value.get("start") is not None:
        try:
            rule["start"] = date.fromisoformat(str(value["start"])).isoformat()
        except ValueError as exc:
            raise ValueError("every.start must be a date YYYY-MM-DD") from exc
    return rule


def rule_lacks(rule: dict[str, Any]) -> bool:
    """Whether a repeating rule leaves out the day it falls on (it would fall on any)."""
    unit = rule.get("unit")
    return (
        (unit == "month" and "day" not in rule)
        or (unit == "week" and "weekday" not in rule and "weekdays" not in rule)
        or (int(rule.get("interval") or 1) > 1 and "start" not in rule)
    )


def rule_from_first(rule: dict[str, Any], first: datetime) -> dict[str, Any]:
    """``rule`` with what it leaves out taken from its first occurrence ``first``: the day of
    the month, the weekday, the start of every n-th (in the rule's zone)."""
    with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
        first = first.astimezone(ZoneInfo(str(rule["tz"]))) if rule.get("tz") else first
    fixed = dict(rule)
    if fixed.get("unit") == "month":
        fixed.setdefault("day", first.day)
    if fixed.get("unit") == "week" and "weekdays" not in fixed:
        fixed.setdefault("weekday", first.weekday())
    if int(fixed.get("interval") or 1) > 1:
        fixed.setdefault("start", first.date().isoformat())
    return fixed


class WriterEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    #: Its length is checked against ``memory.max_record_chars`` by :func:`parse_writer_output`
    #: and :func:`familiars.memory._writer._apply.apply_writes_report` (a clear refusal).
    content: str = ""
    tags: list[str] = Field(default_factory=list)
    salience: float = Field(default=0.5, ge=0.0, le=1.0)
    ttl: dict[str, Any] | None = None
    supersedes_id: str | None = None
    epistemic_status: Literal["asserted", "inferred", "speculative"] = "asserted"
    pinned: bool = False
    source_quote: list[str] = Field(default_factory=list)
    #: An extension of §5.7.2 (DESIGN.md): promise / request / question / reminder.
    open_loop: OpenLoop | None = None

    @field_validator("content")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("tags", mode="before")
    @classmethod
    def _clean_tags(cls, value: Any) -> list[str]:
        """Tags the store would refuse are dropped rather than failing the whole write."""
        if not isinstance(value, list):
            return []
        tags = [str(t).strip()[:64] for t in value if isinstance(t, str | int | float)]
        return list(dict.fromkeys(t for t in tags if _TAG_OK.match(t)))

    @field_validator("source_quote", mode="before")
    @classmethod
    def _quotes(cls, value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        return [str(v)[:500] for v in value] if isinstance(value, list) else []

    @field_validator("supersedes_id", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value in ("", "null") else value

    @field_validator("ttl")
    @classmethod
    def _known_ttl(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        kind = value.get("kind")
        value = {k: value[k] for k in _TTL_KEYS.get(str(kind), ()) if k in value}
        value["kind"] = kind
        if kind == "absolute":
            stamp = str(value.get("expires_at", "")).replace("Z", "+00:00")
            try:
                datetime.fromisoformat(stamp)
            except ValueError as exc:
                raise ValueError("absolute ttl needs an ISO 8601 expires_at") from exc
        elif kind == "turns":
            if not isinstance(value.get("turns"), int) or value["turns"] < 1:
                raise ValueError("turns ttl needs a positive integer 'turns'")
        elif kind == "scope":
            if value.get("scope") not in ("session", "dialogue"):
                raise ValueError("scope ttl needs scope 'session' or 'dialogue'")
        else:
            raise ValueError("ttl kind must be absolute, turns or scope")
        return value


class WriteOp(BaseModel):
    model_config = ConfigDict(extra="ignore")

    op: Literal["add", "update", "skip"]
    scope: str = "user"
    category: str = "knowledge"
    entry: WriterEntry = Field(default_factory=WriterEntry)

    @model_validator(mode="after")
    def _valid(self) -> WriteOp:
        if self.op == "skip":
            return self
        if (self.scope, self.category) not in VALID_CELLS:
            cells = ", ".join(f"{s}/{c}" for s, c in sorted(VALID_CELLS))
            raise ValueError(
                f"({self.scope}, {self.category}) is not a valid cell; valid cells: {cells}"
            )
        if not self.entry.content:
            raise ValueError(f"an {self.op} needs non-empty entry.content")
        return self


class WriterOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    writes: list[WriteOp] = Field(default_factory=list)


def writer_output_schema(max_chars: int = DEFAULT_MAX_RECORD_CHARS) -> dict[str, Any]:
    """The JSON schema the model is asked to follow, ``content`` capped at ``max_chars``."""
    schema = WriterOutput.model_json_schema()
    schema["$defs"]["WriterEntry"]["properties"]["content"]["maxLength"] = max_chars
    return schema


class WriterOutputError(MemoryError_, ValueError):
    """The model's reply is not a WriterOutput at all (not JSON, or no ``writes`` list)."""


@dataclass
class RejectedWrite:
    item: Any
    reason: str


@dataclass
class ParsedWriterOutput:
    output: WriterOutput
    rejected: list[RejectedWrite] = field(default_factory=list)


def parse_writer_output(
    raw: str | dict[str, Any] | WriterOutput | ParsedWriterOutput,
    *,
    max_chars: int = DEFAULT_MAX_RECORD_CHARS,
) -> ParsedWriterOutput:
    """Validate each write on its own: one bad write (of the wrong shape, or longer than
    ``max_chars``) never discards the good ones. Raises :class:`WriterOutputError` when there
    is nothing to validate at all."""
    if isinstance(raw, ParsedWriterOutput):
        return raw
    if isinstance(raw, WriterOutput):
        return ParsedWriterOutput(raw)
    data: Any = raw
    if isinstance(raw, str):
        try:
            data = extract_json(raw)
        except ValueError as exc:
            raise WriterOutputError(str(exc)) from exc
    if isinstance(data, list):
        data = {"writes": data}
    if not isinstance(data, dict) or not isinstance(data.get("writes"), list):
        raise WriterOutputError('expected a JSON object {"writes": [...]}')
    good: list[WriteOp] = []
    rejected: list[RejectedWrite] = []
    for item in data["writes"]:
        try:
            write = WriteOp.model_validate(item)
            if write.op != "skip" or write.entry.content.strip():  # a skip may say nothing
                check_record_length(write.entry.content, max_chars)
        except ValidationError as exc:
            rejected.append(RejectedWrite(item, _short_errors(exc)))
        except (RecordTooLongError, EmptyRecordError) as exc:
            rejected.append(RejectedWrite(item, f"entry.content: {exc}"))
        else:
            good.append(write)
    return ParsedWriterOutput(WriterOutput(writes=good), rejected)


def _short_errors(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return "; ".join(parts)
