"""Chunks of Python-bound work in forked children (neardup.forked): the results of one process,
in order, whatever the children do; and the copy rule's verdicts on any number of workers.

A process forks only while it runs one thread, and a test session does not (Spark's gateway,
servers of other tests): each case that must fork runs in a fresh interpreter
(:func:`_in_fresh_process`), where it also checks that no child is left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from neardup.forked import MAX_CHUNKS, map_forked

HERE = Path(__file__).resolve().parent
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


def _in_fresh_process(case: str, tmp_path: Path, timeout: float = 120) -> None:
    """Run ``case`` (a function of this module taking a folder) in a new interpreter."""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_forked as t; "
        f"t.{case}(__import__('pathlib').Path({str(tmp_path)!r})); t._no_child_left()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, check=False
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


def _fork_failed(_folder: Path) -> None:
    from neardup import forked

    real, forks = os.fork, []

    def fork() -> int:
        forks.append(1)
        if len(forks) == 2:
            raise OSError(12, "Cannot allocate memory")
        return real()

    forked.os.fork = fork  # the second child cannot be made: the work goes on without it
    got = map_forked(lambda lo, hi: (time.sleep(0.001), lo)[1], 100, size=2, workers=4)
    assert got == list(range(0, 100, 2)) and len(forks) == 2


def _child_stuck(_folder: Path) -> None:
    from neardup import forked

    forked.MIN_PATIENCE, forked.PATIENCE = 1.0, 1
    parent = os.getpid()

    def chunk(lo: int, hi: int) -> int:
        time.sleep(0.001)
        if os.getpid() != parent:
            time.sleep(3600)  # a lock another library's thread held at the fork
        return lo

    start = time.monotonic()
    assert map_forked(chunk, 60, size=3, workers=3) == list(range(0, 60, 3))
    assert time.monotonic() - start < 30


def _child_busy(_folder: Path) -> None:
    """A child silent past its patience but computing (a long chunk) is waited for."""
    from neardup import forked

    forked.MIN_PATIENCE, forked.PATIENCE = 0.5, 1
    parent = os.getpid()

    def chunk(lo: int, hi: int) -> tuple[int, int]:
        if os.getpid() != parent:
            end = time.monotonic() + 3
            while time.monotonic() < end:  # processor time, no mark sent for 3 s
                pass
        else:
            time.sleep(0.05)
        return lo, os.getpid()

    got = map_forked(chunk, 4, size=1, workers=2)
    assert [lo for lo, _ in got] == [0, 1, 2, 3]
    assert any(pid != parent for _, pid in got)  # the child's chunk came from the child


def _interrupted_while_forking(_folder: Path) -> None:
    """Ctrl-C as a child is forked: held back until the child is listed, then raised here,
    and the child is stopped with the rest (none left, no descriptor left open)."""
    from neardup import forked

    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            os.kill(os.getpid(), signal.SIGINT)
        return pid

    before = len(os.listdir("/proc/self/fd"))
    forked.os.fork = fork
    try:
        map_forked(lambda lo, hi: (time.sleep(0.01), lo)[1], 100, size=2, workers=3)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interrupt was lost")
    finally:
        forked.os.fork = real
    assert len(os.listdir("/proc/self/fd")) == before


def _many_descriptors(_folder: Path) -> None:
    """The children's pipes past descriptor 1023 (a process holding many files): select()
    refuses those; the children are read all the same."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        return  # this machine cannot hold that many (the case cannot arise either)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        got = map_forked(lambda lo, hi: (time.sleep(0.002), lo)[1], 100, size=2, workers=3)
    finally:
        for fd in held:
            os.close(fd)
    assert got == list(range(0, 100, 2))


def _sigchld_ignored(_folder: Path) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the system reaps children itself
    got = map_forked(lambda lo, hi: (time.sleep(0.002), lo)[1], 200, size=4, workers=3)
    assert got == list(range(0, 200, 4))


