"""Found files in words: a ``/find`` reply, and passages for a reply's context.

Platform-neutral text; the adapters split it at their limits and attach files themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from familiars.memory._documents.results import FoundFile

#: Raw cosine (bundled MiniLM) below which a passage is not brought into a reply unprompted.
CONTEXT_MIN_COSINE = 0.35
CONTEXT_MAX_ITEMS = 3


def where(found: FoundFile) -> str:
    page = f", page {found.page}" if found.page is not None else ""
    older = " (earlier version)" if found.is_history else ""
    return f"{found.name}{page}{older}"


def format_found(found: Sequence[FoundFile], *, query: str = "", ids: bool = False) -> str:
    """The reply to ``/find QUERY``: numbered files with page and passage (and, with
    ``ids``, the ``file:...`` id ``/memory forget`` takes)."""
    if not found:
        return f"I found no file matching {query!r}." if query else "I found no matching file."
    lines = []
    for number, item in enumerate(found, start=1):
        shown = f" `file:{item.file_id}`" if ids else ""
        lines.append(f"{number}. {where(item)}{shown}")
        if item.passage:
            lines.append(f"   “{item.passage}”")
    return "\n".join(lines)


def relevant_for_context(
    found: Sequence[FoundFile],
    *,
    min_cosine: float = CONTEXT_MIN_COSINE,
    max_items: int = CONTEXT_MAX_ITEMS,
) -> list[FoundFile]:
    """Hits worth showing the model while it answers (current versions unless asked)."""
    keep = [f for f in found if f.parts.get("cosine", 0.0) >= min_cosine]
    return keep[:max_items]


def context_lines(found: Sequence[FoundFile]) -> list[str]:
    """One prompt line per passage: ``[document lease.pdf, page 3] ...``."""
    return [f"[document {where(f)}] {f.passage}" for f in found]
