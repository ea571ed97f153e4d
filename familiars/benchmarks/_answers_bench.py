"""The answers bench: facts told, then asked in other words (``data/answer_pairs.jsonl``).

Each line is one person: the messages they send (``tell``), each through the offline writer
against what is already kept (adds kept, updates supersede the old record), then the
questions (``ask``), each answered by the offline reply from the person's live records as a
turn sees them. A question is answered *right* when the reply holds ``want``; *stale* when a
line of the reply states the old value (``stale``) of a fact the person changed (a line
saying it is over, "no longer", does not count); *wrong* when the reply states something
but not the wanted fact. ``want`` may be a list, for a message that asks several things: right
only when the reply holds each. A question about something never told wants "don't know".
Scored with and without the learned part (``understanding``). ``data/answer_pairs_s37.jsonl``
is a second set in other wordings: questions about family by name, two records competing,
several questions in one message and things never told.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from familiars.bot import TurnActions, as_asked, asked_each, offline_reply
from familiars.memory import MemoryRecord, Understanding, answer_records, offline_writes

DEFAULT_PAIRS = Path(__file__).parent / "data" / "answer_pairs.jsonl"
S37_PAIRS = Path(__file__).parent / "data" / "answer_pairs_s37.jsonl"
#: As the writer bench: Monday 30 November 2026, 14:00 in Berlin.
NOW = datetime(2026, 11, 30, 13, 0, tzinfo=UTC)
TIMEZONE = "Europe/Berlin"
_UNKNOWN = "I don't know that yet"


def kept_after(tells: list[str], understanding: Understanding | None) -> list[MemoryRecord]:
    """The records kept after each message of ``tells`` went through the offline writer."""
    records: list[MemoryRecord] = []
    for number, text in enumerate(tells):
        now = NOW + timedelta(minutes=number)
        output = offline_writes(
            text, existing=records, now=now, timezone=TIMEZONE, understanding=understanding
        )
        for i, write in enumerate(output.writes):
            if write.op == "skip":
                continue
            old = write.entry.supersedes_id
            records = [replace(r, deprecated=True) if r.id == old else r for r in records]
            records.append(
                MemoryRecord(
                    id=f"m_{number:03d}_{i}",
                    scope=write.scope,
                    category=write.category,
                    ts=now.isoformat(),
                    content=write.entry.content,
                    tags=list(write.entry.tags),
                    supersedes=old,
                    user_key="bench",
                )
            )
    return records


class _Item:
    def __init__(self, text: str) -> None:
        self.kind, self.text, self.score, self.private = "record", text, 0.0, True
        self.foreign = False


def reply_to(question: str, records: list[MemoryRecord], u: Understanding | None) -> str:
    live = [r for r in records if not r.deprecated]
    asked_as = as_asked(question)  # as a turn reads it: "tell me my name" asks "what's my name?"
    meant = [r.content for r in answer_records(asked_as, live, u)] if u is not None else []
    items = [_Item(r.content) for r in live]
    kept = [r.content for r in live if r.scope == "user"]  # as a turn hands them over
    asked = asked_each(asked_as, live, u) if u is not None else []
    return offline_reply(
        question, actions=TurnActions(), items=items, is_group=False, meant=meant, kept=kept,
        asked=asked,
    )  # fmt: skip


def _is_stale(reply: str, stale: str) -> bool:
    """A line states the old value: "You like sushi." is stale, "You don't like sushi." (the
    change said back) and "... no longer ..." are not."""
    negated = re.compile(rf"\b(?:don't|doesn't|do not|not|never)\s+{re.escape(stale.lower())}")
    return any(
        stale.lower() in line.lower()
        and "no longer" not in line.lower()
        and not negated.search(line.lower())
        for line in reply.splitlines()
    )


def _holds(reply: str, want: str | list[str]) -> bool:
    wants = [want] if isinstance(want, str) else want
    return all(w.lower() in reply.lower() for w in wants)


def run_answers_bench(
    path: Path = DEFAULT_PAIRS, understanding: Understanding | None = None
) -> dict[str, Any]:
    """Right, stale and wrong shares over every question of the set."""
    asked = right = stale = wrong = 0
    misses: list[dict[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        person = json.loads(line)
        records = kept_after(person["tell"], understanding)
        for ask in person["ask"]:
            asked += 1
            reply = reply_to(ask["q"], records, understanding)
            if ask.get("stale") and _is_stale(reply, ask["stale"]):
                stale += 1
            elif _holds(reply, ask["want"]):
                right += 1
                continue
            elif _UNKNOWN not in reply:
                wrong += 1
            misses.append({"q": ask["q"], "want": str(ask["want"]), "reply": reply})
    return {
        "questions": asked,
        "right": round(right / asked, 3) if asked else None,
        "stale": round(stale / asked, 3) if asked else None,
        "wrong": round(wrong / asked, 3) if asked else None,
        "misses": misses,
    }
