"""`dedup NEW --against REFERENCE` against `index add REFERENCE` + `index query NEW`.

    python benchmarks/bench_against.py [--dataset weibo_ced_zh] [--limit N] [--method auto]

Splits the corpus (its first N records with distinct ids, default all) into two halves in a temporary directory,
then, each as a fresh `neardup` process:
1. `neardup dedup NEW --against REFERENCE --id-field id -o OUT` (the batch path);
2. `neardup index add REFERENCE --db sqlite:///... --tables OUT/common_grams.npz` and
   `neardup index query NEW` (the online path, with the table the batch run fitted, so both
   decide with the same common grams);
3. `neardup dedup NEW --against sqlite:///... --tables ...` (the batch command with that store as
   the reference: what a team does when its cleaned corpus already lives in a store).
Prints the time of each path (and docs/s over both halves), and how many removals agree:
the same new documents removed, each with the same reference document as its match.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from _common import data_path

import neardup


def split(dataset: str, limit: int | None, where: Path) -> tuple[Path, Path, int]:
    rows, seen = [], set()
    with gzip.open(data_path(dataset)) as f:
        for line in f:
            doc_id = orjson.loads(line)["id"]
            if doc_id in seen:  # the corpus repeats a few ids: keep the first, as dedup does
                continue
            seen.add(doc_id)
            rows.append(line if line.endswith(b"\n") else line + b"\n")
            if limit and len(rows) >= limit:
                break
    half = len(rows) // 2
    ref, new = where / "reference.jsonl", where / "new.jsonl"
    ref.write_bytes(b"".join(rows[:half]))
    new.write_bytes(b"".join(rows[half:]))
    return ref, new, len(rows)


def timed(command: list[str], **kwargs) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, **kwargs)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dataset", default="weibo_ced_zh")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--method", default=neardup.methods.DEFAULT_METHOD)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    ref, new, total = split(args.dataset, args.limit, work)
    cli = [sys.executable, "-m", "neardup"]
    common = ["--id-field", "id", "--method", args.method, "--on-error", "skip"]
    out = work / "out"
    batch = timed([*cli, "dedup", str(new), "--against", str(ref), "-o", str(out), *common])
    db = ["--db", f"sqlite:///{work / 'index.db'}"]
    if args.method in ("auto", "paragraph"):
        db += ["--tables", str(out / "common_grams.npz")]
    add = timed([*cli, "index", "add", str(ref), *db, *common], stderr=subprocess.DEVNULL)
    with open(work / "query.jsonl", "wb") as printed:
        query = timed([*cli, "index", "query", str(new), *db, *common], stdout=printed)
    by_store = work / "by_store"
    store_ref = [db[1], *db[2:], "-o", str(by_store)]
    against_store = timed([*cli, "dedup", str(new), "--against", *store_ref, *common])
    online = {}
    for line in (work / "query.jsonl").read_bytes().splitlines():
        row = orjson.loads(line)
        if "skipped" not in row:
            online.setdefault(row["id"], row["matches"][0]["id"] if row["duplicate"] else None)
    batch_answer = answers(out)
    store_answer = answers(by_store)
    removed_batch = {k for k, v in batch_answer.items() if v is not None}
    removed_online = {k for k, v in online.items() if v is not None}
    same_match = sum(batch_answer[k] == online.get(k) for k in removed_batch)
    print(f"{args.dataset}: {total:,} records split in two halves; method {args.method}")
    print(f"  dedup NEW --against REFERENCE: {batch:7.1f} s  ({total / batch:,.0f} docs/s)")
    print(
        f"  index add + index query:       {add + query:7.1f} s  ({total / (add + query):,.0f} "
        f"docs/s; add {add:.1f} s, query {query:.1f} s)"
    )
    print(f"  speed-up of the batch path: {(add + query) / batch:.2f}x")
    n_new = len(batch_answer)
    print(
        f"  dedup NEW --against STORE:     {against_store:7.1f} s  ({n_new / against_store:,.0f} "
        f"new docs/s; the store built by the index add above)"
    )
    print(
        f"  removed from NEW: batch {len(removed_batch):,}, online {len(removed_online):,}; "
        f"only batch {len(removed_batch - removed_online):,}, only online "
        f"{len(removed_online - removed_batch):,}; same reference match {same_match:,}"
    )
    print(
        f"  --against STORE gives the same answer as --against FILE: {store_answer == batch_answer}"
    )


def answers(out: Path) -> dict[str, str | None]:
    """Each new document's reference match, None when it is kept."""
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        return {
            r["id"]: r["representative_id"] if r["representative_in"] == "reference" else None
            for r in csv.DictReader(f)
        }


if __name__ == "__main__":
    main()
