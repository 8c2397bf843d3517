"""Character-3-gram Jaccard of *unrelated* long texts, per language: why `auto` keeps a higher
long-route threshold for Latin-script text (``latin_long_threshold``).

    python benchmarks/background_jaccard.py [--pairs 2000] [--seed 0]

Random pairs of distinct articles (500-4,000 characters) from BBC News and Reuters-21578
(English) and CCTV 新闻联播 (Chinese), compared as `auto` compares them (normalised, punctuation
removed). Prints the median, 90th and 99th percentile and the maximum.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
from _common import load_texts

from neardup.config import NormalizeConfig
from neardup.normalize import normalize_many
from neardup.verify import similarity_pairs

SETS = ("bbc_news_en", "reuters21578_en", "cctv_xwlb_news_zh")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print("| set | articles | pairs | median | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in SETS:
        texts = [t for t in load_texts(name) if 500 < len(t) < 4000]
        norm = normalize_many(texts, NormalizeConfig(remove_punctuation=True))
        rng = random.Random(args.seed)
        picks = np.array([rng.sample(range(len(norm)), 2) for _ in range(args.pairs)])
        sims = similarity_pairs(norm, picks[:, 0], picks[:, 1], measure="jaccard", ngram=3)
        q = np.quantile(sims, [0.5, 0.9, 0.99, 1.0])
        print(
            f"| {name} | {len(texts):,} | {args.pairs:,} | "
            + " | ".join(f"{v:.3f}" for v in q)
            + " |"
        )


if __name__ == "__main__":
    main()
