"""What the turns did, counted for ``familiars status`` and the API: recalls, items recalled
and used, recall latency, and the group replies the outbound check redacted or withheld."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from familiars.bot._leak_guard import GuardVerdict


@dataclass
class TurnStats:
    recalls: int = 0
    items: int = 0
    used: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    #: Group replies the last check redacted, and those it withheld whole.
    guard_redacted: int = 0
    guard_withheld: int = 0
    #: When counting began (the bot's start): the counts are this run's, not the workspace's.
    since: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def guarded(self, verdict: GuardVerdict) -> None:
        if verdict.withheld:
            self.guard_withheld += 1
        elif verdict.changed:
            self.guard_redacted += 1

    def add(self, items: int, used: int, ms: float) -> None:
        self.recalls += 1
        self.items += items
        self.used += used
        self.latencies_ms.append(ms)
        if len(self.latencies_ms) > 2000:
            del self.latencies_ms[:1000]

    def as_dict(self) -> dict[str, Any]:
        import numpy as np

        lat = np.asarray(self.latencies_ms or [0.0])
        return {
            "since": self.since,
            "recalls": self.recalls,
            "items_per_recall": round(self.items / self.recalls, 3) if self.recalls else 0.0,
            "hit_rate": round(self.used / self.items, 3) if self.items else 0.0,
            "group_replies_redacted": self.guard_redacted,
            "group_replies_withheld": self.guard_withheld,
            "latency_ms": {
                "p50": round(float(np.percentile(lat, 50)), 2),
                "p95": round(float(np.percentile(lat, 95)), 2),
            },
        }
