"""Memory writes as requests: what ``familiars memory add|pin|unpin|forget|reindex|consolidate``
asks, whichever process carries it out.

Map:

- :func:`apply_write` - carry out one request on an open workspace (the CLI when nothing
  runs, the running bot's control server otherwise); returns a JSON-able answer.
- :func:`repair_index` - move a damaged ``familiars.db`` aside and rebuild it from the files
  (``familiars status`` calls it before reading the index).
- :func:`send_request` - hand a request to the owner of the workspace over its control
  socket (a Unix socket, JSON lines: one request line, one answer line).

A request is ``{"op": <name>, ...arguments}``; an answer ``{"ok": true, "result": {...}}`` or
``{"ok": false, "error": "one line"}``.
"""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path
from typing import Any

from familiars.memory._consolidation_passes import PassLog, last_pass, undo_pass
from familiars.memory._consolidation_work import NeverPreempted, consolidation_work, pass_lock
from familiars.memory._consolidator import DEFAULT_MAX_SHARE, ConsolidationReport, Consolidator
from familiars.memory._entries import record_header
from familiars.memory._errors import MemoryError_
from familiars.memory._forget import Forgetter
from familiars.memory._index import DB_NAME
from familiars.memory._lock import owned_elsewhere
from familiars.memory._migrations import database_damage
from familiars.memory._paths import check_user_key
from familiars.memory._records import MemoryRecord
from familiars.memory._store import make_record
from familiars.memory._workspace import MemoryWorkspace, open_workspace

WRITE_OPS = ("add", "pin", "unpin", "forget", "person", "reindex", "consolidate")
_RECORD_OPS = ("pin", "unpin")
_ADD_FIELDS = ("user_key", "agent_id", "dialogue_id", "tags", "salience", "pinned")


class OwnerUnreachableError(MemoryError_):
    """The workspace's owner did not answer on its control socket."""


def record_json(rec: MemoryRecord) -> dict[str, Any]:
    data = record_header(rec)
    data["content"] = rec.content
    data["user_key"] = rec.user_key
    data["agent_id"] = rec.agent_id if rec.scope != "user" else None
    data["dialogue_id"] = rec.dialogue_id
    return data


async def apply_write(
    mw: MemoryWorkspace,
    request: dict[str, Any],
    *,
    forgetter: Forgetter,
    model: Any = None,
) -> dict[str, Any]:
    """Carry out one write request; raises MemoryError_/ValueError with a one-line reason.
    ``forget`` takes a memory id, a turn id (``node:<agent>/<dialogue>/<n>``), a document
    (``file:ID``) or a whole person (``person:KEY``; ``person`` counts what that would
    remove, for the question asked first) and goes
    through ``forgetter``: the running bot's (its open trees and recall caches), or, in a
    process that owns the workspace alone, ``Forgetter.for_workspace(mw)``."""
    op = request.get("op")
    if op == "forget":
        return await _forget(mw, str(request["id"]), forgetter)
    if op == "person":  # what forgetting a person (``person:KEY``) would remove, counted
        key = check_user_key(request.get("key"))
        return (await forgetter.person_holdings(key)).as_dict()
    if op == "add":
        fields = {k: request[k] for k in _ADD_FIELDS if request.get(k) is not None}
        record = make_record(
            str(request["content"]),
            scope=str(request["scope"]),
            category=str(request["category"]),
            **fields,
        )
        return record_json(await mw.store.append(record))
    if op in _RECORD_OPS:
        rec: MemoryRecord = await getattr(mw.store, str(op))(str(request["id"]))
        return record_json(rec)
    if op == "reindex":
        report = await mw.index.rebuild(mw.store)
        out = report.as_dict()
        out["embedded"] = await mw.index.embed_missing() if mw.embedder is not None else 0
        return out
    if op == "consolidate":
        return await _consolidate(mw, request, model, forgetter)
    raise ValueError(f"unknown write request {op!r}; known: {', '.join(WRITE_OPS)}")


