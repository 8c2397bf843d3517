"""Candidate pairs on the cluster for the ``paragraph`` method (DRPKP), as batches of edges.

The same pairs as :meth:`neardup.methods.paragraph.ParagraphMethod.find_pairs`:

1. paragraph fingerprints are made per document on the executors (the local code);
2. paragraph fingerprints held by more than ``max_paragraph_docs`` documents (boilerplate)
   meet by fingerprint and are dropped, as locally;
3. the others emit one row per permuted table keyed by ``(table, key bits)``; the local scan
   kernel finds the paragraph pairs within ``max_distance`` in each key's run;
4. paragraph pairs of two different documents meet by document pair, where
   :func:`neardup.containment.document_shares` (the batch method's decision) scores them.

Only the reference's ``topic`` evidence is distributed; the default ``copy`` evidence is refused
with a fix-it message (``neardup dedup`` runs it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..containment import document_shares
from ..index.layout import choose_blocks, make_layout
from ..methods.paragraph import boilerplate
from ..pairs import method_code
from .batches import Batch, concat, count_rows, route, size, tagged
from .tables import scan, table_rows

PARAGRAPH = method_code("paragraph")


def prints_batch(method: Any, texts: list[str], pos: np.ndarray) -> Batch:
    """One row per kept paragraph: fingerprint, document position, index, the document's count."""
    pp = method.paragraph_prints(texts)
    return {
        "pfp": pp.fingerprints,
        "doc": pos[pp.doc],
        "index": pp.index,
        "count": pp.counts[pp.doc],
        "short": np.array([pp.skipped_short], np.int64),  # one value per batch, summed later
    }


def _drop_boilerplate(batches: Iterator[Batch], limit: int) -> Iterator[tuple[str, Any]]:
    b = concat(batches)
    if not size(b):
        return
    order = np.lexsort((b["doc"], b["pfp"]))
    b = {c: v[order] for c, v in b.items()}
    boiler = boilerplate(b["pfp"], b["doc"], limit)  # the core's rule, on this fingerprint's rows
    yield "dropped", int(boiler.sum())
    yield "rows", {c: v[~boiler] for c, v in b.items()}


def _scan(batches: Iterator[Batch], masks: tuple[int, ...], k: int) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    for left, right, _ in scan(b, masks, k, "pfp"):
        cross = b["doc"][left] != b["doc"][right]
        left, right = left[cross], right[cross]
        swap = b["doc"][left] > b["doc"][right]
        left, right = np.where(swap, right, left), np.where(swap, left, right)
        yield {
            "pair": (b["doc"][left].astype(np.uint64) << np.uint64(32))
            | b["doc"][right].astype(np.uint64),
            "ia": b["index"][left],
            "ib": b["index"][right],
            "ca": b["count"][left],
            "cb": b["count"][right],
        }


def _shares(batches: Iterator[Batch], threshold: float) -> Iterator[tuple[str, Any]]:
    b = concat(batches)
    if not size(b):
        return
    doc_a = (b["pair"] >> np.uint64(32)).astype(np.int64)
    doc_b = (b["pair"] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    ones = np.ones(len(doc_a))
    shares = document_shares(doc_a, doc_b, b["ia"], b["ib"], ones, ones, b["ca"], b["cb"])
    keep = shares.duplicate(threshold=threshold, min_shared=0.0)
    yield "candidates", len(shares)
    yield (
        "edges",
        {
            "a": shares.a[keep],
            "b": shares.b[keep],
            "d": np.full(int(keep.sum()), -1, np.int16),
            "sim": shares.score[keep],
            "m": np.full(int(keep.sum()), PARAGRAPH, np.uint8),
        },
    )


def paragraph_edges(prints: Any, config: Any, *, partitions: int, storage: Any):
    """``(edges, info)`` for paragraph rows (see :func:`prints_batch`)."""
    short = int(prints.map(lambda b: int(b["short"].sum())).sum())
    rows = prints.map(lambda b: {c: v for c, v in b.items() if c != "short"})
    limit = config.max_paragraph_docs
    kept = route(rows, key="pfp", partitions=partitions).mapPartitions(
        lambda it: _drop_boilerplate(it, limit)
    )
    kept = kept.persist(storage)
    dropped = int(tagged(kept, "dropped").sum())
    usable = tagged(kept, "rows")
    n_usable = count_rows(usable)
    blocks = config.blocks or choose_blocks(n_usable, config.max_distance)
    layout = make_layout(max_distance=config.max_distance, blocks=blocks)
    masks, k = layout.masks, layout.max_distance
    rows_per_table = usable.mapPartitions(lambda it: table_rows(it, masks, "pfp"))
    pairs = route(rows_per_table, key="bucket", partitions=partitions).mapPartitions(
        lambda it: _scan(it, masks, k)
    )
    threshold = config.threshold
    scored = route(pairs, key="pair", partitions=partitions).mapPartitions(
        lambda it: _shares(it, threshold)
    )
    scored = scored.persist(storage)
    candidates = int(tagged(scored, "candidates").sum())
    edges = tagged(scored, "edges")
    info = {
        "paragraphs": n_usable + dropped,
        "short_paragraphs_skipped": short,
        "boilerplate_paragraphs_skipped": dropped,
        "candidate_document_pairs": candidates,
        "blocks": blocks,
        "tables": layout.tables,
    }
    return edges, info
