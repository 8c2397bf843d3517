"""Hamming search speed: batch all-pairs and online queries over random fingerprints.

    python benchmarks/bench_hamming.py [--sizes 1000000 10000000] [--max-distance 3] [--queries 10000]

Fingerprints are uniformly random 64-bit values with 10% planted near-duplicates (a random other
fingerprint with 1..k bits flipped), already in memory; times are for one core.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _common import peak_rss_mb, percentiles

from neardup.index.layout import choose_blocks
from neardup.index.permuted import PermutedIndex, hamming_edges


def planted(n: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
    m = n // 10
    src, dst = rng.integers(0, n, size=m), rng.integers(0, n, size=m)
    near = fps[src].copy()
    for j in range(k):
        flip = rng.random(m) < (1.0 if j == 0 else 0.7)
        near ^= np.where(flip, np.uint64(1) << rng.integers(0, 64, size=m).astype(np.uint64), 0)
    fps[dst] = near
    return fps


def bench_all_pairs(n: int, k: int, blocks: int | None) -> None:
    fps = planted(n, k)
    hamming_edges(fps[:10000], max_distance=k, blocks=blocks)  # compile
    b = blocks or choose_blocks(n, k)
    t0 = time.perf_counter()
    left, _right, _dist = hamming_edges(fps, max_distance=k, blocks=blocks)
    dt = time.perf_counter() - t0
    print(
        f"all-pairs  n={n:>11,}  k={k}  blocks={b} tables={math.comb(b, k):>3}  "
        f"pairs={len(left):>9,}  {dt:7.3f} s  peak RSS {peak_rss_mb():,.0f} MB"
    )


def bench_queries(n: int, k: int, queries: int) -> None:
    fps = planted(n, k, seed=1)
    index = PermutedIndex(max_distance=k, expected_size=n)
    t0 = time.perf_counter()
    index.add_many(range(n), fps)
    build = time.perf_counter() - t0
    rng = np.random.default_rng(2)
    qs = fps[rng.integers(0, n, size=queries)].copy()
    half = queries // 2  # half are near-duplicates of stored ones, half random
    qs[:half] ^= np.uint64(1) << rng.integers(0, 64, size=half).astype(np.uint64)
    qs[half:] = rng.integers(0, 2**63, size=queries - half, dtype=np.uint64)
    index.query(int(qs[0]))
    lat = []
    hits = 0
    for q in qs.tolist():
        t = time.perf_counter_ns()
        hits += bool(index.query(q))
        lat.append((time.perf_counter_ns() - t) / 1e3)
    p = percentiles(lat)
    print(
        f"online     n={n:>11,}  k={k}  blocks={index.blocks} build {build:.1f} s  "
        f"{queries:,} queries ({hits:,} with matches): p50 {p['p50']:.1f} us  p99 {p['p99']:.1f} us  "
        f"p99.9 {p['p99.9']:.1f} us  peak RSS {peak_rss_mb():,.0f} MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--max-distance", type=int, default=3)
    ap.add_argument("--blocks", type=int)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--skip-online", action="store_true")
    args = ap.parse_args()
    for n in args.sizes:
        bench_all_pairs(n, args.max_distance, args.blocks)
    if not args.skip_online:
        bench_queries(max(args.sizes), args.max_distance, args.queries)


if __name__ == "__main__":
    main()
