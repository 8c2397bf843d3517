"""Array helpers the standard library of NumPy does not give at the speed the core needs."""

from __future__ import annotations

import numpy as np


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values of ``values``, sorted: what ``np.unique(values)`` returns.

    NumPy 2.3 and later find the distinct values of a plain ``np.unique`` call with a hash set,
    which is 10 times slower than sorting on large arrays of 64-bit integers (3 million
    positions: 2.2 s against 0.19 s on this project's machine), so the core sorts instead.
    """
    values = np.sort(np.asarray(values).reshape(-1))
    return values[run_firsts(values)]


def run_firsts(ordered: np.ndarray) -> np.ndarray:
    """Where each run of equal values of a sorted array starts (a boolean mask)."""
    if not len(ordered):
        return np.zeros(0, np.bool_)
    return np.r_[True, ordered[1:] != ordered[:-1]]


def gather(
    values: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The runs ``values[starts[k] : starts[k] + lengths[k]]`` one after another, as flat rows
    ``(values, offsets)``: one fancy index, no loop per row."""
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    at = np.repeat(np.asarray(starts, np.int64) - offsets[:-1], lengths) + np.arange(offsets[-1])
    return values[at], offsets
