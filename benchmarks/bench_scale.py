"""Scale: `neardup dedup` with the default method on millions of documents, end to end.

    python benchmarks/bench_scale.py [--docs 5000000] [--seed 0] [--workers N] [--keep-corpus PATH]

The corpus is generated into a temporary JSON-lines file (not timed) and then deduplicated by
``python -m neardup dedup`` in a fresh process with the default method and default options; the
script prints the time of every stage ``summary.json`` reports, documents/s, MB/s and the peak
RSS of that process.

**Composition** (fixed by ``--seed``): the sources are every distinct text of ../shared/data —
the corpora (``corpus.jsonl.gz``: weibo_ced_zh, chinese_reviews_zh, toutiao_titles_zh,
thucnews_titles_zh, cctv_xwlb_news_zh, reuters21578_en, bbc_news_en) and both sides of the
labelled pair sets (``pairs.jsonl``, ``docs.jsonl``) — 898,251 texts, short posts, reviews,
questions and titles for most of them, news stories of 200-20,000 characters for the rest, so
the documents are short: about 60 characters on average, not 300 (MB/s is printed to scale by).
The sources are shuffled; each is written once, followed by ``k`` near-copy variants, ``k``
binomial over 0-5 with mean 2.5 when there are sources enough (``--docs`` / 3.5 of them), else
with the mean that reaches ``--docs`` with all of them (5,000,000: all 898,251 sources, about
4.6 variants each, so about 82 % of the documents are variants of an earlier one). A
variant is :func:`nearcopy.make_copy` at ``light`` strength (1-2 edits: repost wrapping, tags,
mentions, emoji, URLs, header/footer/ad, sentence deletion or insertion, truncation to 90-97 %,
homophones, punctuation, width, traditional characters), with the edit list of the source's
length (``long`` for 200 characters or more; inserted sentences come from the first 1,000
sources). The script prints the realised mean length and
the share of variants.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nearcopy
import orjson
from _common import DATA, dedup_command

from neardup.methods import DEFAULT_METHOD

LONG_CHARS = 200  # a source this long gets the long texts' edits


def source_texts(data: Path) -> list[str]:
    """Every distinct non-empty text of every data set, in a fixed order."""
    seen: set[str] = set()
    texts: list[str] = []

    def add(text: object) -> None:
        if isinstance(text, str) and text.strip() and text not in seen:
            seen.add(text)
            texts.append(text)

    for folder in sorted(p for p in data.iterdir() if p.is_dir()):
        for name in ("corpus.jsonl.gz", "docs.jsonl", "pairs.jsonl"):
            path = folder / name
            if not path.exists():
                continue
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rb") as f:
                for line in f:
                    row = orjson.loads(line)
                    for field in ("text", "text1", "text2"):
                        add(row.get(field))
    return texts


def documents(texts: list[str], total: int, seed: int) -> Iterator[tuple[str, bool]]:
    """``(text, is_variant)`` for ``total`` documents: sources in a shuffled order, each followed
    by ``k`` variants, ``k`` binomial over 0-5 with mean 2.5 — or higher, up to 5, when the
    sources are too few for ``total`` at that mean; a smaller ``total`` takes fewer sources."""
    rng = random.Random(seed)
    order = list(range(len(texts)))
    rng.shuffle(order)
    order = order[: min(len(order), -(-total * 2 // 7))]  # total / 3.5 sources at mean 2.5
    share = min(1.0, max(0.5, (total / len(order) - 1) / 5 + 0.005))  # a little over: exact count
    editors = {
        kind: nearcopy.Editor(rng, nearcopy.STRENGTHS["light"], kind=kind, donors=texts[:1000])
        for kind in nearcopy.KINDS
    }
    made = 0
    for i in order:
        text = texts[i]
        yield text, False
        made += 1
        editor = editors["long" if len(text) >= LONG_CHARS else "short"]
        for _ in range(sum(rng.random() < share for _ in range(5))):
            if made >= total:
                return
            yield nearcopy.make_copy(text, editor)[0], True
            made += 1
        if made >= total:
            return


def write_corpus(path: Path, texts: list[str], total: int, seed: int) -> dict[str, float]:
    chars = variants = n = 0
    t0 = time.perf_counter()
    with open(path, "wb", buffering=1 << 20) as f:
        for text, is_variant in documents(texts, total, seed):
            f.write(orjson.dumps({"id": n, "text": text}) + b"\n")
            chars += len(text)
            variants += is_variant
            n += 1
            if n % 500_000 == 0:
                print(f"  generated {n:,} documents", file=sys.stderr, flush=True)
    return {
        "documents": n,
        "mean_chars": chars / n,
        "variant_share": variants / n,
        "megabytes": path.stat().st_size / 1e6,
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=5_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", default=None, help="neardup dedup --workers (default: its own)")
    ap.add_argument(
        "--keep-corpus", type=Path, default=None, help="write the corpus here and keep it"
    )
    args = ap.parse_args()

    texts = source_texts(DATA)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = args.keep_corpus or Path(tmp) / "corpus.jsonl"
        made = write_corpus(corpus, texts, args.docs, args.seed)
        print(
            f"corpus: {made['documents']:,} documents from {len(texts):,} sources, "
            f"{made['megabytes']:,.0f} MB, mean {made['mean_chars']:.0f} characters, "
            f"{made['variant_share']:.1%} variants (generated in {made['seconds']:.0f} s)"
        )
        out = Path(tmp) / "out"
        extra = ["--workers", str(args.workers)] if args.workers else []
        cmd = dedup_command(corpus, out, DEFAULT_METHOD, "--id-field", "id", *extra)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if status != 0:
            why = (
                f"killed by signal {os.WTERMSIG(status)} (9: out of memory?)"
                if os.WIFSIGNALED(status)
                else f"exit status {os.WEXITSTATUS(status)}"
            )
            sys.exit(
                f"failed after {wall:.0f} s, peak RSS {usage.ru_maxrss / 1024:,.0f} MB, {why}: "
                f"{' '.join(cmd)}"
            )
        summary = json.loads((out / "summary.json").read_text())
    c = summary["counts"]
    print(
        f"neardup dedup (default method): {c['records_read']:,} documents, kept {c['kept']:,}, "
        f"removed {c['duplicates_removed']:,}, skipped {c['skipped']:,}"
    )
    print(
        f"wall {wall:.1f} s = {c['records_read'] / wall:,.0f} documents/s, "
        f"{made['megabytes'] / wall:.1f} MB/s; peak RSS {usage.ru_maxrss / 1024:,.0f} MB"
    )
    for stage, seconds in summary["seconds"].items():
        print(f"  {stage:<12} {seconds:8.1f} s")


if __name__ == "__main__":
    main()
