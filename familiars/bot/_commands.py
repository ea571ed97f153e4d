"""Platform-neutral command handlers: ``/memory ...``, ``/link``, ``/proactive``, ``/find``,
``/help``. Every answer is private (ephemeral on Discord, a private chat on Telegram).

A person reaches only their own user scope; the owners named in the config also reach the
agent's identity scope and the dialogue scopes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from familiars.bot._adapters.base import CommandInvocation, CommandResponse, CommandSpec
from familiars.bot._state import BotState
from familiars.config import Settings
from familiars.memory import (
    CATEGORIES,
    RECORD_ID_RE,
    MemoryError_,
    MemoryRecord,
    MemoryStore,
    RecordNotFoundError,
    valid_categories,
)

logger = logging.getLogger(__name__)

SPECS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "What I can do and how", "/help"),
    CommandSpec(
        "memory",
        "See, search, pin, export or forget what I remember about you",
        "/memory list [category] | search QUERY | show ID | forget ID | pin ID | unpin ID"
        " | export | why",
    ),
    CommandSpec("link", "Link your accounts on different platforms", "/link [CODE]"),
    CommandSpec("proactive", "Let me (not) message you first", "/proactive on|off"),
    CommandSpec("find", "Find a document you sent or I watch", "/find QUERY"),
)
_USAGE = {spec.name: spec.usage for spec in SPECS}


@dataclass
class Caller:
    """Who is asking, resolved by the dialogue manager."""

    user_key: str
    agent_id: str
    dialogue_id: str | None
    is_owner: bool
    platform: str
    user_id: str


@dataclass
class CommandContext:
    settings: Settings
    store: MemoryStore
    state: BotState
    #: The last reply's recalled items per (agent_id, dialogue_id, user_key), for /memory why.
    last_recall: dict[tuple[str, str | None, str], list[dict[str, Any]]] = field(
        default_factory=dict
    )
    search: Callable[[str, Caller, int], Awaitable[list[dict[str, Any]]]] | None = None
    find: Callable[[str, Caller], Awaitable[CommandResponse]] | None = None
    on_used: Callable[[str], None] | None = None
    #: Told of /proactive on|off (the scheduler keeps its own per-dialogue switch).
    on_proactive: Callable[[Caller, bool], None] | None = None


def usage(name: str) -> CommandResponse:
    return CommandResponse(f"Usage: {_USAGE.get(name, '/help')}")


class Commands:
    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx

    def specs(self) -> list[CommandSpec]:
        specs = list(SPECS)
        if self.ctx.find is None:
            specs = [s for s in specs if s.name != "find"]
        return specs

    async def run(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        handler = {
            "help": self._help,
            "start": self._help,
            "memory": self._memory,
            "link": self._link,
            "proactive": self._proactive,
            "find": self._find,
        }.get(inv.name.lower())
        if handler is None:
            return CommandResponse(f"Unknown command /{inv.name}. Try /help.")
        try:
            return await handler(inv, caller)
        except RecordNotFoundError:
            return CommandResponse("I have no memory with that id that you can see.")
        except MemoryError_ as exc:
            return CommandResponse(str(exc))

    async def complete(self, inv: CommandInvocation, caller: Caller, partial: str) -> list[str]:
        """Choices for the argument being typed: sub-commands, categories, memory ids."""
        args = list(inv.args)
        if inv.name == "memory":
            subs = ["list", "search", "show", "forget", "pin", "unpin", "export", "why"]
            if not args:
                return [s for s in subs if s.startswith(partial)]
            if args[0] == "list":
                return [c for c in valid_categories("user") if c.startswith(partial)][:25]
            if args[0] in ("show", "forget", "pin", "unpin"):
                records = await self._visible(caller)
                return [
                    r.id
                    for r in records
                    if r.id.startswith(partial) or partial.lower() in r.content.lower()
                ][:25]
        if inv.name == "proactive":
            return [c for c in ("on", "off") if c.startswith(partial)]
        return []

    # ------------------------------------------------------------------ handlers

    async def _help(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        lines = ["Here is what you can ask me:"]
        lines += [f"{spec.usage} — {spec.description}" for spec in self.specs()]
        lines.append(
            "Everything I remember about you is yours: list it, correct it by telling me, "
            "pin what matters, forget what should go."
        )
        return CommandResponse("\n".join(lines))

    async def _visible(self, caller: Caller, category: str | None = None) -> list[MemoryRecord]:
        records = await self.ctx.store.list(
            scope="user", user_key=caller.user_key, category=category
        )
        return records

    def _may_see(self, rec: MemoryRecord, caller: Caller) -> bool:
        if rec.scope == "user":
            return rec.user_key == caller.user_key
        if not caller.is_owner:
            return False
        return rec.agent_id == caller.agent_id

    async def _get_visible(self, record_id: str, caller: Caller) -> MemoryRecord:
        if not RECORD_ID_RE.fullmatch(record_id):
            raise RecordNotFoundError(record_id)
        rec = await self.ctx.store.get(record_id)
        if not self._may_see(rec, caller):
            raise RecordNotFoundError(record_id)
        if self.ctx.on_used is not None:
            self.ctx.on_used(rec.id)
        return rec

    async def _memory(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        if not inv.args:
            return usage("memory")
        sub, rest = inv.args[0].lower(), list(inv.args[1:])
        if sub == "list":
            return await self._list(rest, caller)
        if sub == "search":
            return await self._search(" ".join(rest), caller)
        if sub in ("show", "forget", "pin", "unpin") and not rest:
            return CommandResponse(f"Usage: /memory {sub} ID")
        if sub == "show":
            rec = await self._get_visible(rest[0], caller)
            return CommandResponse(_describe(rec))
        if sub == "forget":
            rec = await self._get_visible(rest[0], caller)
            if len(rest) < 2 or rest[1].lower() not in ("confirm", "yes"):
                return CommandResponse(
                    f"About to forget for good:\n> {_one_line(rec.content)}\n"
                    f"Send /memory forget {rec.id} confirm to go ahead."
                )
            await self.ctx.store.forget(rec.id)
            return CommandResponse(f"Forgotten: {_one_line(rec.content)}")
        if sub in ("pin", "unpin"):
            rec = await self._get_visible(rest[0], caller)
            if sub == "pin":
                await self.ctx.store.pin(rec.id)
                return CommandResponse(f"Pinned: {_one_line(rec.content)}")
            await self.ctx.store.unpin(rec.id)
            return CommandResponse(f"Unpinned: {_one_line(rec.content)}")
        if sub == "export":
            return await self._export(caller)
        if sub == "why":
            return self._why(caller)
        return usage("memory")

    async def _list(self, rest: list[str], caller: Caller) -> CommandResponse:
        what = rest[0].lower() if rest else None
        if what in ("identity", "dialogue"):
            if not caller.is_owner:
                return CommandResponse("Only the bot's owners can look at that.")
            records = await self.ctx.store.list(
                scope=what,
                agent_id=caller.agent_id,
                dialogue_id=caller.dialogue_id if what == "dialogue" else None,
            )
        else:
            if what is not None and what not in valid_categories("user"):
                cats = ", ".join(valid_categories("user"))
                return CommandResponse(f"Unknown category {what!r}. Categories: {cats}")
            records = await self._visible(caller, what)
        if not records:
            return CommandResponse("I don't remember anything there yet.")
        lines = [f"{len(records)} memories:"]
        lines += [
            f"`{r.id}` [{r.category}{' 📌' if r.pinned else ''}] {_one_line(r.content)}"
            for r in records[-50:]
        ]
        if len(records) > 50:
            lines.append(f"(showing the newest 50; /memory export gives you all {len(records)})")
        return CommandResponse("\n".join(lines))

    async def _search(self, query: str, caller: Caller) -> CommandResponse:
        if not query.strip():
            return CommandResponse("Usage: /memory search QUERY")
        if self.ctx.search is None:
            words = query.lower().split()
            hits = [
                r for r in await self._visible(caller) if any(w in r.content.lower() for w in words)
            ]
            items = [{"id": r.id, "text": r.content, "score": None} for r in hits[:10]]
        else:
            items = await self.ctx.search(query, caller, 10)
        if not items:
            return CommandResponse("Nothing in your memories matches that.")
        lines = [f"{len(items)} found:"]
        for it in items:
            score = f" ({it['score']:.2f})" if isinstance(it.get("score"), float) else ""
            lines.append(f"`{it['id']}`{score} {_one_line(str(it['text']))}")
        return CommandResponse("\n".join(lines))

    async def _export(self, caller: Caller) -> CommandResponse:
        records = await self.ctx.store.list(scope="user", user_key=caller.user_key)
        lines = [f"# What I remember about {caller.user_key}", ""]
        for cat in CATEGORIES:
            group = [r for r in records if r.category == cat]
            if not group:
                continue
            lines += [f"## {cat}", ""]
            lines += [f"- {r.content.strip()} <!-- {r.id} -->" for r in group]
            lines.append("")
        data = "\n".join(lines).encode("utf-8")
        return CommandResponse(
            f"Here are your {len(records)} memories.",
            file_name=f"memory-{caller.user_key}.md",
            file_data=data,
        )

    def _why(self, caller: Caller) -> CommandResponse:
        items = self.ctx.last_recall.get((caller.agent_id, caller.dialogue_id, caller.user_key))
        if not items:
            return CommandResponse("My last reply here did not use any memories.")
        lines = ["My last reply used these memories:"]
        for it in items:
            parts = ", ".join(
                f"{k} {v:.2f}"
                for k, v in (it.get("parts") or {}).items()
                if isinstance(v, int | float)
            )
            text = _one_line(str(it.get("text", "")))
            lines.append(f"`{it.get('id')}` {text} — score {it.get('score', 0):.2f} ({parts})")
        return CommandResponse("\n".join(lines))

    async def _link(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        now = datetime.now(UTC)
        if not inv.args:
            code = await self.ctx.state.new_link_code(caller.user_key, now)
            return CommandResponse(
                f"Your link code is {code}. Within 10 minutes, send /link {code} to me from "
                "your account on the other platform; both accounts will then share one memory."
            )
        result = await self.ctx.state.redeem_link_code(
            inv.args[0], caller.platform, caller.user_id, now
        )
        if result is None:
            return CommandResponse(
                "That code is unknown or expired. Send /link on your other account for a new one."
            )
        old, new = result
        moved = await merge_user_scope(self.ctx.store, old, new) if old != new else 0
        return CommandResponse(
            f"Linked. Your accounts now share one memory ({moved} memories moved over)."
        )

    async def _proactive(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        choice = inv.args[0].lower() if inv.args else ""
        if choice not in ("on", "off"):
            person = await self.ctx.state.person(caller.user_key)
            state = "on" if person is None or person.proactive else "off"
            return CommandResponse(f"Proactive messages are {state}. Usage: /proactive on|off")
        await self.ctx.state.set_proactive(caller.user_key, choice == "on")
        if self.ctx.on_proactive is not None:
            self.ctx.on_proactive(caller, choice == "on")
        if choice == "on":
            return CommandResponse(
                "I may message you first (reminders, follow-ups, the odd check-in)."
            )
        return CommandResponse(
            "I won't message you first any more (no check-ins or follow-ups). "
            "Reminders you explicitly ask for still arrive."
        )

    async def _find(self, inv: CommandInvocation, caller: Caller) -> CommandResponse:
        if not inv.args:
            return usage("find")
        if self.ctx.find is None:
            return CommandResponse("Document search is not set up on this bot.")
        return await self.ctx.find(" ".join(inv.args), caller)


async def merge_user_scope(store: MemoryStore, old: str, new: str) -> int:
    """Move every record of person ``old`` into person ``new``'s user scope (duplicates
    collapse into the record already there)."""
    records = await store.list(scope="user", user_key=old, live_only=False)
    if not records:
        return 0
    from familiars.memory import new_id

    moved = [r.replace(id=new_id(), user_key=new) for r in records]
    await store.append_many(moved)
    for r in records:
        await store.forget(r.id)
    return len(records)


def _one_line(text: str, limit: int = 140) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _describe(rec: MemoryRecord) -> str:
    lines = [f"`{rec.id}` — {rec.scope}/{rec.category}", rec.content.strip()]
    meta = [f"noted {rec.ts[:10]}" if rec.ts else "", f"salience {rec.salience:.2f}"]
    if rec.pinned:
        meta.append("pinned")
    if rec.deprecated:
        meta.append("replaced")
    if rec.supersedes:
        meta.append(f"replaces {rec.supersedes}")
    if rec.open_loop:
        loop = rec.open_loop
        meta.append(
            f"{loop.get('kind', 'loop')} {loop.get('status', '')} due {loop.get('due') or '-'}"
        )
    lines.append(" · ".join(m for m in meta if m))
    return "\n".join(lines)
