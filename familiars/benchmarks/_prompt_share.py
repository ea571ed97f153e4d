"""What reaches the prompt: of a question's evidence turns, how many the bot recalls at its own
``k`` and how many of those survive into the prompt it builds within its token budget.

The recall goes through the bot's :class:`ReaderRecaller` (its item texts and filters), the
prompt through :func:`build_messages` with the agent's persona and no directives, profile or
branch (those would only take more of the budget). A recalled item reached the prompt when its
``- text`` line is in the rendered system message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from familiars.bot import PromptParts, ReaderRecaller, build_messages


@dataclass(frozen=True)
class PromptSetup:
    """The bot's defaults that decide what fits: ``recall.k``, ``llm.prompt_token_budget``
    and the first agent's persona and name."""

    k: int
    budget_tokens: int
    persona: str
    agent_name: str

    @classmethod
    def from_settings(cls, settings: Any) -> PromptSetup:
        agent = settings.agents[0]
        return cls(
            k=settings.recall.k,
            budget_tokens=settings.llm.prompt_token_budget,
            persona=agent.persona,
            agent_name=agent.name,
        )


class PromptShare:
    """Counts evidence turns: all, recalled at the bot's k, and present in the built prompt;
    pooled over turns, and as the mean over questions (comparable to recall@k)."""

    def __init__(self, setup: PromptSetup) -> None:
        self.setup = setup
        self.evidence = 0
        self.recalled = 0
        self.in_prompt = 0
        self.per_question: list[tuple[float, float]] = []
        #: Per question, the prompt's tokens with the recalled memories less without them
        #: (the bot's own estimate, ``len // 4``): what memory costs the prompt.
        self.memory_tokens: list[int] = []

    async def add(
        self,
        recaller: ReaderRecaller,
        question: str,
        evidence: Sequence[str],
        *,
        agent_id: str,
        dialogue_id: str,
        now: float,
        user_key: str | None = None,
    ) -> None:
        when = datetime.fromtimestamp(now, UTC)
        items = await recaller.recall(
            question, agent_id=agent_id, dialogue_id=dialogue_id, user_key=user_key,
            is_group=False, now=when, k=self.setup.k, context=(),
        )  # fmt: skip
        dia_by_key = {it.key: evidence_id(it) for it in recaller.last_result.items}
        system = self._system_text(question, [it.text for it in items], when)
        bare = self._system_text(question, [], when)
        self.memory_tokens.append(max(0, (len(system) - len(bare)) // 4))
        recalled = {dia_by_key.get(it.id) for it in items}
        kept = {dia_by_key.get(it.id) for it in items if f"- {it.text.strip()}" in system}
        ev = set(evidence)
        self.evidence += len(ev)
        self.recalled += len(ev & recalled)
        self.in_prompt += len(ev & kept)
        self.per_question.append((len(ev & recalled) / len(ev), len(ev & kept) / len(ev)))

    def _system_text(self, question: str, recalled: list[str], when: datetime) -> str:
        parts = PromptParts(
            persona=self.setup.persona,
            agent_name=self.setup.agent_name,
            recalled=recalled,
            message=question,
            now_text=when.strftime("%A %d %B %Y, %H:%M %Z"),
        )
        return build_messages(parts, budget_tokens=self.setup.budget_tokens)[0].content

    def summary(self) -> dict[str, Any]:
        def share(n: int) -> float:
            return round(n / self.evidence, 4) if self.evidence else 0.0

        return {
            "k": self.setup.k,
            "budget_tokens": self.setup.budget_tokens,
            "evidence_turns": self.evidence,
            "recalled_at_k": share(self.recalled),
            "in_prompt": share(self.in_prompt),
            "cut_after_recall": self.recalled - self.in_prompt,
            "memory_tokens_per_turn": _token_summary(self.memory_tokens),
            "per_question": {
                "recalled_at_k": _mean(r for r, _ in self.per_question),
                "in_prompt": _mean(p for _, p in self.per_question),
            },
        }


def _token_summary(values: Sequence[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "p50": 0.0, "p95": 0.0}
    ordered = sorted(values)
    return {
        "mean": round(sum(ordered) / len(ordered), 1),
        "p50": float(ordered[len(ordered) // 2]),
        "p95": float(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]),
    }


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return round(sum(items) / len(items), 4) if items else 0.0


def evidence_id(item: Any) -> str | None:
    """The LoCoMo ``dia_id`` a recalled item stands for: a turn's own, or the turn a
    writer's record came from (``_replay_facts``)."""
    if item.node is not None:
        value = item.node.metadata.get("dia_id")
        return None if value is None else str(value)
    record = getattr(item, "record", None)
    value = ((record.evidence or {}) if record is not None else {}).get("dia_id")
    return None if value is None else str(value)
