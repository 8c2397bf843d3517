"""The summary of a ``neardup dedup`` run: parameters, counts per run and per input, outputs."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..arrays import unique_sorted
from ..config import FINGERPRINT_VERSION
from ..dedup import DedupResult
from ..inputs import Inputs
from .outputs import REPORT, REPORT_DATA, TABLES_FILE
from .reading import Batch

if TYPE_CHECKING:
    from .run import DedupOptions


@dataclasses.dataclass(frozen=True)
class Kept:
    """Where the kept records went: ``files[i]`` of input ``i`` (``-``: standard output), and how
    many records each input kept."""

    files: list[str]
    counts: list[int]


def input_summaries(inputs: Inputs, batch: Batch, kept: Kept | None = None) -> list[dict]:
    """Per input: its path, format, records read, documents, skipped (and kept records)."""
    own = np.asarray(batch.sources[batch.start :], np.int64)  # not the --against reference's
    docs = np.bincount(own, minlength=len(inputs))
    skipped = Counter(e.source for e in batch.skipped if e.item.reason != "empty_file")
    rows = []
    for i, reader in enumerate(inputs.readers):
        row = {
            "input": reader.source,
            "format": reader.format,
            "records_read": int(docs[i]) + skipped[i],
            "documents": int(docs[i]),
            "skipped": skipped[i],
        }
        if kept is not None:
            row.update(kept=kept.counts[i], kept_file=kept.files[i])
        rows.append(row)
    return rows


def reference_summary(inputs: Inputs, ref: Batch) -> dict[str, Any]:
    """The ``--against`` reference: what was read (it is not changed)."""
    rows = input_summaries(inputs, ref)
    return {
        "input": rows[0]["input"] if len(rows) == 1 else None,
        "format": rows[0]["format"] if len(rows) == 1 else None,
        "records_read": sum(r["records_read"] for r in rows),
        "documents": sum(r["documents"] for r in rows),
        "skipped": sum(r["skipped"] for r in rows),
        "skipped_by_reason": dict(
            Counter(e.item.reason for e in ref.skipped if e.item.reason != "empty_file")
        ),
        "skipped_file": "reference_skipped.jsonl" if ref.skipped else None,
        "inputs": rows,
    }


def build_summary(
    args: DedupOptions,
    method: Any,
    inputs: Inputs,
    batch: Batch,
    result: DedupResult,
    kept: Kept,
    timings: dict[str, float],
) -> dict:
    """The run's summary; counts are over the input's documents (positions from the batch's
    ``start``). ``input`` and ``format`` name the input when there is one; ``inputs`` has a row
    per input."""
    start, ids = batch.start, batch.ids
    skipped = [e.item for e in batch.skipped]
    rep = result.clusters.representative[start:]
    removed = rep != np.arange(start, start + len(rep))
    reasons = Counter(s.reason for s in skipped)
    n_read = len(ids) - start + len(skipped) - reasons.get("empty_file", 0)
    rows = input_summaries(inputs, batch, kept)
    tables = getattr(method, "tables", None)
    kept_out = kept.files[0] if len(set(kept.files)) == 1 else sorted(set(kept.files))
    return {
        **run_header(method.name, method.config),
        "input": rows[0]["input"] if len(rows) == 1 else None,
        "format": rows[0]["format"] if len(rows) == 1 else None,
        "inputs": rows,
        "keep": args.keep,
        "clusters": args.clusters,
        "counts": run_counts(
            records_read=n_read,
            documents=len(ids) - start,
            reasons=reasons,
            clusters=len(unique_sorted(rep)),
            duplicate_clusters=len(unique_sorted(rep[removed])),
            duplicates_removed=int(removed.sum()),
            kept=int(sum(kept.counts)),
            pairs=_run_pairs(result.pairs, start),
        ),
        "accounting": ACCOUNTING,
        "method_stats": dict(getattr(method, "stats", None) or {}),
        "outputs": {
            "kept": kept_out,
            "clusters": "clusters.csv",
            "skipped": "skipped.jsonl" if skipped else None,
            "pairs": "pairs.csv" if args.pairs else None,
            "tables": TABLES_FILE if tables is not None else None,
            "report_data": REPORT_DATA,
            "report": REPORT if args.report else None,
        },
        "tables": tables.digest() if tables is not None else None,
        "seconds": {k: round(v, 4) for k, v in timings.items()},
    }


ACCOUNTING = "records_read = kept + duplicates_removed + skipped"


def run_header(method_name: str, config: Any) -> dict[str, Any]:
    """The versions, method and parameters every run's summary starts with (local and Spark)."""
    return {
        "neardup_version": __version__,
        "fingerprint_version": FINGERPRINT_VERSION,
        "method": method_name,
        "parameters": config.to_dict() if hasattr(config, "to_dict") else _asdict(config),
    }


def run_counts(
    *,
    records_read: int,
    documents: int,
    reasons: dict[str, int],
    clusters: int,
    duplicate_clusters: int,
    duplicates_removed: int,
    kept: int,
    pairs: int,
) -> dict[str, Any]:
    """The accounting of a run (local and Spark): every record read is kept, removed as a
    duplicate or skipped (with its reason)."""
    return {
        "records_read": records_read,
        "documents": documents,
        "skipped": records_read - documents,
        "skipped_by_reason": dict(sorted(reasons.items())),
        "clusters": clusters,
        "duplicate_clusters": duplicate_clusters,
        "duplicates_removed": duplicates_removed,
        "kept": kept,
        "pairs": pairs,
    }


def _run_pairs(pairs: Any, start: int) -> int:
    """The verified pairs a run reports: all of them, or with a reference (the first ``start``
    documents, ``--against``) those between an input and a reference document — pairs inside
    the reference or inside the input only organise the answer (inputs are not compared)."""
    if not start:
        return len(pairs)
    return int(np.count_nonzero((pairs.left < start) != (pairs.right < start)))


def _asdict(config: Any) -> dict:
    return dataclasses.asdict(config) if dataclasses.is_dataclass(config) else {}
