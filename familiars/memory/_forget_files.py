"""The forgotten words out of the files beside the memory: the writer's queue (pending turns
and the copies in ``failed/``), the dialogues' ``pending_reply.json``, the other JSON files
under ``state/``, the scheduler's reminder ledger and the log files under ``logs/``.

Map:

- :class:`Forgotten` - what a forget removed, as these files name it: the turns
  (agent, dialogue, node) and the texts, with :meth:`Forgotten.holds` (the rule the
  Forgetter uses for replies: a text whole or quoted, or every distinctive word of it).
- :func:`scrub_files` - every file above, rewritten or removed; returns the paths touched.

A queued turn that is one of the forgotten turns, or whose message or reply holds a
forgotten text, is removed (pending: its writes must not bring the fact back; ``failed/``:
its ``.reason.txt`` goes with it); a ``recent`` line that holds one is dropped from a turn
that stays. Other JSON files keep their shape: a string that holds a forgotten text becomes
``"[forgotten]"``. A log line that holds one is replaced in place (the log's open handle
keeps appending to the same file).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from familiars.llm import second_person
from familiars.memory._atomic import atomic_write_text
from familiars.memory._forget_intent import is_intent
from familiars.memory._state_home import QUEUE_PREFIX, StateHome
from familiars.memory._store import normalise_content
from familiars.memory._text import keyword_terms

logger = logging.getLogger(__name__)

#: A forgotten text shorter than this is matched as a whole text only, never inside one.
MIN_QUOTE_CHARS = 12
#: Words every memory text has: they say nothing about what was remembered. "called" only
#: joins a name to whom it names: "Your wifes are Latoya and Latisha." repeats "The user's
#: wife is called Latoya." (tester s35 U14: the reply stayed after a forget).
GENERIC_TERMS = frozenset({"user", "they", "their", "remember", "call"})
FORGOTTEN = "[forgotten]"
#: JSON files under ``state/`` that are not scrubbed as data: the lock names a process.
_SKIP = frozenset({"owner.lock"})


def quotes(text: str, texts: Iterable[str]) -> bool:
    """Whether ``text`` holds one of ``texts`` (whole, or quoted when long enough, on word
    boundaries), as written or as a sentence that says it back (:func:`said_forms`)."""
    return forgotten_of((), tuple(texts)).quoted_in(text)


#: A label a reply puts before what it says back ("Noted: you like tea.").
_LABEL = re.compile(r"^[\w' ]{1,24}:\s+")
#: Where a sentence or line of a reply ends.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentences(text: str) -> set[str]:
    """The sentences and lines of ``text``, normalised, each also without a leading label."""
    found: set[str] = set()
    for part in _SENTENCE_END.split(text):
        found |= {normalise_content(part), normalise_content(_LABEL.sub("", part, count=1))}
    return found - {""}


def _inside(want: str, have: str) -> bool:
    """Whether ``want`` is in ``have`` as whole words ("likes tea" is not in "likes teaching")."""
    return re.search(rf"(?<!\w){re.escape(want)}(?!\w)", have) is not None


def said_forms(text: str) -> tuple[str, ...]:
    """``text``, and the same as a reply says it to the person when that differs."""
    said = second_person(text)
    return (text,) if said == text.strip() else (text, said)


def distinctive_terms(text: str) -> frozenset[str]:
    """The stemmed words of ``text`` that say what it is about: not the words every memory
    has, nor what is left of a contraction or a single letter ("I'm" gives "m", "you r" an
    "r": "I'm allergic to again" was echoed by "Hi, I'm Familiar ... you are allergic to
    penicilin"); a number counts however short."""
    terms = frozenset(keyword_terms(text)) - GENERIC_TERMS
    return frozenset(t for t in terms if len(t) > 2 or t.isdigit())


def echoes(text: str, texts: Iterable[str]) -> bool:
    """Whether ``text`` repeats one of ``texts`` in other words: every distinctive stemmed
    word of it ("You live in Denver." repeats "The user lives in Denver.")."""
    have = set(keyword_terms(text))
    for one in texts:
        want = distinctive_terms(one)
        if len(want) >= 2 and want <= have:
            return True
    return False


@dataclass(frozen=True)
class Forgotten:
    turns: frozenset[tuple[str, str, int]]
    texts: tuple[str, ...]
    #: The forgotten records' ids: what a file keeps under one of them (the scheduler's
    #: ledger keeps each reminder's task under its id) goes whatever its wording.
    records: frozenset[str] = frozenset()
    #: Texts matched whole or quoted, never by their words: the bot's replies taken with
    #: a memory. Their other lines were not asked to go, and their words would take every
    #: reply that said those ("Noted: you are allergic to penicilin." after a forget of
    #: "allergic to again" took a reply that also said the penicillin).
    quoted_only: frozenset[str] = frozenset()

    def holds(self, text: str) -> bool:
        return bool(self.texts) and (self.quoted_in(text) or self.echoed_in(text))

    @cached_property
    def _wholes(self) -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
        """The texts normalised once (a whole person's forget checks hundreds of them
        against every line): all of them, those long enough to be quoted, and the records
        as said back ("The user is allergic to X." is "You are allergic to X."): those
        count only as a whole sentence or line of a reply ("Noted: you are allergic to
        X."), never inside a longer one ("you like tea" in "Since you like teaching")."""
        wanted = tuple(dict.fromkeys(w for w in map(normalise_content, self.texts) if w))
        said = (f for t in self.texts for f in said_forms(t)[1:])
        said_back = frozenset(w for w in map(normalise_content, said) if w)
        return frozenset(wanted), tuple(w for w in wanted if len(w) >= MIN_QUOTE_CHARS), said_back

    @cached_property
    def _term_sets(self) -> tuple[frozenset[str], ...]:
        words = (t for t in self.texts if t not in self.quoted_only)
        sets = map(distinctive_terms, words)
        return tuple(dict.fromkeys(s for s in sets if len(s) >= 2))

    def quoted_in(self, text: str, *, said_back: bool = True) -> bool:
        """Whether ``text`` holds a forgotten text: whole, quoted on word boundaries, or
        (with ``said_back``) a sentence of it says a record back to the person."""
        have = normalise_content(text)
        if not have:
            return False
        wholes, long, said = self._wholes
        if have in wholes or any(_inside(w, have) for w in long):
            return True
        return said_back and bool(said) and not said.isdisjoint(_sentences(text))

    def echoed_in(self, text: str) -> bool:
        """:func:`echoes`, with the texts read once."""
        if not self._term_sets:
            return False
        have = set(keyword_terms(text))
        return any(want <= have for want in self._term_sets)

    def names_turn(self, agent_id: Any, dialogue_id: Any, turn_id: Any) -> bool:
        try:
            return (str(agent_id), str(dialogue_id), int(turn_id)) in self.turns
        except (TypeError, ValueError):
            return False


def scrub_files(workspace: Path, forgotten: Forgotten) -> list[Path]:
    """Every queue, pending-reply, state and log file of ``workspace`` without the
    forgotten words (see the module map); the paths rewritten or removed."""
    if not forgotten.turns and not forgotten.texts and not forgotten.records:
        return []
    workspace = Path(workspace)
    touched: list[Path] = []
    queue = workspace / "state" / "writer_queue"
    held = queue.glob("h_*.json")  # a turn's writer work queued while the turn runs
    for path in sorted([*queue.glob("t_*.json"), *held, *queue.glob("failed/t_*.json")]):
        touched += _guard(path, lambda p: _scrub_queued(p, forgotten))
    for path in sorted(queue.glob("failed/*.reason.txt")):
        touched += _guard(path, lambda p: _scrub_reason(p, forgotten))
    for path in sorted(workspace.glob("agents/*/dialogue_*/pending_reply.json")):
        touched += _guard(path, lambda p: _scrub_pending_reply(p, forgotten))
    for path in sorted((workspace / "state").rglob("*.json")):
        name = path.relative_to(workspace).as_posix()
        if queue not in path.parents and path.name not in _SKIP and not is_intent(name):
            touched += _guard(path, lambda p: _scrub_json(p, forgotten))
    for path in sorted((workspace / "scheduler").glob("*.json")):  # the reminder ledger
        touched += _guard(path, lambda p: _scrub_json(p, forgotten))
    for path in sorted((workspace / "logs").glob("*")):
        touched += _guard(path, lambda p: _scrub_log(p, forgotten))
    return touched


def scrub_state(home: StateHome, forgotten: Forgotten) -> list[str]:
    """The database home's copies of what :func:`scrub_files` scrubs on files: queued and
    set-aside writer turns, the state and scheduler documents, the reminders' fates; and
    the Telegram updates' payloads kept with their claims (dropped: never answered again)."""
    if home.kind == "files" or not (forgotten.turns or forgotten.texts or forgotten.records):
        return []
    touched = []
    for name, text, reason in home.turn_rows():
        new = _scrubbed_turn(text, reason, forgotten)
        if new != text:
            home.replace_turn(name, new)
            touched.append(f"{QUEUE_PREFIX}{name}")
    for bot, update_id, payload in home.update_payloads():  # kept for a sweep to answer
        if forgotten.holds(payload):
            home.drop_payload(bot, update_id)
            touched.append(f"telegram_updates/{bot}/{update_id}")
    for name in [*home.names("state/", ".json"), *home.names("scheduler/", ".json")]:
        if is_intent(name):  # the forget's own intent: it goes when the forget is done
            continue
        data = _loads(home.read(name))
        cleaned = data if data is None else _scrub_value(data, forgotten)
        if cleaned != data:
            home.write(name, json.dumps(cleaned, ensure_ascii=False, indent=2).encode())
            touched.append(name)
    fates = home.loop_fates() or {}
    cleaned_fates = _scrub_value(fates, forgotten)
    changed = {rid: e for rid, e in cleaned_fates.items() if e != fates.get(rid)}
    if changed:
        home.save_fates(changed)
        touched += [f"reminder_fates/{rid}" for rid in changed]
    return touched


def _scrubbed_turn(text: str, reason: str | None, forgotten: Forgotten) -> str | None:
    data = _loads(text.encode("utf-8", "replace"))
    if not isinstance(data, dict):
        return None if forgotten.holds(text) else text
    if forgotten.names_turn(data.get("agent_id"), data.get("dialogue_id"), data.get("turn_id")):
        return None
    own = [data.get("user_text"), data.get("reply_text"), reason]
    if any(isinstance(t, str) and forgotten.holds(t) for t in own):
        return None
    recent = data.get("recent")
    if isinstance(recent, list):
        kept = [line for line in recent if not (isinstance(line, str) and forgotten.holds(line))]
        if len(kept) != len(recent):
            return json.dumps({**data, "recent": kept}, ensure_ascii=False)
    return text


def _loads(raw: bytes | None) -> Any:
    try:
        return None if raw is None else json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None


def _guard(path: Path, scrub: Callable[[Path], bool]) -> list[Path]:
    try:
        return [path] if path.is_file() and scrub(path) else []
    except FileNotFoundError:
        return []
    except OSError as exc:  # said, and the rest of the files are still scrubbed
        logger.error("forget: could not scrub %s (%s)", path.name, exc.strerror or exc)
        return []


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _scrub_queued(path: Path, forgotten: Forgotten) -> bool:
    data = _read_json(path)
    if not isinstance(data, dict):
        raw = path.read_bytes().decode("utf-8", "replace")
        return _remove_turn_file(path) if forgotten.holds(raw) else False
    if forgotten.names_turn(data.get("agent_id"), data.get("dialogue_id"), data.get("turn_id")):
        return _remove_turn_file(path)
    own = [data.get("user_text"), data.get("reply_text")]
    if any(isinstance(t, str) and forgotten.holds(t) for t in own):
        return _remove_turn_file(path)
    recent = data.get("recent")
    if isinstance(recent, list):
        kept = [line for line in recent if not (isinstance(line, str) and forgotten.holds(line))]
        if len(kept) != len(recent):
            data["recent"] = kept
            atomic_write_text(path, json.dumps(data, ensure_ascii=False))
            return True
    return False


def _remove_turn_file(path: Path) -> bool:
    path.unlink(missing_ok=True)
    path.with_suffix(".reason.txt").unlink(missing_ok=True)
    return True


def _scrub_reason(path: Path, forgotten: Forgotten) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    if not forgotten.holds(text):
        return False
    path.unlink(missing_ok=True)
    return True


def _scrub_pending_reply(path: Path, forgotten: Forgotten) -> bool:
    data = _read_json(path)
    agent_id, dialogue_id = path.parent.parent.name, path.parent.name
    if isinstance(data, dict):
        text = data.get("text")
        answered_forgotten = forgotten.names_turn(agent_id, dialogue_id, data.get("parent"))
        if not answered_forgotten and not (isinstance(text, str) and forgotten.holds(text)):
            return False
    path.unlink(missing_ok=True)  # unreadable too: it would only fail the next recovery
    return True


def _scrub_json(path: Path, forgotten: Forgotten) -> bool:
    data = _read_json(path)
    if data is None:
        return False
    cleaned = _scrub_value(data, forgotten)
    if cleaned == data:
        return False
    atomic_write_text(path, json.dumps(cleaned, ensure_ascii=False, indent=2))
    return True


def _scrub_value(value: Any, forgotten: Forgotten) -> Any:
    if isinstance(value, str):
        return FORGOTTEN if forgotten.holds(value) else value
    if isinstance(value, list):
        return [_scrub_value(v, forgotten) for v in value]
    if isinstance(value, dict):
        return {
            k: _scrub_record_entry(v) if k in forgotten.records else _scrub_value(v, forgotten)
            for k, v in value.items()
        }
    return value


#: What a file may keep under a forgotten record's id and still keep: when and how it was
#: handled (a reminder's ledger entry stays, so it is never sent again), never what it said.
_KEPT_KEYS = frozenset(
    {"status", "at", "kind", "due", "agent_id", "dialogue_id", "user_key", "sent_at", "fate"}
)


def _scrub_record_entry(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: v if k in _KEPT_KEYS or not isinstance(v, str | list | dict) else FORGOTTEN
            for k, v in value.items()
        }
    return FORGOTTEN if isinstance(value, str) else value


def _scrub_log(path: Path, forgotten: Forgotten) -> bool:
    """Lines holding a forgotten text replaced, in place (same inode: the open handler
    appends after them)."""
    with path.open("r+", encoding="utf-8", errors="replace") as fh:
        lines = fh.readlines()
        kept = [_log_line(line, forgotten) for line in lines]
        if kept == lines:
            return False
        fh.seek(0)
        fh.writelines(kept)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())
    return True


def _log_line(line: str, forgotten: Forgotten) -> str:
    return f"{FORGOTTEN}\n" if forgotten.holds(line) else line


def forgotten_of(
    nodes: Sequence[tuple[str, str, int]],
    texts: Sequence[str],
    records: Iterable[str] = (),
    *,
    replies: Iterable[str] = (),
) -> Forgotten:
    """What a forget removed; ``replies``: those of ``texts`` that are the bot's replies
    taken with it (see :attr:`Forgotten.quoted_only`)."""
    return Forgotten(
        frozenset(nodes),
        tuple(t for t in texts if t and t.strip()),
        frozenset(records),
        frozenset(replies),
    )


__all__ = ["Forgotten", "echoes", "forgotten_of", "quotes", "scrub_files", "scrub_state"]
