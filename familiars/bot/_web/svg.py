"""Pictures drawn on the server as plain data for the SVG templates (no script, no styles
inline: classes and presentation attributes, so the page's CSP holds).

- :func:`tree_drawing` - a dialogue's tree: one row per message in depth-first order, indented
  by depth, an elbow from each message to its parent, so branches read like a file tree;
  messages recalled for the last reply are marked, with their score parts.
- :func:`bar_chart` - horizontal bars with labels and values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from familiars.memory import DialogTree, Node, is_forgotten

ROW = 30
COL = 22
PAD = 16
LABEL_CHARS = 60
#: Only the newest messages are drawn; older ones are left out (their replies become roots).
MAX_NODES = 300


@dataclass(frozen=True)
class DrawnNode:
    id: int
    x: int
    y: int
    kind: str  # "person", "familiar", "proactive", "forgotten"
    label: str
    when: str
    recalled: bool
    score: str = ""


@dataclass(frozen=True)
class Drawing:
    width: int
    height: int
    nodes: list[DrawnNode] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)  # SVG path data
    branches: int = 0


def _kind(node: Node) -> str:
    if is_forgotten(node):
        return "forgotten"
    if node.node_type == "Q":
        return "person"
    return "proactive" if node.origin == "proactive" else "familiar"


def _label(node: Node) -> str:
    if is_forgotten(node):
        return "(forgotten)"
    text = " ".join((node.content or node.title).split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _order(nodes: Sequence[Node]) -> list[tuple[Node, int]]:
    """(node, depth) in depth-first order, children by id; parents left out are roots."""
    by_id = {n.id: n for n in nodes}
    children: dict[int | None, list[Node]] = {}
    for n in nodes:
        parent = n.parent if n.parent in by_id else None
        children.setdefault(parent, []).append(n)
    out: list[tuple[Node, int]] = []
    stack = [(n, 0) for n in sorted(children.get(None, []), key=lambda n: -n.id)]
    while stack:
        node, depth = stack.pop()
        out.append((node, depth))
        kids = sorted(children.get(node.id, []), key=lambda n: -n.id)
        stack.extend((k, depth + 1) for k in kids)
    return out


def tree_drawing(tree: DialogTree, recalled: dict[int, str] | None = None) -> Drawing:
    """The tree's newest :data:`MAX_NODES` messages; ``recalled`` maps node ids recalled for
    the last reply to their score text."""
    recalled = recalled or {}
    nodes = tree.node_list[-MAX_NODES:]
    placed: dict[int, tuple[int, int]] = {}
    drawn: list[DrawnNode] = []
    edges: list[str] = []
    deepest = 0
    for row, (node, depth) in enumerate(_order(nodes)):
        x, y = PAD + depth * COL, PAD + row * ROW
        placed[node.id] = (x, y)
        deepest = max(deepest, depth)
        if node.parent in placed:
            px, py = placed[node.parent]
            edges.append(f"M{px} {py} V{y} H{x}")
        drawn.append(
            DrawnNode(
                id=node.id,
                x=x,
                y=y,
                kind=_kind(node),
                label=_label(node),
                when=datetime.fromtimestamp(node.timestamp, UTC).strftime("%Y-%m-%d %H:%M"),
                recalled=node.id in recalled,
                score=recalled.get(node.id, ""),
            )
        )
    branches = sum(1 for n in nodes if len(n.children) > 1)
    width = PAD * 2 + deepest * COL + 12 + LABEL_CHARS * 7
    height = PAD * 2 + max(len(drawn) - 1, 0) * ROW
    return Drawing(width, height, drawn, edges, branches)


def score_text(item: dict[str, Any]) -> str:
    """``0.71 (dense 0.52, keyword 0.30, ...)`` from a ``/memory why`` item."""
    parts = ", ".join(
        f"{k} {v:.2f}" for k, v in (item.get("parts") or {}).items() if isinstance(v, int | float)
    )
    score = item.get("score")
    head = f"{score:.2f}" if isinstance(score, int | float) else "?"
    return f"{head} ({parts})" if parts else head


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str
    y: int
    width: int


@dataclass(frozen=True)
class Chart:
    title: str
    width: int
    height: int
    bars: list[Bar]
    label_width: int


def bar_chart(title: str, items: Sequence[tuple[str, float, str]], *, width: int = 360) -> Chart:
    """Bars for ``(label, value, value text)``, scaled to the largest value."""
    label_width = 150
    room = width - label_width - 70
    top = max((v for _, v, _ in items), default=0.0) or 1.0
    bars = [
        Bar(label, value, text, 8 + i * 26, max(int(room * value / top), 1 if value else 0))
        for i, (label, value, text) in enumerate(items)
    ]
    return Chart(title, width, 12 + len(bars) * 26, bars, label_width)
