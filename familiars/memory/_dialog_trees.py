"""The open dialogue trees of a workspace (:class:`DialogTrees`), and a tree kept in a
:class:`~familiars.memory.StateHome` (:class:`StoredDialogueFile`, the database home)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from familiars.memory._dialog_tree import (
    DIALOGUE_FILE,
    JOURNAL_FILE,
    DialogTree,
    DialogueFile,
    DialogueNotFoundError,
    Node,
    NodeListener,
    is_forgotten,
)
from familiars.memory._errors import DialogueError
from familiars.memory._paths import AGENT_ID_RE, DIALOGUE_ID_RE, dialogue_dir
from familiars.memory._state_home import StateHome

#: A compaction that found the tree changed by another worker reads it again and retries.
FOLD_TRIES = 5


class StoredDialogueFile(DialogueFile):
    """A dialogue's ``dialogue.json`` and journal kept in a :class:`StateHome` (the
    database): the same JSON document and the same lines, by the files' names."""

    appends_inline = False  # a row inserted, fsynced or not: off the event loop

    def __init__(self, folder: Path, home: StateHome, prefix: str, **kwargs: Any) -> None:
        super().__init__(folder, **kwargs)
        self.home = home
        self.json_name = prefix + DIALOGUE_FILE
        self.journal_name = prefix + JOURNAL_FILE
        self._seen = ""
        #: Another worker changed the tree since this copy was read (a forget, say): this
        #: copy is never written whole over it; the next ``aget`` reads it again.
        self._overtaken = False
        self._mark_seen()  # a tree made here starts from what is there now (nothing, often)

    def _mark_seen(self) -> None:
        self._seen = self.home.stamp(self.json_name, self.journal_name)

    def stale(self) -> bool:
        return self._overtaken or self.home.stamp(self.json_name, self.journal_name) != self._seen

    def exists(self) -> bool:
        return self._has_json() or self._has_journal()

    def _has_json(self) -> bool:
        return bool(self.home.names(self.json_name))

    def _has_journal(self) -> bool:
        return self.home.lines(self.journal_name) is not None

    def _json_text(self) -> str:
        return (self.home.read(self.json_name) or b"").decode("utf-8")

    def _append(self, event: dict[str, Any], *, sync: bool = True) -> None:
        # ``sync`` is for the files' deferred fsync: a row is durable once inserted.
        self._overtaken = self._overtaken or self.stale()
        self.home.append(self.journal_name, json.dumps(event, ensure_ascii=False))
        self.journal_lines += 1
        self._mark_seen()  # our own line: not a change by another worker

    def compact(self, tree: DialogTree) -> None:
        """Write the tree whole and drop the journal, as one step (:meth:`StateHome.fold`):
        a line another worker appends meanwhile is kept. A copy another worker overtook (it
        added nodes, or forgot some) is never written over theirs: what is stored is read,
        this copy's tombstones are put on it, and that is written (a forget done here holds,
        and one done there is not undone); this copy is read again at the next ``aget``."""
        overtaken = False
        for _ in range(FOLD_TRIES):
            if self.stale():
                overtaken = True
                tree = self._merged(tree)  # sets the stamp seen to what it read
            text = json.dumps(tree.to_json(), ensure_ascii=False)
            data = text.encode("utf-8", "surrogateescape")
            stamp = self.home.fold(self.json_name, data, self.journal_name, self._seen)
            if stamp is not None:
                break
        else:
            raise DialogueError(f"{self.json_name} kept changing while it was compacted")
        self.journal_lines = 0
        self._seen = stamp
        self._overtaken = overtaken

    def _merged(self, mine: DialogTree) -> DialogTree:
        stored = type(mine)()
        self.load(stored)
        theirs = stored.node_list
        for node in mine.node_list:
            if is_forgotten(node) and node.id < len(theirs) and not is_forgotten(theirs[node.id]):
                stored.forget_node(node.id)
        return stored

    def load(self, tree: DialogTree) -> list[str]:
        self._mark_seen()
        self._overtaken = False
        return super().load(tree)

    def _replay(self, by_id: dict[int, Node], nodes: list[Node]) -> list[str]:
        return self._replay_lines(self.home.lines(self.journal_name) or [], by_id, nodes)


# --------------------------------------------------------------------------- open trees


def _tree_key(agent_id: str, dialogue_id: str) -> bool:
    return bool(AGENT_ID_RE.fullmatch(agent_id) and DIALOGUE_ID_RE.fullmatch(dialogue_id))


TreeFactory = Callable[[], DialogTree]


