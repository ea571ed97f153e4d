"""DialogTree: §5.4 rules equal the seed's per-node loop; §5.6 file + journal round trip."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from familiars.memory import content_hash
from familiars.memory._dialog_reference import reference_choose_parent, reference_query
from familiars.memory._dialog_tree import (
    DIALOGUE_FILE,
    JOURNAL_FILE,
    DialogTree,
    DialogueError,
    DialogueFile,
    DialogueLoadError,
    DialogueNotFoundError,
    Node,
    make_title,
    node_content_for_llm,
)
from familiars.memory._dialog_trees import DialogTrees


def _unit(rng: np.random.Generator, dim: int) -> np.ndarray:
    v = rng.normal(size=dim).astype(np.float32)
    return v / np.linalg.norm(v)


def _random_tree(seed: int, n: int, dim: int = 16) -> tuple[DialogTree, np.random.Generator]:
    """Topic clusters and irregular gaps, so the tree gets roots, climbs and deep branches."""
    rng = np.random.default_rng(seed)
    topics = [_unit(rng, dim) for _ in range(5)]
    tree = DialogTree()
    ts = 1_700_000_000.0
    for i in range(n):
        ts += float(rng.choice([5.0, 60.0, 400.0, 3000.0]))
        vec = topics[int(rng.integers(5))] + 0.6 * _unit(rng, dim)
        vec = (vec / np.linalg.norm(vec)).astype(np.float32)
        node_type = "A" if rng.random() < 0.4 else "Q"
        origin = "proactive" if node_type == "A" and rng.random() < 0.3 else None
        expected = reference_choose_parent(tree, vec.tolist(), ts)
        node = tree.add_node(f"m{i}", vec, node_type=node_type, timestamp=ts, origin=origin)
        if node_type == "Q" or origin == "proactive":
            assert node.parent == expected, f"node {i}"
    return tree, rng


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_vectorised_rules_equal_the_seed_loop(seed: int) -> None:
    tree, rng = _random_tree(seed, 300)
    assert len(tree.roots) > 1 and max(n.level for n in tree.node_list) > 3
    now = tree.node_list[-1].timestamp
    for _ in range(20):
        q = _unit(rng, 16)
        now += float(rng.choice([1.0, 100.0, 5000.0]))
        got = [(n.id, s) for n, s in tree.query_vector(q, 15, now=now)]
        want = reference_query(tree, q.tolist(), 15, now=now)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-6)


@pytest.mark.parametrize("seed", [5, 6])
def test_a_new_message_is_anchored_where_choose_parent_would_put_its_query(seed: int) -> None:
    """Recall for a turn's message counts tree distances from where its node attached
    (``attached_at``), not from a second ``choose_parent``: the newest message's own vector
    and time lead ``choose_parent`` to that same place."""
    tree, rng = _random_tree(seed, 200)
    for _ in range(30):
        vec = _unit(rng, 16)
        ts = tree.node_list[-1].timestamp + float(rng.choice([5.0, 400.0, 9000.0]))
        node = tree.add_node("m", vec, node_type="Q", timestamp=ts)
        assert tree.attached_at(node.id) == tree.choose_parent(vec, ts)
    assert tree.attached_at(len(tree)) is None


def test_tree_distances_match_breadth_first_hops() -> None:
    tree, _ = _random_tree(7, 200)
    for origin in (0, 57, 199, None):
        dist = tree.tree_distances(origin)
        for node in tree.node_list:
            want = _bfs_hops(tree, origin, node.id)
            assert dist[node.id] == want


def test_hops_to_some_nodes_are_their_breadth_first_hops() -> None:
    # recall asks about its candidates only: any order, repeats, nodes of other trees
    tree, rng = _random_tree(11, 300)
    assert len(tree.roots) > 1
    for origin in (0, 150, 299, None):
        ids = rng.integers(0, 300, 40)
        hops = tree.hops_to(origin, ids)
        assert hops.tolist() == [_bfs_hops(tree, origin, int(i)) for i in ids]
    assert tree.hops_to(5, np.zeros(0, dtype=np.int64)).shape == (0,)


def _bfs_hops(tree: DialogTree, a: int | None, b: int) -> float:
    if a is None:
        return float("inf")
    seen = {a: 0}
    frontier = [a]
    while frontier:
        nxt = []
        for cur in frontier:
            node = tree.node_list[cur]
            for nb in [*node.children, *([node.parent] if node.parent is not None else [])]:
                if nb not in seen:
                    seen[nb] = seen[cur] + 1
                    nxt.append(nb)
        frontier = nxt
    return float(seen.get(b, float("inf")))


def test_attach_rules() -> None:
    tree = DialogTree()
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.0, 1.0], dtype=np.float32)
    q0 = tree.add_node("hello there", a, timestamp=0.0)
    assert q0.parent is None and tree.roots == [0] and q0.origin == "user"
    a1 = tree.add_node("hi!", a, node_type="A", timestamp=1.0)
    assert a1.parent == 0 and a1.origin == "response" and a1.level == 1
    q2 = tree.add_node("more on that", a, timestamp=2.0)
    assert q2.parent == 1  # the predecessor A
    a3 = tree.add_node("sure", a, node_type="A", timestamp=3.0)
    q4 = tree.add_node("and this", a, timestamp=4.0)
    # best candidate is the predecessor A3 -> attach under it
    assert q4.parent == a3.id
    # far in time and opposed: below tau_attach -> a new root (with cos 0 the predecessor
    # bonus alone reaches tau_attach, so a chat only forks on a real change of subject)
    q5 = tree.add_node("something else", -a, timestamp=100_000.0)
    assert q5.parent is None and tree.roots == [0, q5.id]
    # a Q candidate with a parent hands the attachment up to that parent
    tree2 = DialogTree(delta=0.0, beta=0.0, tau_attach=0.1)
    tree2.add_node("x", a, timestamp=0.0)
    tree2.add_node("y", b, node_type="A", timestamp=1.0)
    tree2.add_node("z", b, timestamp=2.0)  # attaches under the A (its best match)
    w = tree2.add_node("w", b, timestamp=3.0)  # best is Q 'z' whose parent is A 1
    assert w.parent == 1


def test_bad_input() -> None:
    tree = DialogTree()
    with pytest.raises(DialogueError):
        tree.add_node("x", [1.0, 0.0], node_type="X", timestamp=0.0)
    with pytest.raises(DialogueError):
        tree.add_node("x", [1.0, 0.0], origin="nobody", timestamp=0.0)
    tree.add_node("x", [1.0, 0.0], timestamp=0.0)
    with pytest.raises(DialogueError):
        tree.add_node("y", [1.0, 0.0, 0.0], timestamp=1.0)
    with pytest.raises(DialogueError):
        tree.query_vector(np.array([1.0, 0.0]), 0, now=1.0)
    assert tree.query("   ", 3, embedder=None, now=1.0) == []
    assert DialogTree().query_vector(np.array([1.0, 0.0]), 3, now=0.0) == []


def test_title() -> None:
    assert make_title("short") == "short"
    long = "x" * 50
    assert make_title(long) == "x" * 40 + "…"


def test_redaction_replay() -> None:
    content = "my phone is 555-1234 and my mail a@b.c"
    redactions = [
        {"span": [12, 20], "decision": "mask", "token": "[phone]"},
        {"span": [33, 38], "decision": "mask", "token": "[email]"},
        {"span": [0, 2], "decision": "ignore", "token": "[x]"},
        {"span": [3, 8], "decision": "record", "token": "[y]"},
    ]
    meta = {"redactions": redactions, "redactions_content_hash": content_hash(content)}
    node = Node(title="t", content=content, metadata=meta)
    assert node_content_for_llm(node) == "my phone is [phone] and my mail [email]"
    edited = Node(title="t", content=content + "!", metadata=meta)
    assert node_content_for_llm(edited) == content + "!"
    assert node_content_for_llm(Node(title="t", content="plain")) == "plain"


def _fill(tree: DialogTree, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for i in range(n):
        tree.add_node(
            f"message {i}",
            _unit(rng, 8),
            node_type="Q" if i % 2 == 0 else "A",
            timestamp=float(i * 30),
            metadata={"dia_id": f"D1:{i}", "user_key": "ana"},
        )


def test_journal_then_compaction_round_trip(tmp_path) -> None:
    trees = DialogTrees(tmp_path)
    with pytest.raises(DialogueNotFoundError):
        trees.get("agent_0", "dialogue_1")
    tree = trees.get("agent_0", "dialogue_1", create=True)
    _fill(tree, 6)
    tree.set_metadata(2, note="hi")
    folder = tmp_path / "agents" / "agent_0" / "dialogue_1"
    assert not (folder / DIALOGUE_FILE).exists()
    lines = (folder / JOURNAL_FILE).read_text().splitlines()
    assert len(lines) == 7  # one line per node, one per metadata change

    reloaded = DialogTrees(tmp_path).get("agent_0", "dialogue_1")
    assert _same(tree, reloaded)
    assert reloaded.node_list[2].metadata["note"] == "hi"

    trees.compact_all()
    assert not (folder / JOURNAL_FILE).exists()
    data = json.loads((folder / DIALOGUE_FILE).read_text())
    assert set(data) == {"nodes", "roots", "_last_id"}
    assert set(data["nodes"][0]) == {
        "id", "title", "content", "node_type", "parent", "children",
        "embedding", "timestamp", "origin", "metadata",
    }  # fmt: skip
    tree.add_node("after compaction", np.ones(8, dtype=np.float32) / np.sqrt(8), timestamp=999.0)
    both = DialogTrees(tmp_path).get("agent_0", "dialogue_1")
    assert _same(tree, both) and len(both) == 7


def test_crash_between_compaction_and_journal_removal(tmp_path) -> None:
    trees = DialogTrees(tmp_path)
    tree = trees.get("agent_0", "dialogue_2", create=True)
    _fill(tree, 4)
    file = tree.file
    assert file is not None
    journal = file.journal_path.read_text()
    file.compact(tree)
    file.journal_path.write_text(journal)  # as if the unlink never happened
    again = DialogTrees(tmp_path).get("agent_0", "dialogue_2")
    assert _same(tree, again) and again.load_problems == []


def test_corrupt_journal_line_is_skipped_and_reported(tmp_path) -> None:
    tree = DialogTrees(tmp_path).get("agent_0", "dialogue_3", create=True)
    _fill(tree, 5)
    path = tree.file.journal_path  # type: ignore[union-attr]
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:40]  # torn write in the middle
    lines.append('{"op": "bogus"}')
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    loaded = DialogTrees(tmp_path).get("agent_0", "dialogue_3")
    assert len(loaded) == 4
    assert len(loaded.load_problems) >= 2
    assert any("line 2" in p for p in loaded.load_problems)
    assert [n.id for n in loaded.node_list] == [0, 1, 2, 3]  # contiguous again
    assert path.read_bytes() == before  # loading changed nothing


def test_unreadable_dialogue_json_is_a_clear_error(tmp_path) -> None:
    folder = tmp_path / "agents" / "agent_0" / "dialogue_4"
    folder.mkdir(parents=True)
    (folder / DIALOGUE_FILE).write_text("{not json")
    with pytest.raises(DialogueLoadError):
        DialogTrees(tmp_path).get("agent_0", "dialogue_4")
    assert (folder / DIALOGUE_FILE).read_text() == "{not json"


def test_listener_sees_new_nodes(tmp_path) -> None:
    trees = DialogTrees(tmp_path)
    seen: list[int] = []
    trees.subscribe(lambda tree, node: seen.append(node.id))
    tree = trees.get("agent_0", "dialogue_5", create=True)
    _fill(tree, 3)
    assert seen == [0, 1, 2]


def test_file_without_registry(tmp_path) -> None:
    file = DialogueFile(tmp_path / "d")
    tree = DialogTree()
    tree.file = file
    _fill(tree, 3)
    file.compact(tree)
    fresh = DialogTree()
    assert file.load(fresh) == [] and _same(tree, fresh)


def _same(a: DialogTree, b: DialogTree) -> bool:
    if len(a) != len(b) or a.roots != b.roots or a.last_id != b.last_id:
        return False
    for x, y in zip(a.node_list, b.node_list, strict=True):
        if (x.id, x.parent, x.children, x.node_type, x.content, x.origin, x.level) != (
            y.id, y.parent, y.children, y.node_type, y.content, y.origin, y.level,
        ):  # fmt: skip
            return False
        if x.metadata != y.metadata or abs(x.timestamp - y.timestamp) > 1e-6:
            return False
        if not np.allclose(x.embedding, y.embedding, atol=1e-7):
            return False
    return True


async def test_journal_and_compaction_on_both_homes(workspace, memory_home) -> None:
    """The same tree, journal and compaction in the files or in the database's rows (the
    same JSON document and lines by the same names); a second registry (another worker)
    reads it back, and reads it again once the first one added to it."""
    from familiars.config import load_settings
    from familiars.memory import open_state_home

    home = open_state_home(load_settings(workspace=workspace))
    try:
        trees = DialogTrees(workspace, home=home)
        tree = trees.get("agent_0", "dialogue_1", create=True)
        _fill(tree, 5)
        tree.set_metadata(2, note="hi")
        name = "agents/agent_0/dialogue_1/"
        assert len(home.lines(name + JOURNAL_FILE) or []) == 6
        other = DialogTrees(workspace, home=home)
        seen = await other.aget("agent_0", "dialogue_1")
        assert _same(tree, seen) and seen.node_list[2].metadata["note"] == "hi"
        trees.compact_all()
        assert home.lines(name + JOURNAL_FILE) is None
        data = json.loads(home.read(name + DIALOGUE_FILE) or b"{}")
        assert len(data["nodes"]) == 5
        tree.add_node("after compaction", np.ones(8, dtype=np.float32) / np.sqrt(8), timestamp=9.0)
        again = await other.aget("agent_0", "dialogue_1")
        if home.kind == "database":  # the other worker's copy was stale: read again
            assert _same(tree, again) and len(again) == 6
        assert (workspace / name / DIALOGUE_FILE).exists() == (home.kind == "files")
    finally:
        await home.close()


async def test_a_stale_copy_never_writes_a_forgotten_node_back(workspace, pg_url) -> None:
    """Worker B forgets a message; worker A, still holding the tree as it was, adds a node,
    forgets another and compacts: A's copy is not written over B's (the words would come
    back): what is stored gets A's tombstone, and the next reader has every change."""
    from familiars.config import load_settings
    from familiars.memory import open_state_home

    home_a = open_state_home(load_settings(workspace=workspace))
    home_b = open_state_home(load_settings(workspace=workspace))
    try:
        a, b = DialogTrees(workspace, home=home_a), DialogTrees(workspace, home=home_b)
        tree_a = a.get("agent_0", "dialogue_1", create=True)
        _fill(tree_a, 3)
        tree_b = await b.aget("agent_0", "dialogue_1")
        assert tree_b.forget_node(1) == "message 1"
        b.compact_all()
        tree_a.add_node("message 3", np.ones(8, dtype=np.float32) / np.sqrt(8), timestamp=99.0)
        tree_a.forget_node(0)  # and A forgets another, on its stale copy
        a.compact_all()  # A's copy still says "message 1": not written whole
        assert home_a.lines("agents/agent_0/dialogue_1/dialogue.journal.jsonl") is None
        fresh = DialogTrees(workspace, home=home_a).get("agent_0", "dialogue_1")
        texts = [n.content for n in fresh.node_list]
        assert texts == ["", "", "message 2", "message 3"]  # both forgets hold, A's node too
        assert (await a.aget("agent_0", "dialogue_1")).node_list[1].content == ""  # read again
    finally:
        await home_a.close()
        await home_b.close()


