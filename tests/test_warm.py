"""The kernel cache warmed on every core: the record matches what a run compiles, and warming
fills a cold cache (checked from a fresh process, which sees only the disk)."""

import json
import os
import subprocess
import sys

import pytest

from neardup import warm

RECORD_ONE = "import json, neardup.warm as w; print(json.dumps(w.record_run({method!r})))"
CACHED = (
    "import json, neardup.warm as w; "
    "print(json.dumps([w._cached(k) for k in w._recorded()[{method!r}]]))"
)


def _python(code: str, cache=None, *, large: bool = False) -> str:
    env = {**os.environ, **({"NUMBA_CACHE_DIR": str(cache)} if cache else {})}
    env.pop("NEARDUP_COMPILED_FROM", None)  # what a run compiles by default
    if large:
        env["NEARDUP_COMPILED_FROM"] = "0"  # a large run: every kernel
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return (done.stdout.strip().splitlines() or [""])[-1]


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("method", ["auto", "simhash"])
def test_record_is_what_a_run_compiles(method, large):
    """A run's kernels and signatures, measured in a fresh process, are the recorded ones: a
    small run's, and a large one's (``<method>:large``)."""
    found = json.loads(_python(RECORD_ONE.format(method=method), large=large))
    key = lambda k: (k["module"], k["name"], tuple(k["args"]))  # noqa: E731
    recorded = warm._recorded()[method + (warm.LARGE if large else "")]
    assert sorted(map(key, found)) == sorted(map(key, recorded)), (
        "kernel signatures changed: run `python -m neardup.warm --record`"
    )


LEFT_CHILD = (
    "import os\ntry:\n    os.waitpid(-1, os.WNOHANG)\n    print(True)\n"
    "except ChildProcessError:\n    print(False)"
)


@pytest.mark.parametrize("fork", [True, False])
def test_warm_fills_a_cold_cache_on_two_workers_only(tmp_path, fork):
    """Children forked (one thread: the command line) or started as new interpreters (another
    thread runs) fill the cache, and every one has been waited for."""
    method = "simhash"
    one, two = tmp_path / "one", tmp_path / "two"
    _python(f"import neardup.warm as w; w.warm({method!r}, workers=1)", one)
    assert not any(json.loads(_python(CACHED.format(method=method), one)))
    thread = "" if fork else "threading.Thread(target=time.sleep, args=(5,), daemon=True).start()"
    code = (
        f"import threading, time\n{thread}\nimport neardup.warm as w\n"
        f"assert w.can_fork() is {fork}\nw.warm({method!r}, workers=2)\n{LEFT_CHILD}"
    )
    assert _python(code, two) == "False"
    assert all(json.loads(_python(CACHED.format(method=method), two)))


def test_signature_text_round_trips():
    import numpy as np
    from numba.core import types
    from numba.np.numpy_support import from_dtype

    for t in (
        types.Array(from_dtype(np.dtype("uint32")), 1, "C", readonly=True),
        types.Array(from_dtype(np.dtype("float64")), 2, "C"),
        types.int64,
        types.boolean,
    ):
        assert warm._parse(warm._describe(t)) == t
    with pytest.raises(ValueError, match="C-contiguous"):
        warm._describe(types.Array(types.int64, 1, "A"))


def test_shares_hold_every_kernel_once():
    kernels = [{"name": str(i), "seconds": s} for i, s in enumerate([1.3, 0.2, 0.9, 0.4, 0.3])]
    shares = warm._split(kernels, 2)
    assert sorted(k["name"] for share in shares for k in share) == [str(i) for i in range(5)]


def test_kernels_of_one_group_share_a_process():
    """Kernels calling numba's sort go to one share (each process would compile the sort), the
    group weighing as much as its kernels together; the record marks them."""
    kernels = [
        {"name": "a", "seconds": 1.3, "group": "sort"},
        {"name": "b", "seconds": 0.9},
        {"name": "c", "seconds": 0.2, "group": "sort"},
        {"name": "d", "seconds": 0.8},
    ]
    names = [sorted(k["name"] for k in share) for share in warm._split(kernels, 2)]
    assert names == [["a", "c", "d"], ["b"]]  # a + c weigh 1.5 s; b goes to the child (0.8 s start)
    alone = [{**k, "group": ""} for k in kernels]
    assert [sorted(k["name"] for k in share) for share in warm._split(alone, 2)] == [
        ["a", "d"],
        ["b", "c"],
    ]
    groups = {k["name"]: k["group"] for k in warm._recorded()["auto" + warm.LARGE]}
    assert groups["_sort_per_doc"] == "sort"  # the one kernel calling _sort_hashes
    assert groups["_drop_repeats"] == ""  # unique_per_doc: the sort, then this kernel
    assert groups["possible_candidates"] == ""


def test_a_stale_record_costs_time_not_the_run(tmp_path):
    """A recorded signature that no longer fits its kernel (an argument added, the record not
    rewritten) is skipped by the warming, and the run compiles what it calls."""
    stale = [
        {"module": "neardup._kernels", "name": name, "args": ["uint32[:]"], "seconds": 0.2}
        for name in ("token_counts", "char_ngram_hashes")
    ]
    code = (
        "import json, neardup.warm as w\n"
        f"w._recorded = lambda: {{'auto': {stale!r}}}\n"
        "w.warm('auto', workers=2)\n"
        "from neardup import dedup_texts\n"
        "print(dedup_texts(['今天天气很好', '今天天气很好！'], workers=2).clusters.n_duplicates)"
    )
    assert _python(code, tmp_path) == "1"
