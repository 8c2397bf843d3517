"""Representatives on Spark: the core's greedy rule, applied one connected component at a time.

The greedy rule (:mod:`neardup.cluster`) is sequential in input order, but a document's
candidates are its neighbours in the graph of verified pairs, so components are independent.
Every edge and every member of a component are routed to the partition of the component's root,
and each partition runs the local :func:`neardup.dedup.cluster_result` over the components it
holds: the same function as ``neardup dedup``, so the same representatives and evidence.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..arrays import unique_sorted
from ..dedup import cluster_result
from ..pairs import PairSet
from .batches import Batch, cogroup, lookup


def _with_roots(b: Batch) -> Batch:
    """Component roots are not their own children: add a ``root -> root`` row for each."""
    own = unique_sorted(b["root"])
    return {"child": np.concatenate([b["child"], own]), "root": np.concatenate([b["root"], own])}


def _distinct(roots: Batch) -> Batch:
    child, first = np.unique(roots["child"], return_index=True)
    return {"child": child, "root": roots["root"][first]}


def _rooted_edges(groups: Iterator[dict[str, Batch]]) -> Iterator[Batch]:
    for g in groups:
        edges, roots = g.get("edges"), g.get("roots")
        if edges is not None:
            roots = _distinct(roots)
            yield {**edges, "root": lookup(edges["a"], roots["child"], roots["root"])}


def _members(groups: Iterator[dict[str, Batch]], with_fingerprints: bool) -> Iterator[Batch]:
    for g in groups:
        roots, docs = g.get("roots"), g.get("docs")
        if roots is None:
            continue
        roots = _distinct(roots)
        out = {
            "pos": roots["child"],
            "root": roots["root"],
            "length": lookup(roots["child"], docs["pos"], docs["length"]),
            "id": lookup(roots["child"], docs["pos"], docs["id"]),
        }
        if with_fingerprints:
            out["fp"] = lookup(roots["child"], docs["pos"], docs["fp"])
        yield out


def _resolve(
    groups: Iterator[dict[str, Batch]], *, method: str, keep: str, with_fingerprints: bool
) -> Iterator[Batch]:
    for g in groups:
        members, edges = g.get("members"), g.get("edges")
        if members is None or edges is None:
            continue
        order = np.argsort(members["pos"], kind="stable")  # input order inside the partition
        pos = members["pos"][order]
        local = np.searchsorted
        pairs = PairSet(
            local(pos, edges["a"]),
            local(pos, edges["b"]),
            edges["d"].astype(np.int16),
            edges["sim"].astype(np.float32),
            edges["m"].astype(np.uint8),
        )
        result = cluster_result(
            method,
            pairs,
            len(pos),
            keep=keep,
            lengths=members["length"][order],
            fingerprints=members["fp"][order] if with_fingerprints else None,
        )
        rep = result.clusters.representative  # local: a cluster lies in its component
        first = np.full(len(pos), len(pos), np.int64)
        np.minimum.at(first, rep, np.arange(len(pos)))
        yield {
            "pos": pos,
            "rep": pos[rep],
            "first": pos[first[rep]],
            "rep_id": members["id"][order][rep],
            "distance": result.distance_to_representative,
            "similarity": result.similarity_to_representative,
            "code": result.method_to_representative,
        }


def resolve(
    prepared: Any, roots: Any, edges: Any, *, method: str, keep: str, partitions: int
) -> Any:
    """Batches ``pos, rep, first, rep_id, distance, similarity, code`` for every document in a
    component (``first``: the first member of its cluster; ``rep_id``: the representative's id)."""
    with_fingerprints = method == "simhash"
    columns = ["pos", "length", "id", *(["fp"] if with_fingerprints else [])]
    docs = prepared.map(lambda b: {k: b[k] for k in columns})
    roots = roots.map(_with_roots)
    rooted = cogroup(
        {"edges": (edges, "a"), "roots": (roots, "child")}, partitions=partitions
    ).mapPartitions(_rooted_edges)
    members = cogroup(
        {"roots": (roots, "child"), "docs": (docs, "pos")}, partitions=partitions
    ).mapPartitions(lambda it: _members(it, with_fingerprints))
    return cogroup(
        {"members": (members, "root"), "edges": (rooted, "root")}, partitions=partitions
    ).mapPartitions(
        lambda it: _resolve(it, method=method, keep=keep, with_fingerprints=with_fingerprints)
    )
