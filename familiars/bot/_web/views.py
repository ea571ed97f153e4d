"""Records, history events, reminders and dialogues as the templates show them: plain data,
every text left as text (the templates escape it).

- :func:`record_view` - one record: its text, when, flags, and where it came from (the
  message it was noted from, linked when the person may open that dialogue).
- :func:`history_rows` - a record's history events, oldest first: what changed, when, by whom
  (the person by hand or on this page, the writer after a message, a tool, consolidation, a
  command).
- :func:`reminder_view`, :func:`dialogue_view` - one reminder, one dialogue of the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from familiars.bot._state import DialogueInfo
from familiars.memory import DialogTree, MemoryRecord, is_forgotten
from familiars.scheduler import Reminder


@dataclass(frozen=True)
class Provenance:
    text: str
    href: str | None = None
    quotes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecordView:
    id: str
    scope: str
    category: str
    content: str
    noted: str
    pinned: bool
    deprecated: bool
    supersedes: str | None
    by: str
    provenance: Provenance
    tags: tuple[str, ...] = ()


def short_time(stamp: str | None) -> str:
    """``2025-05-02 14:03`` from an ISO time (UTC), or the text as it is."""
    if not stamp:
        return ""
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp[:16]
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def made_by(data: dict[str, Any], event: dict[str, Any] | None = None) -> str:
    """Who made this state of a record, from its fields and the event that wrote it."""
    if event is not None and event.get("by") == "hand":
        return "by hand, in the memory file"
    via = data.get("edited_via")
    if via == "web":
        return "you, on this page"
    if via:
        return f"you, with /memory edit ({via})"
    if data.get("derived_from"):
        return "consolidation (merged from older memories)"
    evidence = data.get("evidence") or {}
    if isinstance(evidence, dict) and evidence.get("via") == "tool":
        return "the familiar, with a tool during a chat"
    if isinstance(evidence, dict) and evidence.get("turn_id") is not None:
        return "the writer, after a message"
    return "a command or the command line"


def provenance(rec: MemoryRecord, dialogue_href: dict[str, str]) -> Provenance:
    """Where ``rec`` came from; ``dialogue_href`` maps the person's dialogue ids to pages."""
    evidence = rec.evidence or {}
    quotes = tuple(q for q in rec.source_quote if isinstance(q, str))
    dialogue_id = evidence.get("dialogue_id")
    turn = evidence.get("turn_id")
    if rec.derived_from:
        return Provenance(f"merged from {len(rec.derived_from)} older memories", None, quotes)
    if dialogue_id is None:
        return Provenance("no message recorded (added by a command or by hand)", None, quotes)
    href = dialogue_href.get(str(dialogue_id))
    where = f"message {turn} of {dialogue_id}" if turn is not None else str(dialogue_id)
    if href is not None and turn is not None:
        href = f"{href}#n{turn}"
    return Provenance(f"noted from {where}", href, quotes)


def record_view(rec: MemoryRecord, dialogue_href: dict[str, str] | None = None) -> RecordView:
    data = {"edited_via": rec.extra.get("edited_via"), "derived_from": rec.derived_from}
    data["evidence"] = rec.evidence
    return RecordView(
        id=rec.id,
        scope=rec.scope,
        category=rec.category,
        content=rec.content,
        noted=short_time(rec.ts),
        pinned=rec.pinned,
        deprecated=rec.deprecated,
        supersedes=rec.supersedes,
        by=made_by(data),
        provenance=provenance(rec, dialogue_href or {}),
        tags=tuple(rec.tags),
    )


@dataclass(frozen=True)
class HistoryRow:
    when: str
    what: str
    by: str
    text: str
    record_id: str
    old: str | None = None


def _what(event: dict[str, Any], before: dict[str, Any] | None) -> tuple[str, str | None]:
    """What this event did, and the text before it when the text changed."""
    data = event.get("record") or {}
    kind = event.get("event")
    if kind == "edit":
        change = event.get("change", "changed")
        return {"added": "added by hand", "removed": "removed by hand"}.get(
            change, "changed by hand"
        ), event.get("old")
    if kind == "deprecate" or (data.get("deprecated") and before and not before.get("deprecated")):
        return "replaced by a correction", None
    if kind == "delete" or data.get("content") is None:
        return "forgotten", None
    if before is None:
        return ("a correction of " + str(data["supersedes"])) if data.get(
            "supersedes"
        ) else "noted", None
    if before.get("content") != data.get("content"):
        return "text changed", before.get("content")
    if before.get("pinned") != data.get("pinned"):
        return ("pinned" if data.get("pinned") else "unpinned"), None
    return "details changed", None


def _replaced_by(events: list[dict[str, Any]]) -> dict[str, str]:
    """Who wrote each correction, by the id it replaced: a replacement is theirs too."""
    out: dict[str, str] = {}
    for event in events:
        data = event.get("record") or {}
        if data.get("supersedes"):
            out.setdefault(str(data["supersedes"]), made_by(data, event))
    return out


def history_rows(events: list[dict[str, Any]]) -> list[HistoryRow]:
    last: dict[str, dict[str, Any]] = {}
    replaced_by = _replaced_by(events)
    rows = []
    for event in events:
        record_id = str(event.get("id", ""))
        data = event.get("record") or {}
        what, old = _what(event, last.get(record_id))
        by = made_by(data, event)
        if what == "replaced by a correction":
            by = replaced_by.get(record_id, by)
        rows.append(
            HistoryRow(
                when=short_time(str(event.get("ts", ""))),
                what=what,
                by=by,
                text=str(data.get("content") or "(forgotten: the words are gone)"),
                record_id=record_id,
                old=old,
            )
        )
        if data:
            last[record_id] = data
    return rows


@dataclass(frozen=True)
class ReminderView:
    id: str
    task: str
    due: str
    status: str
    is_open: bool


def reminder_view(reminder: Reminder, zone: ZoneInfo) -> ReminderView:
    due = reminder.due.astimezone(zone).strftime("%a %d %b %Y %H:%M") if reminder.due else "-"
    return ReminderView(reminder.record_id, reminder.task, due, reminder.status, reminder.is_open())


@dataclass(frozen=True)
class DialogueView:
    agent_id: str
    dialogue_id: str
    kind: str
    messages: int
    last: str
    first_words: str
    href: str
    moments: list[tuple[str, str]] = field(default_factory=list)


def dialogue_href(agent_id: str, dialogue_id: str) -> str:
    return f"/web/dialogues/{agent_id}/{dialogue_id}"


def dialogue_view(info: DialogueInfo, tree: DialogTree | None) -> DialogueView:
    nodes = [n for n in (tree.node_list if tree is not None else []) if not is_forgotten(n)]
    last = max((n.timestamp for n in nodes), default=0.0)
    roots = [n for n in nodes if n.parent is None]
    moments = [
        (datetime.fromtimestamp(n.timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC"), n.title)
        for n in roots[-5:]
    ]
    return DialogueView(
        agent_id=info.agent_id,
        dialogue_id=info.dialogue_id,
        kind=f"group on {info.platform}" if info.is_group else f"private chat on {info.platform}",
        messages=len(nodes),
        last=datetime.fromtimestamp(last, UTC).strftime("%Y-%m-%d %H:%M UTC") if last else "-",
        first_words=nodes[0].title if nodes else "",
        href=dialogue_href(info.agent_id, info.dialogue_id),
        moments=moments,
    )
