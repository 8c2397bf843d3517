"""Memory of a large batch: freed pages given back between stages, and the cyclic collector
paced for a batch.

A batch allocates and frees millions of mid-sized arrays (a chunk of texts' grams, a chunk of
candidate pairs). glibc serves those from its heap once its adaptive mmap threshold has grown,
and keeps the freed pages: on a 1-million-document batch the process held 430 MB more than its
live arrays after the sketches were made. ``malloc_trim(0)`` returns the free pages (also those
inside the heap) in a few milliseconds, without changing how memory is allocated. Elsewhere
than glibc it is a no-op.

A batch makes millions of objects that live to its end (ids, texts, compared texts) and little
cyclic garbage, but CPython's collector runs a young collection every 700 container allocations
and, as the old generation grows, full collections that walk it: on weibo_ced_zh (772k posts)
that cost about 1 s of a 12.8 s `neardup dedup`. :func:`batch_collection` makes collections
rarer while a batch runs and restores the caller's settings after it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

BATCH_THRESHOLDS = (50_000, 20, 100)  # young allocations, then young and middle collections


@cache
def _trim():  # a ctypes function, or None
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return None


def release_free_memory() -> None:
    """Return the process's freed heap pages to the operating system (glibc; else nothing)."""
    trim = _trim()
    if trim is not None:
        trim(0)


@contextmanager
def batch_collection() -> Iterator[None]:
    """Run the block with the collector at ``BATCH_THRESHOLDS`` (never more often than the
    caller's settings), then restore them."""
    before = gc.get_threshold()
    gc.set_threshold(*(max(b, t) for b, t in zip(BATCH_THRESHOLDS, before, strict=False)))
    try:
        yield
    finally:
        gc.set_threshold(*before)
