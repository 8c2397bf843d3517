"""``neardup eval DATA -o REPORT_DIR``: precision, recall, F1 and time on labelled data."""

from __future__ import annotations

import argparse
import sys

from ..errors import ConfigError
from ..methods import DEFAULT_METHOD
from ..shown import shown_path
from .method_help import use_method_help
from .options import (
    METHOD_NAMES,
    add_on_error_option,
    add_tables_option,
    add_workers_option,
    loaded_tables,
    method_options,
    output_directory,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="score methods on labelled pairs or a clustered corpus; write a report",
        description="Score methods on DATA — labelled pairs (text1, text2, label) or a clustered "
        "corpus (id, text, cluster) — and write REPORT_DIR/report.json and report.html.",
    )
    p.add_argument("data", help="JSON Lines, CSV or TSV")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        type=output_directory,
        help="report directory (created if missing)",
    )
    p.add_argument("--kind", choices=("pairs", "clusters"), help="default: from the fields")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--method", choices=METHOD_NAMES, help=f"one method (default: {DEFAULT_METHOD})")
    g.add_argument("--methods", help="comma-separated methods, e.g. simhash,ngram,paragraph,auto")
    p.add_argument("--sweep", action="store_true", help="pairs: scores over every threshold")
    p.add_argument("--label-field", help="pairs: the 0/1 label (default label)")
    p.add_argument(
        "--cluster-field",
        help='clusters: the gold label (default cluster), a string or number: 1, 1.0 and "1" '
        "are one cluster",
    )
    p.add_argument("--corpus", help="pairs given by id1/id2: the corpus (id, text) they refer to")
    add_on_error_option(p)
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="METHOD.NAME=VALUE",
        help="a method option, e.g. simhash.max_distance=4 (repeatable; listed below)",
    )
    add_tables_option(p, what="score every pair or corpus")
    use_method_help(p, METHOD_NAMES, syntax="METHOD.NAME=VALUE", omit=("partial",))
    p.add_argument("--quiet", action="store_true")
    add_workers_option(p)
    p.set_defaults(func=run)


def _methods(args: argparse.Namespace) -> list[str]:
    names = (
        [m.strip() for m in args.methods.split(",")]
        if args.methods is not None
        else [args.method or DEFAULT_METHOD]
    )
    unknown = [m for m in names if m not in METHOD_NAMES]
    if unknown:
        raise ConfigError(f"unknown method {unknown[0]!r}; choose from {', '.join(METHOD_NAMES)}")
    if len(set(names)) < len(names):
        raise ConfigError(f"--methods {args.methods!r} names a method twice")
    return names


def _options(args: argparse.Namespace, names: list[str]) -> dict[str, dict]:
    per: dict[str, list[str]] = {n: [] for n in names}
    for item in args.option:
        method, dot, rest = item.partition(".")
        if not dot:
            raise ConfigError(
                f"--option {item!r} must look like METHOD.NAME=VALUE, METHOD one of "
                f"{', '.join(names)}"
            )
        if method not in per:
            raise ConfigError(
                f"--option {item!r} is for method {method!r}, which this run does not evaluate "
                f"({', '.join(names)}): add it with --method or --methods"
            )
        per[method].append(rest)
    out = {}
    for name, items in per.items():
        ns = argparse.Namespace(method=name, option=items)
        out[name] = method_options(ns)
    return out


def run(args: argparse.Namespace) -> int:
    from ..evaluate.run import evaluate_file

    names = _methods(args)
    options = _options(args, names)
    tables = loaded_tables(args, options)  # a table that fits no method: refused before the data
    report, html_path = evaluate_file(
        args.data,
        args.output,
        methods=names,
        options=options,
        kind=args.kind,
        label_field=args.label_field,
        cluster_field=args.cluster_field,
        corpus=args.corpus,
        on_error=args.on_error,
        sweep=args.sweep,
        workers=args.workers,
        tables=tables,
    )
    if args.sweep and report["kind"] != "pairs":  # said even with --quiet: an option unused
        print(
            "neardup: --sweep scores labelled pairs over thresholds; the clustered corpus was "
            "scored at each method's own threshold",
            file=sys.stderr,
        )
    if not args.quiet:
        for name, e in report["results"].items():
            s = e["at_default_threshold"] if report["kind"] == "pairs" else e["scores"]
            print(
                f"neardup: {name}: precision {s['precision']:.3f} recall {s['recall']:.3f} "
                f"F1 {s['f1']:.3f}",
                file=sys.stderr,
            )
        print(f"neardup: report -> {shown_path(html_path)}", file=sys.stderr)
    return 0
