"""The fair measure of issue 23 behind ``familiars bench writer``: every labelled set side by
side (dev, old held, the frozen fresh held set, its originals and their paraphrases), the
rules alone next to the rules with understanding by meaning; the answers bench; and an
ablation of each part of understanding on the fresh held set.

Goals (printed with the figures): fresh held recall >= .90 at precision >= .97, paraphrase
recall within .05 of their originals', answers >= .90 right and <= .02 stale.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from familiars.benchmarks._answers_bench import S37_PAIRS, run_answers_bench
from familiars.benchmarks._writer_bench import (
    DEFAULT_DATA,
    HELD_DATA,
    SPLITS,
    load_messages,
    run_writer_bench,
    score_messages,
    side_by_side,
)
from familiars.bot import TurnActions, offline_reply, speaks_of_self_harm
from familiars.memory import (
    BUNDLED_MODEL_NAME,
    UNDERSTANDING_PARTS,
    Understanding,
    load_embedder,
    understanding_for,
    use_offline_models,
)
from familiars.terminal import fail, print_json, print_table, want_json

CARE_DATA = Path(__file__).parent / "data" / "care_messages.jsonl"

logger = logging.getLogger(__name__)


def bundled_understanding() -> Understanding | None:
    """Understanding over the bundled all-MiniLM-L6-v2, as the offline bot loads it."""
    use_offline_models()
    embedder = load_embedder(BUNDLED_MODEL_NAME, backend="auto")
    name, dimension = embedder.space
    return understanding_for(embedder.embed_batch, name, dimension)


def sets_report(understanding: Understanding | None) -> dict[str, Any]:
    """Side by side, answers and ablation (the last two only with ``understanding``)."""
    rules = side_by_side(understanding=None)
    report: dict[str, Any] = {"rules": rules}
    if understanding is None:
        return report
    report["meaning"] = side_by_side(understanding=understanding)
    report["answers"] = {
        "rules": _shares(run_answers_bench(understanding=None)),
        "meaning": _shares(run_answers_bench(understanding=understanding)),
        "rules (s37 set)": _shares(run_answers_bench(S37_PAIRS, understanding=None)),
        "meaning (s37 set)": _shares(run_answers_bench(S37_PAIRS, understanding=understanding)),
    }
    report["ablation"] = ablation(understanding)
    report["care"] = care_report(understanding)
    return report


def care_report(understanding: Understanding) -> list[dict[str, Any]]:
    """Self-harm found (indirect and direct), look-alikes flagged and low mood (rows marked
    ``low``: no crisis) met warmly, rule vs rule + meaning, on ``data/care_messages.jsonl``:
    its ``dev`` rows may be tuned on, its ``held`` rows are written for measuring and never
    tuned on."""
    rows = [json.loads(line) for line in CARE_DATA.read_text(encoding="utf-8").splitlines()]
    out = []
    for name, flags in (
        ("rule", speaks_of_self_harm),
        ("rule + meaning", lambda t: speaks_of_self_harm(t) or understanding.sounds_like_harm(t)),
    ):
        for part in ("dev", "held"):
            some = [r for r in rows if r.get("set", "held") == part]
            harm = [r for r in some if r["harm"]]
            found = sum(bool(flags(r["text"])) for r in harm)
            alarms = sum(bool(flags(r["text"])) for r in some if not r["harm"])
            low = [r["text"] for r in some if r.get("low")]
            warm = sum(not flags(t) and met_warmly(t) for t in low)
            out.append(
                {"check": f"{name} ({part})", "harm_found": f"{found}/{len(harm)}",
                 "false_alarms": f"{alarms}/{len(some) - len(harm)}",
                 "low_mood_met_warmly": f"{warm}/{len(low)}"}
            )  # fmt: skip
    return out


def met_warmly(text: str) -> bool:
    """Whether low mood said in ``text`` (no crisis) gets a reply of its own offline, not
    the crisis reply and not "I see. Tell me more?"."""
    reply = offline_reply(text, actions=TurnActions(), items=[], is_group=False)
    return "Tell me more" not in reply


def ablation(understanding: Understanding) -> list[dict[str, Any]]:
    """The fresh held set's figures with each part of understanding switched off."""
    fresh = load_messages(HELD_DATA, "fresh")
    rows = []
    for off in ("", *UNDERSTANDING_PARTS):
        parts = understanding.parts - {off}
        facts = score_messages(fresh, "fresh", understanding=replace(understanding, parts=parts))
        answers = run_answers_bench(understanding=replace(understanding, parts=parts))
        rows.append(
            {
                "without": off or "(nothing)",
                "precision": facts["all_facts"]["precision"],
                "recall": facts["all_facts"]["recall"],
                "answers_right": answers["right"],
            }
        )
    return rows