class DialogTrees:
    """The open dialogue trees of a workspace, loaded once and kept in memory.

    Listeners subscribed here are attached to every tree this registry opens. With a
    database ``home`` the trees live there (:class:`StoredDialogueFile`), and a tree another
    worker changed since this one loaded it is loaded again by :meth:`aget`."""

    def __init__(
        self,
        workspace: Path,
        *,
        factory: TreeFactory = DialogTree,
        compact_every: int = 512,
        home: StateHome | None = None,
    ) -> None:
        self.workspace = Path(workspace)
        self.home = home if home is not None and home.kind != "files" else None
        self._factory = factory
        self._compact_every = compact_every
        self._trees: dict[tuple[str, str], DialogTree] = {}
        self._listeners: list[NodeListener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: NodeListener) -> None:
        self._listeners.append(listener)
        for tree in self._trees.values():
            tree.subscribe(listener)

    def folder(self, agent_id: str, dialogue_id: str) -> Path:
        return dialogue_dir(self.workspace, agent_id, dialogue_id)

    def exists(self, agent_id: str, dialogue_id: str) -> bool:
        key = (agent_id, dialogue_id)
        return key in self._trees or self._file(agent_id, dialogue_id).exists()

    def agents_with(self, dialogue_id: str) -> list[str]:
        """The agents that have a dialogue of this id: open here, or :meth:`stored` (in the
        database every worker's, its journal alone included: a tree another worker serves
        may have no document yet)."""
        found = {agent for agent, dialogue in self._trees if dialogue == dialogue_id}
        found |= {agent for agent, _ in self.stored(dialogue_id)}
        return sorted(found)

    def _file(self, agent_id: str, dialogue_id: str) -> DialogueFile:
        folder = self.folder(agent_id, dialogue_id)
        if self.home is None:
            return DialogueFile(folder, compact_every=self._compact_every)
        prefix = folder.relative_to(self.workspace).as_posix() + "/"
        return StoredDialogueFile(folder, self.home, prefix, compact_every=self._compact_every)

    def stored(self, dialogue_id: str | None = None) -> list[tuple[str, str]]:
        """(agent id, dialogue id) of every dialogue with a tree in this home (``dialogue_id``:
        of that id only), sorted: the workspace's folders, or (the database) every worker's
        trees, a document or a journal, whichever worker's workspace holds a folder for it."""
        if dialogue_id is not None and not DIALOGUE_ID_RE.fullmatch(dialogue_id):
            return []
        name = dialogue_id or "*"
        if self.home is None:
            folders = self.workspace.glob(f"agents/*/{name}")
            return sorted(
                (f.parent.name, f.name)
                for f in folders
                if f.is_dir() and DIALOGUE_ID_RE.fullmatch(f.name)
            )
        keys = set()
        if dialogue_id is not None:  # by the index on the dialogue's part of the names
            names = self.home.tree_names(dialogue_id)
        else:
            names = [
                found
                for suffix in (DIALOGUE_FILE, JOURNAL_FILE)
                for found in self.home.names("agents/", "/" + suffix, journals=True)
            ]
        for found in names:
            parts = found.split("/")  # agents/<agent>/<dialogue>/<file>
            if (
                len(parts) == 4
                and parts[3] in (DIALOGUE_FILE, JOURNAL_FILE)
                and _tree_key(parts[1], parts[2])
            ):
                keys.add((parts[1], parts[2]))
        return sorted(keys)

    def open_trees(self) -> list[DialogTree]:
        return list(self._trees.values())

    def get(self, agent_id: str, dialogue_id: str, *, create: bool = False) -> DialogTree:
        """The tree of a dialogue; a missing one raises :class:`DialogueNotFoundError` unless
        ``create`` (nothing is written until the first node)."""
        key = (agent_id, dialogue_id)
        with self._lock:
            tree = self._trees.get(key)
            if tree is not None:
                return tree
            file = self._file(agent_id, dialogue_id)
            if not file.exists() and not create:
                raise DialogueNotFoundError(agent_id, dialogue_id)
            tree = self._factory()
            tree.load_problems = file.load(tree) if file.exists() else []
            tree.file = file
            tree.agent_id = agent_id
            tree.dialogue_id = dialogue_id
            for listener in self._listeners:
                tree.subscribe(listener)
            self._trees[key] = tree
            return tree

    async def aget(self, agent_id: str, dialogue_id: str, *, create: bool = False) -> DialogTree:
        """:meth:`get`, loading from disk off the event loop (an open tree is returned at
        once)."""
        tree = self._trees.get((agent_id, dialogue_id))
        if tree is not None and self.home is None:
            return tree
        return await asyncio.to_thread(self._fresh, agent_id, dialogue_id, create)

    def _fresh(self, agent_id: str, dialogue_id: str, create: bool) -> DialogTree:
        """:meth:`get`; in the database first dropping a copy another worker made stale."""
        tree = self._trees.get((agent_id, dialogue_id))
        if tree is not None and tree.file is not None and self._stale(tree):
            with self._lock:
                if self._trees.get((agent_id, dialogue_id)) is tree:
                    del self._trees[(agent_id, dialogue_id)]
        return self.get(agent_id, dialogue_id, create=create)

    @staticmethod
    def _stale(tree: DialogTree) -> bool:
        """Under the tree's lock: an append writes its line and then marks it seen, and a
        check between the two took this worker's own line for another worker's change (the
        live tree was dropped and a vector set meanwhile landed on the dropped copy)."""
        assert tree.file is not None
        with tree._lock:
            return tree.file.stale()

    def compact_due(self) -> int:
        """Compact every open tree whose journal has grown long; returns how many."""
        done = 0
        for tree in self.open_trees():
            if tree.file is not None and tree.file.needs_compaction():
                with tree._lock:
                    tree.file.compact(tree)
                done += 1
        return done

    def compact_all(self) -> None:
        for tree in self.open_trees():
            if tree.file is not None and tree.file.journal_lines:
                with tree._lock:
                    tree.file.compact(tree)
