"""A change that is not what its words first look like.

- A food given up because of a new diet is the diet's consequence, not a change of taste: "I've
  gone vegetarian so no more chippy teas for me" keeps "vegetarian", and the chippy teas
  are not made a dislike (the person still likes them; they no longer eat them).
- Training for a job is not working in it: "I quit the dental job, I'm retraining as a
  plumber now" says "The user is retraining as a plumber and no longer works as a dental
  hygienist.", not "works as a plumber".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.memory._offline._kept import live_of
from familiars.memory._offline._superseding import superseding
from familiars.memory._records import MemoryRecord
from familiars.memory._writer._schema import WriteOp

#: A word that makes what follows a consequence of what came before.
_SO = re.compile(
    r"\b(?:so|which\s+means|meaning|means|now\s+that|since|because|cos|coz|as|therefore)\b",
    re.I,
)
#: "retraining as a plumber", "training to be a nurse", "studying to become a vet".
_TRAINING = re.compile(
    r"\b(?P<verb>(?:re)?train(?:ing|s|ed)?|studying|learning|qualifying|doing\s+a\s+course)\s+"
    r"(?:as|to\s+be(?:come)?)\s+(?:an?\s+)?(?P<job>[\w -]{2,40}?)(?=\s+now\b|[,.!;]|$)",
    re.I,
)

#: The job one had is left: "I left the supermarket", "quit", "packed in", "no longer".
_LEFT = re.compile(
    r"\b(?:left|quit|quitting|packed\s+in|jacked\s+in|gave\s+up|given\s+up|no\s+longer|"
    r"stopped|finished\s+(?:at|with)|handed\s+in\s+my\s+notice|made\s+redundant|laid\s+off)\b",
    re.I,
)


def not_quite_writes(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord]
) -> list[WriteOp]:
    """``writes`` with a diet's consequence not kept as a dislike and a job trained for not
    kept as the job one has."""
    return _training_not_working(text, _diet_not_taste(text, writes), existing)


def _diet_not_taste(text: str, writes: Sequence[WriteOp]) -> list[WriteOp]:
    diet = any("diet" in w.entry.tags for w in writes)
    if not diet or not _SO.search(text):
        return list(writes)
    return [w for w in writes if not (w.category == "preference" and _taken_back(w))]


def _taken_back(write: WriteOp) -> bool:
    return write.entry.content.startswith("The user no longer ") or "dislikes" in write.entry.tags


def _training_not_working(
    text: str, writes: Sequence[WriteOp], existing: Sequence[MemoryRecord]
) -> list[WriteOp]:
    m = _TRAINING.search(text)
    if m is None:
        return list(writes)
    job = m["job"].strip()
    verb = "retraining" if m["verb"].lower().startswith("re") else "training"
    old = {r.id: r for r in existing}
    out, done = [], False
    for write in writes:
        if write.op != "skip" and "job" in write.entry.tags and job in write.entry.content:
            was = old.get(write.entry.supersedes_id or "")
            content = _training(verb, job, was)
            write = write.model_copy(
                update={"entry": write.entry.model_copy(update={"content": content})}
            )
            done = True
        out.append(write)
    job_kept = next((r for r in live_of(existing) if "job" in r.tags), None)
    taken = {w.entry.supersedes_id for w in out}
    if done or job_kept is None or job_kept.id in taken or not _LEFT.search(text):
        return out
    return [*out, superseding(job_kept, _training(verb, job, job_kept), text)]


def _training(verb: str, job: str, was: MemoryRecord | None) -> str:
    """ "The user is retraining as a plumber and no longer works as a dental hygienist." """
    content = f"The user is {verb} as {_a(job)}"
    if was is not None and was.content.startswith("The user works "):
        content += " and no longer " + was.content.removeprefix("The user ").rstrip(".")
    return content + "."


def _a(job: str) -> str:
    return f"an {job}" if job[:1].lower() in "aeiou" else f"a {job}"
