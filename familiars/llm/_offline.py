"""The offline responder: with no language model configured the bot still answers, with what
it recalled and a plain statement that no model is configured."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from familiars.llm._base import ChatMessage, ChatModel, ChatResult

OFFLINE_NOTICE = (
    "(Offline mode: no language model is configured, so I can only tell you what I remember.)"
)
_RECALL_HEADER = re.compile(r"(recall|remember|memor)", re.IGNORECASE)


def recalled_lines(messages: Sequence[ChatMessage]) -> list[str]:
    """Bullet lines (``- ...``) under a system-prompt heading that mentions recall/memory."""
    found: list[str] = []
    for message in messages:
        if message.role != "system":
            continue
        inside = False
        for line in message.content.splitlines():
            stripped = line.strip()
            if not stripped:
                inside = False
            elif stripped.startswith(("- ", "* ")):
                if inside:
                    found.append(stripped[2:].strip())
            else:
                inside = bool(_RECALL_HEADER.search(stripped))
    return found


class OfflineResponder(ChatModel):
    name = "offline"
    model = "offline"

    def __init__(self, *, max_items: int = 5) -> None:
        super().__init__()
        self.max_items = max_items

    def respond(self, text: str, recalled: Sequence[str]) -> str:
        items = [r.strip() for r in recalled if r and r.strip()][: self.max_items]
        if not items:
            return f"I hear you, and I'll keep what I can. {OFFLINE_NOTICE}"
        lines = [OFFLINE_NOTICE, "Here is what I remember that may be relevant:"]
        lines += [f"- {item}" for item in items]
        return "\n".join(lines)

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:
        user = next((m.content for m in reversed(messages) if m.role == "user"), "")
        return ChatResult(
            text=self.respond(user, recalled_lines(messages)), provider=self.name, model=self.model
        )
