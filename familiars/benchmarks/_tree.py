"""``familiars bench tree``: the vectorised DialogTree against the seed's per-node loop.

A tree of ``--nodes`` messages (topic-clustered vectors, irregular gaps, Q and A nodes) is
built; then the same attach and query operations run through :meth:`DialogTree.choose_parent`
/ :meth:`DialogTree.query_vector` and through :func:`reference_choose_parent` /
:func:`reference_query` (embeddings as plain lists, as the seed keeps them). The choices must
be identical; the ratio is reference time over vectorised time.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import numpy as np
import typer

from familiars.memory import DialogTree, reference_choose_parent, reference_query
from familiars.terminal import fail, print_json, print_table, want_json


def build_tree(n: int, dim: int, seed: int) -> tuple[DialogTree, np.random.Generator, float]:
    rng = np.random.default_rng(seed)
    topics = _units(rng, 40, dim)
    vecs = topics[rng.integers(0, 40, n)] + 0.7 * _units(rng, n, dim) / np.sqrt(1.0)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    gaps = rng.choice([5.0, 40.0, 300.0, 4000.0, 90000.0], size=n)
    types = np.where(rng.random(n) < 0.45, "A", "Q")
    tree = DialogTree()
    ts = 1_700_000_000.0
    t0 = time.perf_counter()
    for i in range(n):
        ts += float(gaps[i])
        tree.add_node(f"message {i}", vecs[i], node_type=str(types[i]), timestamp=ts)
    return tree, rng, time.perf_counter() - t0


def _units(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def run_benchmark(
    nodes: int, *, dim: int = 384, ops: int = 10, k: int = 10, seed: int = 0
) -> dict[str, Any]:
    tree, rng, build_s = build_tree(nodes, dim, seed)
    as_lists = [node.embedding.tolist() for node in tree.node_list]
    probes = _units(rng, ops, dim)
    last_ts = tree.node_list[-1].timestamp
    times = last_ts + rng.choice([10.0, 600.0, 86400.0], size=ops)
    identical = True
    vec_attach = ref_attach = vec_query = ref_query = 0.0
    for probe, now in zip(probes, times, strict=True):
        got, spent = _timed(lambda p=probe, t=float(now): tree.choose_parent(p, t))
        t1 = time.perf_counter()
        want = reference_choose_parent(tree, probe.tolist(), float(now), as_lists)
        t2 = time.perf_counter()
        vec_attach += spent
        ref_attach += t2 - t1
        identical &= got == want
        hits, spent = _timed(lambda p=probe, t=float(now): tree.query_vector(p, k, now=t))
        got_q = [n.id for n, _ in hits]
        t1 = time.perf_counter()
        want_q = [
            i for i, _ in reference_query(tree, probe.tolist(), k, now=float(now), vectors=as_lists)
        ]
        t2 = time.perf_counter()
        vec_query += spent
        ref_query += t2 - t1
        identical &= got_q == want_q
    return {
        "nodes": nodes,
        "dim": dim,
        "operations": ops,
        "identical": bool(identical),
        "roots": len(tree.roots),
        "max_depth": max(n.level for n in tree.node_list),
        "build_s": round(build_s, 3),
        "attach_ms": {"vectorised": _ms(vec_attach, ops), "reference": _ms(ref_attach, ops)},
        "query_ms": {"vectorised": _ms(vec_query, ops), "reference": _ms(ref_query, ops)},
        "attach_ratio": round(ref_attach / vec_attach, 1),
        "query_ratio": round(ref_query / vec_query, 1),
        "ratio": round((ref_attach + ref_query) / (vec_attach + vec_query), 1),
    }


def _timed(fn: Any, repeat: int = 7) -> tuple[Any, float]:
    """Result and median seconds of ``repeat`` runs (a busy machine preempts short runs)."""
    spans = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        spans.append(time.perf_counter() - t0)
    return result, float(np.median(spans))


def _ms(total_s: float, ops: int) -> float:
    return round(total_s * 1000 / max(1, ops), 3)


def command(
    ctx: typer.Context,
    nodes: Annotated[int, typer.Option("--nodes", help="Tree size.")] = 10000,
    ops: Annotated[int, typer.Option("--ops", help="Attach and query operations timed.")] = 10,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Attach and query time, vectorised vs the seed's per-node loop; same choices asserted."""
    if nodes < 1 or ops < 1:
        fail("--nodes and --ops must be at least 1")
    with single_thread_blas():
        report = run_benchmark(nodes, ops=ops)
    if want_json(ctx, json_out):
        print_json(report)
    else:
        print_table(
            f"DialogTree, {nodes} nodes ({report['roots']} roots, depth {report['max_depth']})",
            ["operation", "vectorised ms", "seed loop ms", "ratio"],
            [
                ["attach", report["attach_ms"]["vectorised"], report["attach_ms"]["reference"],
                 report["attach_ratio"]],
                ["query", report["query_ms"]["vectorised"], report["query_ms"]["reference"],
                 report["query_ratio"]],
            ],
        )  # fmt: skip
        print(f"identical choices: {report['identical']}; overall ratio {report['ratio']}")
    if not report["identical"]:
        raise typer.Exit(1)


def single_thread_blas() -> Any:
    """Timings on one BLAS thread: on a shared, busy machine a multi-threaded BLAS spins on
    small matrix products and the figures stop meaning anything. Both sides of every ratio
    run under the same limit."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with the ML stack
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
