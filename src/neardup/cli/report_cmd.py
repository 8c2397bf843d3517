"""``neardup report OUTDIR``: build ``report.html`` from a dedup run's output directory."""

from __future__ import annotations

import argparse
import sys

from ..report.page import write_report
from ..shown import shown_path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write report.html for a dedup output directory",
        description="Build OUTDIR/report.html from the summary.json and report_data.json a "
        "`neardup dedup` run wrote: counts, parameters, distributions, the largest clusters, a "
        "random sample of removals and the closest calls, each pair side by side with the "
        "differences highlighted. Self-contained: it opens offline.",
    )
    p.add_argument("output", metavar="OUTDIR", help="the output directory of `neardup dedup`")
    p.add_argument("--quiet", action="store_true", help="do not print the report's path")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = write_report(args.output)
    if not args.quiet:
        print(f"neardup: report -> {shown_path(path)}", file=sys.stderr)
    return 0
