"""Start-up time: rebuild the in-memory index from a store holding N documents.

    python benchmarks/bench_store_load.py [--documents 1000000] [--db sqlite:///tmp/bench.db] [--postgres URL]

Fills the store with N synthetic documents (random fingerprints, bulk inserts), then times a
fresh `Detector(store=...)`: reading every row and building the permuted-table index.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import peak_rss_mb

from neardup.config import FINGERPRINT_VERSION
from neardup.online import Detector
from neardup.store import StoredDocument, open_store


def fill(url: str, n: int) -> float:
    store = open_store(url)
    # random fingerprints, no payloads: the simhash method's store
    params = Detector(store=open_store("memory://"), method="simhash").persisted()
    store.check_meta(FINGERPRINT_VERSION, params)
    rng = np.random.default_rng(0)
    fps = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True).tolist()
    hashes = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True).tolist()
    t0 = time.perf_counter()
    batch = 50_000
    for lo in range(0, n, batch):
        store.put_many(
            [
                StoredDocument(f"doc-{i}", fps[i], 100, hashes[i], None, 0.0)
                for i in range(lo, min(n, lo + batch))
            ]
        )
    store.close()
    return time.perf_counter() - t0


def load(url: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    det = Detector(store=open_store(url), method="simhash")
    return time.perf_counter() - t0, len(det)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--documents", type=int, default=1_000_000)
    ap.add_argument("--db", help="store URL (default: a temporary SQLite file)")
    ap.add_argument(
        "--postgres",
        default=os.environ.get("NEARDUP_TEST_POSTGRES_URL"),
        help="also measure this PostgreSQL URL (its neardup tables are dropped first)",
    )
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    urls = [args.db or f"sqlite:///{tmp}/bench.db"]
    if args.db and args.db.startswith("sqlite:///"):  # filled from empty, as PostgreSQL below
        for suffix in ("", "-wal", "-shm"):
            Path(args.db.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)
    if args.postgres:
        import psycopg

        with psycopg.connect(args.postgres, autocommit=True) as conn:
            for t in ("neardup_documents", "neardup_meta", "neardup_checkpoints"):
                conn.execute(f"DROP TABLE IF EXISTS {t}")
        urls.append(args.postgres)
    for url in urls:
        fill_s = fill(url, args.documents)
        seconds, n = load(url)
        print(
            f"{url.split('://')[0]:<10} {n:>10,} documents  fill {fill_s:6.1f} s  "
            f"load + index {seconds:6.2f} s  ({n / seconds:,.0f} docs/s)  peak RSS {peak_rss_mb():,.0f} MB"
        )


if __name__ == "__main__":
    main()
