"""End-to-end `neardup dedup` (reading and writing files included): wall time and peak RSS.

    python benchmarks/bench_dedup.py [--datasets weibo_ced_zh cctv_xwlb_news_zh] [--method simhash] [-- extra dedup args]

Each run is a fresh process (`python -m neardup dedup ...`), so the time includes start-up and
kernel compilation (cached after the first run) and the peak RSS is that process's own.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import data_path, dedup_command


def run(dataset: str, method: str, extra: list[str]) -> None:
    src = data_path(dataset)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        cmd = dedup_command(src, out, method, *extra)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if status != 0:
            sys.exit(f"failed: {' '.join(cmd)}")
        summary = json.loads((out / "summary.json").read_text())
    c = summary["counts"]
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in summary["seconds"].items() if k != "total")
    print(
        f"{dataset:<20} method={method:<9} {c['records_read']:>8,} docs  kept {c['kept']:>8,}  "
        f"removed {c['duplicates_removed']:>8,}  wall {wall:6.2f} s  peak RSS "
        f"{usage.ru_maxrss / 1024:,.0f} MB   ({stages})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=["weibo_ced_zh", "cctv_xwlb_news_zh"])
    ap.add_argument("--method", default="simhash")
    ap.add_argument("extra", nargs="*", help="extra arguments for neardup dedup (after --)")
    args = ap.parse_args()
    for name in args.datasets:
        run(name, args.method, args.extra)


if __name__ == "__main__":
    main()
