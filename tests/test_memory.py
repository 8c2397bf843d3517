"""Freed heap pages go back to the operating system, and the collector is paced for a batch
(neardup.memory)."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.memory import _trim, release_free_memory


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(_trim() is None, reason="not glibc: release_free_memory is a no-op")
def test_freed_mid_sized_arrays_are_given_back():
    """glibc serves mid-sized arrays from its heap once its mmap threshold has grown, and keeps
    their pages when they are freed; releasing returns them."""
    big = np.ones(8 << 20, np.uint8)  # freed mmap chunk: the threshold grows past 1 MB
    del big
    arrays = [np.ones(1 << 20, np.uint8) for _ in range(300)]  # 300 MB from the heap
    keep = arrays.pop()  # the top of the heap stays in use, so free() cannot trim it
    arrays.clear()
    held = _rss_mb()
    release_free_memory()
    assert held - _rss_mb() > 200
    assert keep.sum() == 1 << 20


def test_batch_collection_paces_the_collector_and_restores_it():
    """Inside a batch the collector runs at the batch thresholds (never more often than the
    caller's), and the caller's settings come back after it, also when the batch fails."""
    import gc

    from neardup.memory import BATCH_THRESHOLDS, batch_collection

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with batch_collection():
            assert gc.get_threshold() == BATCH_THRESHOLDS
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(10**6, 10, 10)
        with pytest.raises(ValueError), batch_collection():
            assert gc.get_threshold() == (10**6, BATCH_THRESHOLDS[1], BATCH_THRESHOLDS[2])
            raise ValueError
        assert gc.get_threshold() == (10**6, 10, 10)
    finally:
        gc.set_threshold(*before)
