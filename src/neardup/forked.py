"""Interpreter-bound work on every core: chunks of it computed in forked children.

Threads give the compiled kernels every core (they release the interpreter lock), but work
written in Python — the copy rule's value test, which aligns a pair's tokens and reads its
gaps — runs on one core whatever the number of threads. Where it is safe (Linux, and no Python
thread in this process but the calling one: a lock another thread held would stay held in a
child forever), :func:`map_forked` forks ``workers - 1`` children, which see this process's
memory as it is (nothing is copied to them). The chunks' numbers wait in a pipe; this process
and the children each take the next one as they finish the last (so a slow chunk does not hold
the others back); a child tells each chunk it finished as it goes (eight bytes: how this process
knows it is alive) and sends its results, pickled, when the chunks run out.
The results are put in chunk order, so what the caller joins is what one process would have
made.

Nothing a child does can change that answer: a chunk whose result did not arrive whole (the
child was killed, ran out of memory, or raised) is computed here — the same result, or the same
error, raised where it is seen — and so is every chunk of a child that sends nothing, and uses
no processor time, for ``PATIENCE`` times the slowest chunk this process computed (at least
``MIN_PATIENCE`` seconds: a child stuck on a lock some library's own thread held at the fork),
after it is killed. A
child dies with this process (``PR_SET_PDEATHSIG``), runs no garbage collection of the objects
it inherited (their finalizers belong to this process) and leaves with ``os._exit`` (no exit
handler runs, no buffered output is written twice). A child that cannot be forked (no memory,
no process slot) is simply not there.
"""

from __future__ import annotations

import ctypes
import gc
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from .parallel import chunk_ranges

T = TypeVar("T")

_NUMBER = struct.Struct("<i")  # a chunk's number in the pipe of chunks to take
_LENGTH = struct.Struct("<Q")  # what a child sends: 0 (a chunk done) or its results' length
# Chunk numbers written before any process takes one: what a pipe holds whatever its size (one
# page; Linux gives a user over its pipe-page quota one-page pipes), so the write never waits.
MAX_CHUNKS = 4096 // _NUMBER.size
PATIENCE = 20  # times the slowest chunk computed here that a silent child is waited for
MIN_PATIENCE = 60.0  # seconds
_PR_SET_PDEATHSIG = 1


def can_fork() -> bool:
    """Whether this process may fork a child that runs Python: Linux, one Python thread."""
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
        libc = _libc()  # loaded before any fork: a child does not call the loader
        for _ in range(min(workers, len(ranges)) - 1):
            with _signals_blocked() as mask:  # an interrupt comes once the child is listed
                try:
                    children.append(_Child(function, ranges, take, mask, libc))
                except OSError:  # no memory or process slot for another child: fewer of them
                    break
        slowest = 0.0
        for k, result, seconds in _take_chunks(function, ranges, take):
            found[k] = result
            slowest = max(slowest, seconds)
        _collect(children, found, patience=max(MIN_PATIENCE, PATIENCE * slowest))
        for k in range(len(ranges)):
            if k not in found:  # its child failed, or was stopped
                found[k] = function(*ranges[k])
        return [found[k] for k in range(len(ranges))]
    finally:
        os.close(take)
        for child in children:
            child.stop()


def _take_chunks(
    function: Callable[[int, int], T], ranges: list[tuple[int, int]], take: int
) -> Iterator[tuple[int, T, float]]:
    """The chunks this process takes from the pipe ``take`` until it is empty, computed:
    ``(number, result, seconds)``."""
    while len(number := os.read(take, _NUMBER.size)) == _NUMBER.size:
        (k,) = _NUMBER.unpack(number)
        start = time.perf_counter()
        result = function(*ranges[k])
        yield k, result, time.perf_counter() - start


