"""`neardup dedup --workers N`: speed-up per stage against one worker, and identical outputs.

    python benchmarks/bench_workers.py [--datasets cctv_xwlb_news_zh weibo_ced_zh]
                                       [--workers 1 2] [--rounds 2] [--method auto]

Runs `neardup dedup` (a fresh process each time, kernels already compiled) with each worker
count in turn, `--rounds` times (alternating, so a noisy neighbour hits every count alike), and
prints per worker count the best wall time and the best time of each stage `summary.json`
reports (`read`, `find_pairs.compare`, `.sketch`, `.candidates`, `.verify`, `write`; a stage a
run does not time is left out), the speed-up of
each against the first count, and whether `clusters.csv` and the kept records are identical.

First it measures what the machine itself gives: the speed-up of N processes each doing the same
fixed work (a loop in the interpreter, and a NumPy sort that streams memory) against one doing
it alone. On a virtual machine whose cores are hardware threads of shared physical cores, or on
a busy host, that ceiling is well under N, and no stage can beat it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import data_path, dedup_command

STAGES = (
    "read",  # the default method compares each chunk of texts as it is read
    "find_pairs.compare",
    "find_pairs.sketch",
    "find_pairs.candidates",
    "find_pairs.verify",
    "find_pairs",
    "write",
)


PROBES = {
    "interpreter": "s = 0\nfor i in range(15_000_000):\n    s += i * i",
    "memory": "import numpy as np\nnp.sort(np.random.default_rng(0).integers(0, 2**63, 20_000_000))",
}


def ceiling(workers: int, rounds: int = 3) -> dict[str, float]:
    """Per probe: the speed-up of ``workers`` processes running it at once against one (best
    of ``rounds``, alternating)."""
    out = {}
    for name, code in PROBES.items():
        times: dict[int, float] = {}
        for _ in range(rounds):
            for n in (1, workers):
                started = time.perf_counter()
                procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]
                for p in procs:
                    p.wait()
                times[n] = min(times.get(n, float("inf")), time.perf_counter() - started)
        out[name] = workers * times[1] / times[workers]
    return out


def run(dataset: str, method: str, workers: int, tmp: Path) -> tuple[float, dict, str]:
    out = tmp / f"out-{workers}"
    cmd = dedup_command(data_path(dataset), out, method, "--workers", str(workers))
    started = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - started
    summary = json.loads((out / "summary.json").read_text())
    digest = hashlib.sha256()
    for name in ("clusters.csv", summary["outputs"]["kept"]):
        digest.update((out / name).read_bytes())
    return wall, summary["seconds"], digest.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=["cctv_xwlb_news_zh", "weibo_ced_zh"])
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--method", default="auto")
    args = ap.parse_args()
    for workers in args.workers[1:]:
        found = ceiling(workers)
        cells = ", ".join(f"{name} {ratio:.2f}x" for name, ratio in found.items())
        print(f"this machine, {workers} processes at once against one: {cells}")
    for dataset in args.datasets:
        best: dict[int, dict[str, float]] = {}
        digests: set[str] = set()
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.rounds):
                for workers in args.workers:
                    wall, seconds, digest = run(dataset, args.method, workers, Path(tmp))
                    digests.add(digest)
                    mine = best.setdefault(workers, {})
                    for name, value in {"wall": wall, **seconds}.items():
                        mine[name] = min(mine.get(name, float("inf")), value)
        base = best[args.workers[0]]
        print(f"{dataset} (method {args.method}, best of {args.rounds}):")
        for workers in args.workers:
            cells = []
            for name in ("wall", *STAGES):
                if best[workers].get(name, 0) > 0.005:  # a stage this run times
                    value = best[workers][name]
                    ratio = base[name] / value if value else float("nan")
                    cells.append(f"{name.removeprefix('find_pairs.')} {value:.2f}s ({ratio:.2f}x)")
            print(f"  --workers {workers}: " + ", ".join(cells))
        print(f"  outputs identical for every worker count: {len(digests) == 1}")


if __name__ == "__main__":
    main()
