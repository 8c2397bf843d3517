"""``neardup dedup INPUT -o OUTDIR``: deduplicate a file, write kept records, clusters and a summary.

A run writes its files into ``OUTDIR/.neardup-run-<run id>/`` and then moves them into place,
``summary.json`` last: the summary is the completion marker. It names the run (``run_id``) and
lists every file of the run with its size and SHA-256 (``files``). A run killed at any point
leaves either the previous complete output or no ``summary.json``, never a mix.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from .. import __version__
from ..against import against_result
from ..cluster import CLUSTER_RULES, KEEP_RULES
from ..config import FINGERPRINT_VERSION
from ..dedup import DedupResult, cluster_result, dedup_with
from ..errors import ConfigError, InputError
from ..io import (
    FORMATS,
    KEPT_NAMES,
    LOST_TAIL,
    ON_ERROR,
    Record,
    RecordReader,
    Skipped,
    escape_undecodable,
    kept_name,
    write_kept,
)
from ..methods import create
from ..pairs import METHODS
from ..report.page import render as render_report
from ..report.sample import report_data, texts_from_records
from .options import add_method_options, method_options, record_reader

CHUNK = 100_000
TABLES_FILE = "common_grams.npz"
SUMMARY = "summary.json"
REPORT_DATA, REPORT = "report_data.json", "report.html"
OUTPUT_NAMES = KEPT_NAMES | {
    "clusters.csv",
    "skipped.jsonl",
    "pairs.csv",
    TABLES_FILE,
    REPORT_DATA,
    REPORT,
}
STAGE_PREFIX = ".neardup-run-"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "dedup",
        help="remove near-duplicates from a file",
        description="Deduplicate INPUT (JSONL[.gz|.zst], CSV, TSV, Parquet or text, one document "
        "per line) and write OUTDIR/kept.<ext>, clusters.csv, report_data.json, summary.json (and "
        "skipped.jsonl, pairs.csv, report.html when there are any / asked for).",
    )
    p.add_argument("input", help="input file")
    p.add_argument("-o", "--output", required=True, help="output directory (created if missing)")
    p.add_argument("--format", choices=FORMATS, help="input format (default: from the file name)")
    p.add_argument(
        "--text-field", default="text", help="field/column holding the text (default: text)"
    )
    p.add_argument("--id-field", help="field/column holding the id (default: the record number)")
    p.add_argument(
        "--keep",
        choices=KEEP_RULES,
        default="first",
        help="which member of a cluster is kept (default: first)",
    )
    p.add_argument(
        "--clusters",
        choices=CLUSTER_RULES,
        default="greedy",
        help="greedy (default): a duplicate is verified against the kept document it joins, "
        "clusters do not chain; components: connected components of all verified pairs",
    )
    p.add_argument(
        "--on-error",
        choices=ON_ERROR,
        default="fail",
        help="bad records: fail with an error naming them, or skip and count them",
    )
    p.add_argument(
        "--against",
        metavar="REFERENCE",
        help="remove from INPUT only what duplicates REFERENCE (a file, read with the same "
        "--text-field/--id-field); REFERENCE is not changed and INPUT documents are not "
        "compared with each other: the answer of `index add REFERENCE` + `index query INPUT`",
    )
    p.add_argument("--pairs", action="store_true", help="also write the verified pairs (pairs.csv)")
    p.add_argument(
        "--report",
        action="store_true",
        help="also write report.html: counts, distributions and a sample of removals side by "
        "side (`neardup report OUTDIR` builds it later from report_data.json)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_method_options(p)
    p.set_defaults(func=run)


def prepare_output(path: str) -> Path:
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory", source=str(out))
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".neardup-write-test"
        probe.write_bytes(b"")
        probe.unlink()
        remove_leftovers(out)
    except OSError as exc:
        raise InputError(
            f"cannot write the output directory ({exc.strerror})", source=str(out)
        ) from None
    return out


def remove_leftovers(out: Path) -> None:
    """Remove what killed runs left: staging directories and old-style ``.partial-*`` files."""
    for path in out.glob(STAGE_PREFIX + "*"):
        shutil.rmtree(path, ignore_errors=True)
    for path in out.glob(".partial-*"):
        path.unlink(missing_ok=True)


def progress(quiet: bool, desc: str):
    from tqdm import tqdm

    return tqdm(
        desc=desc,
        unit=" docs",
        unit_scale=True,
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
        mininterval=0.5,
    )


def warn_lost_tail(reader: RecordReader, item: Skipped) -> None:
    """Say on stderr (even with --quiet) that a truncated or corrupt input lost its tail."""
    if item.reason in LOST_TAIL:
        print(f"neardup: warning: {reader.source}: {item.message}", file=sys.stderr)


@dataclass
class Batch:
    """The documents of a run, in order: ids, record numbers, lengths, texts (or, for streaming
    methods, fingerprints), and the skipped records. ``start``: documents before it are the
    ``--against`` reference (their record numbers are the reference's)."""

    ids: list[str]
    numbers: list[int]
    lengths: np.ndarray
    texts: list[str]
    skipped: list[Skipped]
    fps: np.ndarray | None
    start: int = 0

    def joined(self, batch: Batch) -> Batch:
        """This batch (the reference) followed by ``batch`` (the input)."""
        fps = None if self.fps is None else np.concatenate([self.fps, batch.fps])
        return Batch(
            self.ids + batch.ids,
            self.numbers + batch.numbers,
            np.concatenate([self.lengths, batch.lengths]),
            self.texts + batch.texts,
            batch.skipped,
            fps,
            start=len(self.ids),
        )


def read_all(reader: RecordReader, method: Any, *, quiet: bool) -> Batch:
    """Read every record; for streaming methods, fingerprint in chunks and drop the texts."""
    ids: list[str] = []
    numbers: list[int] = []
    lengths: list[int] = []
    texts: list[str] = []
    skipped: list[Skipped] = []
    seen: dict[str, int] = {}
    streaming = hasattr(method, "pairs_from_fingerprints") and method.config.verify is None
    fp_parts: list[np.ndarray] = []
    chunk: list[str] = []
    bar = progress(quiet, "reading")
    for item in reader:
        bar.update(1)
        if isinstance(item, Skipped):
            warn_lost_tail(reader, item)
            skipped.append(item)
            continue
        rec: Record = item
        if rec.id in seen:
            if reader.on_error == "fail":
                raise InputError(
                    f"duplicate id {rec.id!r} (first at record {seen[rec.id]})",
                    source=reader.source,
                    record=rec.number,
                )
            skipped.append(
                Skipped(
                    rec.number, rec.id, "duplicate_id", f"id already used by record {seen[rec.id]}"
                )
            )
            continue
        seen[rec.id] = rec.number
        ids.append(rec.id)
        numbers.append(rec.number)
        lengths.append(len(rec.text))
        (chunk if streaming else texts).append(rec.text)
        if streaming and len(chunk) >= CHUNK:
            fp_parts.append(method.fingerprint_many(chunk))
            chunk = []
    if streaming and chunk:
        fp_parts.append(method.fingerprint_many(chunk))
    bar.close()
    fps = np.concatenate(fp_parts) if fp_parts else (np.empty(0, np.uint64) if streaming else None)
    return Batch(ids, numbers, np.array(lengths, np.int64), texts, skipped, fps)


def run(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    options = method_options(args)
    method = create(args.method, **options)
    reader = record_reader(args)
    reference = reference_reader(args)
    out = prepare_output(args.output)

    t0 = time.perf_counter()
    batch = read_all(reader, method, quiet=args.quiet)
    ref = read_all(reference, method, quiet=args.quiet) if reference is not None else None
    both = batch if ref is None else ref.joined(batch)
    timings["read" if batch.fps is None else "read_and_fingerprint"] = time.perf_counter() - t0

    result = find_duplicates(args, method, both, timings)
    t0 = time.perf_counter()
    report = run_report_data(args, method, result, both, reference, ref)
    timings["report_sample"] = time.perf_counter() - t0
    start, all_ids = both.start, both.ids
    for part in (both, batch, ref):  # the texts are not needed any more
        if part is not None:
            part.texts = []

    run_id = uuid.uuid4().hex
    stage = out / (STAGE_PREFIX + run_id)
    stage.mkdir()
    try:
        t0 = time.perf_counter()
        written, kept = write_outputs(stage, args, method, reader, batch, result, all_ids, start)
        (stage / REPORT_DATA).write_bytes(orjson.dumps(report))
        timings["write"] = time.perf_counter() - t0
        timings["total"] = time.perf_counter() - t_start
        summary = build_summary(args, method, reader, batch, result, start, written, kept, timings)
        if ref is not None:
            summary["reference"] = reference_summary(reference, ref)
        if args.report:  # built from the summary as published, so `neardup report` agrees
            t0 = time.perf_counter()
            page = render_report({"run_id": run_id, **summary}, report)
            (stage / REPORT).write_text(page, encoding="utf-8")
            summary["seconds"]["report"] = round(time.perf_counter() - t0, 4)
        write_summary(stage, run_id, summary)
        publish(stage, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    if not args.quiet:
        c = summary["counts"]
        against = f" (against {reference.source})" if reference is not None else ""
        print(
            f"neardup: {c['records_read']} records: {c['kept']} kept, {c['duplicates_removed']} "
            f"duplicates removed{against} in {c['duplicate_clusters']} clusters, "
            f"{c['skipped']} skipped; {timings['total']:.1f}s -> {out}",
            file=sys.stderr,
        )
    return 0


def reference_reader(args: argparse.Namespace) -> RecordReader | None:
    """The reader of ``--against REFERENCE`` (its format from its own name), or None."""
    if not args.against:
        return None
    if args.keep != "first" or args.clusters != "greedy":
        raise ConfigError(
            "--against keeps every reference document and matches each input document to the "
            "reference alone; drop --keep longest / --clusters components"
        )
    if args.pairs:
        raise ConfigError("--pairs is not available with --against yet; clusters.csv holds "
                          "each removed document's reference match")  # fmt: skip
    return RecordReader(
        args.against,
        text_field=args.text_field,
        id_field=args.id_field,
        on_error=args.on_error,
    )


def reference_summary(reader: RecordReader, ref: Batch) -> dict[str, Any]:
    skipped = len(ref.skipped) - sum(s.reason == "empty_file" for s in ref.skipped)
    return {
        "input": str(reader.path),
        "format": reader.format,
        "records_read": len(ref.ids) + skipped,
        "documents": len(ref.ids),
        "skipped": skipped,
    }


def find_duplicates(args, method, batch: Batch, timings) -> DedupResult:
    """Pairs and clusters: from the fingerprints of a streaming method, else from the texts;
    with ``--against``, by the reference rule of :mod:`neardup.against`."""
    n = len(batch.ids)
    if batch.fps is None:
        keep, rule = ("first", "greedy") if args.against else (args.keep, args.clusters)
        result = dedup_with(method, batch.texts, keep=keep, lengths=batch.lengths, clusters=rule)
        timings.update(result.timings)
        pairs, fps = result.pairs, result.fingerprints
        if not args.against:
            return result
    else:
        t0 = time.perf_counter()
        pairs, fps = method.pairs_from_fingerprints(batch.fps), batch.fps
        timings["find_pairs"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if args.against:
        result = against_result(method.name, pairs, n, n_reference=batch.start, fingerprints=fps)
    else:
        result = cluster_result(
            method.name,
            pairs,
            n,
            keep=args.keep,
            lengths=batch.lengths,
            fingerprints=fps,
            clusters=args.clusters,
        )
    timings["cluster"] = time.perf_counter() - t0
    return result


def run_report_data(args, method, result, both: Batch, reference, ref) -> dict:
    """The report's distributions and sample (texts from memory, or one more input pass)."""
    near = getattr(method, "near_misses", None)
    thresholds = getattr(method, "thresholds", None)

    def texts_of(positions: list[int]) -> dict[int, str]:
        if both.texts:
            return {p: both.texts[p] for p in positions}
        found: dict[int, str] = {}
        sources = [(record_reader(args), both.start, both.numbers[both.start :])]
        if ref is not None:
            sources.append((reference, 0, ref.numbers))
        for reader, lo, numbers in sources:
            wanted = {numbers[p - lo]: p for p in positions if lo <= p < lo + len(numbers)}
            if wanted:
                found.update(texts_from_records(reader, wanted))
        return found

    return report_data(
        result,
        ids=both.ids,
        lengths=both.lengths,
        thresholds=thresholds() if thresholds is not None else {},
        near_misses=near.to_list() if near is not None else [],
        texts_of=texts_of,
    )


def write_outputs(
    stage, args, method, reader, batch: Batch, result, all_ids, start
) -> tuple[int, Path]:
    """Write every output but the summary into ``stage``; ``(records kept, kept file)``.

    ``all_ids`` name every position of ``result``; ``start`` is the position of the input's
    first document (after the ``--against`` reference).
    """
    is_rep = result.clusters.is_representative[start:]
    kept_numbers = set(np.asarray(batch.numbers, np.int64)[is_rep].tolist())
    kept_path = stage / kept_name(reader)
    written = write_kept(reader, kept_path, kept_numbers)
    write_clusters(stage / "clusters.csv", all_ids, result, start=start, reference=args.against)
    if batch.skipped:
        write_skipped(stage / "skipped.jsonl", batch.skipped)
    if args.pairs:
        write_pairs(stage / "pairs.csv", all_ids, result)
    tables = getattr(method, "tables", None)
    if tables is not None:  # frozen tables the run fitted: the online detector loads them
        tables.save(stage / TABLES_FILE)
    return written, kept_path


def write_summary(stage: Path, run_id: str, summary: dict) -> None:
    """The summary with the run id and the manifest of the other files in ``stage``."""
    summary = {"run_id": run_id, **summary, "files": manifest(stage)}
    text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (stage / SUMMARY).write_text(text, encoding="utf-8")


def manifest(stage: Path) -> dict[str, dict[str, Any]]:
    """Size and SHA-256 of each file in ``stage``, so a reader can check they belong to the run."""
    files = {}
    for path in sorted(stage.iterdir()):
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        files[path.name] = {"bytes": path.stat().st_size, "sha256": digest.hexdigest()}
    return files


def publish(stage: Path, out: Path) -> None:
    """Move the run's files from ``stage`` into ``out``, the summary last.

    The old summary goes first, so until the new one lands the directory reads as incomplete;
    outputs of an older run that this run does not write (say its pairs.csv) are removed.
    """
    names = sorted(p.name for p in stage.iterdir() if p.name != SUMMARY)
    (out / SUMMARY).unlink(missing_ok=True)
    for stale in sorted(OUTPUT_NAMES - set(names)):
        (out / stale).unlink(missing_ok=True)
    for name in names:
        _move(stage / name, out / name)
    _move(stage / SUMMARY, out / SUMMARY)


def _move(source: Path, target: Path) -> None:
    os.replace(source, target)


def write_clusters(
    path: Path, ids: list[str], result: DedupResult, *, start: int = 0, reference: bool = False
) -> None:
    """One row per input document. ``ids`` name every position of ``result``, whose first
    ``start`` are the ``--against`` reference (no rows); with ``reference``, a
    ``representative_in`` column says where each representative is: ``reference`` or ``input``."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    from ..frames import cluster_columns

    all_ids = pa.array(ids, pa.string())
    columns = cluster_columns(all_ids, result)
    columns["method"] = pc.fill_null(columns["method"], "")  # "" for a representative
    names = ("cluster_id", "representative_id", "distance", "similarity", "method")
    table = pa.table({"id": all_ids, **{n: columns[n] for n in names}}).slice(start)
    if reference:
        in_reference = result.clusters.representative[start:] < start
        where = np.where(in_reference, "reference", "input")
        table = table.append_column("representative_in", pa.array(where, pa.string()))
    pcsv.write_csv(table, path)


def write_skipped(path: Path, skipped: list[Skipped]) -> None:
    import orjson

    with open(path, "wb") as f:
        for s in skipped:
            doc_id = None if s.id is None else escape_undecodable(s.id)
            row = {"record": s.number, "id": doc_id, "reason": s.reason}
            f.write(orjson.dumps({**row, "message": escape_undecodable(s.message)}) + b"\n")


def write_pairs(path: Path, ids: list[str], result: DedupResult) -> None:
    import csv

    p = result.pairs.sorted()
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id_a", "id_b", "method", "distance", "similarity", "evidence"])
        for a, b, m, d, s in zip(
            p.left.tolist(),
            p.right.tolist(),
            p.method.tolist(),
            p.distance.tolist(),
            p.similarity.tolist(),
            strict=True,
        ):
            ev = p.evidence.get((a, b))
            w.writerow(
                [
                    ids[a],
                    ids[b],
                    METHODS[m],
                    "" if d < 0 else d,
                    "" if s != s else round(s, 6),
                    json.dumps(ev, ensure_ascii=False) if ev else "",
                ]
            )


def build_summary(args, method, reader, batch, result, start, written, kept_path, timings) -> dict:
    """The run's summary; counts are over the input's documents (positions from ``start``)."""
    ids, skipped = batch.ids, batch.skipped
    rep = result.clusters.representative[start:]
    removed = rep != np.arange(start, start + len(rep))
    reasons = Counter(s.reason for s in skipped)
    config = method.config
    params = config.to_dict() if hasattr(config, "to_dict") else _asdict(config)
    n_read = len(ids) + len(skipped) - reasons.get("empty_file", 0)
    return {
        "neardup_version": __version__,
        "fingerprint_version": FINGERPRINT_VERSION,
        "input": str(reader.path),
        "format": reader.format,
        "method": method.name,
        "parameters": params,
        "keep": args.keep,
        "clusters": args.clusters,
        "counts": {
            "records_read": n_read,
            "documents": len(ids),
            "skipped": n_read - len(ids),
            "skipped_by_reason": dict(sorted(reasons.items())),
            "clusters": len(np.unique(rep)),
            "duplicate_clusters": len(np.unique(rep[removed])),
            "duplicates_removed": int(removed.sum()),
            "kept": int(written),
            "pairs": len(result.pairs),
        },
        "accounting": "records_read = kept + duplicates_removed + skipped",
        "method_stats": dict(getattr(method, "stats", None) or {}),
        "outputs": {
            "kept": kept_path.name,
            "clusters": "clusters.csv",
            "skipped": "skipped.jsonl" if skipped else None,
            "pairs": "pairs.csv" if args.pairs else None,
            "tables": TABLES_FILE if getattr(method, "tables", None) is not None else None,
            "report_data": REPORT_DATA,
            "report": REPORT if args.report else None,
        },
        "tables": method.tables.digest() if getattr(method, "tables", None) is not None else None,
        "seconds": {k: round(v, 4) for k, v in timings.items()},
    }


def _asdict(config) -> dict:
    import dataclasses

    return dataclasses.asdict(config) if dataclasses.is_dataclass(config) else {}