def _shares(result: dict[str, Any]) -> dict[str, Any]:
    return {k: result[k] for k in ("questions", "right", "stale", "wrong")}


def print_sets(report: dict[str, Any]) -> None:
    meaning = {r["set"]: r for r in report.get("meaning", [])}
    rows = []
    for r in report["rules"]:
        m = meaning.get(r["set"], {})
        rows.append(
            [r["set"], r["messages"], r["precision"], r["recall"], m.get("precision", "-"),
             m.get("recall", "-"), m.get("none_recall", r["none_recall"])]
        )  # fmt: skip
    print_table(
        "bench writer: all facts per set, rules alone | rules + meaning",
        ["set", "n", "P rules", "R rules", "P meaning", "R meaning", "none kept out"],
        rows,
    )
    if "answers" not in report:
        return
    print_table(
        "bench writer: answers bench (told, then asked in other words)",
        ["writer + answerer", "questions", "right", "stale", "wrong"],
        [[k, *(v[c] for c in ("questions", "right", "stale", "wrong"))]
         for k, v in report["answers"].items()],
    )  # fmt: skip
    print_table(
        "bench writer: ablation on the fresh held set (each part of meaning off)",
        ["without", "precision", "recall", "answers right"],
        [[r[c] for c in ("without", "precision", "recall", "answers_right")]
         for r in report["ablation"]],
    )  # fmt: skip
    print_table(
        "bench writer: care (self-harm said directly or indirectly, look-alikes, low mood)",
        ["check", "harm found", "false alarms", "low mood met warmly"],
        [[r["check"], r["harm_found"], r["false_alarms"], r["low_mood_met_warmly"]]
         for r in report["care"]],
    )  # fmt: skip


def command(
    ctx: typer.Context,
    split: Annotated[str, typer.Option(help="dev, held, fresh, paraphrase or all.")] = "all",
    data: Annotated[Path, typer.Option(help="Labelled messages (JSON lines).")] = DEFAULT_DATA,
    details: Annotated[
        bool, typer.Option("--details", help="List each kind's misses and false positives.")
    ] = False,
    meaning: Annotated[
        bool,
        typer.Option(
            "--meaning/--rules-only",
            help="With understanding by meaning (loads the bundled embedder), or the rules.",
        ),
    ] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Offline writer precision/recall per kind of fact on a labelled set of messages; on
    the shipped sets also every set side by side, the answers bench and the ablation."""
    if split not in SPLITS:
        fail(f"--split takes one of {', '.join(SPLITS)}")
    if not data.is_file():
        fail(f"no labelled messages at {data}")
    shipped = data == DEFAULT_DATA
    understanding = bundled_understanding() if meaning and shipped else None
    path = HELD_DATA if split in ("fresh", "paraphrase") and shipped else data
    report = run_writer_bench(path, split, details=details, understanding=understanding)
    if shipped:
        report["sets"] = sets_report(understanding)
    if want_json(ctx, json_out):
        print_json(report)
        return
    rows = [
        [kind, r["n"], r["hits"], r["false_positives"], r["precision"], r["recall"]]
        for kind, r in [*report["kinds"].items(), ("all facts", report["all_facts"])]
    ]
    print_table(
        f"bench writer: offline writer on {report['messages']} messages ({split})",
        ["kind", "n", "hits", "false pos.", "precision", "recall"],
        rows,
    )
    for kind, items in report.get("wrong", {}).items():
        for item in items:
            typer.echo(f"{kind} {item['why']}: {item['text']!r} -> {item['writes']}")
    if shipped:
        print_sets(report["sets"])
