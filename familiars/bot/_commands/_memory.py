"""``/memory ...``: a person sees, searches, corrects, pins, exports or forgets what the
familiar remembers about them, or asks for a link to the memory page (``/memory web``, in a
private chat only; ``/memory web off`` signs every page out). A person reaches only their own
user scope; owners also the agent's identity scope and the dialogue scopes
(``/memory list identity|dialogue``). The memory page's changes run through this command's
own methods (:meth:`MemoryCommand.edit` and the sub-commands), so they are the same code."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from familiars.bot._adapters.base import CommandResponse
from familiars.bot._commands._declare import Argument, Call, Caller, Command, Subcommand
from familiars.bot._commands._people import people_lines
from familiars.bot._forget_question import forget_question
from familiars.bot._forget_texts import (
    NOTHING_OF_YOURS,
    PERSON_IN_PRIVATE,
    done_text,
    gone_text,
    person_ask_text,
    person_done_text,
    plan_words,
    record_said,
)
from familiars.bot._forget_window import parse_window
from familiars.bot._home_zone import ZoneReader
from familiars.config import UserFacingError
from familiars.memory import (
    CATEGORIES,
    DEFAULT_MAX_RECORD_CHARS,
    RECORD_ID_RE,
    ForgetReport,
    Forgetter,
    InvalidIdError,
    MemoryError_,
    MemoryRecord,
    MemoryStore,
    Node,
    NodeRef,
    PersonHoldings,
    RecordNotFoundError,
    build_graph,
    check_record_length,
    cut_text,
    is_file_ref,
    is_forgotten,
    is_node_ref,
    parse_node_ref,
    person_ref,
    valid_categories,
)

#: (query, caller, k) -> items with "id", "text" and "score".
Search = Callable[[str, Caller, int], Awaitable[list[dict[str, Any]]]]
#: The last reply's recalled items per (agent_id, dialogue_id, user_key), for /memory why.
RecallLog = Mapping[tuple[str, str | None, str], list[dict[str, Any]]]
#: The last recall's fan-out per (agent_id, dialogue_id, user_key): its "subqueries"
#: (kind, text, source) and the fan-out stages it "dropped" (``ReaderRecaller.fanout_log``).
FanoutLog = Mapping[tuple[str, str | None, str | None], Mapping[str, Any]]

NO_SUCH_MEMORY = "I have no memory with that id that you can see."
OWNERS_ONLY = "Only the bot's owners can look at that."
MAX_CHOICES = 25
FORGET_WINDOW_USAGE = "Say /memory forget last 10m (or 2h, 1d) or /memory forget today."
WEB_IN_PRIVATE = "I give memory-page links only in a private chat: message me directly."
WEB_OFF = "The memory page is not served here (the API is off: [api] enabled = false)."


class WebLinks(Protocol):
    """What ``/memory web`` needs of the memory page's sign-in (``familiars.bot._web``)."""

    def link(self, user_key: str, agent_id: str, *, is_owner: bool) -> str: ...

    def revoke(self, user_key: str) -> int: ...


