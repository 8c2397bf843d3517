"""The ``auto`` method (the default) on the cluster: the pairs of :meth:`AutoMethod.find_pairs`.

Every step calls the method's own functions; only the distribution is Spark's:

1. each document's compared text (:meth:`AutoMethod.compared`) and its 64-bit hash, inside the
   partitions; identical compared texts meet by hash and each copy is linked to the first
   (method ``exact``, similarity 1) — :func:`neardup.spark.ngram.exact_groups`;
2. the frozen common-gram table (:class:`CommonGrams`) is fitted on the distinct texts as
   locally — the grams held by more than ``max(common_min_df, common_share · N)`` texts — in
   two passes without a shuffle (see :func:`fit_table`); the table (not pairs) is broadcast,
   or the table given with ``tables=`` is;
3. each distinct text's sketch keys (its smallest rare-gram hashes) travel with the text and
   meet by key; in each partition, the texts that share a key there are prepared with the table
   once, every pair sharing a key is a candidate (the core's compiled candidate pass; no posting
   cap: a rare gram is held by at most ``min_df`` texts, by the table's definition), and the
   candidates are judged where they are, with :meth:`AutoMethod.verify` (the copy rule) — the
   candidate pairs themselves never travel;
4. a pair sharing keys of several partitions is judged in each, with the same verdict (the
   verdict depends only on the two texts and the table); the verified pairs meet by pair and
   one of each is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..arrays import unique_sorted
from ..index.ngram import candidate_chunks
from ..methods.auto import VERIFY_CHUNK, AutoMethod
from ..methods.commongrams import CommonGrams, frequent_values
from ..methods.prepared import gram_sets
from ..pairs import method_code
from .batches import Batch, concat, keys_per_doc, pair_codes, route, size, tagged
from .ngram import exact_groups
from .workers import worker_method

AUTO = method_code("auto")


def _frequent(batches: Iterator[Batch], gram: int, words: int, floor: int) -> Iterator[np.ndarray]:
    """The grams held by more than ``floor`` of this partition's texts."""
    parts = [gram_sets(list(b["norm"]), gram, words=words)[0] for b in batches if size(b)]
    if parts:
        yield frequent_values(np.concatenate(parts), floor)


def _counts_of(
    batches: Iterator[Batch], gram: int, words: int, wanted: Any
) -> Iterator[np.ndarray]:
    """In how many of this partition's texts each of the ``wanted`` grams occurs."""
    wanted = wanted.value
    counts = np.zeros(len(wanted), np.int64)
    for b in batches:
        if size(b) and len(wanted):
            values = gram_sets(list(b["norm"]), gram, words=words)[0]
            at = np.minimum(np.searchsorted(wanted, values), len(wanted) - 1)
            counts += np.bincount(at[wanted[at] == values], minlength=len(wanted))
    yield counts


def fit_table(reps: Any, method: AutoMethod, documents: int) -> CommonGrams:
    """The common-gram table of the distinct texts ``reps`` (``documents`` of them), exactly
    as :meth:`CommonGrams.fit` computes it on one machine, without shuffling every gram: a gram
    held by more than ``min_df`` texts over ``P`` partitions is held by more than
    ``min_df // P`` texts of at least one of them, so those few grams are the only candidates,
    and a second pass counts exactly them (a dense vector per partition, summed)."""
    cfg = method.config
    min_df = max(cfg.common_min_df, int(cfg.common_share * documents))
    gram, words, floor = cfg.gram, cfg.word_grams, min_df // max(reps.getNumPartitions(), 1)
    found = reps.mapPartitions(lambda it: _frequent(it, gram, words, floor)).collect()
    wanted = unique_sorted(np.concatenate([np.empty(0, np.uint64), *found]))
    shared = reps.context.broadcast(wanted)
    counts = reps.mapPartitions(lambda it: _counts_of(it, gram, words, shared)).fold(
        np.zeros(len(wanted), np.int64), np.add
    )
    shared.unpersist()
    return CommonGrams(
        wanted[counts > min_df].astype(np.uint64), documents, min_df, gram=gram, words=words
    )


