"""Stage promotion (seed 004, issue 25): raw turns -> episodes -> a person's core profile.

- An **episode** is what one person said in one dialogue on one day: the few sentences that
  carry the most (names, feelings, things done), the feeling, the people in it. It is a
  ``user/event`` record tagged ``episode``, ``derived_from`` the turns (``node:...``) it was
  cut from, and recallable as itself.
- The **core profile** is the few lines that describe the person: their most salient live
  profile, preference and relation records, joined into one ``user/profile`` record tagged
  ``core-profile``, ``derived_from`` those records. A new pass replaces the old one (the old
  is deprecated, its history kept) only when it would say something else.

Offline and extractive: sentences are chosen, never written. Only the person's own words
are used: turns they sent (``origin == "user"``, their ``user_key``), never the familiar's
replies, recalled text, system text or a turn that was forgotten or tainted by a document.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

from familiars.memory._dialog_tree import DialogTree, Node, is_forgotten
from familiars.memory._dialog_trees import DialogTrees
from familiars.memory._people_graph import build_graph
from familiars.memory._records import MemoryRecord
from familiars.memory._store import MemoryStore, make_record
from familiars.memory._text import sentences
from familiars.memory._writer._rights import TAINTED_TURN_TAG

logger = logging.getLogger(__name__)


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


EPISODE_TAG = "episode"
CORE_TAG = "core-profile"
#: Where a record's words came from when not from the person: never learned from again.
UNTRUSTED_ORIGINS = frozenset({"recall", "system", "response", "proactive", "bot"})
#: Sentences an episode keeps, and records a core profile joins.
EPISODE_SENTENCES = 3
CORE_LINES = 8

_FEELINGS: dict[str, tuple[str, ...]] = {
    "happy": ("happy", "glad", "great", "excited", "thrilled", "love", "loved", "proud", "fun"),
    "sad": ("sad", "miss", "lonely", "upset", "cried", "down", "lost"),
    "stressed": (
        "stressed",
        "anxious",
        "worried",
        "nervous",
        "tired",
        "exhausted",
        "exhausting",
        "deadline",
    ),
    "angry": ("angry", "annoyed", "furious", "frustrated", "mad"),
}
_NAME = re.compile(r"\b([A-Z][a-z]+)\b")
#: Capitalised words that are not people: sentence starters, days, months.
_NOT_NAMES = _word_set(
    """I The A An My We It This That But And So Ok Okay Yes No Just Today Yesterday Tomorrow
    Then Also Well Oh Hi Hello Hey Thanks What Who How When Where Why Do Did Can Could Would
    Should Is Are Was Were Have Has Had Please Maybe Not Our Your His Her Their There Here
    She He They You Me Let Sure Good Great Sorry Last Next Every Some After Before In On At
    For With If Because Lol Anyway Actually Monday Tuesday Wednesday Thursday Friday Saturday
    Sunday January February March April May June July August September October November
    December Christmas Easter"""
)


@dataclass
class PromotionReport:
    episodes: list[str] = field(default_factory=list)
    core_profiles: list[str] = field(default_factory=list)


def _own_turns(tree: DialogTree) -> dict[tuple[str, str], list[Node]]:
    """(user_key, day) -> the person's own turns that day, in order."""
    out: dict[tuple[str, str], list[Node]] = defaultdict(list)
    for node in tree.node_list:
        user_key = node.metadata.get("user_key")
        if (
            node.node_type != "Q"
            or node.origin != "user"
            or not isinstance(user_key, str)
            or is_forgotten(node)
            or node.metadata.get("tainted")
        ):
            continue
        day = datetime.fromtimestamp(node.timestamp, UTC).date().isoformat()
        out[(user_key, day)].append(node)
    return out


def _weight(sentence: str) -> float:
    words = sentence.split()
    named = len([w for w in _NAME.findall(sentence) if w not in _NOT_NAMES])
    felt = sum(1 for w in words if w.lower().strip(".,!?") in _feeling_words())
    return named * 2 + felt + min(len(words), 25) / 25


def _feeling_words() -> frozenset[str]:
    return frozenset(w for words in _FEELINGS.values() for w in words)


def feeling_of(text: str) -> str | None:
    words = [w.lower().strip(".,!?'") for w in text.split()]
    counts = {f: sum(words.count(w) for w in ws) for f, ws in _FEELINGS.items()}
    best = max(counts, key=lambda f: counts[f])
    return best if counts[best] else None


def people_in(text: str) -> list[str]:
    return list(dict.fromkeys(n for n in _NAME.findall(text) if n not in _NOT_NAMES))