class MemoryCommand(Command):
    def __init__(
        self,
        store: MemoryStore,
        *,
        forgetter: Forgetter,
        search: Search | None = None,
        recall_log: RecallLog | None = None,
        fanout_log: FanoutLog | None = None,
        on_used: Callable[[str], None] | None = None,
        now: Callable[[], datetime] | None = None,
        zone_of: ZoneReader | None = None,
        web: WebLinks | None = None,
        max_record_chars: int | None = None,
    ) -> None:
        super().__init__(
            "memory",
            "See, search, pin, export or forget what I remember about you",
            subcommands=self._declare(),
        )
        self._store = store
        self._search_service = search
        self._recall_log: RecallLog = recall_log if recall_log is not None else {}
        self._fanout_log: FanoutLog = fanout_log if fanout_log is not None else {}
        self._on_used = on_used
        self._forgetter = forgetter
        self._now = now or (lambda: datetime.now(UTC))
        self._zone_of = zone_of
        self._links = web
        self._max_record_chars = max_record_chars

    def _declare(self) -> tuple[Subcommand, ...]:
        record_id = Argument("id", "The memory's id (m_...)", complete=self._complete_ids)
        forget_id = Argument(
            "id",
            "A memory (m_...), a message (node:...), a file (file:... from /find), "
            "last 10m, today or everything",
            complete=self._complete_ids,
        )
        category = Argument(
            "category", "Only this category", required=False, complete=self._complete_categories
        )
        return (
            Subcommand("list", "List your memories", self._list, (category,)),
            Subcommand(
                "search",
                "Search your memories",
                self._search,
                (Argument("query", "What to look for", rest=True),),
            ),
            Subcommand("show", "Show one memory", self._show, (record_id,)),
            Subcommand(
                "forget",
                "Forget a memory, what you said or a file (asks for confirmation)",
                self._forget,
                (
                    forget_id,
                    Argument("confirm", "Type confirm to go ahead", required=False, rest=True),
                ),
            ),
            Subcommand(
                "edit",
                "Correct a memory (the old text stays in its history)",
                self._edit,
                (record_id, Argument("text", "What it should say", rest=True)),
            ),
            Subcommand("pin", "Pin a memory so it is always recalled", self._pin, (record_id,)),
            Subcommand("unpin", "Unpin a memory", self._unpin, (record_id,)),
            Subcommand("export", "Your memory as a markdown file", self._export),
            Subcommand("why", "Which memories the last reply used", self._why),
            Subcommand("people", "The people you told me about, and how", self._people),
            Subcommand(
                "web",
                "A sign-in link to your memory page (off: sign every page out)",
                self._web_link,
                (Argument("off", "off to sign out everywhere", required=False),),
            ),
        )

    # ------------------------------------------------------------------ what a caller sees

    async def _visible(self, caller: Caller, category: str | None = None) -> list[MemoryRecord]:
        return await self._store.list(scope="user", user_key=caller.user_key, category=category)

    def _may_see(self, rec: MemoryRecord, caller: Caller) -> bool:
        if rec.scope == "user":
            return rec.user_key == caller.user_key
        return caller.is_owner and rec.agent_id == caller.agent_id

    async def _get_visible(self, record_id: str, caller: Caller) -> MemoryRecord:
        if not RECORD_ID_RE.fullmatch(record_id):
            raise UserFacingError(NO_SUCH_MEMORY)
        try:
            rec = await self._store.get(record_id)
        except RecordNotFoundError as exc:
            raise UserFacingError(NO_SUCH_MEMORY) from exc
        if not self._may_see(rec, caller):
            raise UserFacingError(NO_SUCH_MEMORY)
        if self._on_used is not None:
            self._on_used(rec.id)
        return rec

    async def _live_visible(self, record_id: str, caller: Caller, verb: str) -> MemoryRecord:
        """The record, refused when it was replaced (naming the live one that replaced it):
        pinning the replaced copy would leave the correction the person sees unpinned."""
        rec = await self._get_visible(record_id, caller)
        if not rec.deprecated:
            return rec
        newer = ""
        for later in await self._visible(caller):
            if later.supersedes == rec.id:
                newer = f" (`{later.id}`)"
        raise UserFacingError(f"That memory was already replaced: {verb} the newer one{newer}.")

    # ------------------------------------------------------------------ completion

    async def _complete_ids(self, caller: Caller, partial: str) -> list[str]:
        records = await self._visible(caller)
        found = [
            r.id
            for r in records
            if r.id.startswith(partial) or partial.lower() in r.content.lower()
        ]
        return found[:MAX_CHOICES]

    async def _complete_categories(self, caller: Caller, partial: str) -> list[str]:
        return [c for c in valid_categories("user") if c.startswith(partial)][:MAX_CHOICES]

    # ------------------------------------------------------------------ sub-commands

    async def _list(self, call: Call) -> CommandResponse:
        what = (call.get("category") or "").lower() or None
        if what in ("identity", "dialogue"):
            records = await self._owner_scope(what, call.caller)
        else:
            if what is not None and what not in valid_categories("user"):
                cats = ", ".join(valid_categories("user"))
                raise UserFacingError(f"Unknown category {what!r}. Categories: {cats}")
            records = await self._visible(call.caller, what)
        broken = await self._unreadable(call.caller.user_key)
        if not records:
            return CommandResponse("\n".join(["I don't remember anything there yet.", *broken]))
        lines = [f"{len(records)} {'memory' if len(records) == 1 else 'memories'}:"]
        lines += [
            f"`{r.id}` [{r.category}{' 📌' if r.pinned else ''}] {one_line(r.content)}"
            for r in records[-50:]
        ]
        if len(records) > 50:
            lines.append(f"(showing the newest 50; /memory export gives you all {len(records)})")
        return CommandResponse("\n".join([*lines, *broken]))

    async def _unreadable(self, user_key: str) -> list[str]:
        """A line saying how many of the person's hand-edited entries do not parse (so they
        are neither listed nor recalled), where, and how to see what is wrong; [] if none."""
        errors = [
            e
            for e in await self._store.parse_errors()
            if e.path is not None and e.path.parent.name == user_key
        ]
        if not errors:
            return []
        where = ", ".join(f"{e.path.name} line {e.line}" for e in errors[:3] if e.path)
        more = f" and {len(errors) - 3} more" if len(errors) > 3 else ""
        n = len(errors)
        return [
            f"⚠ {n} {'entry' if n == 1 else 'entries'} in your memory files could not be read "
            f"({where}{more}), so I can't use {'it' if n == 1 else 'them'}, nor the text "
            "under it down to the next entry (anything written after it by hand too): run "
            "`familiars memory check` to see what is wrong, then fix the file by hand."
        ]

    async def _owner_scope(self, scope: str, caller: Caller) -> list[MemoryRecord]:
        if not caller.is_owner:
            raise UserFacingError(OWNERS_ONLY)
        return await self._store.list(
            scope=scope,
            agent_id=caller.agent_id,
            dialogue_id=caller.dialogue_id if scope == "dialogue" else None,
        )

    async def _search(self, call: Call) -> CommandResponse:
        query, caller = call["query"], call.caller
        if self._search_service is None:
            words = query.lower().split()
            hits = [
                r for r in await self._visible(caller) if any(w in r.content.lower() for w in words)
            ]
            items = [{"id": r.id, "text": r.content, "score": None} for r in hits[:10]]
        else:
            items = await self._search_service(query, caller, 10)
        if not items:
            return CommandResponse("Nothing in your memories matches that.")
        lines = [f"{len(items)} found:"]
        for it in items:
            score = f" ({it['score']:.2f})" if isinstance(it.get("score"), float) else ""
            lines.append(f"`{it['id']}`{score} {one_line(str(it['text']))}")
        return CommandResponse("\n".join(lines))

    async def _show(self, call: Call) -> CommandResponse:
        return CommandResponse(describe(await self._get_visible(call["id"], call.caller)))

    async def _forget(self, call: Call) -> CommandResponse:
        """``forget m_...|node:...|file:...|last 10m|today|everything [confirm]``: what would
        go, then (with ``confirm``) gone everywhere (see ``familiars.memory.Forgetter``)."""
        target, rest = call["id"], (call.get("confirm") or "").split()
        confirmed = bool(rest) and rest[-1].lower() in ("confirm", "yes")
        if confirmed:
            rest = rest[:-1]
        if target.lower() == "everything" and not rest:
            return await self._forget_everything(call.caller, confirmed, call.invocation.is_group)
        if target.lower() in ("last", "today"):
            return await self._forget_window(call.caller, " ".join([target, *rest]), confirmed)
        if is_node_ref(target):
            return await self._forget_turn(call.caller, target, confirmed, call.invocation.is_group)
        if is_file_ref(target):
            return await self._forget_file(
                call.caller, target.strip(), confirmed, call.invocation.is_group
            )
        rec = await self._get_visible(target, call.caller)
        if not confirmed:
            asked = await forget_question(self._forgetter, [rec], group=call.invocation.is_group)
            return CommandResponse(
                f"{asked}Reply yes (or send /memory forget {rec.id} confirm) to go ahead.",
                on_yes=("forget", rec.id, "confirm"),
            )
        report = await self._forgetter.forget(rec.id)
        return _forgotten(call.invocation.is_group, record_said(one_line(rec.content)), report)

    async def _forget_everything(
        self, caller: Caller, confirmed: bool, is_group: bool
    ) -> CommandResponse:
        """``forget everything [confirm]``: the caller, whole (every account of theirs),
        through the one Forgetter (``person:KEY``); asked first, in a private chat only."""
        if is_group:
            return CommandResponse(PERSON_IN_PRIVATE)
        holdings = await self.holdings(caller)
        if holdings is None:
            return CommandResponse(NOTHING_OF_YOURS)
        if not confirmed:
            return CommandResponse(
                person_ask_text(holdings, command=True),
                on_yes=("forget", "everything", "confirm"),
            )
        report = await self._forgetter.forget(person_ref(caller.user_key))
        return CommandResponse(person_done_text(report))

    async def holdings(self, caller: Caller) -> PersonHoldings | None:
        """What ``forget everything`` would remove of the caller, counted (None: nothing)."""
        try:
            holdings = await self._forgetter.person_holdings(caller.user_key)
        except RecordNotFoundError:
            return None
        return None if holdings.empty else holdings

    async def _forget_turn(
        self, caller: Caller, target: str, confirmed: bool, is_group: bool = False
    ) -> CommandResponse:
        ref, node = await self._visible_turn(caller, target)
        if not confirmed:
            return CommandResponse(
                f"About to forget for good what was said:\n> {one_line(node.content)}\n"
                "and what I noted from it. "
                f"Reply yes (or send /memory forget {ref.key} confirm) to go ahead.",
                on_yes=("forget", ref.key, "confirm"),
            )
        text = one_line(node.content)
        report = await self._forgetter.forget(ref.key)
        return _forgotten(is_group, text, report)

    async def _forget_file(
        self, caller: Caller, target: str, confirmed: bool, is_group: bool = False
    ) -> CommandResponse:
        """A document the caller may forget: their own (an attachment); the owner's files
        (watched folders) for an owner of the bot."""
        documents = self._forgetter.documents
        found = None if documents is None else await documents.describe_file(target[5:])
        if found is None or not (
            found[0] == caller.user_key or (found[0] == "" and caller.is_owner)
        ):
            raise UserFacingError(NO_SUCH_MEMORY)
        if not confirmed:
            return CommandResponse(
                f"About to forget for good the file {found[1]} (its text, its earlier "
                f"versions and its bytes).\n"
                f"Reply yes (or send /memory forget {target} confirm) to go ahead.",
                on_yes=("forget", target, "confirm"),
            )
        report = await self._forgetter.forget(target)
        return _forgotten(is_group, f"the file {found[1]}", report)

    async def _visible_turn(self, caller: Caller, target: str) -> tuple[NodeRef, Node]:
        """A turn the caller may forget: their own message (or the reply to it); any for an
        owner of the bot's agent."""
        try:
            ref = parse_node_ref(target)
            node = await self._forgetter.node(ref)
        except (InvalidIdError, RecordNotFoundError) as exc:
            raise UserFacingError(NO_SUCH_MEMORY) from exc
        if is_forgotten(node) or not await self._may_forget_turn(caller, ref, node):
            raise UserFacingError(NO_SUCH_MEMORY)
        return ref, node

    async def _may_forget_turn(self, caller: Caller, ref: NodeRef, node: Node) -> bool:
        if caller.is_owner and ref.agent_id == caller.agent_id:
            return True
        speaker = node.metadata.get("user_key")
        if node.node_type == "A" and node.parent is not None:
            parent = await self._forgetter.node(NodeRef(ref.agent_id, ref.dialogue_id, node.parent))
            speaker = parent.metadata.get("user_key")
        return speaker == caller.user_key

    async def _forget_window(self, caller: Caller, words: str, confirmed: bool) -> CommandResponse:
        # In a group the room's zone: a private home's would read the window elsewhere.
        zone = await self._zone_of(caller.user_key, caller.is_group) if self._zone_of else None
        tz = zone.key if zone is not None else None
        window = parse_window(words, self._now(), tz)
        if window is None:
            raise UserFacingError(FORGET_WINDOW_USAGE)
        turns = await self._forgetter.turns_between(
            caller.user_key, window.since, window.until, agent_id=caller.agent_id, sent=True
        )
        if not turns:
            return CommandResponse(f"You said nothing to me {window.label} that I still keep.")
        if not confirmed:
            plan = await self._forgetter.plan_turns(turns)
            return CommandResponse(
                f"About to forget for good {plan_words(plan, window)}.\n"
                f"Reply yes (or send /memory forget {words} confirm) to go ahead.",
                on_yes=("forget", *words.split(), "confirm"),
            )
        report = await self._forgetter.forget_turns(
            caller.user_key,
            since=window.since,
            until=window.until,
            agent_id=caller.agent_id,
            now=self._now().timestamp(),
        )
        return CommandResponse(done_text(report, window))

    async def _edit(self, call: Call) -> CommandResponse:
        return await self.edit(call.caller, call["id"], call["text"])

    async def edit(self, caller: Caller, record_id: str, text: str) -> CommandResponse:
        """Correct a memory: a new record that supersedes it (the old one is deprecated, both
        are events in the history, the index follows the store); ``edited_by`` says who."""
        rec = await self._get_visible(record_id, caller)
        if rec.deprecated:
            raise UserFacingError("That memory was already replaced: correct the newer one.")
        text = text.strip()  # masked as every record is, by the store
        if not text:
            raise UserFacingError("Say what the memory should say instead.")
        try:
            check_record_length(text, self._max_record_chars or DEFAULT_MAX_RECORD_CHARS)
        except MemoryError_ as exc:
            raise UserFacingError(str(exc)) from exc
        if text == rec.content.strip():
            return CommandResponse(f"Unchanged: {one_line(rec.content)}")
        extra = {**rec.extra, "edited_by": caller.user_key, "edited_via": caller.platform}
        new = await self._store.update(rec.id, text, extra=extra)
        return CommandResponse(f"Corrected: {one_line(new.content)} (`{new.id}`)")

    async def _web_link(self, call: Call) -> CommandResponse:
        caller, off = call.caller, (call.get("off") or "").lower()
        if off not in ("", "off"):
            raise UserFacingError("Say /memory web for a link, or /memory web off.")
        if self._links is None:
            raise UserFacingError(WEB_OFF)
        if off == "off":
            gone = self._links.revoke(caller.user_key)
            return CommandResponse(
                f"Signed out of the memory page everywhere ({gone} sign-ins ended)."
                if gone
                else "No memory page was signed in for you."
            )
        if call.invocation.is_group:
            raise UserFacingError(WEB_IN_PRIVATE)
        url = self._links.link(caller.user_key, caller.agent_id, is_owner=caller.is_owner)
        return CommandResponse(
            "Your memory page, for you alone: open this link within 10 minutes (it works "
            f"once). /memory web off signs it out.\n{url}"
        )

    async def _pin(self, call: Call) -> CommandResponse:
        rec = await self._live_visible(call["id"], call.caller, "pin")
        await self._store.pin(rec.id)
        return CommandResponse(f"Pinned: {record_said(one_line(rec.content))}")

    async def _unpin(self, call: Call) -> CommandResponse:
        rec = await self._live_visible(call["id"], call.caller, "unpin")
        await self._store.unpin(rec.id)
        return CommandResponse(f"Unpinned: {record_said(one_line(rec.content))}")

    async def _export(self, call: Call) -> CommandResponse:
        caller = call.caller
        records = await self._store.list(scope="user", user_key=caller.user_key)
        # Said to the person who asked ("about me" read wrong): their key on its own line.
        lines = ["# What I remember about you", "", f"(user key: {caller.user_key})", ""]
        for cat in CATEGORIES:
            group = [r for r in records if r.category == cat]
            if group:
                lines += [f"## {cat}", ""]
                lines += [f"- {r.content.strip()} <!-- {r.id} -->" for r in group]
                lines.append("")
        return CommandResponse(
            f"Here are your {len(records)} memories.",
            file_name=f"memory-{caller.user_key}.md",
            file_data="\n".join(lines).encode("utf-8"),
        )

    async def _people(self, call: Call) -> CommandResponse:
        """Your people graph, built from your own records (never anyone else's)."""
        records = await self._store.list(
            scope="user", user_key=call.caller.user_key, live_only=False
        )
        return CommandResponse("\n".join(people_lines(build_graph(records), self._now())))

    async def _why(self, call: Call) -> CommandResponse:
        caller = call.caller
        key = (caller.agent_id, caller.dialogue_id, caller.user_key)
        items = self._recall_log.get(key)
        searched = fanout_lines(self._fanout_log.get(key))
        if not items:
            return CommandResponse(
                "\n".join(["My last reply here did not use any memories.", *searched])
            )
        lines = ["My last reply used these memories:"]
        for it in items:
            parts = ", ".join(
                f"{k} {v:.2f}"
                for k, v in (it.get("parts") or {}).items()
                if isinstance(v, int | float)
            )
            text = one_line(str(it.get("text", "")))
            lines.append(f"`{it.get('id')}` {text} — score {it.get('score', 0):.2f} ({parts})")
        return CommandResponse("\n".join([*lines, *searched]))


