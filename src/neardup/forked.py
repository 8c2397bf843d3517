"""Interpreter-bound work on every core: chunks of it computed in forked children.

Threads give the compiled kernels every core (they release the interpreter lock), but work
written in Python — the copy rule's value test, which aligns a pair's tokens and reads its
gaps — runs on one core whatever the number of threads. Where it is safe (Linux, and no thread
in this process but the calling one: a lock another thread held would stay held in a child
forever), :func:`map_forked` forks ``workers - 1`` children, which see this process's memory as
it is (nothing is copied to them). The chunks' numbers wait in a pipe; this process and the
children each take the next one as they finish the last (so a slow chunk does not hold the
others back) and the children send their results back pickled through a pipe of their own.
The results are put in chunk order, so what the caller joins is what one process would have
made. A chunk a failed child took (killed, out of memory) is computed here: the same result,
or the same error, raised where it is seen.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

from .parallel import chunk_ranges

T = TypeVar("T")

_NUMBER = struct.Struct("<i")  # a chunk's number in the pipe of chunks to take
# Chunk numbers written before any process takes one: what a pipe holds whatever its size (one
# page; Linux gives a user over its pipe-page quota one-page pipes), so the write never waits.
MAX_CHUNKS = 4096 // _NUMBER.size


def can_fork() -> bool:
    """Whether this process may fork a child that runs Python: Linux, one thread."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def map_forked(function: Callable[[int, int], T], n: int, *, size: int, workers: int) -> list[T]:
    """``function(lo, hi)`` over the chunks of ``range(n)`` (``size`` items each), the results
    in chunk order, on this process and ``workers - 1`` forked children where forking is safe
    (:func:`can_fork`) and there are two to ``MAX_CHUNKS`` chunks; else here, one chunk after
    another. ``function``'s result must pickle."""
    ranges = chunk_ranges(n, size)
    if workers <= 1 or len(ranges) < 2 or len(ranges) > MAX_CHUNKS or not can_fork():
        return [function(lo, hi) for lo, hi in ranges]
    take, put = os.pipe()
    os.write(put, b"".join(_NUMBER.pack(k) for k in range(len(ranges))))
    os.close(put)  # a process finding the pipe empty is done
    found: dict[int, Any] = {}
    children: list[_Child] = []
    try:
        children = [_Child(function, ranges, take) for _ in range(min(workers, len(ranges)) - 1)]
        found.update(_take_chunks(function, ranges, take))
        for child in children:
            found.update(child.results())
        for k in set(range(len(ranges))) - found.keys():  # taken by a child that failed
            found[k] = function(*ranges[k])
        return [found[k] for k in range(len(ranges))]
    finally:
        os.close(take)
        for child in children:
            child.stop()


def _take_chunks(
    function: Callable[[int, int], T], ranges: list[tuple[int, int]], take: int
) -> dict[int, T]:
    """Compute the chunks this process takes from the pipe ``take`` until it is empty."""
    done = {}
    while len(number := os.read(take, _NUMBER.size)) == _NUMBER.size:
        (k,) = _NUMBER.unpack(number)
        done[k] = function(*ranges[k])
    return done


class _Child:
    """A forked child taking chunks (:func:`_take_chunks`) and writing their results, pickled,
    to its pipe; it leaves with ``os._exit`` (no exit handler of the parent's runs in it, and
    nothing the parent buffered for its output is written twice)."""

    def __init__(self, function: Callable[[int, int], Any], ranges: list, take: int):
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child
            status = 1
            try:
                os.close(read)
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # interrupted: leave, say nothing
                data = pickle.dumps(
                    _take_chunks(function, ranges, take), protocol=pickle.HIGHEST_PROTOCOL
                )
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        self.pipe = os.fdopen(read, "rb")

    def results(self) -> dict[int, Any]:
        """The chunks the child computed, by number (none when it failed)."""
        data = self.pipe.read()
        self.pipe.close()
        _pid, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if os.waitstatus_to_exitcode(status) == 0:
            with suppress(Exception):  # a truncated result: its chunks are computed again
                return pickle.loads(data)
        return {}

    def stop(self) -> None:
        """End the child if it still runs (this process is leaving on an error)."""
        if not self.pipe.closed:
            self.pipe.close()
        if self.pid:
            with suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