def test_each_node_knows_its_topic_root_as_walking_up_finds_it() -> None:
    """``root_of`` (kept as nodes are placed; recall's context reads it every turn) is the
    root that walking the parents finds, for nodes that start topics and nodes that join."""
    rng = np.random.default_rng(7)
    tree = DialogTree()
    for i in range(300):
        vec = rng.standard_normal(8).astype(np.float32)
        gap = 4000.0 if i % 37 == 0 else 20.0  # now and then a long pause: new roots appear
        last = tree.node_list[-1].timestamp if tree.node_list else 0.0
        tree.add_node(f"m{i}", vec / np.linalg.norm(vec), timestamp=last + gap,
                      node_type="Q" if i % 2 == 0 else "A")  # fmt: skip
    assert len(tree.roots) > 1
    for node in tree.node_list:
        walked = node
        while walked.parent is not None:
            walked = tree.node_list[walked.parent]
        assert tree.root_of(node.id) == walked.id


async def test_a_provisional_node_on_both_homes(workspace, memory_home) -> None:
    """A provisional node is journaled with its stand-in vector and read back provisional;
    its own vector, set later, is journaled and read back (listeners hear of it only then);
    one forgotten before its vector came stays a tombstone with zeros: the late vector is
    refused, and neither a reload nor a compaction brings it back."""
    from familiars.config import load_settings
    from familiars.memory import open_state_home

    home = open_state_home(load_settings(workspace=workspace))
    try:
        rng = np.random.default_rng(3)
        trees = DialogTrees(workspace, home=home)
        heard: list[int] = []
        trees.subscribe(lambda _tree, node: heard.append(node.id))
        tree = trees.get("agent_0", "dialogue_1", create=True)
        stand_in, own, late = _unit(rng, 8), _unit(rng, 8), _unit(rng, 8)
        tree.add_node("kept", stand_in, timestamp=1.0, provisional=True)
        tree.add_node("forgotten", stand_in, timestamp=2.0, provisional=True)
        assert heard == []
        seen = DialogTrees(workspace, home=home).get("agent_0", "dialogue_1")
        assert [n.provisional for n in seen.node_list] == [True, True]
        assert tree.set_embedding(0, own) is not None and heard == [0]
        tree.forget_node(1)
        assert tree.set_embedding(1, late) is None and heard == [0]
        again = DialogTrees(workspace, home=home).get("agent_0", "dialogue_1")
        assert not again.node_list[0].provisional  # from the journal's embedding line
        assert np.allclose(again.node_list[0].embedding, own)
        trees.compact_all()  # what a forget does at once (the journal still held the text)
        again = DialogTrees(workspace, home=home).get("agent_0", "dialogue_1")
        kept, gone = again.node_list
        assert np.allclose(kept.embedding, own) and again.provisional_nodes() == []
        assert gone.content == "" and not np.any(gone.embedding)
    finally:
        await home.close()


