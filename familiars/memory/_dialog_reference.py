"""The seed's §5.4.1 and §5.4.2 as plain per-node loops: the test oracle and the
benchmark baseline of :class:`~familiars.memory._dialog_tree.DialogTree`'s numpy passes."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from familiars.memory._dialog_tree import DialogTree, Node


def reference_choose_parent(
    tree: DialogTree,
    embedding: list[float],
    timestamp: float,
    vectors: Sequence[list[float]] | None = None,
) -> int | None:
    """§5.4.1 exactly as the seed writes it: one Python iteration per node. ``vectors`` may
    hold the nodes' embeddings as plain lists (the seed's ``list[float]``)."""
    best_score = -math.inf
    best_cand: Node | None = None
    for cand in tree.node_list:
        vec = vectors[cand.id] if vectors is not None else cand.embedding
        sim = _py_cosine(embedding, vec)
        dt = max(0.0, timestamp - cand.timestamp)
        recency = math.exp(-dt / tree.recency_tau)
        is_pred = 1.0 if cand.id == tree.last_id else 0.0
        score = tree.alpha * sim + tree.beta * recency + tree.delta * is_pred
        if score > best_score:
            best_score = score
            best_cand = cand
    if best_cand is None or best_score < tree.tau_attach:
        return None
    if best_cand.node_type == "Q" and best_cand.parent is not None:
        return best_cand.parent
    return best_cand.id


def reference_query(
    tree: DialogTree,
    embedding: list[float],
    k: int,
    *,
    now: float,
    vectors: Sequence[list[float]] | None = None,
) -> list[tuple[int, float]]:
    """§5.4.2 as a plain loop: breadth-first hops from the attach point, then one score per
    node."""
    anchor = reference_choose_parent(tree, embedding, now, vectors)
    hops: dict[int, int] = {}
    if anchor is not None:
        hops[anchor] = 0
        queue = deque([anchor])
        while queue:
            cur = queue.popleft()
            node = tree.node_list[cur]
            near = list(node.children) + ([node.parent] if node.parent is not None else [])
            for nb in near:
                if nb not in hops:
                    hops[nb] = hops[cur] + 1
                    queue.append(nb)
    scored: list[tuple[int, float]] = []
    for node in tree.node_list:
        sim = _py_cosine(embedding, vectors[node.id] if vectors is not None else node.embedding)
        recency = math.exp(-max(0.0, now - node.timestamp) / tree.recency_tau)
        tree_term = math.exp(-hops[node.id] / tree.tree_tau) if node.id in hops else 0.0
        scored.append((node.id, tree.alpha * sim + tree.beta * recency + tree.gamma * tree_term))
    scored.sort(key=lambda item: -item[1])
    return scored[:k]


def _py_cosine(a: Any, b: Any) -> float:
    la = a if isinstance(a, list) else [float(x) for x in a]
    lb = b if isinstance(b, list) else [float(x) for x in b]
    dot = sum(x * y for x, y in zip(la, lb, strict=True))
    na = math.sqrt(sum(x * x for x in la))
    nb = math.sqrt(sum(y * y for y in lb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot / (na * nb)
