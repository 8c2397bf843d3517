"""``neardup dedup INPUT... -o OUTDIR``: the arguments of a run, mapped one to one onto
:class:`neardup.pipeline.DedupOptions`; the run itself lives in :mod:`neardup.pipeline.run`.
"""

from __future__ import annotations

import argparse
import sys

from ..cluster import CLUSTER_RULES, KEEP_RULES
from ..pipeline.run import KEPT_MODES, DedupOptions, run_dedup
from ..readers import FORMATS
from ..shown import shown_path
from .options import (
    add_method_options,
    add_on_error_option,
    add_workers_option,
    method_options,
    output_directory,
)


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
    _add_input_options(p)
    _add_decision_options(p)
    _add_output_options(p)
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar and no summary line (summary.json has the counts); skipped "
        "records are still said",
    )
    add_workers_option(p)
    add_method_options(p)
    p.set_defaults(func=run)


def _add_input_options(p: argparse.ArgumentParser) -> None:
    """What is read: inputs, format, fields, bad records."""
    p.add_argument(
        "input",
        nargs="+",
        help="input files, directories (every file of a known format under them), glob "
        "patterns, or '-' (standard input, JSON Lines unless --format says otherwise); without "
        "--id-field, documents of several inputs are named <input>:<record number>",
    )
    p.add_argument(
        "--format", choices=FORMATS, help="format of every input (default: from each file's name)"
    )
    p.add_argument(
        "--text-field", default="text", help="field/column holding the text (default: text)"
    )
    p.add_argument("--id-field", help="field/column holding the id (default: the record number)")
    add_on_error_option(p)


def _add_output_options(p: argparse.ArgumentParser) -> None:
    """What is written: the directory, the kept records, pairs and report."""
    p.add_argument(
        "-o",
        "--output",
        required=True,
        type=output_directory,
        help="output directory (created if missing)",
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
    p.add_argument("--pairs", action="store_true", help="also write the verified pairs (pairs.csv)")
    p.add_argument(
        "--report",
        action="store_true",
        help="also write report.html: counts, distributions and a sample of removals side by "
        "side (`neardup report OUTDIR` builds it later from report_data.json)",
    )


def _add_decision_options(p: argparse.ArgumentParser) -> None:
    """How clusters are decided: keep rule, clustering rule, a reference, frozen tables."""
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
        "--against",
        action=_Once,
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


def run(args: argparse.Namespace) -> int:
    options = DedupOptions(
        input=tuple(args.input),
        output=args.output,
        method=args.method,
        options=method_options(args),
        text_field=args.text_field,
        id_field=args.id_field,
        format=args.format,
        on_error=args.on_error,
        against=args.against,
        tables=args.tables,
        keep=args.keep,
        clusters=args.clusters,
        kept=args.kept,
        pairs=args.pairs,
        report=args.report,
        quiet=args.quiet,
        workers=args.workers,
    )
    summary, out = run_dedup(options)
    c = summary["counts"]
    if args.quiet:  # what was left out is said also when nothing else is
        for line in _skipped_lines(summary, out):
            print(line, file=sys.stderr)
    if not args.quiet:
        against = f" (against {shown_path(args.against)})" if args.against else ""
        ref_skipped = summary.get("reference", {}).get("skipped") or 0
        skipped = f"{c['skipped']} skipped" + (
            f" (and {ref_skipped} of the reference: reference_skipped.jsonl)" if ref_skipped else ""
        )
        print(
            f"neardup: {c['records_read']} records: {c['kept']} kept, {c['duplicates_removed']} "
            f"duplicates removed{against} in {c['duplicate_clusters']} clusters, "
            f"{skipped}; {summary['seconds']['total']:.1f}s -> {shown_path(out)}",
            file=sys.stderr,
        )
        empty = summary.get("method_stats", {}).get("featureless_documents", 0)
        if empty:
            print(
                f"neardup: {empty} documents{' (inputs and reference)' if args.against else ''} "
                "have nothing to compare once normalised (markup or "
                "punctuation alone, another script under --cjk-only, words every document "
                "holds under corpus tf-idf): never duplicates, kept "
                "(method_stats.featureless_documents in summary.json)",
                file=sys.stderr,
            )
    return 0


def _skipped_lines(summary: dict, out) -> list[str]:
    """What ``--quiet`` still says: the records the input, and the ``--against`` reference,
    left out, each with the file that lists them."""
    c, ref = summary["counts"], summary.get("reference", {})
    lines = []
    if c["skipped"]:
        lines.append(
            f"neardup: {c['skipped']} of {c['records_read']} records skipped "
            f"({shown_path(out / 'skipped.jsonl')})"
        )
    if ref.get("skipped"):  # a file reference (a store has no records to skip)
        lines.append(
            f"neardup: {ref['skipped']} of {ref['records_read']} reference records skipped "
            f"({shown_path(out / ref['skipped_file'])})"
        )
    return lines


class _Once(argparse.Action):
    """An option given once: a second ``--against`` replaced the first, silently."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} is given twice; give one reference")
        setattr(namespace, self.dest, values)
