"""`neardup eval` on every labelled set in ../shared/data; prints the tables of docs/evaluation.md.

    python benchmarks/eval_all.py [--methods simhash,ngram,paragraph,auto] [--out /tmp/neardup-eval]

Each set is run as `neardup eval DATA --methods ... --sweep -o OUT/<set>` (a fresh process; the
reports stay in OUT). Near-copy sets are the target; semantic (meaning-only) sets are printed
apart, as false-positive stress: their positives are paraphrases that no near-duplicate method
should be expected to find.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from _common import DATA

# set -> (extra arguments, what a positive label means)
NEAR_COPY = {
    "sighan_csc_pairs_train_zh": ([], "sentence with real typos vs corrected (all positive)"),
    "clough_stevenson_plagiarism_en": (
        ["--label-field", "near_copy"],
        "cut/light reuse = 1; heavy rewrite and independent = 0",
    ),
    "msrp_train_en": ([], "paraphrase of a news sentence"),
    "twitter_url_sample_en": (
        ["--on-error", "skip"],
        "paraphrase by 4+ of 6 votes (3 votes skipped)",
    ),
}
SEMANTIC = {
    "lcqmc_dev_zh": ([], "same question intent"),
    "bq_corpus_dev_zh": ([], "same bank-question intent"),
    "afqmc_zh": ([], "same meaning (financial questions)"),
    "oppo_xiaobu_dev_zh": ([], "same meaning (assistant commands)"),
    "pawsx_zh_dev": ([], "paraphrase (adversarial word order)"),
    "stsb_zh_train_dev": (["--label-field", "label_binary"], "similarity >= 4 of 5"),
}


def run(name: str, extra: list[str], methods: str, out: Path) -> dict:
    data = DATA / name / "pairs.jsonl"
    cmd = [sys.executable, "-m", "neardup", "eval", str(data), "--methods", methods, "--sweep"]
    cmd += ["-o", str(out / name), "--quiet", *extra]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    report = json.loads((out / name / "report.json").read_text())
    report["wall_seconds"] = time.perf_counter() - t0
    return report


def table(title: str, sets: dict, methods: str, out: Path) -> None:
    print(f"\n### {title}\n")
    print("| set | pairs (positive) | method | P | R | F1 | best F1 (threshold) | pairs/s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name, (extra, meaning) in sets.items():
        if not (DATA / name / "pairs.jsonl").exists():
            print(f"| {name} | missing | | | | | | |")
            continue
        report = run(name, extra, methods, out)
        skipped = sum(report["skipped"].values())
        size = f"{report['records']:,} ({report['positives']:,})" + (
            f", {skipped} skipped" if skipped else ""
        )
        for i, (method, e) in enumerate(report["results"].items()):
            d, best = e["at_default_threshold"], e["best_f1"]
            t = best["threshold"]
            t = "—" if t is None else (f"{t:g}")
            label = f"{name} — {meaning}" if i == 0 else ""
            print(
                f"| {label} | {size if i == 0 else ''} | {method} | {d['precision']:.3f} | "
                f"{d['recall']:.3f} | **{d['f1']:.3f}** | {best['f1']:.3f} ({e['measure']} {t}) | "
                f"{e['pairs_per_second']:,.0f} |",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--methods", default="simhash,ngram,paragraph,auto")
    ap.add_argument("--out", type=Path, default=Path("/tmp/neardup-eval"))
    args = ap.parse_args()
    table("Near-copy sets (the target)", NEAR_COPY, args.methods, args.out)
    table("Semantic sets (false-positive stress, not targets)", SEMANTIC, args.methods, args.out)


if __name__ == "__main__":
    main()
