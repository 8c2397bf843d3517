"""Compile the kernels a run will use on every core at once, when the compiled cache is cold.

numba compiles each kernel on its first call, one after another on one core, and caches the
machine code on disk; on a fresh install the first run spends most of its time there (14
kernels for ``auto``, 0.1-1.5 s each). The signatures each method's run compiles are recorded in
``kernel_signatures.json`` (``python -m neardup.warm --record`` writes it; a test checks it
against a real run). :func:`warm` compiles the ones not cached yet: child processes compile
their share into the cache while this process compiles its own, and the run then loads the
children's from the cache instead of compiling them. A child is forked where that is safe
(Linux, no other thread: the command line), so it starts with numpy and numba imported (0.5 s
less on a first ``auto`` run on two cores: 3.5-3.9 s of warming instead of 4.1-4.4 s);
elsewhere it is a new interpreter. A warm cache costs a cache lookup per kernel; a kernel or
signature missing from the record, or no longer fitting its kernel, is simply compiled on its
first call, as before, so a stale record costs time, never a wrong result.

    python -m neardup.warm --record     # after changing a kernel's arguments
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

from .forked import can_fork

RECORD = Path(__file__).with_name("data") / "kernel_signatures.json"
MODULES = (
    "neardup._kernels",
    "neardup._markupkernels",
    "neardup._pairkernels",
    "neardup._tokenkernels",
    "neardup.cluster",
    "neardup.dashes",
)  # kernels' homes
MAX_PROCESSES = 4  # past it the longest kernel (1.3 s) bounds the time, and each child costs memory
CHILD_START = 0.8  # seconds a new interpreter spends importing numpy and numba before it compiles
FORK_START = 0.3  # the head start of a forked child that finished first, measured (auto, 2 cores)
_warmed: set[str] = set()
_RECORD_ONE = "import json, neardup.warm as w; print(json.dumps(w.record_run({method!r})))"
LARGE = ":large"  # the record of a large run (every kernel; a small run takes some twins)


def warm(method: str, *, workers: int, large: bool = False) -> None:
    """Compile the kernels of a ``method`` run that are not cached yet, on ``workers`` cores
    (once per process and method; nothing on one worker — the run compiles them as it goes).
    ``large``: a run large enough to compile the kernels a small one replaces by their twins
    (:mod:`neardup.compiling`), recorded apart (``<method>:large``)."""
    key = f"{method}{LARGE}" if large else method
    if workers < 2 or key in _warmed:
        return
    _warmed.add(key)
    try:
        cold = [k for k in _recorded().get(key, []) if not _cached(k)]
    except Exception:  # numba's cache internals moved: the run compiles as before
        return
    if not cold:
        return
    forking = can_fork()
    parts = min(workers, len(cold), MAX_PROCESSES)
    shares = _split(cold, parts, start=FORK_START if forking else CHILD_START)
    children: list[Any] = []
    try:
        for share in shares[1:]:
            children.append(_Forked(share) if forking else _spawned(share))
    except OSError:  # no process to start: this process compiles them as the run goes
        pass
    try:
        for kernel in shares[0]:
            _compile(kernel)
    finally:
        for child in children:  # a child that failed leaves its kernels to the run
            child.wait()


def _spawned(share: list[dict[str, Any]]) -> subprocess.Popen:
    """A new interpreter compiling ``share`` (``python -m neardup.warm``)."""
    return subprocess.Popen(
        [sys.executable, "-m", "neardup.warm", json.dumps(share)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class _Forked:
    """A forked child compiling ``share`` into the cache, then leaving at once (no exit handler
    of the parent's runs in it, nothing it prints is seen)."""

    def __init__(self, share: list[dict[str, Any]]):
        self.pid = os.fork()
        if self.pid:
            return
        status = 1
        try:
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            for kernel in share:
                _compile(kernel)
            status = 0
        finally:
            os._exit(status)

    def wait(self) -> None:
        os.waitpid(self.pid, 0)


def _split(
    kernels: list[dict[str, Any]], parts: int, *, start: float = CHILD_START
) -> list[list[dict[str, Any]]]:
    """Kernels in ``parts`` shares of about equal recorded compile time (longest first, each
    to the lightest share); the first share (this process's) starts lighter by a child's
    ``start`` (a new interpreter's imports; none for a forked child). Kernels of one ``group``
    (those calling a sort, which a process compiles once, about a second, for the first of
    them) go to one share together: split, each process would compile the sort again."""
    units: dict[str, list[dict[str, Any]]] = {}
    for i, kernel in enumerate(kernels):
        units.setdefault(kernel.get("group") or f"\0{i}", []).append(kernel)
    shares: list[list[dict[str, Any]]] = [[] for _ in range(parts)]
    load = [0.0] + [start] * (parts - 1)
    for unit in sorted(units.values(), key=lambda u: -sum(k["seconds"] for k in u)):
        i = load.index(min(load))
        shares[i].extend(unit)
        load[i] += sum(k["seconds"] for k in unit)
    return shares


def _dispatcher(kernel: dict[str, Any]):
    return getattr(import_module(kernel["module"]), kernel["name"])


def _signature(kernel: dict[str, Any]) -> tuple:
    return tuple(_parse(arg) for arg in kernel["args"])


def _parse(arg: str) -> Any:
    """``uint64[:]``, ``uint32[:] readonly``, ``int64``, ``bool``: a numba type."""
    import numpy as np
    from numba.core import types
    from numba.np.numpy_support import from_dtype

    if "[" not in arg:
        return types.boolean if arg == "bool" else from_dtype(np.dtype(arg))
    dtype = from_dtype(np.dtype(arg.split("[", 1)[0]))
    return types.Array(dtype, arg.count(":"), "C", readonly="readonly" in arg)


def _describe(t) -> str:
    """The inverse of :func:`_parse` (C-contiguous arrays and scalars: what the kernels take)."""
    from numba.core import types

    if isinstance(t, types.Array):
        if t.layout != "C":
            raise ValueError(f"{t}: only C-contiguous arrays are recorded")
        dims = ", ".join(":" for _ in range(t.ndim))
        return f"{t.dtype}[{dims}]" + (" readonly" if not t.mutable else "")
    return "bool" if t == types.boolean else str(t)


def _cached(kernel: dict[str, Any]) -> bool:
    """Whether the kernel's signature is compiled or in the cache's index. Only the index is
    read: loading the machine code (what numba's ``load_overload`` does) without handing it to
    the dispatcher would have the kernel's first call load it again (about 40 ms a kernel,
    0.6 s of a warm ``auto`` run)."""
    dispatcher = _dispatcher(kernel)
    signature = _signature(kernel)
    if signature in dispatcher.overloads:
        return True
    cache = dispatcher._cache
    key = cache._index_key(signature, dispatcher.targetctx.codegen())
    name = cache._cache_file._load_index().get(key)  # numba writes the index, then the data
    return name is not None and os.path.exists(cache._cache_file._data_path(name))


def _compile(kernel: dict[str, Any]) -> None:
    """Compile one recorded signature into the cache; a record that no longer fits the kernel
    (its arguments changed, the record was not rewritten) is skipped: the run compiles what it
    calls, so a stale record costs time, never a failed run."""
    try:
        _dispatcher(kernel).compile(_signature(kernel))
    except Exception:  # numba's typing errors have no common base worth naming here
        return


def _recorded() -> dict[str, list[dict[str, Any]]]:
    return json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}


