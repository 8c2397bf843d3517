"""The ``auto`` method (the default) on the cluster: the pairs of :meth:`AutoMethod.find_pairs`.

Every step calls the method's own functions; only the distribution is Spark's:

1. each document's compared text (:meth:`AutoMethod.compared`) and its 64-bit hash, inside the
   partitions; identical compared texts meet by hash and each copy is linked to the first
   (method ``exact``, similarity 1) — :func:`neardup.spark.ngram.exact_groups`;
2. the frozen common-gram table (:class:`CommonGrams`) is fitted on the distinct texts as
   locally — the grams held by more than ``max(common_min_df, common_share · N)`` texts — in
   two passes without a shuffle (see :func:`fit_table`); the table (not pairs) is broadcast,
   or the table given with ``tables=`` is;
3. each distinct text's sketch keys (its smallest rare-gram hashes) meet by key; every pair of
   texts sharing one is a candidate (no posting cap: a rare gram is held by at most
   ``min_df`` texts, by the table's definition);
4. each candidate meets both compared texts by position; the executors prepare those texts
   with the table and judge the pairs with :meth:`AutoMethod.verify` (the copy rule).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..methods.auto import VERIFY_CHUNK, AutoMethod, CommonGrams, gram_sets
from ..pairs import method_code
from .batches import Batch, size
from .ngram import candidate_edges, exact_groups
from .simhash import with_texts
from .workers import worker_method

AUTO = method_code("auto")


def _frequent(batches: Iterator[Batch], gram: int, floor: int) -> Iterator[np.ndarray]:
    """The grams held by more than ``floor`` of this partition's texts."""
    parts = [gram_sets(list(b["norm"]), gram)[0] for b in batches if size(b)]
    if parts:
        grams, counts = np.unique(np.concatenate(parts), return_counts=True)
        yield grams[counts > floor]


def _counts_of(batches: Iterator[Batch], gram: int, wanted: Any) -> Iterator[np.ndarray]:
    """In how many of this partition's texts each of the ``wanted`` grams occurs."""
    wanted = wanted.value
    counts = np.zeros(len(wanted), np.int64)
    for b in batches:
        if size(b) and len(wanted):
            values = gram_sets(list(b["norm"]), gram)[0]
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
    gram, floor = cfg.gram, min_df // max(reps.getNumPartitions(), 1)
    found = reps.mapPartitions(lambda it: _frequent(it, gram, floor)).collect()
    wanted = np.unique(np.concatenate([np.empty(0, np.uint64), *found]))
    shared = reps.context.broadcast(wanted)
    counts = reps.mapPartitions(lambda it: _counts_of(it, gram, shared)).fold(
        np.zeros(len(wanted), np.int64), np.add
    )
    shared.unpersist()
    return CommonGrams(wanted[counts > min_df].astype(np.uint64), documents, min_df)


def _key_rows(batches: Iterator[Batch], options: dict, tables: Any) -> Iterator[Batch]:
    method = worker_method("auto", options, tables.value)
    for b in batches:
        if size(b):
            values, offsets = method.prepare(list(b["norm"])).sketch
            yield {"key": values, "pos": np.repeat(b["pos"], np.diff(offsets))}


def _verify(batches: Iterator[Batch], options: dict, tables: Any) -> Iterator[Batch]:
    """The copy rule on each pair; each distinct text of a batch is prepared once."""
    method = worker_method("auto", options, tables.value)
    for b in batches:
        m = size(b)
        if not m:
            continue
        _, first, where = np.unique(np.r_[b["a"], b["b"]], return_index=True, return_inverse=True)
        texts = np.r_[b.pop("ta"), b.pop("tb")][first]
        prepared = method.prepare(list(texts))
        where = where.reshape(-1)
        sim = np.zeros(m, np.float32)
        ok = np.zeros(m, np.bool_)
        for lo in range(0, m, VERIFY_CHUNK):  # bounded memory, as on one machine
            hi = min(m, lo + VERIFY_CHUNK)
            sim[lo:hi], ok[lo:hi] = method.verify(
                prepared, where[lo:hi], prepared, where[m + lo : m + hi]
            )
        out = {c: v[ok] for c, v in b.items()}
        out["d"] = np.full(int(ok.sum()), -1, np.int16)
        out["sim"] = sim[ok].astype(np.float32)
        out["m"] = np.full(int(ok.sum()), AUTO, np.uint8)
        yield out


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
    candidates, _stats = candidate_edges(rows, max_posting=None, partitions=partitions)
    candidates = candidates.persist(storage)
    n_candidates = int(candidates.map(size).sum())
    joined = with_texts(candidates, reps, partitions=partitions)
    checked = joined.mapPartitions(lambda it: _verify(it, options, shared))
    info = {
        "distinct_texts": n_reps,
        "common_grams": len(table.values),
        "common_min_df": int(table.min_df),
        "candidates": n_candidates,
    }
    return exact.union(checked), info, table
