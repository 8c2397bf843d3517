"""Candidate pairs on the cluster for the ``ngram`` method (short texts), as batches of edges.

The same pairs as :meth:`neardup.methods.ngram.NgramMethod.find_pairs`:

1. identical normalised texts meet by their 64-bit hash; each copy is linked to the first
   document with that text (method ``exact``, similarity 1), confirmed on the text itself;
2. one copy of each text emits its distinct m-gram keys (:func:`key_rows`); postings of a key meet in one
   partition; keys held by more than ``max_posting`` texts are pruned (and counted) exactly as
   locally, since the pruning depends only on the key's posting count; the others give every
   pair of their texts as candidates, deduplicated within the partition and then globally;
3. candidates are verified on the executors (:func:`neardup.spark.simhash.verified`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import _kernels
from ..arrays import unique_sorted
from ..index.ngram import candidate_chunks, key_sets, sketch_keys
from ..methods.base import first_copies
from ..normalize import encode_texts
from ..pairs import method_code
from .batches import Batch, concat, keys_per_doc, pair_codes, pair_ends, route, size, tagged

EXACT = method_code("exact")


def text_hashes(norm: list[str]) -> np.ndarray:
    cps, offsets = encode_texts(norm)
    return _kernels.document_hashes(cps, offsets)


def _exact(batches: Iterator[Batch]) -> Iterator[tuple[str, Batch]]:
    b = concat(batches)
    if not size(b):
        return
    pos, norm = b["pos"], b["norm"]
    head = first_copies(b["h"], norm, rank=pos)  # the core's grouping of exact copies
    copy = np.flatnonzero(head != np.arange(len(head)))
    reps = np.flatnonzero(head == np.arange(len(head)))
    yield "reps", {c: v[reps] for c, v in b.items() if c != "h"}  # with any other column
    yield (
        "edges",
        {
            "a": pos[head[copy]],
            "b": pos[copy],
            "d": np.full(len(copy), -1, np.int16),
            "sim": np.ones(len(copy), np.float32),
            "m": np.full(len(copy), EXACT, np.uint8),
        },
    )


def exact_groups(texts: Any, *, partitions: int) -> tuple[Any, Any]:
    """``(reps, edges)``: one copy of each distinct text, and copy -> first edges."""
    parts = route(texts, key="h", partitions=partitions).mapPartitions(_exact)
    return tagged(parts, "reps"), tagged(parts, "edges")


def _key_rows(batches: Iterator[Batch], key_length: int, sketch: int | None) -> Iterator[Batch]:
    for b in batches:
        values, offsets = sketch_keys(*key_sets(list(b["norm"]), key_length), sketch)
        yield {"key": values, "pos": np.repeat(b["pos"], np.diff(offsets))}


def _candidates(batches: Iterator[Batch], max_posting: int | None) -> Iterator[tuple[str, Any]]:
    """The candidate pairs of the keys routed here, by the core's compiled candidate pass
    (:func:`neardup.index.ngram.candidate_chunks`) over this partition's postings: each pair
    once per partition, in bounded chunks (a pair sharing keys of several partitions comes
    from each; :func:`_decode` keeps one)."""
    b = concat(batches)
    if not size(b):
        return
    docs, _first, keys = keys_per_doc(b["pos"], b["key"])  # local ids in input order
    stats, chunks = candidate_chunks(*keys, max_posting=max_posting)
    yield "stats", (stats.keys, stats.pruned_keys, stats.pruned_postings)
    for left, right in chunks:
        yield "pairs", {"code": pair_codes(docs[left], docs[right])}


def _decode(batches: Iterator[Batch]) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    a, c = pair_ends(unique_sorted(b["code"]))
    yield {"a": a, "b": c}


def key_rows(reps: Any, *, key_length: int, sketch: int | None) -> Any:
    """Rows ``key, pos``: each distinct text's m-gram keys (its ``sketch`` smallest)."""
    return reps.mapPartitions(lambda it: _key_rows(it, key_length, sketch))


def candidate_edges(rows: Any, *, max_posting: int | None, partitions: int):
    """``(candidates, stats)``: distinct pairs of texts sharing an unpruned key of the rows
    ``key, pos``, and an RDD of ``(keys, pruned_keys, pruned_postings)`` per partition."""
    parts = route(rows, key="key", partitions=partitions).mapPartitions(
        lambda it: _candidates(it, max_posting)
    )
    stats, pairs = tagged(parts, "stats"), tagged(parts, "pairs")
    candidates = route(pairs, key="code", partitions=partitions).mapPartitions(_decode)
    return candidates, stats
