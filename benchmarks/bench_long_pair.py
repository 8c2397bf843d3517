"""Two long near-copies: time and peak RSS of the default method as documents grow.

    python benchmarks/bench_long_pair.py [--sizes 100000 1000000 3000000] [--languages zh en]

A document is the start of a corpus's stories joined (cctv_xwlb_news_zh for ``zh``, one story
a line; reuters21578_en for ``en``, a blank line between stories) cut to ``size`` characters;
its near-copy has an editor's note put in after a line break every 20,000 characters and its
last 1 % cut (seeded). Each run is a fresh process that
calls ``dedup_texts`` on the two texts, and, as the baseline of the same run, on the first text
alone (reading, fingerprints and sketches without a pair to verify). Prints seconds, peak RSS
and whether the copy was found. Before the copy rule aligned long texts in stretches, two
copies of 100,000 Chinese characters took 4.4 s and 1.1 GB, and of a million English ones
18.8 s and 2.9 GB (the alignment's table holds a bit per pair of tokens).
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

CORPORA = {"zh": ("cctv_xwlb_news_zh", "\n"), "en": ("reuters21578_en", "\n\n")}


def long_text(language: str, size: int) -> str:
    """The start of the language's corpus, stories joined, ``size`` characters."""
    dataset, joiner = CORPORA[language]
    parts, total = [], 0
    with gzip.open(data_path(dataset)) as lines:
        for line in lines:
            text = orjson.loads(line).get("text") or ""
            parts.append(text)
            total += len(text) + len(joiner)
            if total >= size:
                break
    return joiner.join(parts)[:size]


def near_copy(text: str, seed: int = 0) -> str:
    """``text`` re-posted: an editor's note put in after a random line break every 20,000
    characters and the last 1 % cut."""
    rng = random.Random(seed)
    note = {"zh": "（编者按：本文有删节。）", "en": " (Editor's note: this text is abridged.) "}
    kind = "zh" if any("\u4e00" <= c <= "\u9fff" for c in text[:200]) else "en"
    breaks = [k + 1 for k, c in enumerate(text) if c == "\n"] or [len(text)]
    cuts = sorted(rng.choice(breaks) for _ in range(max(1, len(text) // 20_000)))
    pieces, last = [], 0
    for at in cuts:
        pieces += [text[last:at], note[kind]]
        last = at
    pieces.append(text[last:])
    copy = "".join(pieces)
    return copy[: len(copy) - len(text) // 100]


def child(language: str, size: int, mode: str) -> None:
    from neardup import dedup_texts

    text = long_text(language, size)
    texts = [text, near_copy(text)] if mode == "pair" else [text]
    dedup_texts(["warm up the kernels", "warm up the kernels!"])
    started = time.perf_counter()
    result = dedup_texts(texts, workers=1)
    seconds = time.perf_counter() - started
    found = bool(result.clusters.n_duplicates)
    print(json.dumps({"seconds": seconds, "rss": peak_rss_mb(), "found": found}))


def measure(language: str, size: int, mode: str) -> dict:
    cmd = [sys.executable, __file__, "--child", language, str(size), mode]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"seconds": float("nan"), "rss": float("nan"), "found": None,
                "error": proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]}  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", nargs="+", type=int, default=[100_000, 1_000_000, 3_000_000])
    ap.add_argument("--languages", nargs="+", default=["zh", "en"], choices=sorted(CORPORA))
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        language, size, mode = args.child
        child(language, int(size), mode)
        return
    print(f"{'language':<8} {'characters':>11} {'one text':>9} {'the pair':>9} "
          f"{'peak RSS':>9}  copy found")  # fmt: skip
    for language in args.languages:
        for size in args.sizes:
            alone = measure(language, size, "single")
            pair = measure(language, size, "pair")
            print(
                f"{language:<8} {size:>11,} {alone['seconds']:>8.2f}s {pair['seconds']:>8.2f}s "
                f"{pair['rss']:>6,.0f} MB  {pair['found']}"
                + (f"  {pair['error']}" if "error" in pair else "")
            )


if __name__ == "__main__":
    main()
