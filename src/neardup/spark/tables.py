"""Permuted-table keys as Spark shuffle keys, shared by the simhash and paragraph stages.

Every row emits one copy per table with a ``bucket`` column (the table's key bits, mixed with
the table number); rows routed by ``bucket`` meet their whole key run in one partition, where
:func:`scan` runs the local compiled kernel per table. A pair is reported only by the first
table in which it shares a key, so each comes out once.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .. import _kernels
from ..index.permuted import _sorted_by_key
from .batches import Batch, size

_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def table_rows(batches: Iterator[Batch], masks: tuple[int, ...], column: str) -> Iterator[Batch]:
    """Each row once per table, with ``table`` and ``bucket`` columns added."""
    for b in batches:
        n = size(b)
        for t, mask in enumerate(masks):
            salt = np.uint64(((t + 1) * _GOLDEN) & _MASK64)
            yield {
                "table": np.full(n, t, np.int16),
                "bucket": (b[column] & np.uint64(mask)) ^ salt,
                **b,
            }


def scan(
    b: Batch, masks: tuple[int, ...], max_distance: int, column: str
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per table: row indices ``(left, right)`` into ``b`` of the pairs within ``max_distance``."""
    mask_array = np.array(masks, dtype=np.uint64)
    for t in np.unique(b["table"]).tolist():
        sel = np.flatnonzero(b["table"] == t)
        u = np.ascontiguousarray(b[column][sel])
        order, keys = _sorted_by_key(u, masks[t])
        left, right, dist = _kernels.scan_table_pairs(u, order, keys, t, mask_array, max_distance)
        if len(left):
            yield sel[left], sel[right], dist
