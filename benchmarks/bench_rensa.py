"""The default method beside rensa (Rust MinHash-LSH), in the same run, one thread each.

    python benchmarks/bench_rensa.py [--datasets weibo_ced_zh cctv_xwlb_news_zh reuters21578_en templated]

Both sides get the same texts: a corpus's texts with exact duplicates collapsed first (the same
text after stripping surrounding white space), as in issue #13's table. Each system runs in a
fresh process (so that the peak RSS is its own), timed from the loaded texts to its decision
(fingerprints and tokenisation included, reading the file excluded):

- ``neardup``: ``dedup_texts(texts, workers=1)`` with the default method and default options;
- ``rensa``: its documented recipe — one ``RMinHash(num_perm=128, seed=42)`` per text updated
  with the character 3-grams of the lower-cased text (the tokens a Python caller hands it), and
  ``RMinHashDeduplicator(threshold=0.8, num_perm=128, use_lsh=True, num_bands=16)`` fed the
  texts in order (a text is a duplicate when an earlier one passes the LSH threshold).

``--datasets templated`` adds a generated corpus (:func:`templated_messages`): 50,000 short
messages from four templates filled with other names, days, ordinals and figures, where most
candidate pairs share their frame and differ in values (notifications, results, order mails).
None of its texts is a copy of another: what a system removes there is a false positive (neardup's
are messages whose only other value is a name or city at the very start, "杨敏在5日…" / "王敏在5日…":
the copy rule reads a short text's start as an opening a repost may retype, not as a value).

Prints seconds, documents/s, MB/s, removed documents and peak RSS per system, and neardup's time
as a multiple of rensa's (the issue's target: at most 1.0 on weibo and cctv, 2.0 on reuters).
The two do not decide the same thing (rensa: estimated 3-gram Jaccard; neardup: the copy rule),
so the removed counts differ; docs/quality.md has what each removes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import time

import orjson
from _common import data_path, peak_rss_mb

DATASETS = ("weibo_ced_zh", "cctv_xwlb_news_zh", "reuters21578_en")
SYSTEMS = ("neardup", "rensa")


TEMPLATES = (
    "{name}在{day}日参加了北京市第{nth}届运动会并获得{count}枚奖牌",
    "尊敬的{name}先生您好，您在{day}日订购的第{nth}批商品共{count}件已发货，运费{price}元",
    "{city}今天{weather}，最高气温{count}度，最低气温{day}度，空气质量指数{price}",
    "Qtly div {count} cts vs {day} cts prior pay {month} {nth} record {month} {day}",
)


def templated_messages(count: int = 50_000, seed: int = 0) -> list[str]:
    """``count`` messages from :data:`TEMPLATES` with random values, exact duplicates dropped."""
    rng = random.Random(seed)
    names = [a + b for a in "张王李赵刘陈杨黄" for b in "伟芳娜敏静丽强磊军洋"]
    texts = {}
    for _ in range(count):
        values = {
            "name": rng.choice(names),
            "day": rng.randint(1, 28),
            "nth": rng.randint(1, 60),
            "count": rng.randint(1, 40),
            "price": rng.randint(10, 500),
            "city": rng.choice(["北京", "上海", "广州", "成都", "西安", "武汉"]),
            "weather": rng.choice(["晴", "多云", "小雨", "阴"]),
            "month": rng.choice(["May", "June", "July", "Aug"]),
        }
        text = rng.choice(TEMPLATES).format(**values)
        texts[text] = None
    return list(texts)


def distinct_texts(dataset: str) -> list[str]:
    """The corpus's texts, the first of each exact duplicate only; no empty one (`neardup
    dedup` skips those, and ``dedup_texts`` refuses them)."""
    if dataset == "templated":
        return templated_messages()
    seen: set[str] = set()
    texts = []
    with gzip.open(data_path(dataset)) as lines:
        for line in lines:
            text = orjson.loads(line).get("text") or ""
            key = text.strip()
            if key and key not in seen:
                seen.add(key)
                texts.append(text)
    return texts


def run_neardup(texts: list[str]) -> int:
    from neardup import dedup_texts

    result = dedup_texts(texts, workers=1)
    return result.clusters.n_duplicates


def run_rensa(texts: list[str]) -> int:
    from rensa import RMinHash, RMinHashDeduplicator

    dedup = RMinHashDeduplicator(threshold=0.8, num_perm=128, use_lsh=True, num_bands=16)
    removed = 0
    for key, text in enumerate(texts):
        lowered = text.lower()
        grams = [lowered[i : i + 3] for i in range(max(1, len(lowered) - 2))]
        minhash = RMinHash(num_perm=128, seed=42)
        minhash.update(grams)
        removed += not dedup.add(str(key), minhash)
    return removed


def child(system: str, dataset: str) -> None:
    texts = distinct_texts(dataset)
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    start_rss = peak_rss_mb()
    t0 = time.perf_counter()
    removed = (run_neardup if system == "neardup" else run_rensa)(texts)
    seconds = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "docs": len(texts),
                "mb": megabytes,
                "seconds": seconds,
                "removed": removed,
                "peak_rss_mb": peak_rss_mb(),
                "rss_after_load_mb": start_rss,
            }
        )
    )


def measure(system: str, dataset: str) -> dict:
    cmd = [sys.executable, __file__, "--child", system, dataset]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"{system} on {dataset} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--child", nargs=2, metavar=("SYSTEM", "DATASET"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    try:
        import rensa  # noqa: F401
    except ImportError:
        sys.exit("rensa is not installed: pip install -e '.[bench]'")
    print(f"{'dataset':<20} {'system':<8} {'docs':>9} {'seconds':>8} {'docs/s':>9} {'MB/s':>6} "
          f"{'removed':>8} {'peak RSS':>9}  neardup / rensa")  # fmt: skip
    for dataset in args.datasets:
        rows = {system: measure(system, dataset) for system in SYSTEMS}
        for system, r in rows.items():
            ratio = rows["neardup"]["seconds"] / rows["rensa"]["seconds"]
            print(
                f"{dataset:<20} {system:<8} {r['docs']:>9,} {r['seconds']:>8.2f} "
                f"{r['docs'] / r['seconds']:>9,.0f} {r['mb'] / r['seconds']:>6.1f} "
                f"{r['removed']:>8,} {r['peak_rss_mb']:>6,.0f} MB"
                + (f"  {ratio:.2f}x" if system == "neardup" else "")
            )


if __name__ == "__main__":
    main()