async def test_an_unsynced_node_is_placed_on_the_event_loop_and_journaled(tmp_path) -> None:
    """``aadd_node`` with ``sync=False`` places a message on the event loop (no hop to a
    thread: a line appended, its fsync later), journaled as a thread's add would be; while
    another thread holds the tree (a compaction, say) it waits in a thread instead, so the
    event loop never blocks on the tree's lock; an fsynced add always goes to a thread."""
    import threading

    rng = np.random.default_rng(5)
    tree = DialogTrees(tmp_path).get("agent_0", "dialogue_1", create=True)
    _fill(tree, 4)
    loop_thread = threading.get_ident()
    placed_in: list[int] = []
    add = tree.add_node

    def recording(*args: object, **kwargs: object) -> Node:
        placed_in.append(threading.get_ident())
        return add(*args, **kwargs)  # type: ignore[arg-type]

    tree.add_node = recording  # type: ignore[method-assign]
    node = await tree.aadd_node("on the loop", _unit(rng, 8), timestamp=50.0, sync=False)
    assert placed_in == [loop_thread]
    with tree._lock:  # another thread holds the tree: the add waits in a thread
        pending = asyncio.ensure_future(
            tree.aadd_node("held", _unit(rng, 8), timestamp=51.0, sync=False)
        )
        for _ in range(3):
            await asyncio.sleep(0)  # the loop runs on meanwhile
        assert not pending.done()
    await pending
    await tree.aadd_node("fsynced", _unit(rng, 8), timestamp=52.0)
    assert len(placed_in) == 3 and loop_thread not in placed_in[1:]
    tree.file.sync()
    again = DialogTrees(tmp_path).get("agent_0", "dialogue_1")
    assert [n.content for n in again.node_list[-3:]] == ["on the loop", "held", "fsynced"]
    assert again.node_list[node.id].parent == node.parent
