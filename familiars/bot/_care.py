"""A companion's duty of care (``[care]`` settings; the rules SB 243 asks of companion bots).

Map:

- :func:`speaks_of_self_harm`: a message about suicide or self-harm. Such a message gets the
  configured crisis reply, is never read by the writer as facts, and pauses unsolicited
  nudges for the person (``crisis_pause_s``) through ``on_pause`` (the scheduler's
  ``care_pause``, which its decider reads);
- :class:`Sessions`: when a session started, per dialogue (a gap of ``session_gap_s`` starts
  a new one), so a break reminder can be said once after ``break_after_s`` when owners turn
  it on;
- :func:`disclosure`: the line the first reply in a new chat begins with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from familiars.config import Settings

_SELF_HARM = re.compile(
    r"\b(?:suicid\w*|kill(?:ing)?\s+my\s*self|end(?:ing)?\s+(?:it\s+all|my\s+(?:own\s+)?life)|"
    r"take\s+my\s+(?:own\s+)?life|self[-\s]?harm\w*|hurt(?:ing)?\s+my\s*self|"
    r"cut(?:ting)?\s+my\s*self|(?:want|wanna|wish)\s+(?:to\s+)?(?:be\s+)?(?:die|dead)|"
    r"don'?t\s+want\s+to\s+(?:live|be\s+alive|wake\s+up)|no\s+reason\s+to\s+live|"
    r"better\s+off\s+dead|overdos\w*)",
    re.IGNORECASE,
)


def speaks_of_self_harm(text: str) -> bool:
    return bool(_SELF_HARM.search(text))


def disclosure(settings: Settings, agent_name: str) -> str:
    return settings.care.ai_disclosure_text.replace("{name}", agent_name)


@dataclass
class _Session:
    started: datetime
    last: datetime
    break_said: bool = False


@dataclass
class Sessions:
    """Session starts per dialogue, in memory (a restart starts new sessions)."""

    gap_s: float
    after_s: float
    _by_key: dict[tuple[str, str], _Session] = field(default_factory=dict)

    def note(self, key: tuple[str, str], now: datetime) -> bool:
        """Record a message at ``now``; True when a break reminder is due with this reply."""
        session = self._by_key.get(key)
        if session is None or now - session.last > timedelta(seconds=self.gap_s):
            session = self._by_key[key] = _Session(started=now, last=now)
        session.last = now
        if session.break_said or now - session.started < timedelta(seconds=self.after_s):
            return False
        session.break_said = True
        return True
