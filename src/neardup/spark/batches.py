"""Columnar batches on RDDs: many rows per record, routed between partitions by a key's hash.

A batch is a ``dict`` of equal-length NumPy columns. Shuffling batches instead of one Python
tuple per row keeps the per-row work in NumPy and the compiled kernels, which is what makes the
Spark job fast in PySpark; the routing is still by key (a row goes to partition
``hash(key) % partitions``), so every row with the same key meets in one partition, as in a
keyed shuffle.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .. import _kernels

Batch = dict[str, np.ndarray]


def mix64(x: np.ndarray) -> np.ndarray:
    """The core's 64-bit finaliser (MurmurHash3 fmix64) of each key: spreads keys evenly over
    partitions."""
    return _kernels.mix_keys(np.asarray(x).astype(np.uint64))


def pair_codes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One 64-bit key per pair of positions (each fits 32 bits: the job refuses more documents),
    ordered by ``(a, b)``."""
    return (np.asarray(a).astype(np.uint64) << np.uint64(32)) | np.asarray(b).astype(np.uint64)


def pair_ends(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions ``(a, b)`` of :func:`pair_codes`."""
    return (
        (codes >> np.uint64(32)).astype(np.int64),
        (codes & np.uint64(0xFFFFFFFF)).astype(np.int64),
    )


def keys_per_doc(
    pos: np.ndarray, key: np.ndarray
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Rows ``(pos, key)`` regrouped by document: the distinct positions (ascending), the row
    of each one's first key, and each one's keys as ``(values, offsets)`` — the input of the
    core's candidate pass."""
    docs, first, local = np.unique(pos, return_index=True, return_inverse=True)
    local = local.reshape(-1)
    order = np.argsort(local, kind="stable")
    offsets = np.zeros(len(docs) + 1, np.int64)
    np.cumsum(np.bincount(local, minlength=len(docs)), out=offsets[1:])
    return docs, first, (key[order], offsets)


def concat(batches: Iterable[Batch]) -> Batch | None:
    """One batch from many (``None`` when there are none)."""
    parts = [b for b in batches if b]
    if not parts:
        return None
    return {c: np.concatenate([b[c] for b in parts]) for c in parts[0]}


def size(batch: Batch | None) -> int:
    return len(next(iter(batch.values()))) if batch else 0


def take(batch: Batch, index: np.ndarray) -> Batch:
    return {c: v[index] for c, v in batch.items()}


def targets(keys: np.ndarray, partitions: int, bounds: np.ndarray | None = None) -> np.ndarray:
    """The partition of each key: by its hash, or with ``bounds`` (the sorted first key of
    each partition) by range, so that partition order is key order."""
    if bounds is not None:
        return np.searchsorted(bounds, keys, side="right") - 1
    return (mix64(keys) % np.uint64(partitions)).astype(np.int64)


def _split(
    batches: Iterator[Batch], key: str, partitions: int, bounds: np.ndarray | None = None
) -> Iterator[tuple[int, Batch]]:
    for batch in batches:
        if not size(batch):
            continue
        target = targets(batch[key], partitions, bounds)
        order = np.argsort(target, kind="stable")
        sorted_target = target[order]
        cuts = np.flatnonzero(np.diff(sorted_target)) + 1
        for part in np.split(order, cuts):
            yield int(target[part[0]]), take(batch, part)


def _merge(pairs: Iterator[tuple[int, Batch]]) -> Iterator[Batch]:
    merged = concat(batch for _, batch in pairs)
    if merged is not None:
        yield merged


def route(rdd: Any, *, key: str, partitions: int, bounds: np.ndarray | None = None) -> Any:
    """Shuffle an RDD of batches so that rows with equal ``key`` land in the same partition
    (by range with ``bounds``, see :func:`targets`).

    The result holds at most one batch per partition.
    """
    return (
        rdd.mapPartitions(lambda it: _split(it, key, partitions, bounds))
        .partitionBy(partitions, lambda p: p)
        .mapPartitions(_merge, preservesPartitioning=True)
    )


def tagged(rdd: Any, tag: str) -> Any:
    """The values of an RDD of ``(tag, value)`` items whose tag is ``tag``."""
    return rdd.filter(lambda x: x[0] == tag).map(lambda x: x[1])


def count_rows(rdd: Any) -> int:
    return int(rdd.map(size).sum())


def _split_tagged(
    batches: Iterator[Batch], tag: str, key: str, partitions: int, bounds: np.ndarray | None
) -> Iterator[tuple[int, tuple[str, Batch]]]:
    for target, batch in _split(batches, key, partitions, bounds):
        yield target, (tag, batch)


def _merge_tagged(pairs: Iterator[tuple[int, tuple[str, Batch]]]) -> Iterator[dict[str, Batch]]:
    by_tag: dict[str, list[Batch]] = {}
    for _, (tag, batch) in pairs:
        by_tag.setdefault(tag, []).append(batch)
    yield {tag: merged for tag, parts in by_tag.items() if (merged := concat(parts)) is not None}


def cogroup(
    sides: dict[str, tuple[Any, str]], *, partitions: int, bounds: np.ndarray | None = None
) -> Any:
    """Bring several RDDs of batches together by key: one ``{tag: batch}`` per partition.

    ``sides`` maps a tag to ``(rdd, key column)``; rows of every side whose keys are equal meet
    in the same partition (a batch-wise co-group, the basis of the joins below); with
    ``bounds``, partition ``k`` holds the keys of range ``k`` (see :func:`targets`).
    """
    parts = [
        rdd.mapPartitions(lambda it, t=tag, k=key: _split_tagged(it, t, k, partitions, bounds))
        for tag, (rdd, key) in sides.items()
    ]
    union = parts[0].context.union(parts)
    return union.partitionBy(partitions, lambda p: p).mapPartitions(_merge_tagged)


def lookup(keys: np.ndarray, table_keys: np.ndarray, table_values: np.ndarray) -> np.ndarray:
    """``table_values`` at the position of each of ``keys`` in ``table_keys`` (all present)."""
    order = np.argsort(table_keys, kind="stable")
    at = np.searchsorted(table_keys[order], keys)
    if len(keys) and (at.max() >= len(order) or (table_keys[order][at] != keys).any()):
        raise KeyError("lookup of a key that is not in the table")
    return table_values[order[at]]
