"""What the default method removes from natural corpora of distinct documents (precision check).

    python benchmarks/natural_removals.py [--corpora cctv_xwlb_news_zh ...] [--sample 30] [--seed 0]
        [--method paragraph]

For each corpus in ../shared/data: the documents the default method (``auto``, defaults only;
``--method`` another, with its defaults) removes, how many of them *beyond exact duplicates* (removals minus documents whose text equals
an earlier one after NFKC, lower-casing and removing white space), the largest clusters, and
``--sample`` removals drawn with a fixed seed, written side by side to
``docs/natural/<corpus>.tsv`` (``<corpus>.<method>.tsv`` for another method) with an empty ``judgement`` column for a reader to fill
(``copy`` / ``not a copy``). Existing judgements are kept: a judged pair that is still removed
is written again, drawn or not (another ``--sample`` or ``--seed`` draws other pairs).

Where a corpus dates its documents (the ``date`` of reuters21578_en and cctv_xwlb_news_zh), the removals beyond exact duplicates whose two documents are dated ``DAYS_APART`` or more
days apart are counted and the first of them listed: an oracle that knows nothing of the text —
a wire story re-sent or corrected goes out the same day, while a daily report of one template
(the Fed's repurchases, a metal price, an earnings table) recurs on other days — so these are
the removals to read first. A story legitimately repeated later is among them too; the count
is a pointer, not a verdict.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import random
import re
import time
import unicodedata
from datetime import date, datetime
from pathlib import Path

import numpy as np
import orjson
from _common import DATA, peak_rss_mb

from neardup.dedup import dedup_with
from neardup.methods import DEFAULT_METHOD, create

CORPORA = (
    "cctv_xwlb_news_zh",
    "reuters21578_en",
    "bbc_news_en",
    "toutiao_titles_zh",
    "weibo_ced_zh",
)
OUT = Path(__file__).resolve().parents[1] / "docs" / "natural"


DAYS_APART = 2  # removals whose documents are dated this many days apart or more are listed


def read(name: str) -> tuple[list[str], list[str], list[date | None]]:
    texts, ids, days = [], [], []
    with gzip.open(DATA / name / "corpus.jsonl.gz", "rb") as f:
        for line in f:
            r = orjson.loads(line)
            if r.get("text"):
                texts.append(r["text"])
                ids.append(str(r.get("id", len(ids))))
                days.append(dated(r))
    return texts, ids, days


def dated(record: dict) -> date | None:
    """The day a record is dated, where its corpus says: ``date`` as reuters21578_en writes it
    ("2-MAR-1987 11:44:41.93") or as cctv_xwlb_news_zh does ("20230308")."""
    written = record.get("date")
    if not isinstance(written, str) or not written.strip():
        return None
    for form in ("%d-%b-%Y", "%Y%m%d"):
        try:
            return datetime.strptime(written.split()[0], form).date()
        except ValueError:
            continue
    return None


def days_apart(days: list[date | None], a: int, b: int) -> int | None:
    """Days between the dates of documents ``a`` and ``b`` (None: either is undated)."""
    if days[a] is None or days[b] is None:
        return None
    return abs((days[a] - days[b]).days)


def exact_repeats(texts: list[str]) -> np.ndarray:
    seen: dict[str, int] = {}
    key = (re.sub(r"\s+", "", unicodedata.normalize("NFKC", t).lower()) for t in texts)
    return np.array([seen.setdefault(k, i) != i for i, k in enumerate(key)], bool)


def clip(text: str, n: int = 300) -> str:
    """The first ``n`` characters on one line, saying how many more there are: a judgement is
    made on both full texts, which a clip can hide (a table continued past it)."""
    text = text.replace("\t", " ").replace("\n", " / ")
    return text if len(text) <= n else f"{text[:n]}… [{len(text) - n:,} more characters]"


def run(name: str, sample: int, seed: int, method_name: str = DEFAULT_METHOD) -> None:
    texts, ids, days = read(name)
    method = create(method_name)
    t0 = time.perf_counter()
    result = dedup_with(method, texts)
    seconds = time.perf_counter() - t0
    rep = result.clusters.representative
    n = len(texts)
    removed = rep != np.arange(n)
    beyond = removed & ~exact_repeats(texts)
    sizes = np.bincount(rep, minlength=n)
    print(
        f"{name}: {n:,} documents, {int(removed.sum()):,} removed, "
        f"{int(beyond.sum()):,} beyond exact duplicates; {seconds:.1f}s, peak RSS {peak_rss_mb():.0f} MB"
    )
    for r in np.argsort(-sizes, kind="stable")[:5]:
        members = np.flatnonzero(rep == r)[1:6]
        print(
            f"  cluster of {sizes[r]}: {clip(texts[r], 60)!r} <- {[clip(texts[m], 40) for m in members]}"
        )
    apart = [
        (gap, i)
        for i in np.flatnonzero(beyond).tolist()
        if (gap := days_apart(days, i, int(rep[i]))) is not None and gap >= DAYS_APART
    ]
    if any(d is not None for d in days):
        print(f"  {len(apart)} of them dated {DAYS_APART} or more days from their representative:")
        for gap, i in sorted(apart, reverse=True)[:10]:
            r = int(rep[i])
            print(
                f"    {gap} days: {ids[i]} {clip(texts[i], 50)!r} -> {ids[r]} {clip(texts[r], 50)!r}"
            )
    path = OUT / (f"{name}.tsv" if method_name == DEFAULT_METHOD else f"{name}.{method_name}.tsv")
    old = {}
    if path.exists():
        with open(path, encoding="utf-8") as f:
            old = {
                (r["representative"], r["removed"]): r["judgement"]
                for r in csv.DictReader(f, delimiter="\t")
            }
    drawn = random.Random(seed).sample(
        np.flatnonzero(beyond).tolist(), min(sample, int(beyond.sum()))
    )
    chosen = set(drawn)
    judged = [  # a judged pair still removed is written again, whatever this draw holds
        i
        for i in np.flatnonzero(beyond).tolist()
        if i not in chosen and old.get((ids[int(rep[i])], ids[i]))
    ]
    if judged:
        print(f"  {len(judged)} judged removals outside this draw kept in the file")
    drawn = [*drawn, *judged]
    OUT.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(
            [
                "representative",
                "removed",
                "similarity",
                "days_apart",
                "representative_text",
                "removed_text",
                "judgement",
            ]
        )
        for i in sorted(drawn):
            r = int(rep[i])
            sim = float(result.similarity_to_representative[i])
            w.writerow(
                [
                    ids[r],
                    ids[i],
                    f"{sim:.3f}",
                    "" if (gap := days_apart(days, i, r)) is None else gap,
                    clip(texts[r]),
                    clip(texts[i]),
                    old.get((ids[r], ids[i]), ""),
                ]
            )
    print(f"  {len(drawn)} removals written to {path}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", nargs="+", default=list(CORPORA))
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--method", default=DEFAULT_METHOD, help="a method name (its defaults)")
    args = ap.parse_args()
    for name in args.corpora:
        run(name, args.sample, args.seed, args.method)


if __name__ == "__main__":
    main()