def compiled_signatures(seconds: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Every signature this process has compiled in :data:`MODULES`' kernels, recorded form."""
    from numba.core.registry import CPUDispatcher

    found = []
    for module in MODULES:
        for name, obj in sorted(vars(import_module(module)).items()):
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module:
                for signature in obj.signatures:
                    found.append(
                        {
                            "module": module,
                            "name": name,
                            "args": [_describe(t) for t in signature],
                            "seconds": round((seconds or {}).get(name, 0.0), 2),
                            "group": _group(obj.py_func),
                        }
                    )
    return found


def _group(function: Any) -> str:
    """``"sort"`` for a kernel that calls a sort (``_kernels._sort_hashes``, or numba's
    ``np.sort``: each compiled once per process, about a second, with the first kernel calling
    it), else ``""`` — read from the names its code refers to."""
    names = set(function.__code__.co_names)
    return "sort" if "_sort_hashes" in names or {"np", "sort"} <= names else ""


def record_run(method: str) -> list[dict[str, Any]]:
    """The kernels a run of ``method`` over the bundled sample compiles (not their callees,
    which compile with them), with the seconds each took, callees included (run in this
    process: call it in a fresh one, with an empty cache for the times)."""
    import time

    from numba.core import event

    from .dedup import dedup_texts

    started: dict[str, float] = {}
    seconds: dict[str, float] = {}

    open_now: list[str] = []
    nested: set[str] = set()

    class Timer(event.Listener):
        def on_start(self, ev) -> None:
            name = ev.data["dispatcher"].py_func.__name__
            if open_now:  # compiled as the callee of a kernel: compiled with it
                nested.add(name)
            open_now.append(name)
            started[name] = time.perf_counter()

        def on_end(self, ev) -> None:
            name = open_now.pop()
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started[name]

    _start_compiler()  # every process pays it once: not a kernel's time
    event.register("numba:compile", Timer())
    sample = Path(__file__).resolve().parents[2] / "examples" / "sample_zh.jsonl"
    texts = [json.loads(line)["text"] for line in sample.read_text(encoding="utf-8").splitlines()]
    dedup_texts(texts, method=method, workers=1)
    return [k for k in compiled_signatures(seconds) if k["name"] not in nested]


def _start_compiler() -> None:
    """Compile a trivial function: numba's and LLVM's start-up (about 0.4 s), which every
    process pays on its first compile whichever kernel that is."""
    import numba
    import numpy as np

    numba.njit(lambda n: np.empty(n, np.int64))(1)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--record"]:
        import os
        import tempfile

        from .methods import names

        found = {}
        for method, large in ((m, large) for m in names() for large in (False, True)):
            env = {k: v for k, v in os.environ.items() if k != "NEARDUP_COMPILED_FROM"}
            if large:  # the sample run as a large one: every kernel compiled
                env["NEARDUP_COMPILED_FROM"] = "0"
            with tempfile.TemporaryDirectory() as cache:
                out = subprocess.run(
                    [sys.executable, "-c", _RECORD_ONE.format(method=method)],
                    env={**env, "NUMBA_CACHE_DIR": cache},
                    check=True,
                    capture_output=True,
                    text=True,
                )
            found[method + (LARGE if large else "")] = json.loads(
                out.stdout.strip().splitlines()[-1]
            )
        RECORD.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
        print(f"{sum(map(len, found.values()))} signatures of {len(found)} runs -> {RECORD}")
        return 0
    for kernel in json.loads(argv[0]):
        _compile(kernel)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
