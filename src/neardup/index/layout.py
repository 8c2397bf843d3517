"""Permuted-table layouts (Manku, Jain, Das Sarma 2007; reference 001).

The 64 bits are cut into ``blocks`` contiguous blocks. Two fingerprints within Hamming distance
``k`` differ in at most ``k`` blocks, so they agree exactly on at least ``blocks - k`` of them. One
table per choice of those ``blocks - k`` blocks — ``math.comb(blocks, k)`` tables, combinations
and not permutations — keys each fingerprint by the bits of its chosen blocks; every pair within
``k`` shares a key in at least one table.

::

    bits  63 ........................................... 0
         | block 4 | block 3 | block 2 | block 1 | block 0 |   blocks=5, k=3
    table 0 key:                        [ block 1| block 0 ]   C(5, 3) = 10 tables,
    table 1 key:              [ block 2]          [ block 0]   each keyed by 2 blocks
    ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..errors import ConfigError

MAX_TABLES = 512


@dataclass(frozen=True)
class TableLayout:
    max_distance: int
    blocks: int
    masks: tuple[int, ...]  # one key mask per table

    @property
    def tables(self) -> int:
        return len(self.masks)

    @property
    def key_bits(self) -> int:
        """Bits in the smallest table key."""
        return min(m.bit_count() for m in self.masks)

    def mask_array(self) -> np.ndarray:
        return np.array(self.masks, dtype=np.uint64)


def block_masks(blocks: int) -> list[int]:
    """Masks of ``blocks`` contiguous blocks covering 64 bits, the wider ones (64 % blocks) first."""
    base, extra = divmod(64, blocks)
    masks, start = [], 0
    for b in range(blocks):
        width = base + (1 if b < extra else 0)
        masks.append(((1 << width) - 1) << start)
        start += width
    return masks


def make_layout(*, max_distance: int, blocks: int) -> TableLayout:
    if blocks <= max_distance:
        raise ConfigError(
            f"blocks={blocks} must be greater than max_distance={max_distance}; "
            f"use blocks={max_distance + 1} or more"
        )
    if blocks > 64:
        raise ConfigError(f"blocks={blocks} is more than the 64 bits of a fingerprint")
    if math.comb(blocks, max_distance) > MAX_TABLES:
        raise ConfigError(
            f"blocks={blocks}, max_distance={max_distance} needs {math.comb(blocks, max_distance)} "
            f"tables (limit {MAX_TABLES}); use fewer blocks"
        )
    bm = block_masks(blocks)
    masks = []
    for keep in combinations(range(blocks), blocks - max_distance):
        m = 0
        for b in keep:
            m |= bm[b]
        masks.append(m)
    return TableLayout(max_distance, blocks, tuple(masks))


def _candidates_per_item(n: int, layout_blocks: int, k: int) -> tuple[int, float]:
    tables = math.comb(layout_blocks, k)
    key_bits = 64 * (layout_blocks - k) / layout_blocks
    return tables, n / 2.0**key_bits


def choose_blocks(n: int, max_distance: int, *, online: bool = False) -> int:
    """A block count for ``n`` fingerprints: least estimated work, within MAX_TABLES tables.

    Batch cost per table ~ sorting ``n`` keys plus checking every candidate pair; online cost per
    query ~ one binary search per table plus the candidates, and memory grows with the tables.
    """
    k = max_distance
    n = max(n, 1)
    best, best_cost = k + 1, math.inf
    for b in range(k + 1, 65):
        if math.comb(b, k) > MAX_TABLES:
            break
        tables, cand = _candidates_per_item(n, b, k)
        if online:
            cost = tables * (40 + math.log2(n) * 4 + 16) + tables * cand * 2
        else:
            cost = tables * n * (25 + 1.0 * cand)
        if cost < best_cost:
            best, best_cost = b, cost
    return best
