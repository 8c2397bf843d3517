"""The dedup report on a big run: what recording its sample costs, and building the page.

    python benchmarks/bench_report.py [--dataset weibo_ced_zh] [--method auto] [--output DIR]

Runs `neardup dedup DATASET -o DIR` once (in this process; skipped when DIR already holds a
complete run with report_data.json), then times `neardup report DIR` three times and prints:
the dedup run's own `report_sample` stage (choosing the sample, fetching its texts), the report's
median build time, the sizes of report_data.json and report.html, and the largest clusters the
page shows. Targets (#16): weibo_ced_zh report in <= 10 s and <= 5 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from _common import data_path

import neardup
from neardup.cli import main as cli


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dataset", default="weibo_ced_zh")
    ap.add_argument("--method", default=neardup.methods.DEFAULT_METHOD)
    ap.add_argument("--output", help="a dedup output directory to reuse (or to write)")
    args = ap.parse_args()
    out = Path(args.output) if args.output else Path(tempfile.mkdtemp()) / "out"
    if not (out / "report_data.json").exists():
        started = time.perf_counter()
        src = str(data_path(args.dataset))
        assert cli(["dedup", src, "-o", str(out), "--method", args.method, "--quiet"]) == 0
        print(f"dedup {args.dataset} ({args.method}): {time.perf_counter() - started:.1f} s")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    seconds = []
    for _ in range(3):
        started = time.perf_counter()
        assert cli(["report", str(out), "--quiet"]) == 0
        seconds.append(time.perf_counter() - started)
    data = json.loads((out / "report_data.json").read_text(encoding="utf-8"))
    counts = summary["counts"]
    print(
        f"run: {counts['records_read']:,} records, {counts['duplicates_removed']:,} removed in "
        f"{counts['duplicate_clusters']:,} clusters; recording the sample took "
        f"{summary['seconds'].get('report_sample', float('nan')):.3f} s of "
        f"{summary['seconds']['total']:.1f} s"
    )
    print(
        f"neardup report: median {statistics.median(seconds):.3f} s (target <= 10 s); "
        f"report.html {(out / 'report.html').stat().st_size / 1e6:.2f} MB (target <= 5 MB), "
        f"report_data.json {(out / 'report_data.json').stat().st_size / 1e6:.2f} MB"
    )
    print("largest clusters shown:")
    docs = data["documents"]
    for cluster in data["largest_clusters"]:
        text = docs[str(cluster["representative"])]["text"].replace("\n", " ")[:40]
        print(f"  {cluster['size']:>8,}  kept {text!r}")
    print(f"report: {out / 'report.html'}")


if __name__ == "__main__":
    main()
