"""dedup_frame on a pandas DataFrame against `neardup dedup` on the same records in a file.

    python benchmarks/bench_frame.py [--dataset cctv_xwlb_news_zh] [--method auto]

Loads the corpus once into a pandas DataFrame and writes its records to a JSON Lines file (not
timed; a corpus that repeats ids, like weibo_ced_zh, keeps the first record of each id on both
sides), then times, in this process:
`neardup dedup FILE -o TMP --quiet` (reading, deduplicating and writing every output) and
`neardup.dedup_frame(frame, id="id")` (deduplicating and adding the columns). Prints both, the
ratio (target: the frame costs at most 1.10x the file), and checks both removed the same rows.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

import orjson
from _common import data_path

import neardup
from neardup.cli import main as cli


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dataset", default="cctv_xwlb_news_zh")
    ap.add_argument("--method", default=neardup.methods.DEFAULT_METHOD)
    args = ap.parse_args()
    import pandas as pd

    frame = pd.read_json(data_path(args.dataset), lines=True, dtype={"id": str}, compression="gzip")
    repeated = int(frame["id"].duplicated().sum())
    if repeated:  # weibo_ced_zh repeats ids: both sides get the first record of each id
        frame = frame.drop_duplicates("id", keep="first").reset_index(drop=True)
    work = Path(tempfile.mkdtemp())
    path = work / "records.jsonl"  # the same records for the file run (not timed)
    with open(path, "wb") as f:
        for doc_id, text in zip(frame["id"], frame["text"], strict=True):
            f.write(orjson.dumps({"id": doc_id, "text": text}) + b"\n")
    neardup.dedup_texts(["预热 warm up", "预热 warm up!"], method=args.method)  # compile kernels
    out = work / "out"
    started = time.perf_counter()
    assert (
        cli(
            [
                "dedup",
                str(path),
                "--id-field",
                "id",
                "--method",
                args.method,
                "-o",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    file_seconds = time.perf_counter() - started
    started = time.perf_counter()
    marked = neardup.dedup_frame(frame, id="id", method=args.method)
    frame_seconds = time.perf_counter() - started
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        removed_file = {r["id"] for r in csv.DictReader(f) if r["representative_id"] != r["id"]}
    removed_frame = set(marked.loc[marked["duplicate"], "id"])
    print(
        f"{args.dataset}: {len(frame):,} rows ({repeated:,} rows with a repeated id dropped), "
        f"method {args.method}\n"
        f"  neardup dedup (file, all outputs) {file_seconds:8.2f} s\n"
        f"  dedup_frame (pandas)              {frame_seconds:8.2f} s   "
        f"ratio {frame_seconds / file_seconds:.2f}x (target <= 1.10x)\n"
        f"  same removals: {removed_file == removed_frame} ({len(removed_frame):,} removed)"
    )


if __name__ == "__main__":
    main()
