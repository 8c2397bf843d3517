"""Fingerprinting throughput (normalisation included) on real text, one core.

python benchmarks/bench_fingerprint.py [--dataset cctv_xwlb_news_zh] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

from _common import load_texts, peak_rss_mb

from neardup.config import FingerprintConfig
from neardup.simhash import Fingerprinter


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dataset", default="cctv_xwlb_news_zh")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--features", default="char")
    ap.add_argument("--weights", default="tf")
    args = ap.parse_args()
    texts = load_texts(args.dataset)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    chars = sum(map(len, texts))
    fp = Fingerprinter(FingerprintConfig(features=args.features, weights=args.weights))
    fp.fingerprint_many(texts[:100])  # compile the kernels outside the timing
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        fp.fingerprint_many(texts)
        best = min(best, time.perf_counter() - t0)
    print(
        f"dataset            {args.dataset}: {len(texts):,} docs, {chars:,} chars, {mb:.1f} MB UTF-8"
    )
    print(f"features/weights   {args.features}/{args.weights} (n=3), normalisation included")
    print(f"best of {args.repeat}          {best:.3f} s")
    print(f"throughput         {mb / best:.1f} MB/s, {len(texts) / best:,.0f} docs/s (one core)")
    print(f"peak RSS           {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
