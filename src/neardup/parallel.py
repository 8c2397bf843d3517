"""Work split over threads, for every core.

The compiled kernels release the interpreter lock (``nogil``), so threads run them on every
core without copying the data to other processes. Work is cut into chunks fixed by the data —
never by the number of workers — and the results are joined in chunk order, so the output is
identical for every worker count.
"""

from __future__ import annotations

import operator
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from typing import TypeVar

from .errors import ConfigError

T = TypeVar("T")


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


MAX_WORKERS = 1024


def resolve_workers(workers: int | None) -> int:
    """The number of threads for ``workers``: ``None`` or 0 means every available core."""
    if workers is None:
        return available_cores()
    if not isinstance(workers, bool) and hasattr(workers, "__index__"):
        workers = operator.index(workers)  # NumPy's integers too
    if workers == 0 and not isinstance(workers, bool):
        return available_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ConfigError(
            f"workers={workers!r}: give a number of threads (1 for one core), or 0 for every core"
        )
    if workers > MAX_WORKERS:  # each is a thread in every parallel call: 100,000 never ends
        raise ConfigError(
            f"workers={workers}: at most {MAX_WORKERS} threads (this machine has "
            f"{available_cores()} cores; 0 uses them all)"
        )
    return workers


def chunk_ranges(n: int, size: int) -> list[tuple[int, int]]:
    """``[(0, size), (size, 2 size), ...]`` covering ``range(n)``."""
    return [(lo, min(lo + size, n)) for lo in range(0, n, size)]


def per_worker(n: int, workers: int) -> int:
    """Items per thread when ``n`` items are split once over ``workers`` (for work whose result
    does not depend on where it is cut)."""
    return max(1, -(-n // max(1, workers)))


def map_ranges(function: Callable[[int, int], T], n: int, *, size: int, workers: int) -> list[T]:
    """``function(lo, hi)`` over the chunks of ``range(n)``, on up to ``workers`` threads;
    the results in chunk order (:func:`iter_ranges`, collected)."""
    return list(iter_ranges(function, n, size=size, workers=workers))


def iter_ranges(
    function: Callable[[int, int], T], n: int, *, size: int, workers: int
) -> Iterator[T]:
    """:func:`map_ranges` as results come, in chunk order, with at most ``2 * workers`` chunks
    computed ahead: the caller reduces each result before the next ones pile up (memory).
    Closing it early stops the threads once the chunks they run end."""
    ranges = chunk_ranges(n, size)
    if workers <= 1 or len(ranges) <= 1:
        for lo, hi in ranges:
            yield function(lo, hi)
        return
    with ThreadPoolExecutor(min(workers, len(ranges)), thread_name_prefix="neardup") as pool:
        ahead: deque[Future[T]] = deque()
        try:
            for lo, hi in ranges:
                ahead.append(pool.submit(copy_context().run, function, lo, hi))  # run's context
                if len(ahead) >= 2 * workers:
                    yield ahead.popleft().result()
            while ahead:
                yield ahead.popleft().result()
        finally:  # closed early: the chunks not started are not computed (the threads end)
            for future in ahead:
                future.cancel()
