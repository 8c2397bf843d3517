"""Chunks of Python-bound work in forked children (neardup.forked): the results of one process,
in order, whatever the children do; and the copy rule's verdicts on any number of workers."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from neardup.copyrule import verdicts
from neardup.forked import can_fork, map_forked
from neardup.methods import auto, create
from neardup.parallel import chunk_ranges
from test_replay import corpus

needs_fork = pytest.mark.skipif(not can_fork(), reason="forking needs Linux and one thread")


def _no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@needs_fork
def test_chunks_come_back_in_order_from_several_processes():
    def chunk(lo: int, hi: int) -> tuple[int, int, int]:
        time.sleep(0.002)  # long enough for every process to take some
        return lo, hi, os.getpid()

    got = map_forked(chunk, 1000, size=7, workers=3)
    assert [(lo, hi) for lo, hi, _ in got] == chunk_ranges(1000, 7)
    pids = {pid for _, _, pid in got}
    assert os.getpid() in pids and len(pids) > 1  # the children took chunks too
    assert _no_child_left()


@needs_fork
def test_chunks_of_a_child_that_died_are_computed_here():
    parent = os.getpid()

    def chunk(lo: int, hi: int) -> list[int]:
        if os.getpid() != parent:
            os._exit(3)  # killed, out of memory: its chunk never comes back
        return list(range(lo, hi))

    got = map_forked(chunk, 100, size=3, workers=4)
    assert [x for part in got for x in part] == list(range(100))
    assert _no_child_left()


@needs_fork
def test_an_error_in_a_chunk_is_raised_here():
    def chunk(lo: int, hi: int) -> int:
        if lo <= 50 < hi:
            raise ValueError("chunk 50")
        return lo

    with pytest.raises(ValueError, match="chunk 50"):
        map_forked(chunk, 100, size=5, workers=3)
    assert _no_child_left()


def test_no_fork_while_another_thread_runs():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        got = map_forked(lambda lo, hi: os.getpid(), 100, size=5, workers=3)
    finally:
        stop.set()
        other.join()
    assert set(got) == {os.getpid()}


def test_one_worker_runs_every_chunk_here():
    got = map_forked(lambda lo, hi: (lo, os.getpid()), 50, size=5, workers=1)
    assert got == [(lo, os.getpid()) for lo in range(0, 50, 5)]


@needs_fork
@pytest.mark.parametrize("chunked", [False, True], ids=["pairs", "verify-chunks"])
def test_auto_on_forked_workers_finds_the_pairs_of_one(monkeypatch, tmp_path, chunked):
    """Oracle: one worker. With two, the aligned value test of one verification chunk is
    shared out by pairs (``pairs``), or several verification chunks are (``verify-chunks``);
    each process writes down that it aligned pairs, and the pairs, similarities and near misses
    must be those of one process."""
    texts = corpus()
    seen = tmp_path / "pids"
    aligned = verdicts._aligned_verdicts

    def recorded(*args, **kwargs):
        with open(seen, "a") as f:
            f.write(f"{os.getpid()}\n")
        return aligned(*args, **kwargs)

    monkeypatch.setattr(verdicts, "_aligned_verdicts", recorded)
    monkeypatch.setattr(verdicts, "FORK_PAIRS", 2)
    monkeypatch.setattr(verdicts, "ALIGNED_CHUNK", 3)
    if chunked:
        monkeypatch.setattr(auto, "VERIFY_CHUNK", 300)

    def run(workers: int):
        method = create("auto")
        method.workers = workers
        return method, method.find_pairs(texts)

    want_method, want = run(1)
    seen.unlink()
    method, got = run(2)
    for field in ("left", "right", "distance", "similarity", "method"):
        assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True)
    assert method.near_misses.to_list() == want_method.near_misses.to_list()
    pids = set(seen.read_text().split())
    assert str(os.getpid()) in pids and len(pids) > 1
    assert _no_child_left()


def test_more_chunks_than_a_pipe_page_holds_run_here():
    """The chunk numbers are written before any process takes one, so past what one pipe page
    holds (a user over the pipe quota gets one-page pipes) the write could wait forever."""
    from neardup.forked import MAX_CHUNKS

    got = map_forked(lambda lo, hi: (lo, os.getpid()), MAX_CHUNKS + 1, size=1, workers=2)
    assert got == [(k, os.getpid()) for k in range(MAX_CHUNKS + 1)]
