"""Quality on generated near-copies: pairwise cluster precision / recall / F1 per kind, strength and method.

    python benchmarks/bench_quality.py [--kinds long short] [--strengths light medium heavy]
        [--methods simhash ngram paragraph auto] [--long-sources 2000] [--short-sources 5000] [--seed 0]
        [--sweep] [--sources-first]

The corpora come from :mod:`nearcopy` (real sources, edited copies, boilerplate-only negatives).
Every method runs through ``neardup.dedup.dedup_texts`` at its DEFAULT settings. Pair counts come
from the contingency table of (gold cluster, predicted cluster): a cell of ``n`` documents holds
``C(n, 2)`` pairs, so no pair list is ever built. ``bp_prec`` is the share of pairs inside a
boilerplate-only negative group (unrelated texts with the same header / footer / ad / tags) that
the method keeps apart. ``src_fp`` counts merged pairs between two untouched sources (originals
and singletons), directly or through a chain of other documents: duplicates the source data still
held, or false positives of the method.

With ``datasketch`` installed, plain MinHash-LSH (character 3-grams of the normalised text,
128 permutations, LSH threshold 0.5, no verification) is shown for scale. ``--sweep`` adds F1 by
threshold for ``auto`` (``short_similarity`` on short texts, ``containment`` on long ones) and
for ``simhash`` (``max_distance``). ``--sources-first`` runs each method again on the same
corpus with every original moved before its copies (:func:`nearcopy.sources_first`): the
generator shuffles originals and copies alike, and the default clustering rule joins a document
only to a kept one it was verified against, so two copies edited apart, the first of them
before their original, stay apart (the original joins the first); a feed or a crawl sees the
source first.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nearcopy
import numpy as np
from _common import peak_rss_mb

from neardup.cluster import cluster_pairs
from neardup.dedup import dedup_texts
from neardup.evaluate.metrics import cluster_scores

METHODS = ("simhash", "ngram", "paragraph", "auto")


# --- metrics ----------------------------------------------------------------------------------


def _labels(values: Sequence) -> np.ndarray:
    """Dense integer codes for arbitrary hashable labels."""
    return np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)[1]


def _pairs_within(*labelings: np.ndarray) -> int:
    """Pairs of documents that agree on every labelling: sum over joint cells of C(n, 2)."""
    keys = np.stack([np.asarray(lab, np.int64) for lab in labelings], axis=1)
    _, counts = np.unique(keys, axis=0, return_counts=True)
    counts = counts.astype(np.int64)
    return int((counts * (counts - 1) // 2).sum())


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float
    boilerplate_precision: float  # share of boilerplate-negative pairs kept apart (NaN: none)
    source_false_pairs: int  # merged pairs between two untouched sources


def pairwise_scores(
    gold: Sequence, predicted: Sequence, *, negative_group: Sequence, source_mask: Sequence[bool]
) -> Scores:
    """Pairwise cluster scores; ``negative_group`` is the boilerplate group or None per document."""
    g, p = _labels(gold), _labels(predicted)
    pairwise = cluster_scores(g, p)
    precision, recall, f1 = pairwise.precision, pairwise.recall, pairwise.f1
    neg = np.flatnonzero([x is not None for x in negative_group])
    if len(neg):
        groups = _labels([negative_group[i] for i in neg])
        total = _pairs_within(groups)
        merged = _pairs_within(groups, p[neg])
        bp = 1.0 - merged / total if total else float("nan")
    else:
        bp = float("nan")
    src = np.flatnonzero(np.asarray(source_mask, bool))
    src_fp = _pairs_within(p[src]) - _pairs_within(g[src], p[src])
    return Scores(precision, recall, f1, bp, src_fp)


def score_rows(rows: Sequence[nearcopy.Row], predicted: Sequence) -> Scores:
    return pairwise_scores(
        [r.cluster for r in rows],
        predicted,
        negative_group=[r.boilerplate_group for r in rows],
        source_mask=[r.role in ("original", "singleton") for r in rows],
    )


# --- runners ----------------------------------------------------------------------------------


def run_neardup(method: str, **options) -> Callable[[list[str]], np.ndarray]:
    def run(texts: list[str]) -> np.ndarray:
        return dedup_texts(texts, method=method, **options).clusters.cluster_id

    return run


def run_minhash_lsh(texts: list[str], *, threshold: float = 0.5, num_perm: int = 128) -> np.ndarray:
    """Plain MinHash-LSH (datasketch): candidate pairs are taken as duplicates, then clustered."""
    from datasketch import MinHash, MinHashLSH

    from neardup.features import char_ngrams
    from neardup.normalize import normalize_many

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    left, right = [], []
    for i, text in enumerate(normalize_many(texts)):
        m = MinHash(num_perm=num_perm)
        grams = char_ngrams(text, 3)
        if grams:
            m.update_batch([g.encode("utf-8") for g in grams])
        for j in lsh.query(m):
            left.append(j)
            right.append(i)
        lsh.insert(i, m)
    clusters = cluster_pairs(len(texts), np.asarray(left, np.int64), np.asarray(right, np.int64))
    return clusters.cluster_id


def evaluate(
    rows: list[nearcopy.Row], run: Callable[[list[str]], np.ndarray]
) -> tuple[Scores, float]:
    texts = [r.text for r in rows]
    t0 = time.perf_counter()
    predicted = run(texts)
    return score_rows(rows, predicted), time.perf_counter() - t0


def _fmt(x: float) -> str:
    return "n/a" if x != x else f"{x:.3f}"


def print_row(kind: str, strength: str, label: str, n: int, s: Scores, seconds: float) -> None:
    print(
        f"| {kind} | {strength} | {label} | {n:,} | {_fmt(s.precision)} | {_fmt(s.recall)} | "
        f"{_fmt(s.f1)} | {_fmt(s.boilerplate_precision)} | {s.source_false_pairs:,} | {seconds:.2f} |",
        flush=True,
    )


def _sweep(method: str, name: str, values: Sequence) -> list[tuple[str, Callable]]:
    return [(f"{method} {name}={v}", run_neardup(method, **{name: v})) for v in values]


# The clustering rule beside the thresholds: the default joins a document only to a kept one it
# was verified against, so two copies edited apart stay apart when one of them came first
# (their original, arriving later, joins the first); connected components chain them.
CLUSTERINGS: list[tuple[str, Callable]] = [
    ("auto keep=longest", run_neardup("auto", keep="longest")),
    ("auto clusters=components", run_neardup("auto", clusters="components")),
]
SWEEPS: dict[str, list[tuple[str, Callable]]] = {
    "short": _sweep("auto", "short_similarity", (0.6, 0.7, 0.8, 0.9))
    + _sweep("auto", "strip_markup", (False,))
    + CLUSTERINGS,
    "long": _sweep("auto", "containment", (0.5, 0.6, 0.7, 0.8))
    + _sweep("auto", "coverage", (0.4, 0.6))
    + _sweep("simhash", "max_distance", (3, 8))
    + CLUSTERINGS,
}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--kinds", nargs="+", choices=nearcopy.KINDS, default=list(nearcopy.KINDS))
    ap.add_argument("--strengths", nargs="+", choices=tuple(nearcopy.STRENGTHS), default=list(nearcopy.STRENGTHS))  # fmt: skip
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    ap.add_argument("--long-sources", type=int, default=2000)
    ap.add_argument("--short-sources", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--no-minhash", action="store_true", help="skip the datasketch baseline")
    ap.add_argument("--sweep", action="store_true", help="also print F1 by threshold")
    ap.add_argument(
        "--sources-first",
        action="store_true",
        help="also run each method with every original before its copies (a feed's order)",
    )
    args = ap.parse_args()
    minhash = not args.no_minhash and importlib.util.find_spec("datasketch") is not None
    dedup_texts(["warm up", "warm up the compiled kernels"], method="auto")
    print(
        "| kind | strength | method | docs | precision | recall | F1 | bp_prec | src_fp | seconds |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    sweep_lines = []
    for kind in args.kinds:
        n = args.long_sources if kind == "long" else args.short_sources
        sources, donors = nearcopy.load_sources_and_donors(
            kind, n, seed=args.seed, data_dir=args.data_dir
        )
        for strength in args.strengths:
            rows = nearcopy.build_corpus(
                sources, kind=kind, strength=strength, seed=args.seed, donors=donors
            )
            for method in args.methods:
                scores, sec = evaluate(rows, run_neardup(method))
                print_row(kind, strength, method, len(rows), scores, sec)
            if args.sources_first:  # the clustering rule keeps apart copies only the source joins
                ordered = nearcopy.sources_first(rows)
                for method in args.methods:
                    scores, sec = evaluate(ordered, run_neardup(method))
                    print_row(kind, strength, f"{method}, sources first", len(rows), scores, sec)
            if minhash:
                scores, sec = evaluate(rows, run_minhash_lsh)
                print_row(kind, strength, "minhash-lsh (datasketch)", len(rows), scores, sec)
            if args.sweep:
                for label, run in SWEEPS[kind]:
                    scores, sec = evaluate(rows, run)
                    sweep_lines.append((kind, strength, label, len(rows), scores, sec))
    if not minhash and not args.no_minhash:
        print("\n(datasketch not installed: MinHash-LSH baseline skipped)")
    if sweep_lines:
        print("\nThreshold sweep\n")
        print(
            "| kind | strength | setting | docs | precision | recall | F1 | bp_prec | src_fp | seconds |"
        )
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for line in sweep_lines:
            print_row(*line)
    print(f"\npeak RSS {peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
