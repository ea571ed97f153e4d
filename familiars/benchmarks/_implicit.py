"""Implicit-recall pairs stitched into LoCoMo conversations: pure data, no recall.

A pair is a *cue* a person said (a feeling, value, goal, state or cause) and a later *trigger*
message that should bring it back while sharing no content word with it. :func:`stitch` adds
each cue to one conversation as a short extra session (the cue as a turn of speaker A, then
speaker B's acknowledgement) dated at a seeded-random day between two of its sessions, and the
trigger as a question whose only evidence is the cue's ``dia_id`` (``"<pair id>:1"``), said
by the same person (``asker``: speaker A's user_key, as the replay files their turns). No
opener: a generic line in every stitched session would be a distractor LoCoMo never had. The
bench asks the triggers as it asks LoCoMo's questions, a day after the last turn, so always
later than their cue. The questions go under ``conv["implicit"]``; LoCoMo's own stay as they
are. The same seed always gives the same conversations.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from familiars.memory import keyword_terms

KINDS = ("feeling", "value", "goal", "state", "cause")
SPLITS = ("dev", "held")
DEFAULT_PAIRS = Path(__file__).resolve().parent / "data" / "implicit_pairs.jsonl"
#: What the tokenizer leaves of "I'm", "I've", "we'll", "you're", "I'd", "it's", "can't":
#: not content words, so they do not count as shared.
CONTRACTION_TAILS = frozenset({"m", "ve", "ll", "re", "d", "s", "t"})
TURN_GAP_S = 30.0
_DAY_S = 86400.0
_REPLIES = ("Thanks for telling me.", "I hear you.", "That makes sense.", "Good to know.")


@dataclass(frozen=True)
class ImplicitPair:
    id: str
    kind: str
    cue: str
    trigger: str
    split: str


def shared_terms(cue: str, trigger: str) -> set[str]:
    """Stemmed content words the two lines share (the project's BM25 terms)."""
    return (set(keyword_terms(cue)) & set(keyword_terms(trigger))) - CONTRACTION_TAILS


def load_pairs(path: Path, split: str | None = None) -> list[ImplicitPair]:
    """The pairs of a JSONL file, optionally one split only; malformed lines raise."""
    pairs = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            pairs.append(_pair(json.loads(line), n))
    if len({p.id for p in pairs}) != len(pairs):
        raise ValueError(f"{path}: pair ids repeat")
    return [p for p in pairs if split in (None, p.split)]


def _pair(row: dict[str, Any], line: int) -> ImplicitPair:
    try:
        pair = ImplicitPair(
            id=str(row["id"]), kind=row["kind"], cue=row["cue"], trigger=row["trigger"],
            split=row["split"],
        )  # fmt: skip
    except KeyError as exc:
        raise ValueError(f"line {line}: missing {exc}") from exc
    if pair.kind not in KINDS or pair.split not in SPLITS:
        raise ValueError(f"line {line}: kind must be one of {KINDS}, split one of {SPLITS}")
    return pair


def stitch(
    convs: Sequence[dict[str, Any]], pairs: Sequence[ImplicitPair], *, seed: int = 0
) -> list[dict[str, Any]]:
    """New conversation dicts (the inputs are not changed) with the pairs spread evenly over
    them in a seeded order: extra turns merged into ``turns`` by time, ``implicit`` questions."""
    rng = random.Random(seed)
    order = list(pairs)
    rng.shuffle(order)
    out = [{**conv, "turns": list(conv["turns"]), "implicit": []} for conv in convs]
    for n, pair in enumerate(order):
        conv = out[n % len(out)]
        turns, question = _session(conv["turns"], pair, rng)
        conv["turns"] = sorted(conv["turns"] + turns, key=lambda t: t["timestamp"])
        conv["implicit"].append(question)
    return out


def _session(
    turns: list[dict[str, Any]], pair: ImplicitPair, rng: random.Random
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    speaker_a, speaker_b = _speakers(turns)
    start = _pick_start(_gaps(turns), rng)
    lines = [
        (speaker_a, pair.cue),
        (speaker_b, rng.choice(_REPLIES)),
    ]
    new = [
        {"dia_id": f"{pair.id}:{j}", "speaker": who, "content": text,
         "timestamp": start + TURN_GAP_S * (j - 1)}
        for j, (who, text) in enumerate(lines, 1)
    ]  # fmt: skip
    question = {
        "id": pair.id,
        "question": pair.trigger,
        "evidence": [f"{pair.id}:1"],
        "category": KINDS.index(pair.kind) + 1,
        "kind": pair.kind,
        "cue_timestamp": start,
        "asker": speaker_a.lower(),
    }
    return new, question


def by_kind(report: dict[str, Any]) -> dict[str, Any]:
    """A bench report of implicit questions with ``by_category`` keyed by kind names."""

    def rename(groups: dict[str, Any]) -> dict[str, Any]:
        return {KINDS[int(c) - 1]: v for c, v in groups.items()}

    out = {**report, "by_category": rename(report["by_category"])}
    if "baselines" in report:
        out["baselines"] = {
            name: {**b, "by_category": rename(b["by_category"])}
            for name, b in report["baselines"].items()
        }
    return out


def _speakers(turns: list[dict[str, Any]]) -> tuple[str, str]:
    names = list(dict.fromkeys(str(t["speaker"]) for t in turns))
    if not names:
        raise ValueError("cannot stitch into a conversation without turns")
    return names[0], names[1] if len(names) > 1 else names[0]


def _gaps(turns: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(end of one session, start of the next) for every pair of neighbouring sessions; a
    conversation of one session gives the day after it."""
    ends: dict[str, float] = {}
    starts: dict[str, float] = {}
    for t in turns:
        session = str(t["dia_id"]).rsplit(":", 1)[0]
        starts.setdefault(session, t["timestamp"])
        ends[session] = t["timestamp"]
    spans = sorted((starts[s], ends[s]) for s in starts)
    gaps = [(a[1], b[0]) for a, b in zip(spans, spans[1:], strict=False)]
    return gaps or [(spans[-1][1], spans[-1][1] + 2 * _DAY_S)]


def _pick_start(gaps: list[tuple[float, float]], rng: random.Random) -> float:
    """A session start inside a random gap: a whole day inside it at a daytime minute
    (09:00-20:59 UTC) when one fits, else an hour after the earlier session."""
    lo, hi = gaps[rng.randrange(len(gaps))]
    first_day, last_day = int(lo // _DAY_S) + 1, int(hi // _DAY_S) - 1
    if last_day < first_day:
        return lo + 3600.0
    return rng.randint(first_day, last_day) * _DAY_S + rng.randint(9 * 60, 20 * 60 + 59) * 60.0