def _collect(children: list[_Child], found: dict[int, Any], *, patience: float) -> None:
    """Read every child's results into ``found`` until each has finished, or has sent nothing
    for ``patience`` seconds without using processor time in that while (then it is stopped:
    its chunks are computed by the caller)."""
    waiting = {child.fd: child for child in children}
    heard = dict.fromkeys(waiting, time.monotonic())  # when each child last showed life
    poller = select.poll()  # not select(): descriptors past 1023 are fine
    for fd, child in waiting.items():
        poller.register(fd, select.POLLIN)
        child.working()  # the processor time it has used so far
    while waiting:
        wait = min(heard.values()) + patience - time.monotonic()
        ready = poller.poll(max(0, int(wait * 1000) + 1))
        now = time.monotonic()
        for fd, _event in ready:
            heard[fd] = now
            if not waiting[fd].receive(found):  # the child's end
                poller.unregister(fd)
                waiting.pop(fd).stop()
                del heard[fd]
        for fd in [fd for fd, at in heard.items() if now - at >= patience]:
            if waiting[fd].working():
                heard[fd] = now  # a long chunk: still computing
                continue
            poller.unregister(fd)  # stuck (a lock another library's thread held at the fork)
            waiting.pop(fd).stop()
            del heard[fd]


class _Child:
    """A forked child taking chunks (:func:`_take_chunks`): it sends ``0`` to its pipe for each
    chunk it finished, then ``length, pickle({number: result})``."""

    def __init__(
        self,
        function: Callable[[int, int], Any],
        ranges: list,
        take: int,
        mask: set[signal.Signals],
        libc: Any,
    ):
        """Fork the child; the caller holds interrupts back (``mask``: the signal mask to
        restore in the child) until the child is listed."""
        read, write = os.pipe()
        parent = os.getpid()
        try:
            self.pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            raise
        if self.pid == 0:
            _child_main(function, ranges, take, read, write, parent, mask, libc)
        os.close(write)
        self.fd = read
        self.buffer = bytearray()
        self.cpu = -1  # the child's CPU time when last found silent

    def receive(self, found: dict[int, Any]) -> bool:
        """Read what the child sent; its results, once whole, into ``found``. False at the
        end of what it sends."""
        data = os.read(self.fd, 1 << 20)
        if not data:
            return False
        self.buffer += data
        while len(self.buffer) >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(self.buffer)
            if len(self.buffer) < _LENGTH.size + length:
                break  # the rest of the results is on its way
            message = bytes(self.buffer[_LENGTH.size : _LENGTH.size + length])
            del self.buffer[: _LENGTH.size + length]
            if length:
                with suppress(Exception):  # unreadable: its chunks are computed again
                    found.update(pickle.loads(message))
        return True

    def working(self) -> bool:
        """Whether the child used processor time since this was last asked (a child stuck on a
        lock uses none; one computing a long chunk does)."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu = int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
        except (OSError, IndexError, ValueError):
            return False
        was, self.cpu = self.cpu, cpu
        return cpu > was

    def stop(self) -> None:
        """End the child if it still runs, reap it and close its pipe (once)."""
        if self.pid:
            try:  # not signalled once reaped: its pid may be another process's by now
                running = os.waitpid(self.pid, os.WNOHANG)[0] == 0
            except ChildProcessError:  # SIGCHLD ignored: the system reaped it
                running = False
            if running:
                with suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                with suppress(ChildProcessError):
                    os.waitpid(self.pid, 0)
            self.pid = 0
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _child_main(
    function: Callable[[int, int], Any],
    ranges: list,
    take: int,
    read: int,
    write: int,
    parent: int,
    mask: set[signal.Signals],
    libc: Any,
) -> None:
    """The child's whole life: compute chunks, send each result, leave with ``os._exit``."""
    status = 1
    try:
        os.close(read)
        _die_with(parent, libc)
        gc.disable()  # inherited garbage is the parent's to finalize
        for signum in (signal.SIGINT, signal.SIGTERM):  # stopped: leave, run none of the
            if signal.getsignal(signum) not in (signal.SIG_IGN, None):  # parent's handlers
                signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        done = {}
        for k, result, _seconds in _take_chunks(function, ranges, take):
            done[k] = result
            _write_all(write, _LENGTH.pack(0))  # alive: one more chunk finished
        message = pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(write, _LENGTH.pack(len(message)) + message)
        status = 0
    finally:
        os._exit(status)


@cache
def _libc() -> Any:
    """The C library, for ``prctl`` (None where it cannot be loaded)."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _die_with(parent: int, libc: Any) -> None:
    """Have the kernel kill this child when its parent dies (killed, out of memory), and leave
    now if it already has."""
    with suppress(AttributeError):
        if libc is not None:
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextmanager
def _signals_blocked() -> Iterator[set[signal.Signals]]:
    """Interrupts held back (delivered once the block ends), yielding the mask before it."""
    held = {signal.SIGINT, signal.SIGTERM}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield before
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
