"""Candidate pairs on the cluster for the ``simhash`` method, as batches of edges.

The same edge set as :func:`neardup.index.permuted.hamming_edges`, computed distributed:

1. identical fingerprints meet by fingerprint; each copy is linked to the first document that
   has the fingerprint (distance 0) and only that first document goes on, so a boilerplate text
   copied a million times is one row from here on (the main source of skew);
2. every distinct fingerprint emits one row per permuted table, keyed by ``(table, the bits of
   the table's blocks)``; rows with equal keys meet in one partition, where the compiled kernel
   of the local run scans each key's run for pairs within ``max_distance`` (popcount check) and
   keeps a pair only in the first table where it shares a key, so each pair comes out once;
3. with verification, each edge meets the normalised texts of its two ends by position and is
   kept when its exact similarity reaches the threshold.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..index.layout import TableLayout
from ..methods.base import first_copies
from .batches import Batch, cogroup, concat, lookup, route, size, tagged
from .tables import scan, table_rows


def _identical(batches: Iterator[Batch]) -> Iterator[tuple[str, Batch]]:
    b = concat(batches)
    if not size(b):
        return
    pos, fp = b["pos"], b["fp"]
    head = first_copies(fp, rank=pos)  # the core's grouping of exact copies
    first = head == np.arange(len(head))
    dup = np.flatnonzero(~first)
    yield "distinct", {"fp": fp[first], "first": pos[first]}
    yield (
        "edges",
        {"a": pos[head[dup]], "b": pos[dup], "d": np.zeros(len(dup), np.int16)},
    )


def identical_groups(fingerprints: Any, *, partitions: int) -> tuple[Any, Any]:
    """``(distinct, edges)``: first position per distinct fingerprint, and copy -> first edges."""
    routed = route(fingerprints, key="fp", partitions=partitions)
    parts = routed.mapPartitions(_identical)
    return tagged(parts, "distinct"), tagged(parts, "edges")


def _scan(batches: Iterator[Batch], masks: tuple[int, ...], max_distance: int) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    for left, right, dist in scan(b, masks, max_distance, "fp"):
        a, c = b["first"][left], b["first"][right]
        yield {"a": np.minimum(a, c), "b": np.maximum(a, c), "d": dist}


def near_pairs(distinct: Any, layout: TableLayout, *, partitions: int) -> Any:
    """Edges between distinct fingerprints within ``layout.max_distance``, each once."""
    masks, k = layout.masks, layout.max_distance
    rows = distinct.mapPartitions(lambda it: table_rows(it, masks, "fp"))
    routed = route(rows, key="bucket", partitions=partitions)
    return routed.mapPartitions(lambda it: _scan(it, masks, k))


def _attach(parts: Iterator[dict[str, Batch]], end: str, names: dict[str, str]) -> Iterator[Batch]:
    """Edges with the columns of their ``end``'s rows, renamed by ``names``."""
    for part in parts:
        edges = part.get("edges")
        if not size(edges):
            continue
        rows = part["rows"]
        for column, name in names.items():
            edges[name] = lookup(edges[end], rows["pos"], rows[column])
        yield edges


def _verify(batches: Iterator[Batch], measure: str, ngram: int, threshold: float):
    from ..verify import similarity_pairs

    for b in batches:
        m = size(b)
        texts = list(b.pop("ta")) + list(b.pop("tb"))
        sim = similarity_pairs(
            texts, np.arange(m), np.arange(m, 2 * m), measure=measure, ngram=ngram
        )
        keep = sim >= threshold
        out = {c: v[keep] for c, v in b.items()}
        out["sim"] = sim[keep].astype(np.float32)
        yield out


def with_ends(
    edges: Any, rows: Any, *, columns: dict[str, tuple[str, str]], partitions: int
) -> Any:
    """Edges ``a, b`` with columns of their ends' rows (batches with ``pos``), joined by
    position; ``columns`` maps a row column to its names at end ``a`` and end ``b``."""
    for k, end in enumerate(("a", "b")):
        names = {column: both[k] for column, both in columns.items()}
        edges = cogroup(
            {"edges": (edges, end), "rows": (rows, "pos")}, partitions=partitions
        ).mapPartitions(lambda it, end=end, names=names: _attach(it, end, names))
    return edges


def with_texts(edges: Any, texts: Any, *, partitions: int) -> Any:
    """Edges ``a, b`` with the texts of their ends (columns ``ta``, ``tb``), joined by
    position with ``texts`` (batches ``pos, norm``)."""
    return with_ends(edges, texts, columns={"norm": ("ta", "tb")}, partitions=partitions)


def verified(
    edges: Any,
    texts: Any,
    *,
    measure: str,
    ngram: int,
    threshold: float,
    partitions: int,
) -> Any:
    """Edges whose ends' normalised texts reach ``threshold`` (column ``sim`` added)."""
    joined = with_texts(edges, texts, partitions=partitions)
    return joined.mapPartitions(lambda it: _verify(it, measure, ngram, threshold))
