"""``neardup dedup INPUT... -o OUTDIR``: deduplicate files, write kept records, clusters, a summary.

The inputs are read as one stream of documents (:mod:`neardup.inputs`); the method decides
(:mod:`neardup.dedup`, or :mod:`neardup.against` with ``--against``); the outputs are staged and
published together (:mod:`neardup.cli.outputs`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
import uuid

import numpy as np
import orjson

from ..against import against_result
from ..cluster import CLUSTER_RULES, KEEP_RULES
from ..dedup import DedupResult, cluster_result, dedup_with
from ..errors import ConfigError
from ..inputs import STDIN, Inputs
from ..kept import per_input_name, single_name, write_jsonl, write_single
from ..methods import create
from ..parallel import resolve_workers
from ..readers import FORMATS, ON_ERROR
from ..report.page import render as render_report
from ..report.sample import report_data, texts_from_records
from .options import add_method_options, add_workers_option, method_options
from .outputs import (
    REPORT,
    REPORT_DATA,
    STAGE_PREFIX,
    TABLES_FILE,
    prepare_output,
    publish,
    write_clusters,
    write_pairs,
    write_skipped,
    write_summary,
)
from .reading import Batch, read_all
from .summary import Kept, build_summary, reference_summary

KEPT_MODES = ("per-input", "single", "-")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "dedup",
        help="remove near-duplicates from files",
        description="Deduplicate INPUT... (JSONL[.gz|.zst], CSV, TSV, Parquet or text, one "
        "document per line; files, directories, glob patterns, '-' for JSON Lines on standard "
        "input) and write OUTDIR/kept.<ext> (several inputs: OUTDIR/kept/<input>), clusters.csv, "
        "report_data.json, summary.json (and skipped.jsonl, pairs.csv, report.html when there "
        "are any / asked for).",
    )
    p.add_argument(
        "input",
        nargs="+",
        help="input files, directories (every file of a known format under them), glob "
        "patterns, or '-' (standard input, JSON Lines unless --format says otherwise); without "
        "--id-field, documents of several inputs are named <input>:<record number>",
    )
    p.add_argument("-o", "--output", required=True, help="output directory (created if missing)")
    p.add_argument(
        "--format", choices=FORMATS, help="format of every input (default: from each file's name)"
    )
    p.add_argument(
        "--kept",
        choices=KEPT_MODES,
        default="per-input",
        help="per-input (default): the kept records of each input in its own format, "
        "OUTDIR/kept.<ext> for one input, OUTDIR/kept/<input> for several; single: one file "
        "OUTDIR/kept.<ext> (kept.jsonl when the inputs' formats or columns differ); '-': JSON "
        "Lines on standard output (clusters and summary still go to OUTDIR)",
    )
    p.add_argument(
        "--text-field", default="text", help="field/column holding the text (default: text)"
    )
    p.add_argument("--id-field", help="field/column holding the id (default: the record number)")
    p.add_argument(
        "--keep",
        choices=KEEP_RULES,
        default="first",
        help="which member of a cluster is kept (default: first, as online); longest; "
        "container (paragraph method, batch only): the document that contains the others",
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
        help="remove from INPUT only what duplicates REFERENCE: a file, directory or pattern "
        "(read with the same --text-field/--id-field), or a store URL (sqlite:///file.db, "
        "postgresql://...) built by `index add` or `serve`, opened read-only with the method "
        "and options it was built with (give the same ones). REFERENCE is not changed and "
        "INPUT documents are not compared with each other: the answer of "
        "`index add REFERENCE` + `index query INPUT`",
    )
    p.add_argument(
        "--tables",
        metavar="common_grams.npz",
        help="auto/paragraph: use this frozen common-gram table (one an earlier run wrote) "
        "instead of fitting one on the input; with --against STORE, the table the store was "
        "built with",
    )
    p.add_argument("--pairs", action="store_true", help="also write the verified pairs (pairs.csv)")
    p.add_argument(
        "--report",
        action="store_true",
        help="also write report.html: counts, distributions and a sample of removals side by "
        "side (`neardup report OUTDIR` builds it later from report_data.json)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_workers_option(p)
    add_method_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    method = create(args.method, tables=load_tables(args.tables), **method_options(args))
    check_against(args)
    out = spool = None
    if STDIN in (*args.input, args.against):  # standard input is copied next to the outputs
        out = prepare_output(args.output)
        spool = out / f"{STAGE_PREFIX}{uuid.uuid4().hex}.stdin"
        spool.mkdir()
    try:
        inputs = open_inputs(args, args.input, spool)
        reference: Inputs | str | None = args.against  # a store URL stays a string
        if args.against and not is_store_url(args.against):
            reference = open_inputs(args, [args.against], spool)
        out = out or prepare_output(args.output)  # after the inputs are found readable
        summary = dedup_run(args, method, inputs, reference, out, t_start)
    finally:
        if spool is not None:
            shutil.rmtree(spool, ignore_errors=True)
    if not args.quiet:
        c = summary["counts"]
        against = f" (against {args.against})" if reference is not None else ""
        print(
            f"neardup: {c['records_read']} records: {c['kept']} kept, {c['duplicates_removed']} "
            f"duplicates removed{against} in {c['duplicate_clusters']} clusters, "
            f"{c['skipped']} skipped; {summary['seconds']['total']:.1f}s -> {out}",
            file=sys.stderr,
        )
    return 0


def load_tables(path: str | None):
    """The frozen table of ``--tables`` (None: the method fits its own)."""
    if not path:
        return None
    from ..methods.auto import CommonGrams

    return CommonGrams.load(path)


def is_store_url(spec: str | None) -> bool:
    return spec is not None and "://" in spec


def open_inputs(args: argparse.Namespace, specs: list[str], spool) -> Inputs:
    return Inputs(
        specs,
        text_field=args.text_field,
        id_field=args.id_field,
        fmt=args.format,
        on_error=args.on_error,
        spool=spool,
    )


def check_against(args: argparse.Namespace) -> None:
    """Refuse what ``--against`` cannot do, with the reason."""
    if not args.against:
        return
    if args.keep != "first" or args.clusters != "greedy":
        raise ConfigError(
            "--against keeps every reference document and matches each input document to the "
            "reference alone; drop --keep longest / --clusters components"
        )
    if args.pairs:
        raise ConfigError("--pairs is not available with --against yet; clusters.csv holds "
                          "each removed document's reference match")  # fmt: skip
    if args.against == STDIN and STDIN in args.input:
        raise ConfigError("standard input ('-') can be the input or the reference, not both")


def dedup_run(args, method, inputs: Inputs, reference: Inputs | str | None, out, t_start) -> dict:
    """Read, decide, write: the summary of the published run."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    ref = ref_summary = None
    if isinstance(reference, str):  # a store: the detector decides, with the store's settings
        method, both, result, ref_summary = against_store(args, method, inputs, reference, timings)
        reference = None
    else:
        batch = read_all(inputs, method, quiet=args.quiet)
        ref = read_all(reference, method, quiet=args.quiet) if reference is not None else None
        both = batch if ref is None else ref.joined(batch)
        timings["read" if batch.fps is None else "read_and_fingerprint"] = time.perf_counter() - t0
        result = find_duplicates(args, method, both, timings)
    t0 = time.perf_counter()
    report = run_report_data(method, result, both, inputs, reference)
    timings["report_sample"] = time.perf_counter() - t0
    both.texts = []  # not needed any more

    run_id = uuid.uuid4().hex
    stage = out / (STAGE_PREFIX + run_id)
    stage.mkdir()
    try:
        t0 = time.perf_counter()
        kept = write_outputs(stage, args, method, inputs, both, result)
        (stage / REPORT_DATA).write_bytes(orjson.dumps(report))
        timings["write"] = time.perf_counter() - t0
        timings["total"] = time.perf_counter() - t_start
        summary = build_summary(args, method, inputs, both, result, kept, timings)
        if ref is not None:
            summary["reference"] = reference_summary(reference, ref)
        if ref_summary is not None:
            summary["reference"] = ref_summary
        if args.report:  # built from the summary as published, so `neardup report` agrees
            t0 = time.perf_counter()
            page = render_report({"run_id": run_id, **summary}, report)
            (stage / REPORT).write_text(page, encoding="utf-8")
            summary["seconds"]["report"] = round(time.perf_counter() - t0, 4)
        write_summary(stage, run_id, summary)
        publish(stage, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return summary


def against_store(args, method, inputs: Inputs, url: str, timings) -> tuple:
    """``--against STORE``: the input read with its texts, each checked against the store's
    kept documents (:func:`neardup.against.match_store`); the matched stored documents are the
    reference positions. Returns the detector's method (its settings are the store's), the
    joined batch, the result and the reference's summary."""
    from ..against import match_store
    from ..online import Detector
    from ..store import open_store
    from ..store.url import redact

    store = open_store(url, read_only=True)
    try:
        detector = Detector(
            store=store,
            method=method.name,
            options=method_options(args),
            tables=getattr(method, "given_tables", None),  # --tables, loaded once
        )
        detector.method.workers = resolve_workers(args.workers)  # preparing the input
        t0 = time.perf_counter()
        batch = read_all(inputs, method, quiet=args.quiet, keep_texts=True)
        timings["read"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        found = match_store(detector, batch.texts)
        timings["check_against_store"] = time.perf_counter() - t0
        stored = len(detector)
    finally:
        store.close()
    n_ref = len(found.ids)
    ref = Batch(found.ids, [0] * n_ref, [-1] * n_ref, found.lengths, found.texts, [], None)
    both = ref.joined(batch)
    result = against_result(detector.method.name, found.pairs, len(both.ids), n_reference=n_ref)
    summary = {"store": redact(url), "documents": stored, "matched": n_ref}
    return detector.method, both, result, summary


def find_duplicates(args, method, batch: Batch, timings) -> DedupResult:
    """Pairs and clusters: from the fingerprints of a streaming method, else from the texts;
    with ``--against``, by the reference rule of :mod:`neardup.against`."""
    n = len(batch.ids)
    if batch.fps is None:
        keep, rule = ("first", "greedy") if args.against else (args.keep, args.clusters)
        result = dedup_with(
            method,
            batch.texts,
            keep=keep,
            lengths=batch.lengths,
            clusters=rule,
            workers=args.workers,
        )
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


def run_report_data(method, result, both: Batch, inputs: Inputs, reference) -> dict:
    """The report's distributions and sample (texts from memory, or one more input pass)."""
    near = getattr(method, "near_misses", None)
    thresholds = getattr(method, "thresholds", None)

    def texts_of(positions: list[int]) -> dict[int, str]:
        if both.texts:
            return {p: both.texts[p] for p in positions}
        found: dict[int, str] = {}
        parts = [(inputs, both.start, len(both.ids))]
        if reference is not None:
            parts.append((reference, 0, both.start))
        for part, lo, hi in parts:
            for source, reader in enumerate(part.readers):
                wanted = {
                    both.numbers[p]: p
                    for p in positions
                    if lo <= p < hi and both.sources[p] == source
                }
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


def write_outputs(stage, args, method, inputs: Inputs, both: Batch, result) -> Kept:
    """Write every output but the summary into ``stage``; where the kept records went.

    ``both`` names every position of ``result``; its ``start`` is the position of the input's
    first document (after the ``--against`` reference).
    """
    start = both.start
    kept = write_kept_records(stage, args.kept, inputs, both, result)
    write_clusters(stage / "clusters.csv", both.ids, result, start=start, reference=args.against)
    if both.skipped:
        names = [inputs.readers[e.source].source for e in both.skipped] if len(inputs) > 1 else None
        write_skipped(stage / "skipped.jsonl", [e.item for e in both.skipped], names)
    if args.pairs:
        write_pairs(stage / "pairs.csv", both.ids, result)
    tables = getattr(method, "tables", None)
    if tables is not None:  # frozen tables the run fitted: the online detector loads them
        tables.save(stage / TABLES_FILE)
    return kept


def write_kept_records(stage, mode: str, inputs: Inputs, both: Batch, result) -> Kept:
    """The kept records, as ``--kept`` asks: per input, in one file, or to standard output."""
    start = both.start
    is_rep = result.clusters.is_representative[start:]
    numbers = np.asarray(both.numbers[start:], np.int64)[is_rep]
    sources = np.asarray(both.sources[start:], np.int64)[is_rep]
    keeps = [set(numbers[sources == i].tolist()) for i in range(len(inputs))]
    counts = [len(k) for k in keeps]
    readers = inputs.readers
    if mode == "-":
        write_jsonl(readers, keeps, sys.stdout.buffer)
        return Kept(["-"] * len(readers), counts)
    if mode == "single" or len(readers) == 1:
        name = single_name(readers)
        write_single(readers, keeps, stage / name)
        return Kept([name] * len(readers), counts)
    names = [per_input_name(r, label) for r, label in zip(readers, inputs.labels, strict=True)]
    for reader, keep, name in zip(readers, keeps, names, strict=True):
        (stage / name).parent.mkdir(parents=True, exist_ok=True)
        write_single([reader], [keep], stage / name)
    return Kept(names, counts)
