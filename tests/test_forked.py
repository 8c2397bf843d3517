"""Chunks of Python-bound work in forked children (neardup.forked): the results of one process,
in order, whatever the children do; and the copy rule's verdicts on any number of workers.

A process forks only while it runs one thread, and a test session does not (Spark's gateway,
servers of other tests): each case that must fork runs in a fresh interpreter
(:func:`_in_fresh_process`), where it also checks that no child is left behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from neardup.forked import MAX_CHUNKS, map_forked

HERE = Path(__file__).resolve().parent
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


def _in_fresh_process(case: str, tmp_path: Path) -> None:
    """Run ``case`` (a function of this module taking a folder) in a new interpreter."""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_forked as t; "
        f"t.{case}(__import__('pathlib').Path({str(tmp_path)!r})); t._no_child_left()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _no_child_left() -> None:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return
    raise AssertionError("a forked child was left behind")


def _order(_folder: Path) -> None:
    def chunk(lo: int, hi: int) -> tuple[int, int, int]:
        time.sleep(0.002)  # long enough for every process to take some
        return lo, hi, os.getpid()

    got = map_forked(chunk, 1000, size=7, workers=3)
    assert [(lo, hi) for lo, hi, _ in got] == [(lo, min(lo + 7, 1000)) for lo in range(0, 1000, 7)]
    pids = {pid for _, _, pid in got}
    assert os.getpid() in pids and len(pids) > 1, pids  # the children took chunks too


def _child_died(_folder: Path) -> None:
    parent = os.getpid()

    def chunk(lo: int, hi: int) -> list[int]:
        time.sleep(0.001)
        if os.getpid() != parent:
            os._exit(3)  # killed, out of memory: its chunk never comes back
        return list(range(lo, hi))

    got = map_forked(chunk, 100, size=3, workers=4)
    assert [x for part in got for x in part] == list(range(100))


def _error(_folder: Path) -> None:
    def chunk(lo: int, hi: int) -> int:
        time.sleep(0.001)
        if lo <= 50 < hi:
            raise ValueError("chunk 50")
        return lo

    try:
        map_forked(chunk, 100, size=5, workers=3)
    except ValueError as exc:
        assert str(exc) == "chunk 50"
    else:
        raise AssertionError("the chunk's error was not raised")


@linux_only
@pytest.mark.parametrize("case", ["_order", "_child_died", "_error"])
def test_forked_chunks(case, tmp_path):
    """In chunk order from several processes; a child that died leaves its chunks to the
    parent; an error in a chunk is raised in the parent; no child is left behind."""
    _in_fresh_process(case, tmp_path)


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


def test_more_chunks_than_a_pipe_page_holds_run_here():
    """The chunk numbers are written before any process takes one, so past what one pipe page
    holds (a user over the pipe quota gets one-page pipes) the write could wait forever."""
    got = map_forked(lambda lo, hi: (lo, os.getpid()), MAX_CHUNKS + 1, size=1, workers=2)
    assert got == [(k, os.getpid()) for k in range(MAX_CHUNKS + 1)]


def _auto_on_forked_workers(folder: Path, *, chunked: bool) -> None:
    import numpy as np

    from neardup.copyrule import verdicts
    from neardup.methods import auto, create
    from test_replay import corpus

    seen = folder / "pids"
    aligned = verdicts._aligned_verdicts

    def recorded(*args, **kwargs):
        with open(seen, "a") as f:
            f.write(f"{os.getpid()}\n")
        return aligned(*args, **kwargs)

    verdicts._aligned_verdicts = recorded
    verdicts.FORK_PAIRS, verdicts.ALIGNED_CHUNK = 2, 3
    if chunked:
        auto.VERIFY_CHUNK = 300
    texts = corpus()

    def run(workers: int):
        method = create("auto")
        method.workers = workers
        return method, method.find_pairs(texts)

    want_method, want = run(1)
    seen.unlink()
    method, got = run(2)
    for field in ("left", "right", "distance", "similarity", "method"):
        assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True), field
    assert method.near_misses.to_list() == want_method.near_misses.to_list()
    pids = set(seen.read_text().split())
    assert str(os.getpid()) in pids and len(pids) > 1, pids


def _auto_pairs(folder: Path) -> None:
    _auto_on_forked_workers(folder, chunked=False)


def _auto_chunks(folder: Path) -> None:
    _auto_on_forked_workers(folder, chunked=True)


@linux_only
@pytest.mark.parametrize("case", ["_auto_pairs", "_auto_chunks"])
def test_auto_on_forked_workers_finds_the_pairs_of_one(case, tmp_path):
    """Oracle: one worker. With two, the aligned value test of one verification chunk is
    shared out by pairs (``_auto_pairs``), or several verification chunks are
    (``_auto_chunks``); each process writes down that it aligned pairs, and the pairs,
    similarities and near misses must be those of one process."""
    _in_fresh_process(case, tmp_path)
