"""The online detector with the default method: `check` latency against a million stored documents.

    python benchmarks/bench_online.py [--documents 1000000] [--queries 2000] [--store URL]
                                      [--tables fit|none] [--batch 2000] [--seed 0]

**Stored documents** (in this order, up to ``--documents``): every record of weibo_ced_zh
(771,960 posts, duplicates included: the detector stores them and indexes the kept ones),
cctv_xwlb_news_zh (20,985 news stories), chinese_reviews_zh (82,525 reviews),
toutiao_titles_zh (38,270 headlines) and thucnews_titles_zh (20,000 headlines) — 933,740 real
texts — then light near-copy variants (`nearcopy.make_copy`, short or long edits by length)
of randomly drawn stored texts up to the count. They go in through `Detector.add_many` in
batches of ``--batch`` (check-and-insert, the path `neardup index add` and the service take),
into ``--store`` (default ``memory://``; a ``sqlite:///...`` URL adds durable writes).
``--tables fit`` (default) first fits the common-gram table on the stored texts, as
`neardup dedup` does and docs/service.md tells a service to load (``--tables``); ``none`` runs
without one, so no text counts as common (time not included in the fill rate).

**Queries** (not inserted): ``--queries`` / 2 light near-copies of randomly drawn stored texts
(should be found) and as many texts the store has never seen — the first texts of
lcqmc_dev_zh and afqmc_zh question pairs, real short Chinese questions. Each is one
`Detector.check` call, timed alone; the script prints latency percentiles per kind, the share
of near-copies found and of new texts matched, the fill rate (documents/s) and the peak RSS of
this process. Times are for one process on one core.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import orjson
from _common import data_path, load_texts, peak_rss_mb, percentiles
from nearcopy import STRENGTHS, Editor, make_copy

from neardup.methods import create
from neardup.online import Detector
from neardup.store import open_store

STORED = (
    "weibo_ced_zh",
    "cctv_xwlb_news_zh",
    "chinese_reviews_zh",
    "toutiao_titles_zh",
    "thucnews_titles_zh",
)
NEW = ("lcqmc_dev_zh", "afqmc_zh")
LONG = 200  # characters: a text this long is edited like a news story


def variant(text: str, rng: random.Random) -> str:
    kind = "long" if len(text) >= LONG else "short"
    return make_copy(text, Editor(rng, STRENGTHS["light"], kind=kind))[0]


def stored_texts(n: int, rng: random.Random) -> list[str]:
    texts: list[str] = []
    for name in STORED:
        texts.extend(load_texts(name, n - len(texts)))
        if len(texts) >= n:
            return texts[:n]
    real = len(texts)
    while len(texts) < n:
        texts.append(variant(texts[rng.randrange(real)], rng))
    return texts


def new_texts(n: int) -> list[str]:
    out: list[str] = []
    for name in NEW:
        with open(data_path(name, "pairs.jsonl"), "rb") as f:
            for line in f:
                out.append(orjson.loads(line)["text1"])
                if len(out) >= n:
                    return out
    return out


def timed_checks(detector: Detector, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each text's `check` latency (seconds) and whether it matched."""
    lat = np.empty(len(texts))
    hit = np.zeros(len(texts), bool)
    for k, text in enumerate(texts):
        started = time.perf_counter()
        result = detector.check(text)
        lat[k] = time.perf_counter() - started
        hit[k] = result.duplicate
    return lat, hit


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--documents", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--store", default="memory://")
    ap.add_argument("--tables", choices=("fit", "none"), default="fit")
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    texts = stored_texts(args.documents, rng)
    copies = [variant(texts[rng.randrange(len(texts))], rng) for _ in range(args.queries // 2)]
    unseen = new_texts(args.queries - len(copies))
    print(f"stored: {len(texts):,} texts, mean {np.mean([len(t) for t in texts]):.0f} chars")

    tables = None
    if args.tables == "fit":
        started = time.perf_counter()
        method = create("auto")
        method.prepare(method.compared(texts), fit=True)
        tables = method.tables
        print(
            f"common-gram table fitted: {len(tables.values):,} grams in "
            f"{time.perf_counter() - started:.1f} s"
        )
    detector = Detector(store=open_store(args.store), method="auto", tables=tables)
    detector.check("warm up the compiled kernels")
    started = time.perf_counter()
    for lo in range(0, len(texts), args.batch):
        part = texts[lo : lo + args.batch]
        detector.add_many([(f"d{lo + k}", t) for k, t in enumerate(part)])
        if (lo // args.batch) % 50 == 49:
            done = lo + len(part)
            rate = done / (time.perf_counter() - started)
            print(f"  {done:,} added, {rate:,.0f} docs/s, peak RSS {peak_rss_mb():,.0f} MB")
    fill = time.perf_counter() - started
    print(
        f"fill: {len(texts):,} check-and-inserts in {fill:.1f} s ({len(texts) / fill:,.0f} docs/s), "
        f"{len(detector._indexed):,} kept in the index, peak RSS {peak_rss_mb():,.0f} MB"
    )

    for label, queries in (("near-copies of stored texts", copies), ("new texts", unseen)):
        lat, hit = timed_checks(detector, queries)
        pct = percentiles(lat * 1000, ps=(50, 90, 99, 99.9))
        shown = ", ".join(f"{k} {v:.2f} ms" for k, v in pct.items())
        print(
            f"check, {label} ({len(queries):,}): {shown}, max {lat.max() * 1000:.1f} ms; "
            f"matched {hit.mean():.1%}"
        )
    print(f"peak RSS {peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
