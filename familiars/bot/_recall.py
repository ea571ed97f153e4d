"""The MemoryReader as the turn uses it: recall for a message, with the scope rules, the
message's own node left out, and dialogue text passed through its privacy redactions;
:class:`RecordSearch` is the same recall as ``/memory search`` asks for it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from familiars.bot._commands import Caller
from familiars.bot._guard_text import STOPWORDS, nfkc, rank, tokens
from familiars.bot._turn import RecalledItem, Recaller
from familiars.bot._untrusted import TAINT_TAG
from familiars.config import Settings
from familiars.llm import OFFLINE_NOTICE, ChatModel
from familiars.memory import (
    DEFAULT_MAX_RECORD_CHARS,
    DialogTrees,
    DialogueError,
    MemoryReader,
    MemoryWorkspace,
    ModelSubqueries,
    PeopleIndex,
    RecallItem,
    cut_text,
    node_content_for_llm,
    node_embedding_text,
    relevance_floor,
    relevant,
    sentences,
)

logger = logging.getLogger(__name__)

#: The last recall's fan-out per (agent_id, dialogue_id, user_key), for /memory why:
#: ``{"subqueries": [{"kind", "text", "source"}, ...], "dropped": ["fanout:model", ...]}``.
FanoutLog = dict[tuple[str, str | None, str | None], dict[str, Any]]
#: A node about to be added, as the prefetch sees it: content, speaker, metadata.
PrefetchNode = tuple[str, str | None, dict[str, Any]]


class ReaderRecaller:
    def __init__(
        self,
        reader: MemoryReader,
        *,
        profile: str | None = None,
        max_item_chars: int = DEFAULT_MAX_RECORD_CHARS,
        people: PeopleIndex | None = None,
    ) -> None:
        self.reader = reader
        self.profile = profile
        #: The speaker's people graph: a question about "my sister's husband" walks it.
        self.people = people
        #: ``memory.max_record_chars``: a longer (hand-written) record is recalled cut.
        self.max_item_chars = max_item_chars
        self.last_result: Any = None
        self.fanout_log: FanoutLog = {}
        #: Who recalled last, where: :meth:`catch_up` reads their next conversation ahead.
        self._last_asked: tuple[str, str | None, str | None] | None = None

    async def recall(
        self,
        query: str,
        *,
        agent_id: str,
        dialogue_id: str | None,
        user_key: str | None,
        is_group: bool,
        now: datetime,
        k: int,
        exclude_node: int | None = None,
        context: Sequence[str] | None = None,
    ) -> list[RecalledItem]:
        """``context``: the recent messages the query is read with (None: the dialogue
        branch's, as a turn does; ``()``: none, as a benchmark's standalone question)."""
        result = await self.reader.build_rag_context(
            query,
            agent_id=agent_id,
            dialogue_id=dialogue_id,
            user_key=user_key,
            is_group=is_group,
            now=now,
            k=k + (1 if exclude_node is not None else 0),
            profile=self.profile,
            context=context,
            anchor=exclude_node,  # the message's node: the tree need not place it again
        )
        self.last_result = result
        self._last_asked = (agent_id, dialogue_id, user_key)
        self._log_fanout(
            (agent_id, dialogue_id, user_key),
            result.subqueries,
            result.dropped,
            result.context.shown(result.items) if result.context else None,
        )
        items = [
            _convert(it, self.max_item_chars, user_key=user_key, is_group=is_group)
            for it in result.items
            if not _skip(it, exclude_node, dialogue_id)
        ]
        return (await self._graph_items(query, user_key, is_group, items))[:k]

    async def _graph_items(
        self, query: str, user_key: str | None, is_group: bool, items: list[RecalledItem]
    ) -> list[RecalledItem]:
        """The records the speaker's people graph walks to for this question come first
        (their own user scope only: the graph is theirs)."""
        if self.people is None or user_key is None:
            return items
        hits = await self.people.answer(user_key, query)
        top = max((it.score for it in items), default=1.0)
        found = [
            RecalledItem(
                id=hit.record.id,
                kind="record",
                text=cut_text(hit.record.content, self.max_item_chars),
                score=top + 1.0 - i * 0.01,
                parts={"graph": 1.0},
                record_ids=(hit.record.id,),
                private=True,
                foreign=_foreign_record(hit.record, user_key, is_group),  # a tainted turn's
            )
            for i, hit in enumerate(hits)
        ]
        ids = {f.id for f in found}
        return [*found, *(it for it in items if it.id not in ids)]

    def _log_fanout(
        self,
        key: tuple[str, str | None, str | None],
        subs: list[Any],
        dropped: list[str],
        context: dict[str, Any] | None = None,
    ) -> None:
        entry: dict[str, Any] = {}
        if subs:
            fanout_drops = [d for d in dropped if d.startswith("fanout")]
            entry = {"subqueries": list(subs), "dropped": fanout_drops}
        if context:  # the conversation the query was read in, what it lifted
            entry["context"] = context
        if entry:
            self.fanout_log[key] = entry
        else:
            self.fanout_log.pop(key, None)

    async def flush_access(self) -> int:
        return await self.reader.flush_access(force=True)

    async def catch_up(self) -> int:
        """What the next recall would otherwise do first, done now (while the person reads
        the reply and types): what the writer wrote and the reply's node indexed (when
        anything is queued), the new rows' hub values (recall's CSLS part) worked out, and
        the conversation the last asker's next message will be read in embedded. The index a
        recall then reads is the same; only the turn no longer waits for it.
        Returns how many rows got hub values."""
        if self.reader.behind:
            await self.reader.sync()
        warmed = await self.reader.index.awarm_hubs()
        if self._last_asked is not None:
            try:
                await self.reader.read_ahead(*self._last_asked)
            except DialogueError:  # the dialogue was forgotten since
                self._last_asked = None
        return warmed

    async def keep_hubs_current(self, every_s: float = 2.0) -> None:
        """Run for the bot's life: :meth:`catch_up` every ``every_s``, so no turn indexes the
        last turn's writes or computes hub values. A failed step is logged and tried again:
        ending here would leave every later row without them."""
        while True:
            try:
                await self.catch_up()
            except Exception:  # noqa: BLE001 - a background step; the next one tries again
                logger.exception("index catch-up: a background step failed; trying again")
            await asyncio.sleep(every_s)

    def prefetch_texts(self, nodes: list[PrefetchNode], query: str) -> list[str]:
        """What the reader will ask the embedder for when these dialogue nodes are indexed
        and ``query`` is recalled: the nodes' sentences (when more than one) and the words it
        has no vector for yet. The reply's node is embedded with them, in one batch, after
        the reply (the message's node is embedded alone: recall embeds its words only when
        it matches words). A node the reader never indexes (a question, an offline notice:
        issue 14) needs neither."""
        nodes = [(c, s, m) for c, s, m in nodes if not m.get("forgotten")]
        nodes = [(c, s, m) for c, s, m in nodes if self.reader.recalls_kind(m)]
        texts: list[str] = []
        for content, speaker, _ in nodes:
            parts = sentences(content)
            if len(parts) >= 2:
                texts += [node_embedding_text(p, speaker) for p in parts]
        sources = [c for c, _, _ in nodes] + [s or "" for _, s, _ in nodes] + [query]
        return texts + self.reader.index.words_needing_vectors(sources)


class RecordSearch:
    """``/memory search``: the caller's visible records for a query, as group-safe recall
    (never a dialogue node). ``clock`` says what time it is (recall weighs recency);
    ``model`` names the embedder that scores (its relevance floor, when measured)."""

    def __init__(
        self, recaller: Recaller, *, clock: Callable[[], datetime], model: Callable[[], str]
    ) -> None:
        self.recaller = recaller
        self.clock = clock
        self.model = model

    async def __call__(self, query: str, caller: Caller, k: int) -> list[dict[str, Any]]:
        items = await self.recaller.recall(
            query,
            agent_id=caller.agent_id,
            dialogue_id=None,
            user_key=caller.user_key,
            is_group=True,
            now=self.clock(),
            k=k,
        )
        # Only what is related at all: the scores are relative, and "xylophone" listed the
        # ten best of unrelated memories, the first scored 1.01 (T30).
        model = self.model()
        hits = [it for it in items if it.kind == "record" and relevant(it.raw, model)]
        return [
            {"id": it.id, "text": it.text, "score": it.score}
            for it in (_what_was_searched_for(hits, query) if relevance_floor(model) else hits)
        ]


#: Below the best hit's raw cosine by more than this, a hit no keyword matched is not what
#: was searched for (a model with a measured floor only). The bundled model, one-word
#: searches: "craig" scored the record
#: naming him 0.58 and a teacher's job and "coeliac" 0.28; "job" scored the two jobs 0.29
#: and 0.28; "pet" the dog 0.47 and the next 0.24 (tester s35 U22).
COSINE_GAP = 0.15


#: The raw cosine a hit no keyword matched needs when no word of the search is common
#: English (a place, a name, slang, a misspelling): the bundled model knows such words only
#: by their letters. "Otley" scored unrelated memories up to 0.30 ("The user's name is
#: Maren." 0.26), "Headingley" 0.29, "Zsofia" 0.25; "hubby" found the husband at 0.45 and
#: "celiac" "coeliac" at 0.45 (review s35 R8: a keyword-only rule found neither).
UNCOMMON_FLOOR = 0.40


def _what_was_searched_for(hits: list[RecalledItem], query: str) -> list[RecalledItem]:
    """The hits a keyword of ``query`` matched, and those near the best by meaning (and,
    for a search of no common word, over :data:`UNCOMMON_FLOOR`)."""
    words = [w for w in tokens(nfkc(query)) if w.word not in STOPWORDS]

    def by_keyword(it: RecalledItem) -> bool:
        return it.raw.get("bm25", 0.0) > 0.0

    cosines = [it.raw["cosine"] for it in hits if "cosine" in it.raw]
    if not cosines:
        return hits
    near = max(cosines) - COSINE_GAP
    if words and all(rank(w.word) is None for w in words):
        near = max(near, UNCOMMON_FLOOR)
    return [it for it in hits if by_keyword(it) or it.raw.get("cosine", near) >= near]


def _skip(item: RecallItem, exclude_node: int | None, dialogue_id: str | None) -> bool:
    """The message's own node, and the offline responder's replies (they only repeat
    memories, which are recalled themselves)."""
    node = item.node
    if item.kind != "node" or node is None:
        return False
    if node.id == exclude_node and item.dialogue_id == dialogue_id:
        return True
    return node.node_type == "A" and OFFLINE_NOTICE in node.content


def _convert(
    item: RecallItem,
    max_chars: int = DEFAULT_MAX_RECORD_CHARS,
    *,
    user_key: str | None = None,
    is_group: bool = False,
) -> RecalledItem:
    """One recalled item as the turn sees it; ``foreign`` when the speaker (``user_key``)
    did not write it (see :func:`_foreign`)."""
    if item.kind == "record" and item.record is not None:
        rec = item.record
        return RecalledItem(
            id=rec.id,
            kind="record",
            text=cut_text(rec.content, max_chars),
            score=item.score,
            parts=dict(item.parts),
            raw=dict(item.raw),
            record_ids=(rec.id, *[m for m in item.merged if m.startswith("m_")]),
            private=rec.scope == "user",
            foreign=_foreign_record(rec, user_key, is_group),
        )
    node = item.node
    text = node_content_for_llm(node) if node is not None else item.text
    if node is not None:
        when = datetime.fromtimestamp(node.timestamp, UTC).strftime("%d %b %Y")
        who = node.metadata.get("speaker") or ("you" if node.node_type == "A" else "they")
        text = f"({who}, {when}) {text}"
    return RecalledItem(
        id=item.key,
        kind="node",
        text=text,
        score=item.score,
        parts=dict(item.parts),
        raw=dict(item.raw),
        foreign=node is None or _foreign_node(node.node_type, node.metadata, user_key, is_group),
    )


def _foreign_record(rec: Any, user_key: str | None, is_group: bool) -> bool:
    """Another person's note, a group's shared note (anyone there may have written it), or
    one written in a tainted turn (issue 19)."""
    if TAINT_TAG in rec.tags:
        return True
    if rec.scope == "user":
        return rec.user_key != user_key
    return is_group and rec.scope in ("dialogue", "ephemeral")


def _foreign_node(
    node_type: str, metadata: dict[str, Any], user_key: str | None, is_group: bool
) -> bool:
    """Someone else's message (the familiar's own replies are not: they are recalled for
    what they said, and what they drew on is recalled, and judged, itself)."""
    if node_type != "Q":
        return False
    author = metadata.get("user_key")
    return author != user_key if author else is_group


def build_recaller(
    settings: Settings,
    memory: MemoryWorkspace,
    trees: DialogTrees,
    model: ChatModel | None = None,
) -> ReaderRecaller:
    """The reader over the workspace; with ``model`` (and ``recall.fanout_model``) the
    ``full`` profile's fan-out asks it for sub-queries (the other profiles never do)."""
    assert memory.embedder is not None
    writer = ModelSubqueries(model) if model is not None and settings.recall.fanout_model else None
    reader = MemoryReader.from_settings(
        settings, memory.embedder, trees=trees, access_sink=memory.store, subquery_writer=writer
    )
    return ReaderRecaller(
        reader,
        max_item_chars=settings.memory.max_record_chars,
        people=PeopleIndex(memory.store, memory.index),
    )


async def start_recaller(
    recaller: ReaderRecaller,
    memory: MemoryWorkspace,
    trees: DialogTrees,
    dialogues: list[tuple[str, str]],
) -> None:
    """Load every live record and every known dialogue's nodes into the reader."""
    await recaller.reader.attach_index(memory.index, subscribe=memory.index.subscribe)
    for agent_id, dialogue_id in dialogues:
        if trees.exists(agent_id, dialogue_id):
            tree = await trees.aget(agent_id, dialogue_id)
            recaller.reader.add_tree(tree)
    await recaller.reader.sync()