def _key_rows(batches: Iterator[Batch], options: dict, tables: Any) -> Iterator[Batch]:
    """A row per sketch key of each text: ``key, pos`` and the text itself."""
    method = worker_method("auto", options, tables.value)
    for b in batches:
        if size(b):
            values, offsets = method.prepare(list(b["norm"])).sketch
            counts = np.diff(offsets)
            yield {
                "key": values,
                "pos": np.repeat(b["pos"], counts),
                "norm": np.repeat(b["norm"], counts),
            }


def _sharing(b: Batch) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """``(docs, texts, (keys, offsets))``: the positions and texts of the texts that share a key
    with another text of the partition (the others have no candidate here), in input order, and
    those shared keys per text."""
    _, key_at, key_count = np.unique(b["key"], return_inverse=True, return_counts=True)
    rows = np.flatnonzero(key_count[key_at.reshape(-1)] > 1)
    docs, first, keys = keys_per_doc(b["pos"][rows], b["key"][rows])
    return docs, b["norm"][rows[first]], keys


def _verified(
    batches: Iterator[Batch], options: dict, tables: Any
) -> Iterator[tuple[str, Batch | int]]:
    """``("edges", batch)`` items, the verified pairs among the texts of this partition's keys
    (candidates by the core's candidate pass, judged chunk by chunk with the copy rule: memory
    bounded as locally), then ``("checked", number of candidates judged)``."""
    b = concat(batches)
    if not size(b):
        return
    docs, texts, (keys, offsets) = _sharing(b)
    if len(docs) < 2:
        return
    method = worker_method("auto", options, tables.value)
    prepared = method.prepare(list(texts))
    _stats, chunks = candidate_chunks(keys, offsets)
    checked = 0
    for left, right in chunks:
        checked += len(left)
        for lo in range(0, len(left), VERIFY_CHUNK):
            hi = min(len(left), lo + VERIFY_CHUNK)
            sim, ok = method.verify(prepared, left[lo:hi], prepared, right[lo:hi])
            yield (
                "edges",
                {
                    "a": docs[left[lo:hi][ok]],
                    "b": docs[right[lo:hi][ok]],
                    "sim": sim[ok].astype(np.float32),
                },
            )
    yield "checked", checked


def _one_each(batches: Iterator[Batch]) -> Iterator[Batch]:
    """One of each verified pair (a pair judged in several partitions comes from each)."""
    b = concat(batches)
    if not size(b):
        return
    _, first = np.unique(b["code"], return_index=True)
    n = len(first)
    yield {
        "a": b["a"][first],
        "b": b["b"][first],
        "d": np.full(n, -1, np.int16),
        "sim": b["sim"][first],
        "m": np.full(n, AUTO, np.uint8),
    }


def auto_edges(
    prepared: Any,
    options: dict[str, Any],
    *,
    tables: CommonGrams | None,
    partitions: int,
    storage: Any,
) -> tuple[Any, dict[str, Any], CommonGrams]:
    """``(edges, info, table)``: the exact-copy and verified edges of ``auto``, the counts for
    the summary and the table the pairs were judged with (fitted here unless given)."""
    reps, exact = exact_groups(
        prepared.map(lambda b: {"pos": b["pos"], "h": b["h"], "norm": b["norm"]}),
        partitions=partitions,
    )
    reps = reps.persist(storage)
    n_reps = int(reps.map(size).sum())
    method = worker_method("auto", options, tables)
    table = tables if tables is not None else fit_table(reps, method, n_reps)
    shared = reps.context.broadcast(table)
    rows = reps.mapPartitions(lambda it: _key_rows(it, options, shared))
    judged = route(rows, key="key", partitions=partitions).mapPartitions(
        lambda it: _verified(it, options, shared)
    )
    judged = judged.persist(storage)
    n_checked = int(tagged(judged, "checked").sum())
    edges = tagged(judged, "edges").map(lambda e: {**e, "code": pair_codes(e["a"], e["b"])})
    checked = route(edges, key="code", partitions=partitions).mapPartitions(_one_each)
    info = {
        "distinct_texts": n_reps,
        "common_grams": len(table.values),
        "common_min_df": int(table.min_df),
        "candidate_checks": n_checked,
    }
    return exact.union(checked), info, table