async def _consolidate(
    mw: MemoryWorkspace, request: dict[str, Any], model: Any, forgetter: Forgetter
) -> dict[str, Any]:
    """The scheduler's full pass by hand (sweep, episodes, merges, core profiles) with
    ``threshold``, ``max_share``, ``offline``; ``dry_run`` plans the merges only; or
    ``undo`` a pass."""
    if request.get("undo"):
        async with pass_lock(mw.store):  # not halfway through a scheduled pass
            log = await undo_pass(mw.store, str(request["undo"]))
        return {"undo": log.pass_id, "undone_at": log.undone_at, **log.summary()}
    threshold = float(request.get("threshold", 0.85))
    max_share = float(request.get("max_share", DEFAULT_MAX_SHARE))
    model = None if request.get("offline") else model
    if request.get("dry_run"):
        cons = Consolidator(
            mw.store, mw.index, model=model, threshold=threshold, max_share=max_share
        )
        return (await cons.run(dry_run=True)).as_dict()
    reports: list[ConsolidationReport] = []
    state: dict[str, Any] = {}
    work = consolidation_work(
        mw.store, mw.index, model=model, max_share=max_share, threshold=threshold,
        trees=forgetter.trees, reports=reports,
    )  # fmt: skip
    await work(state, NeverPreempted())
    return _combined(reports, last_pass(mw.store.state_home), state)


def _combined(
    reports: list[ConsolidationReport], log: PassLog | None, state: dict[str, Any]
) -> dict[str, Any]:
    out = ConsolidationReport(dry_run=False, pass_id=state.get("pass_id"))
    for report in reports:
        out.groups += report.groups
        out.records_seen += report.records_seen
        out.plans += report.plans
        out.created += report.created
        out.deprecated += report.deprecated
        out.finished_interrupted += report.finished_interrupted
        out.used_model = out.used_model or report.used_model
        out.stopped += report.stopped
    summary = log.summary() if log is not None and log.pass_id == out.pass_id else {}
    return {**out.as_dict(), "pass": summary}


async def _forget(mw: MemoryWorkspace, item_id: str, forgetter: Forgetter) -> dict[str, Any]:
    report = await forgetter.forget(item_id)
    return {"id": item_id, **report.as_dict()}


async def repair_index(settings: Any) -> Path | None:
    """When ``familiars.db`` is damaged and no other process owns the workspace: move it
    aside and rebuild it from the files (no embedding). Returns where the damaged one went."""
    workspace = Path(settings.workspace)
    db = workspace / DB_NAME
    if owned_elsewhere(workspace) is not None or database_damage(db) is None:
        return None
    before = set(workspace.glob(f"{DB_NAME}.damaged-*"))
    async with open_workspace(settings, embedder=False):
        pass
    moved = sorted(set(workspace.glob(f"{DB_NAME}.damaged-*")) - before)
    return moved[-1] if moved else None


def send_request(
    control: str,
    request: dict[str, Any],
    *,
    timeout_s: float = 600.0,
    max_bytes: int | None = None,
) -> Any:
    """Ask the owner listening on ``control`` to carry out ``request``; its result, or a
    MemoryError_ with the owner's one-line reason. A request over ``max_bytes`` (the
    owner's ``control.max_message_bytes``) is refused here, before anything is sent."""
    line = json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n"
    if max_bytes is not None and len(line) > max_bytes:
        raise MemoryError_(
            f"request too large: {len(line):,} bytes, over {max_bytes:,} "
            "(control.max_message_bytes)"
        )
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            sock.connect(str(Path(control)))
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(line)  # cut short: the owner stopped reading; its answer says why
            answer = _read_line(sock)
    except OSError as exc:
        msg = f"the running familiars did not answer at {control}: {exc}"
        raise OwnerUnreachableError(msg) from exc
    if not answer:
        raise OwnerUnreachableError(f"the running familiars at {control} closed without answering")
    try:
        data = json.loads(answer)
    except ValueError as exc:
        raise OwnerUnreachableError(f"the running familiars answered garbage: {exc}") from exc
    if not isinstance(data, dict) or not data.get("ok"):
        error = data.get("error") if isinstance(data, dict) else None
        raise MemoryError_(str(error or "the running familiars refused the request"))
    return data.get("result")


def _read_line(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)
