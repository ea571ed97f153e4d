"""Dev-only: the reminder-words set (familiars/benchmarks/data/reminder_words.jsonl) read by
the offline turn's rules, as a new person in UTC on Monday 7 December 2026 at 14:40.

Each row is what a person says (a request, or a request and then the answer to "When should
I remind you...?") and what should come of it: the task and first due time (with the rule for
a repeating one), or ``ask_when``. Run ``python scripts/reminder_words_dev.py [--split held]``
from a checkout (PYTHONPATH at it) to read any version of the rules the same way.
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime
from pathlib import Path

from familiars.bot._turn_actions import plan_actions

NOW = datetime(2026, 12, 7, 14, 40, tzinfo=UTC)
DATA = Path(__file__).resolve().parents[1] / "familiars/benchmarks/data/reminder_words.jsonl"


def outcome(said: list[str]) -> dict[str, str]:
    """What the rules make of the turns ``said``: a task and due time, a question, or none."""
    pending = None
    for i, text in enumerate(said):
        actions = plan_actions(
            text, existing=[], now=NOW, timezone="UTC", dialogue_id=None,
            grace_s=6 * 3600.0, pending=pending,
        )  # fmt: skip
        if actions.reminders:
            r = actions.reminders[0]
            got = {"task": r.task, "due": f"{r.due:%Y-%m-%d %H:%M}"}
            return got | ({"every": r.rule} if r.rule else {})
        if actions.ask_when is not None and i == len(said) - 1:
            return {"ask_when": actions.ask_when.task}
        pending = actions.ask_when
    return {}


def _same(got: str, want: str) -> bool:
    """Equal, the stored task's "your" read as the person's "my"."""
    return re.sub(r"\byour\b", "my", got.lower()) == want.lower()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="dev")
    parser.add_argument("--show", action="store_true", help="print each miss")
    args = parser.parse_args()
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["split"] == args.split]
    right = 0
    for row in rows:
        want = {k: row[k] for k in ("task", "due", "every", "ask_when") if k in row}
        got = outcome(row["said"])
        ok = all(_same(got.get(k, ""), str(v)) for k, v in want.items())
        right += ok
        if args.show and not ok:
            print(f"MISS {row['said']}\n     want {want}\n     got  {got}")
    print(f"{args.split}: {right}/{len(rows)} right")


if __name__ == "__main__":
    main()