def fanout_lines(fanout: Mapping[str, Any] | None) -> list[str]:
    """The ``full`` profile's sub-queries as /memory why shows them: each one's kind, text
    and source, and a note when the model's were dropped for the offline ones; and the
    conversation the message was read in, with what it lifted."""
    if not fanout:
        return []
    lines = context_lines(fanout.get("context"))
    if not fanout.get("subqueries"):
        return lines
    lines.append("I searched for it as:")
    for sub in fanout["subqueries"]:
        text = one_line(str(sub.get("text", "")), 100)
        lines.append(f"- {sub.get('kind')} ({sub.get('source')}): “{text}”")
    if "fanout:model" in fanout.get("dropped", ()):
        lines.append("(the model's sub-queries were late or unusable: offline ones ran)")
    return lines


def context_lines(context: Mapping[str, Any] | None) -> list[str]:
    """What the conversation added: the recent messages read with the message, and each
    recalled item's cosine gained from them (``_recall_context``)."""
    if not context or not context.get("messages"):
        return []
    said = " · ".join(f"“{one_line(str(m), 80)}”" for m in context["messages"])
    lines = [f"I read your message with the conversation before it: {said}"]
    lifted = sorted((context.get("lifted") or {}).items(), key=lambda kv: -kv[1])
    shown = [f"`{key}` {gain:+.2f}" for key, gain in lifted[:5] if abs(gain) >= 0.005]
    if shown:
        lines.append("It moved these closer (cosine gained): " + ", ".join(shown))
    return lines


def one_line(text: str, limit: int = 140) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe(rec: MemoryRecord) -> str:
    lines = [f"`{rec.id}` — {rec.scope}/{rec.category}", cut_text(rec.content.strip())]
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


def _forgotten(is_group: bool, text: str, report: ForgetReport) -> CommandResponse:
    """What a confirmed forget says: in a group (where a "yes" answering the question is said
    aloud, :attr:`CommandResponse.on_yes`) counted only, never read out."""
    if is_group:
        return CommandResponse(done_text(report))
    return CommandResponse(f"Forgotten: {text}\n{gone_text(report)}")
