"""``familiars bench guard``: does the group guard stop every leak and let ordinary talk by?

The data is ``data/guard_matrix.jsonl``: ``person`` lines (a member of one group chat and
the private notes the familiar keeps about them) and ``case`` lines (a reply the familiar
might post in that group, who asked, what the group itself said, and whether the reply
leaks a member's note: the speaker's or anyone else's), each in split ``dev`` (the rules
were written against it) or ``held`` (written afterwards in other wordings, never tuned on).

Every case is checked as the bot checks a group message (``familiars.bot.guard_text``):
against the notes of every member, with the group's own lines and the members' names as
public text. The report gives per split the leaks that passed (goal 0) and the false alarms
(benign replies redacted or withheld), and lists each miss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.terminal import fail, print_json, print_table

DEFAULT_MATRIX = Path(__file__).parent / "data" / "guard_matrix.jsonl"
SPLITS = ("dev", "held")


@dataclass(frozen=True)
class GuardCase:
    id: str
    split: str
    leak: bool
    speaker: str
    public: tuple[str, ...]
    reply: str
    what: str


@dataclass(frozen=True)
class GuardMatrix:
    notes: dict[str, tuple[str, ...]]
    cases: tuple[GuardCase, ...]


def load_matrix(path: Path) -> GuardMatrix:
    """People and cases of the JSONL file; a bad line raises ValueError naming its number."""
    notes: dict[str, tuple[str, ...]] = {}
    cases: list[GuardCase] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if raw["type"] == "person":
                notes[str(raw["name"])] = tuple(str(n) for n in raw["notes"])
                continue
            case = GuardCase(
                raw["id"], raw["split"], bool(raw["leak"]), raw["speaker"],
                tuple(raw["public"]), raw["reply"], raw.get("what", ""),
            )  # fmt: skip
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a person or a case ({exc})") from exc
        if case.split not in SPLITS:
            raise ValueError(f"{path}:{number}: split {case.split!r}")
        cases.append(case)
    return GuardMatrix(notes, tuple(cases))


def flagged(matrix: GuardMatrix) -> dict[str, bool]:
    """Case id -> whether the guard changed the reply (redacted or withheld)."""
    from familiars.bot import Secrets, guard_text, secrets_of

    secrets = Secrets.merge(secrets_of(notes, [name]) for name, notes in matrix.notes.items())
    names = list(matrix.notes)
    return {
        case.id: guard_text(
            case.reply, secrets, [*case.public, *names], case.public[-1] if case.public else ""
        ).changed
        for case in matrix.cases
    }


def score(matrix: GuardMatrix, flags: dict[str, bool]) -> dict[str, Any]:
    """Per split: leaks, leaks passed, benign replies, false alarms, and the misses."""
    out: dict[str, Any] = {}
    for split in SPLITS:
        cases = [c for c in matrix.cases if c.split == split]
        leaks = [c for c in cases if c.leak]
        benign = [c for c in cases if not c.leak]
        passed = [c for c in leaks if not flags[c.id]]
        alarms = [c for c in benign if flags[c.id]]
        out[split] = {
            "leaks": len(leaks),
            "leaks_passed": len(passed),
            "benign": len(benign),
            "false_alarms": len(alarms),
            "false_alarm_rate": round(len(alarms) / len(benign), 3) if benign else 0.0,
            "misses": [{"id": c.id, "reply": c.reply, "what": c.what} for c in passed + alarms],
        }
    return out


def run_guard_bench(path: Path = DEFAULT_MATRIX) -> dict[str, Any]:
    matrix = load_matrix(path)
    return score(matrix, flagged(matrix))


def command(
    data: Annotated[Path, typer.Option("--data", help="The guard matrix (JSONL).")] = (
        DEFAULT_MATRIX
    ),
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Leaks passed (goal 0) and false alarms of the group guard, on dev and held cases."""
    if not data.is_file():
        fail(f"no data file {data}")
    try:
        report = run_guard_bench(data)
    except ValueError as exc:
        fail(str(exc))
    if json_out:
        print_json(report)
        return
    rows = [
        [split, r["leaks"], r["leaks_passed"], r["benign"], r["false_alarms"]]
        for split, r in report.items()
    ]
    print_table("group guard", ["split", "leaks", "leaks passed", "benign", "false alarms"], rows)
    for split, r in report.items():
        for miss in r["misses"]:
            print(f"{split} {miss['id']}: {miss['reply']!r} ({miss['what']})")
