"""Distributed connected components: the large-star / small-star iteration.

Kiveris, Lattanzi, Mirrokni, Rastogi, Vassilvitskii, "Connected Components in MapReduce and
Beyond" (SoCC 2014). Nodes are document positions; each round applies

* large-star: every node ``u`` links each larger neighbour ``v > u`` to ``m(u)``, the smallest
  of ``u`` and its neighbours;
* small-star: every node ``u`` links itself and its smaller neighbours to the smallest of them.

Both keep the components and shrink the labels; when a round leaves the edge set unchanged,
every component is a star centred on its smallest node, so each edge ``(child, root)`` gives
the root the local :func:`neardup.cluster.connected_roots` gives. The edges stay distributed
(as columnar batches) throughout: nothing is collected to the driver but a per-round checksum.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..arrays import unique_sorted
from ..cluster import connected_roots
from .batches import Batch, concat, mix64, pair_codes, pair_ends, route, size

MAX_ROUNDS = 200
LOCAL_EDGES = 20_000_000  # edges (two int64 each: 320 MB) resolved by one executor at once


def _unique_edges(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct edges, sorted by ``(a, b)`` (positions fit in 32 bits, as everywhere in
    the job: one 64-bit key per edge sorts faster than rows)."""
    return pair_ends(unique_sorted(pair_codes(a, b)))


def _group_min(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by ``src``, and for each row the minimum ``dst`` of its ``src`` group."""
    order = np.argsort(src, kind="stable")
    s, d = src[order], dst[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    group_min = np.minimum.reduceat(d, starts)
    counts = np.diff(np.r_[starts, len(s)])
    return s, d, np.repeat(group_min, counts)


def _both_directions(batches: Iterator[Batch]) -> Iterator[Batch]:
    for b in batches:
        keep = b["a"] != b["b"]
        a, c = b["a"][keep], b["b"][keep]
        yield {"src": np.concatenate([a, c]), "dst": np.concatenate([c, a])}


def _large_star(batches: Iterator[Batch]) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    src, dst = _unique_edges(b["src"], b["dst"])
    s, d, m = _group_min(src, dst)
    m = np.minimum(m, s)
    keep = d > s
    yield {"a": d[keep], "b": m[keep]}


def _larger_first(batches: Iterator[Batch]) -> Iterator[Batch]:
    for b in batches:
        keep = b["a"] != b["b"]
        a, c = b["a"][keep], b["b"][keep]
        yield {"src": np.maximum(a, c), "dst": np.minimum(a, c)}


def _small_star(batches: Iterator[Batch]) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    src, dst = _unique_edges(b["src"], b["dst"])  # src > dst
    s, d, m = _group_min(src, dst)
    starts = np.r_[True, s[1:] != s[:-1]]
    a = np.concatenate([d, s[starts]])
    c = np.concatenate([m, m[starts]])
    keep = a != c
    yield {"a": a[keep], "b": c[keep]}


def _checksum(batches: Iterator[Batch]) -> Iterator[tuple[int, int]]:
    """(edge count, order-free hash sum) of the distinct undirected edges in a routed batch."""
    b = concat(batches)
    if not size(b):
        return
    src, dst = _unique_edges(b["src"], b["dst"])
    lower = src < dst  # each undirected edge once: in the partition of its smaller end
    h = mix64(mix64(src[lower]) ^ dst[lower].astype(np.uint64))
    yield int(lower.sum()), int(np.bitwise_xor.reduce(h)) if len(h) else 0


def connected_components(
    edges: Any, *, partitions: int, storage: Any = None, edge_count: int | None = None
) -> Any:
    """``(child, root)`` batches for every node that has an edge (columns ``a``, ``b``).

    ``edges`` is an RDD of batches with int64 columns ``a`` and ``b``. Nodes absent from the
    result are their own root. When ``edge_count`` says the edges fit one task (at most
    ``LOCAL_EDGES``), one executor runs the local union-find over all of them: each round of
    the iteration costs a few Spark stages, a union-find over millions of edges a second.
    """
    if edge_count is not None and edge_count <= LOCAL_EDGES:
        return edges.coalesce(1).mapPartitions(_local_roots)
    previous: tuple[int, int] | None = None
    current = edges
    cached: list[Any] = []
    for _ in range(MAX_ROUNDS):
        undirected = route(
            current.mapPartitions(_both_directions), key="src", partitions=partitions
        )
        if storage is not None:
            undirected = undirected.persist(storage)
            cached.append(undirected)
        total = undirected.mapPartitions(_checksum).fold(
            (0, 0), lambda x, y: (x[0] + y[0], x[1] ^ y[1])
        )
        if total == previous:
            break
        previous = total
        large = undirected.mapPartitions(_large_star)
        current = route(large.mapPartitions(_larger_first), key="src", partitions=partitions)
        current = current.mapPartitions(_small_star)
        while len(cached) > 2:
            cached.pop(0).unpersist()
    else:  # pragma: no cover - the iteration converges in O(log^2 n) rounds
        raise RuntimeError(f"connected components did not converge in {MAX_ROUNDS} rounds")
    return current.mapPartitions(_as_child_root)


def _as_child_root(batches: Iterator[Batch]) -> Iterator[Batch]:
    for b in batches:
        keep = b["a"] != b["b"]
        a, c = b["a"][keep], b["b"][keep]
        yield {"child": np.maximum(a, c), "root": np.minimum(a, c)}


def _local_roots(batches: Iterator[Batch]) -> Iterator[Batch]:
    """The local union-find (:func:`neardup.cluster.connected_roots`) over every edge given:
    each node's root is the smallest position of its component, as the iteration gives."""
    b = concat(batches)
    if not size(b):
        return
    nodes, at = np.unique(np.concatenate([b["a"], b["b"]]), return_inverse=True)
    at = at.reshape(-1)
    m = len(b["a"])
    roots = connected_roots(len(nodes), at[:m], at[m:])
    child = roots != np.arange(len(nodes))
    yield {"child": nodes[child], "root": nodes[roots[child]]}
