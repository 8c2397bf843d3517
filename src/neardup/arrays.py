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
    if not len(values):
        return values
    return values[np.r_[True, values[1:] != values[:-1]]]
