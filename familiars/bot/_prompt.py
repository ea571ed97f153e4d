"""The prompt of one turn: persona, the agent's directives, the speaker's profile, what was
recalled, the current topic branch of the dialogue tree, and the message; within a budget.

Only the persona and the agent's directives (written by its owners) are instructions.
Everything remembered (the profile, private notes, recalled items, document passages) is
quoted data inside one block (:func:`familiars.bot._untrusted.data_block`), and the system
prompt says that instructions inside it are not the owner's (issue 19).

Tokens are estimated at four characters each: good enough to stay clear of a context limit
without loading a tokenizer. The branch is trimmed from its oldest end first; recalled items
from the lowest score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from familiars.bot._untrusted import DATA_RULE, data_block, quote
from familiars.llm import ChatMessage
from familiars.memory import DEFAULT_MAX_RECORD_CHARS, MemoryRecord, cut_text, shown_record

RECALL_HEADING = "What you remember that may be relevant (recalled memories):"
PRIVATE_HEADING = (
    "Private notes about {who}, for your understanding only: this is a group chat, so never "
    "state, quote or hint at these here:"
)


def estimate_tokens(text: str) -> int:
    return len(text) // 4 + 1


@dataclass(frozen=True)
class BranchTurn:
    role: str  # "user" | "assistant"
    text: str
    speaker: str = ""
    #: Who said it (a user turn's person), so a turn knows whether others' words are in it.
    user_key: str = ""


@dataclass
class PromptParts:
    persona: str
    agent_name: str
    directives: Sequence[MemoryRecord] = ()
    profile: Sequence[MemoryRecord] = ()
    recalled: Sequence[str] = ()
    #: The speaker's own user-scope memories recalled for this message. In a DM they join
    #: the recalled list; in a group they are shown under a "never say it here" heading.
    private: Sequence[str] = ()
    branch: Sequence[BranchTurn] = ()
    message: str = ""
    speaker: str = ""
    is_group: bool = False
    now_text: str = ""
    notes: list[str] = field(default_factory=list)
    #: ``memory.max_record_chars``: a longer (hand-written) memory is shown cut.
    max_item_chars: int = DEFAULT_MAX_RECORD_CHARS


def build_messages(parts: PromptParts, *, budget_tokens: int) -> list[ChatMessage]:
    parts = fit_memories(parts, budget_tokens=budget_tokens)
    system = _system_text(parts, recalled=list(parts.recalled))
    message = _speaker_line(parts.speaker, parts.message, parts.is_group)
    used = estimate_tokens(system) + estimate_tokens(message)
    recalled = list(parts.recalled)
    while used > budget_tokens * 0.7 and recalled:
        recalled.pop()
        system = _system_text(parts, recalled=recalled)
        used = estimate_tokens(system) + estimate_tokens(message)
    history: list[ChatMessage] = []
    for turn in reversed(parts.branch):
        text = _speaker_line(turn.speaker, turn.text, parts.is_group and turn.role == "user")
        cost = estimate_tokens(text)
        if used + cost > budget_tokens:
            break
        history.append(ChatMessage(turn.role, text))  # type: ignore[arg-type]
        used += cost
    history.reverse()
    return [ChatMessage("system", system), *history, ChatMessage("user", message)]


#: Shares of the token budget: the most one remembered text may take, and the most the
#: standing parts (directives, profile, private notes) may take together.
ITEM_SHARE = 0.15
STANDING_SHARE = 0.4


def fit_memories(parts: PromptParts, *, budget_tokens: int) -> PromptParts:
    """``parts`` with what is remembered held to the budget: every text cut (the cut said) to
    the record limit and to ``ITEM_SHARE`` of the budget; directives, then the profile, then
    private notes kept while they fit ``STANDING_SHARE`` of it (the profile keeps its newest
    end). Recalled items are trimmed later by :func:`build_messages`, from the lowest score."""
    cap = max(80, min(parts.max_item_chars, int(budget_tokens * 4 * ITEM_SHARE)))
    room = int(budget_tokens * 4 * STANDING_SHARE)
    directives = [shown_record(r, cap) for r in parts.directives]
    kept, room = _fitting([r.content for r in directives], room)
    directives = [directives[i] for i in kept]
    newest_first = [shown_record(r, cap) for r in reversed(parts.profile)]
    kept, room = _fitting([quote(r.content) for r in newest_first], room)
    profile = [newest_first[i] for i in reversed(kept)]
    private = [cut_text(t, cap) for t in parts.private]
    kept, room = _fitting([quote(t) for t in private], room)
    return replace(
        parts,
        directives=directives,
        profile=profile,
        private=[private[i] for i in kept],
        recalled=[cut_text(t, cap) for t in parts.recalled],
    )


def _fitting(texts: Sequence[str], room: int) -> tuple[list[int], int]:
    """The indices of ``texts`` kept, in order, each while it fits the room left (its bullet
    line costs 3 more characters), and the room then left."""
    kept = []
    for i, text in enumerate(texts):
        if len(text) + 3 <= room:
            room -= len(text) + 3
            kept.append(i)
    return kept, room


def _speaker_line(speaker: str, text: str, named: bool) -> str:
    return f"{speaker}: {text}" if named and speaker else text


def _system_text(parts: PromptParts, *, recalled: list[str]) -> str:
    lines = [parts.persona.strip(), f"Your name is {parts.agent_name}."]
    if parts.now_text:
        lines.append(f"It is now {parts.now_text}.")
    if parts.is_group:
        lines.append(
            "This is a group chat. What you know privately about a person is for them alone: "
            "never repeat it to others."
        )
    if parts.directives:
        lines += ["", "Your standing instructions:"]
        lines += [f"- {r.content.strip()}" for r in parts.directives]
    lines += ["", DATA_RULE]
    who = quote(parts.speaker or "the person you are talking with")
    personal = [r.content for r in parts.profile] + list(parts.private)
    # In a group everyone reads the reply: what is private to the speaker may inform it but
    # is never said. (That heading avoids the words the offline responder lists.)
    heading = PRIVATE_HEADING if parts.is_group else "What you remember about {who}:"
    block = data_block([(heading.format(who=who), personal), (RECALL_HEADING, recalled)])
    if block:
        lines += ["", *block]
    lines += [
        "",
        "Use what you remember naturally; do not invent memories. If you are unsure, ask.",
    ]
    return "\n".join(lines)
