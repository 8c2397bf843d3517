"""``neardup._prefetch.prefetch``: a hint that changes no result, wherever it points."""

from __future__ import annotations

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._prefetch import prefetch


@numba.njit(cache=False)
def _gather(values, rows, picks):
    """Sum of ``values[picks]`` and of the rows ``rows[picks % len(rows)]``, hinting each pick
    (and one past the end) before it is read."""
    total = 0
    for p in range(picks.shape[0]):
        prefetch(values, picks[p])
        prefetch(values, values.shape[0])  # past the end: a hint never faults
        prefetch(rows, picks[p] % rows.shape[0])
        total += values[picks[p]]
        for k in range(rows.shape[1]):
            total += rows[picks[p] % rows.shape[0], k]
    return total


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=200), st.integers(1, 50))
def test_a_hinted_gather_reads_what_numpy_reads(values, picks_count):
    values = np.array(values, np.int64)
    rows = np.arange(values.shape[0] * 3, dtype=np.int64).reshape(-1, 3)
    picks = np.random.default_rng(picks_count).integers(0, len(values), picks_count)
    expected = int(values[picks].sum() + rows[picks % len(rows)].sum())
    assert _gather(values, rows, picks) == expected