def _parent_dies(folder: Path) -> None:
    """Forks children over slow chunks, writes their pids, and is killed from outside."""

    def chunk(lo: int, hi: int) -> int:
        with open(folder / "pids", "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(60)  # still in its chunk when the parent dies (no pipe to write to yet)
        return lo

    map_forked(chunk, 40, size=1, workers=3)


@linux_only
@pytest.mark.parametrize(
    "case",
    [
        "_order",
        "_child_died",
        "_error",
        "_fork_failed",
        "_child_stuck",
        "_child_busy",
        "_interrupted_while_forking",
        "_many_descriptors",
        "_sigchld_ignored",
    ],
)
def test_forked_chunks(case, tmp_path):
    """In chunk order from several processes; what a child fails to send, or a child that could
    not be forked, leaves its chunks to the parent (a child that died, or sends nothing for too
    long and is killed); an error in a chunk is raised in the parent; children are reaped even
    where SIGCHLD is ignored, and none is left behind."""
    _in_fresh_process(case, tmp_path)


@linux_only
def test_children_die_with_their_parent(tmp_path):
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); import test_forked as t; "
        f"t._parent_dies(__import__('pathlib').Path({str(tmp_path)!r}))"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    pids = tmp_path / "pids"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(set(_read(pids))) < 3:
        time.sleep(0.05)
    children = set(_read(pids)) - {parent.pid}
    assert children, "no child took a chunk"
    parent.kill()  # kill -9: no finally, no exit handler
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in children):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in children)


def _read(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by init, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


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

    from neardup import forked
    from neardup.copyrule import verdicts
    from neardup.methods import auto, create
    from test_replay import corpus

    forks, child = [], forked._Child

    def counted(*args, **kwargs):
        forks.append(1)  # in this process: a child forked for the value test
        return child(*args, **kwargs)

    forked._Child = counted
    verdicts.FORK_PAIRS, verdicts.ALIGNED_CHUNK = 2, 3
    if chunked:
        auto.VERIFY_CHUNK = 300
    texts = corpus()

    def run(workers: int):
        method = create("auto")
        method.workers = workers
        return method, method.find_pairs(texts)

    want_method, want = run(1)
    assert not forks
    method, got = run(2)
    for field in ("left", "right", "distance", "similarity", "method"):
        assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True), field
    assert method.near_misses.to_list() == want_method.near_misses.to_list()
    assert forks


def _auto_groups(folder: Path) -> None:
    """Pairs verified in several groups as the candidates come: every group, not only the last
    (nor one the last candidate block closes), is verified with the candidate threads stopped,
    so that it may fork."""
    os.environ["NEARDUP_COMPILED_FROM"] = "0"  # the kernels and the threads, however small
    import threading

    import numpy as np

    from neardup.methods import auto, create
    from test_replay import corpus

    groups, verify = [], auto.AutoMethod._verify_possible

    def recorded(self, prepared, left, *args, **kwargs):
        groups.append((len(left), threading.active_count()))
        return verify(self, prepared, left, *args, **kwargs)

    auto.AutoMethod._verify_possible = recorded
    auto.CANDIDATE_BLOCK = 2_000
    texts = corpus()

    def run(workers: int):
        method = create("auto")
        method.workers = workers
        return method.find_pairs(texts)

    want = run(1)
    for group in (1, 50, 100, 222, 223, 226, 10**9):  # 226: the last block closes a group
        auto.POSSIBLE_CHUNK = group
        groups.clear()
        got = run(2)
        for field in ("left", "right", "distance", "similarity", "method"):
            assert np.array_equal(getattr(got, field), getattr(want, field), equal_nan=True)
        assert groups and all(threads == 1 for _pairs, threads in groups), (group, groups)
        assert group > len(want) or len(groups) > 1, (group, groups)


def _auto_pairs(folder: Path) -> None:
    _auto_on_forked_workers(folder, chunked=False)


def _auto_chunks(folder: Path) -> None:
    _auto_on_forked_workers(folder, chunked=True)


@linux_only
@pytest.mark.parametrize("case", ["_auto_pairs", "_auto_chunks", "_auto_groups"])
def test_auto_on_forked_workers_finds_the_pairs_of_one(case, tmp_path):
    """Oracle: one worker. With two, the aligned value test of one verification chunk is
    shared out by pairs (``_auto_pairs``), or several verification chunks are
    (``_auto_chunks``); each process writes down that it aligned pairs, and the pairs,
    similarities and near misses must be those of one process."""
    _in_fresh_process(case, tmp_path)