def episode_of(
    user_key: str, agent_id: str, dialogue_id: str, day: str, turns: list[Node]
) -> MemoryRecord:
    """The episode of one day's turns (see the module docstring)."""
    said = [s.strip() for t in turns for s in sentences(t.content) if len(s.split()) >= 3]
    chosen = sorted(said, key=_weight, reverse=True)[:EPISODE_SENTENCES]
    kept = [s for s in said if s in chosen]  # in the order said
    whole = " ".join(t.content for t in turns)
    feeling, people = feeling_of(whole), people_in(whole)
    content = f"On {day} the user said: " + " ".join(
        s if s.endswith((".", "!", "?")) else s + "." for s in kept
    )
    tags = [EPISODE_TAG, f"day:{day}", *([f"feeling:{feeling}"] if feeling else [])]
    tags += [f"person:{p}" for p in people[:6]]
    return make_record(
        content,
        scope="user",
        category="event",
        user_key=user_key,
        tags=tags,
        salience=0.6,
        ts=f"{day}T23:59:00+00:00",
        derived_from=[f"node:{agent_id}/{dialogue_id}/{t.id}" for t in turns],
        source_quote=[],
    )


async def promote_episodes(
    store: MemoryStore, trees: DialogTrees, *, today: str, user_key: str | None = None
) -> list[str]:
    """An episode for every (person, dialogue, finished day) that has none yet; their ids."""
    have = {
        (r.user_key, tag, _chat_of(r))
        for r in await store.list(scope="user", category="event", user_key=user_key)
        if EPISODE_TAG in r.tags
        for tag in r.tags
        if tag.startswith("day:")
    }  # one episode per person, day and dialogue
    made: list[str] = []
    for agent_id, dialogue_id in await asyncio.to_thread(trees.stored):  # every worker's
        if not trees.exists(agent_id, dialogue_id):
            continue
        tree = await trees.aget(agent_id, dialogue_id)
        for (who, day), turns in sorted(_own_turns(tree).items()):
            key = (who, f"day:{day}", f"{agent_id}/{dialogue_id}")
            if day >= today or (user_key and who != user_key) or key in have:
                continue
            rec = await store.append(
                episode_of(who, agent_id, dialogue_id, day, turns), dedupe=False
            )
            have.add(key)
            made.append(rec.id)
    return made


def from_the_person(rec: MemoryRecord) -> bool:
    """The record's words are the person's own: not the bot's, recall's or the system's, and
    not written in a tainted turn (document text, other people's words)."""
    return (
        str(rec.extra.get("origin") or "") not in UNTRUSTED_ORIGINS
        and TAINTED_TURN_TAG not in rec.tags
    )


def _chat_of(episode: MemoryRecord) -> str:
    """``agent/dialogue`` of the turns an episode was cut from."""
    first = episode.derived_from[0] if episode.derived_from else ""
    return first.removeprefix("node:").rpartition("/")[0]


def _core_rank(rec: MemoryRecord) -> tuple[float, str]:
    return (rec.salience + 0.05 * min(rec.access_count, 10), rec.ts)


async def promote_core_profile(store: MemoryStore, user_key: str) -> tuple[str | None, list[str]]:
    """The person's core profile, made again when what it would say changed: the new one's
    id (None when nothing new, or too little to say) and the ids of those it replaced."""
    live = await store.list(scope="user", user_key=user_key)
    old = [r for r in live if CORE_TAG in r.tags]
    past = {e.record_id for e in build_graph(live).edges if not e.current}  # an old boss
    facts = [
        r
        for r in live
        if r.category in ("profile", "preference", "relation")
        and not {CORE_TAG, EPISODE_TAG} & set(r.tags)
        and r.id not in past
        and from_the_person(r)  # the consolidator's rails: nothing tainted or the bot's,
        and not r.ttl  # nothing that ends (a standing profile would outlive it)
    ]
    if len(facts) < 2:
        return None, []
    chosen = sorted(sorted(facts, key=_core_rank, reverse=True)[:CORE_LINES], key=lambda r: r.ts)
    content = "Core profile: " + " ".join(
        r.content if r.content.endswith((".", "!", "?")) else r.content + "." for r in chosen
    )
    if old and old[-1].content == content:
        return None, []
    record = make_record(
        content,
        scope="user",
        category="profile",
        user_key=user_key,
        tags=[CORE_TAG],
        salience=0.9,
        derived_from=sorted(r.id for r in chosen),
    )
    made = await store.append(record, dedupe=False)
    for rec in old:
        await store.deprecate(rec.id)
    return made.id, [r.id for r in old]


__all__ = [
    "CORE_TAG",
    "EPISODE_TAG",
    "PromotionReport",
    "episode_of",
    "feeling_of",
    "from_the_person",
    "people_in",
    "promote_core_profile",
    "promote_episodes",
]
