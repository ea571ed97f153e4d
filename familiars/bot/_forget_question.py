"""The question a forget of memories asks before anything goes, built in one place for every
road that asks it (``/memory forget ID`` and the model's ``forget`` tool): each memory, what
it replaced, and the person's other messages that say it again. The forget takes all of them
(:meth:`~familiars.memory.Forgetter.forget_all` follows ``supersedes`` and takes the repeats
:meth:`~familiars.memory.Forgetter.repeats_for` finds), so the question names them all; the
tool's question named the memory alone while its yes took the repeats too."""

from __future__ import annotations

from collections.abc import Sequence

from familiars.bot._forget_texts import count, shorten
from familiars.memory import Forgetter, MemoryRecord, RecordNotFoundError

#: How many of the other messages a forget takes the question shows.
SHOWN = 5
#: How far down a ``supersedes`` chain the question looks.
_CHAIN = 50


async def forget_question(
    forgetter: Forgetter, records: Sequence[MemoryRecord], *, group: bool
) -> str:
    """ "About to forget for good:" and what goes, a line each, ending in a newline (the
    caller adds how to answer); in a group the other messages are only counted (they may
    have been said in private)."""
    lines = ["About to forget for good:"]
    for rec in records:
        lines.append(f"> {shorten(rec.content)}")
        older = await replaced(forgetter, rec)
        lines += [f"> {shorten(r.content)} (since replaced)" for r in older]
    return "\n".join(lines) + "\n" + await said_again(forgetter, records, group=group)


async def said_again(forgetter: Forgetter, records: Sequence[MemoryRecord], *, group: bool) -> str:
    """The person's other messages that say a value of ``records`` (or of what they
    replaced or were merged from) again, each shown short, and how many of the bot's
    replies to them said it (they go too); "" for none."""
    found = await forgetter.repeats_for([r.id for r in records])
    repeats = [r for r in found if not r.reply]
    replies = len(found) - len(repeats)  # the bot's own replies that said it go too
    mine = f"{count(replies, 'reply', 'replies')} of mine that said it"
    them = "it" if len(records) == 1 else "them"
    if not repeats:
        return f"With {them} go {mine}.\n" if replies else ""
    says = "says" if len(repeats) == 1 else "say"
    head = f"With {them} go {count(len(repeats), 'other message')} of yours that {says} it again"
    head += f" and {mine}" if replies else ""
    if group:
        return head + ".\n"
    shown = "".join(f"\n> {shorten(r.text, 80)}" for r in repeats[:SHOWN])
    more = f"\n(and {len(repeats) - SHOWN} more)" if len(repeats) > SHOWN else ""
    return f"{head}:{shown}{more}\n"


async def replaced(forgetter: Forgetter, rec: MemoryRecord) -> list[MemoryRecord]:
    """What ``rec`` replaced, on down its ``supersedes`` chain: the forget takes it too."""
    found: list[MemoryRecord] = []
    while rec.supersedes and len(found) < _CHAIN:
        try:
            rec = await forgetter.store.get(rec.supersedes)
        except RecordNotFoundError:
            break
        if not rec.deprecated:
            break
        found.append(rec)
    return found


__all__ = ["SHOWN", "forget_question", "replaced", "said_again"]
