"""Consolidator (§5.9): merge live records that say the same thing.

    1. Group by (scope, category) and owner (a person's records never merge with another's)
    2. Compute embedding similarity within each group
    3. Clusters of the same fact -> one consolidated entry (the chat model writes it; offline,
       the text of the most salient, then most recent, source is kept)
    4. Mark the source entries deprecated=True
    5. The new entry has derived_from=[...source_ids]

"The same fact" is the writer's rule (:func:`~familiars.memory._writer._dedupe.one_fact`:
cosine as a first gate, then same slot and no distinguishing word), never cosine alone: "plays
tennis" and "plays table tennis" stay two records.

Rails: pinned records, records with a TTL (their expiry means something), open loops,
ephemeral records and records that came from recall, the system or the bot itself are never
consolidated; one pass deprecates at most ``max_share`` of an owner's live records (beyond it
that owner is left alone and the report says so); a model's merged text may only use words
its sources hold; every pass is kept in a file (:mod:`._consolidation_passes`) so
``--undo PASS`` restores it. A run is idempotent: a second run finds nothing to do. If a run
stopped between writing a merged record and deprecating its sources, the next run finishes
that first.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from familiars.llm import ChatMessage, ChatModel, LLMError
from familiars.memory._consolidation_passes import PassLog, new_pass, save_pass
from familiars.memory._errors import RecordNotFoundError
from familiars.memory._fact_identity import fact_terms
from familiars.memory._promotion import CORE_TAG, EPISODE_TAG, UNTRUSTED_ORIGINS
from familiars.memory._records import MemoryRecord, utcnow
from familiars.memory._store import MemoryStore, make_record
from familiars.memory._writer._dedupe import Vectors, one_fact

logger = logging.getLogger(__name__)

Owner = tuple[str | None, str | None, str | None]
GroupKey = tuple[str, str, Owner]

#: The most of an owner's live records one pass may deprecate.
DEFAULT_MAX_SHARE = 0.25


def owner_key(owner: Owner) -> str:
    """``user:<key>`` for a person, ``agent:<agent>[/<dialogue>]`` for agent scopes."""
    user_key, agent_id, dialogue_id = owner
    if user_key is not None:
        return f"user:{user_key}"
    return f"agent:{agent_id}" + (f"/{dialogue_id}" if dialogue_id else "")


_MERGE_PROMPT = (
    "These memories about the same thing were written at different times. Merge them into "
    "one short third-person sentence that keeps every fact they share and, where they differ, "
    "the most recent one. Answer with the sentence only."
)


@dataclass
class MergePlan:
    scope: str
    category: str
    owner: Owner
    sources: list[MemoryRecord]
    content: str
    base: MemoryRecord
    similarity: float

    def as_dict(self) -> dict[str, Any]:
        user_key, agent_id, dialogue_id = self.owner
        return {
            "scope": self.scope,
            "category": self.category,
            "user_key": user_key,
            "agent_id": agent_id,
            "dialogue_id": dialogue_id,
            "sources": [r.id for r in self.sources],
            "source_texts": [r.content for r in self.sources],
            "content": self.content,
            "min_similarity": round(self.similarity, 4),
        }


@dataclass
class ConsolidationReport:
    dry_run: bool
    groups: int = 0
    records_seen: int = 0
    plans: list[MergePlan] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    deprecated: int = 0
    finished_interrupted: int = 0
    used_model: bool = False
    pass_id: str | None = None
    #: Owners a rail stopped: ``{"owner": key, "reason": text}``.
    stopped: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "groups": self.groups,
            "records_seen": self.records_seen,
            "clusters": [p.as_dict() for p in self.plans],
            "created": self.created,
            "deprecated": self.deprecated,
            "finished_interrupted": self.finished_interrupted,
            "used_model": self.used_model,
            "pass_id": self.pass_id,
            "stopped": self.stopped,
        }


def can_merge(rec: MemoryRecord) -> bool:
    loop = rec.open_loop
    return not (
        rec.pinned
        or rec.ttl
        or rec.scope == "ephemeral"
        or (loop is not None and loop.get("status") != "done")
        or str(rec.extra.get("origin") or "") in UNTRUSTED_ORIGINS
        or bool({EPISODE_TAG, CORE_TAG} & set(rec.tags))  # stages: made again, not merged
    )


def grounded(text: str, sources: Sequence[MemoryRecord]) -> bool:
    """Every content word of ``text`` is one its sources hold: a merged text learns nothing
    the person did not say (nothing from the model, the prompt or recall)."""
    held: set[str] = set()
    for src in sources:
        held |= fact_terms(src.content)
    return fact_terms(text) <= held


def _rank(rec: MemoryRecord) -> tuple[float, str, str]:
    return (rec.salience, rec.ts, rec.id)


def clusters_in(
    records: Sequence[MemoryRecord], matrix: np.ndarray, threshold: float
) -> list[tuple[list[MemoryRecord], float]]:
    """Greedy clusters: the highest-ranked record not yet taken seeds a cluster of every
    untaken record that is the same fact as it by the writer's rule (:func:`one_fact`:
    cosine reaches ``threshold``, same slot, no distinguishing word, same negation)."""
    order = sorted(range(len(records)), key=lambda i: _rank(records[i]), reverse=True)
    sims = matrix @ matrix.T
    taken: set[int] = set()
    out: list[tuple[list[MemoryRecord], float]] = []
    for seed in order:
        if seed in taken:
            continue
        text = records[seed].content
        members = [
            j
            for j in order
            if j not in taken
            and (
                j == seed
                or one_fact(text, records[j].content, float(sims[seed, j]), threshold=threshold)
            )
        ]
        if len(members) < 2:
            continue
        taken.update(members)
        low = float(min(sims[seed, j] for j in members))
        out.append(([records[j] for j in members], low))
    return out


class Consolidator:
    def __init__(
        self,
        store: MemoryStore,
        vectors: Vectors,
        *,
        model: ChatModel | None = None,
        threshold: float = 0.85,
        max_share: float = DEFAULT_MAX_SHARE,
    ) -> None:
        self.store = store
        self.vectors = vectors
        self.model = model
        self.threshold = threshold
        self.max_share = max_share

    async def _groups(
        self, now: datetime, owners: Collection[str] | None = None
    ) -> dict[GroupKey, list[MemoryRecord]]:
        groups: dict[GroupKey, list[MemoryRecord]] = defaultdict(list)
        for rec in await self._live(now, owners):
            if can_merge(rec) and (owners is None or owner_key(rec.owner()) in owners):
                groups[(rec.scope, rec.category, rec.owner())].append(rec)
        return groups

    async def _live(self, now: datetime, owners: Collection[str] | None) -> list[MemoryRecord]:
        """The live records of ``owners`` (all when None): a person's own files only when
        the owners are people (the scheduled pass runs one person at a time; reading every
        record for each of them made a pass quadratic in the number of people)."""
        people = [o.removeprefix("user:") for o in owners or () if o.startswith("user:")]
        if owners is None or len(people) != len(owners):
            return await self.store.list(now=now)
        found = [r for key in people for r in await self.store.list(now=now, user_key=key)]
        return [r for r in found if owner_key(r.owner()) in owners]

    async def _finish_interrupted(
        self, now: datetime, dry_run: bool, owners: Collection[str] | None = None
    ) -> int:
        """Deprecate sources still live beside a merged record that derives from them (a
        merge never crosses owners: ``owners``' records are enough)."""
        live = {r.id: r for r in await self._live(now, owners)}
        stale = {
            src
            for rec in live.values()
            if rec.derived_from and not {EPISODE_TAG, CORE_TAG} & set(rec.tags)
            for src in rec.derived_from
            if src in live and src != rec.id
        }  # a stage's sources stay live: a core profile sums them up, it does not replace
        if not dry_run:
            for rid in sorted(stale):
                await self.store.deprecate(rid)
        return len(stale)

    async def plan(
        self, *, now: datetime | None = None, owners: Collection[str] | None = None
    ) -> tuple[int, int, list[MergePlan]]:
        """(groups, records seen, merge plans), writing nothing."""
        now = now or utcnow()
        groups = await self._groups(now, owners)
        plans: list[MergePlan] = []
        seen = 0
        for (scope, category, owner), records in sorted(groups.items(), key=lambda kv: str(kv[0])):
            seen += len(records)
            if len(records) < 2:
                continue
            matrix = await self.vectors.vectors_for([r.content for r in records])
            for members, low in clusters_in(records, matrix, self.threshold):
                base = max(members, key=_rank)
                plans.append(MergePlan(scope, category, owner, members, base.content, base, low))
        return len(groups), seen, plans

    async def _within_share(
        self, plans: list[MergePlan], now: datetime, report: ConsolidationReport
    ) -> list[MergePlan]:
        """The plans this pass may carry out: per owner, until the next one would deprecate
        more than ``max_share`` of that owner's live records; the owner is then reported."""
        live: dict[str, int] = defaultdict(int)
        for rec in await self._live(now, {owner_key(p.owner) for p in plans}):
            live[owner_key(rec.owner())] += 1
        used: dict[str, int] = defaultdict(int)
        kept: list[MergePlan] = []
        for plan in plans:
            key = owner_key(plan.owner)
            limit = int(self.max_share * live[key])
            if key in {s["owner"] for s in report.stopped}:
                continue
            if used[key] + len(plan.sources) > limit:
                report.stopped.append({"owner": key, "reason": _share_reason(self, live[key])})
                continue
            used[key] += len(plan.sources)
            kept.append(plan)
        return kept

    async def run(
        self,
        *,
        dry_run: bool = False,
        now: datetime | None = None,
        owners: Collection[str] | None = None,
        log: PassLog | None = None,
    ) -> ConsolidationReport:
        """One pass (of ``owners`` only, when given). Writing, it records each merge in
        ``log`` (a new pass file when none is given) as it goes."""
        now = now or utcnow()
        report = ConsolidationReport(dry_run=dry_run)
        report.finished_interrupted = await self._finish_interrupted(now, dry_run, owners)
        report.groups, report.records_seen, plans = await self.plan(now=now, owners=owners)
        report.plans = await self._within_share(plans, now, report)
        if dry_run:
            return report
        own_log = log is None
        log = log or new_pass(self.store.state_home, now, max_share=self.max_share)
        report.pass_id = log.pass_id
        log.stopped.extend(report.stopped)
        for plan in list(report.plans):
            if self.model is not None:
                plan.content = await self._merged_text(plan)
                report.used_model = True
            if not await self._as_planned(plan):
                report.plans.remove(plan)
                continue
            merged = await self._write(plan, log)
            report.created.append(merged.id)
            report.deprecated += len(plan.sources)
        if own_log:
            log.finished_at = utcnow().isoformat(timespec="seconds")
        save_pass(self.store.state_home, log)
        return report

    async def _as_planned(self, plan: MergePlan) -> bool:
        """Every source still reads as when the plan was made: a turn's writer may have
        updated, deprecated or pinned one meanwhile (the model's reply takes a while), and a
        stale plan would bring the old fact back beside the person's correction."""
        for src in plan.sources:
            try:
                now = await self.store.get(src.id)
            except RecordNotFoundError:
                now = None
            if now is None or not can_merge(now) or _as_read(now) != _as_read(src):
                logger.info("consolidator: %s changed during the pass; merge left out", src.id)
                return False
        return True

    async def _merged_text(self, plan: MergePlan) -> str:
        ordered = sorted(plan.sources, key=lambda r: (r.ts, r.id))
        listing = "\n".join(f"- ({r.ts}) {r.content}" for r in ordered)
        messages = [ChatMessage("system", _MERGE_PROMPT), ChatMessage("user", listing)]
        assert self.model is not None
        try:
            result = await self.model.chat(messages, max_tokens=200, temperature=0.0)
        except LLMError as exc:
            logger.warning("consolidator: model unavailable (%s); keeping the base text", exc)
            return plan.content
        text = result.text.strip().strip('"').strip()
        # Past max_tokens the client cut it (``familiars.llm``): half a merge is none.
        if not text or result.cut or "\n\n" in text or not grounded(text, plan.sources):
            logger.warning(
                "consolidator: unusable merge text %r; keeping the base text", text[:200]
            )
            return plan.content
        return text

    async def _write(self, plan: MergePlan, log: PassLog) -> MemoryRecord:
        record = merged_record(plan)
        merged = await self.store.append(record, dedupe=False)
        log.merges.append(
            {
                "created": merged.id,
                "sources": sorted(r.id for r in plan.sources),
                "owner": owner_key(plan.owner),
            }
        )
        save_pass(self.store.state_home, log)  # before the sources go: --undo finds them
        for src in plan.sources:
            await self.store.deprecate(src.id)
        logger.info("consolidated %d records into %s", len(plan.sources), merged.id)
        return merged


def merged_record(plan: MergePlan) -> MemoryRecord:
    """The consolidated entry of ``plan``: its text, the sources' tags and quotes merged,
    the highest salience, ``derived_from`` every source."""
    base = plan.base
    tags = list(dict.fromkeys(t for r in plan.sources for t in r.tags))
    quotes = list(dict.fromkeys(q for r in plan.sources for q in r.source_quote))[:10]
    user_key, agent_id, dialogue_id = plan.owner
    return make_record(
        plan.content,
        scope=plan.scope,
        category=plan.category,
        user_key=user_key,
        agent_id=agent_id or base.agent_id,
        dialogue_id=dialogue_id,
        tags=tags,
        salience=max(r.salience for r in plan.sources),
        evidence=base.evidence,
        epistemic_status=base.epistemic_status,
        source_quote=quotes,
        derived_from=sorted(r.id for r in plan.sources),
        access_count=sum(r.access_count for r in plan.sources),
        extra=dict(base.extra),
    )


def plan_of(sources: Sequence[MemoryRecord]) -> MergePlan:
    """An offline (extractive) merge of ``sources``: the most salient, then most recent,
    text is kept."""
    base = max(sources, key=_rank)
    return MergePlan(
        base.scope, base.category, base.owner(), list(sources), base.content, base, 1.0
    )


def _as_read(rec: MemoryRecord) -> tuple[Any, ...]:
    return (rec.content, rec.deprecated, rec.pinned, rec.category, tuple(rec.tags), rec.ttl)


def _share_reason(cons: Consolidator, live: int) -> str:
    return (
        f"stopped: the next merge would deprecate more than {cons.max_share:.0%} of "
        f"{live} live records in one pass"
    )
