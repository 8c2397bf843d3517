"""``neardup spark-dedup INPUT -o OUTPUT``: the dedup job on Apache Spark (extra ``neardup[spark]``)."""

from __future__ import annotations

import argparse
import os
import sys

from ..cluster import CONTAINER_BATCH_ONLY, DISTRIBUTED_KEEP_RULES
from ..errors import ConfigError, NeardupError
from ..methods import SPARK_DEFAULT_METHOD
from .options import (
    add_method_options,
    add_on_error_option,
    loaded_tables,
    method_options,
    output_directory,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "spark-dedup",
        help="remove near-duplicates with Apache Spark (corpora beyond one machine)",
        description="Deduplicate INPUT (JSON Lines or Parquet; a file, directory or glob on any "
        "Hadoop-compatible file system) on Spark and write OUTPUT/kept/, OUTPUT/clusters/ (CSV), "
        "OUTPUT/skipped/ and OUTPUT/summary.json. Same method options and the same clusters as "
        "`neardup dedup`. Under spark-submit, run the module neardup.spark.submit instead.",
    )
    p.add_argument("input", help="input path (file, directory or glob)")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        type=output_directory,
        help="output directory (overwritten)",
    )
    p.add_argument(
        "--master", help="Spark master, e.g. local[2] or spark://host:7077 (default: local[*])"
    )
    p.add_argument("--format", choices=("jsonl", "parquet"), help="input format (default: name)")
    p.add_argument("--text-field", default="text", help="field holding the text (default: text)")
    p.add_argument("--id-field", help="field holding the id (default: the record number)")
    p.add_argument(
        "--keep",
        type=_distributed_keep,
        choices=DISTRIBUTED_KEEP_RULES,
        default="first",
        help="default: first",
    )
    add_on_error_option(p)
    p.add_argument("--partitions", type=int, help="shuffle partitions (default: 2 x cores)")
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Spark configuration (repeatable), e.g. spark.driver.memory=8g",
    )
    p.add_argument(
        "--tables",
        metavar="common_grams.npz",
        help="auto, paragraph: use this frozen common-gram table (one an earlier run wrote, a "
        "local file) instead of fitting one on the input",
    )
    p.add_argument("--quiet", action="store_true", help="no stage messages")
    add_method_options(p, batch=False)
    p.set_defaults(method=SPARK_DEFAULT_METHOD, explain_unknown=batch_only)
    p.set_defaults(func=run)


def _distributed_keep(value: str) -> str:
    """``--keep``'s value; ``container`` refused with the reason (argparse said only "invalid
    choice"), the other rules it lacks by its choices."""
    if value == "container":
        raise argparse.ArgumentTypeError(CONTAINER_BATCH_ONLY)
    return value


# options of `neardup dedup` that the Spark job does not have
BATCH_ONLY = (
    "--pairs",
    "--report",
    "--clusters",
    "--against",
    "--kept",
    "--workers",
    "--partial",
)


def batch_only(unknown: list[str]) -> str | None:
    """Why spark-dedup lacks the first of ``unknown`` (arguments no option took), when it is an
    option of `neardup dedup`; None otherwise (argparse's "unrecognized arguments")."""
    flag = next((a.split("=", 1)[0] for a in unknown if a.split("=", 1)[0] in BATCH_ONLY), None)
    if flag is None:
        return None
    return (
        f"{flag} is an option of `neardup dedup`, not of spark-dedup (it writes kept/, "
        "clusters/ with the greedy clusters, skipped/ and summary.json; docs/spark.md)"
        + ("; a Spark task runs one worker" if flag == "--workers" else "")
    )


def spark_conf(items: list[str]) -> dict[str, str]:
    conf = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--conf {item!r} must look like KEY=VALUE")
        conf[key.strip()] = value
    return conf


def run(args: argparse.Namespace) -> int:
    options = method_options(args)
    if args.partitions is not None and args.partitions < 1:
        raise ConfigError(f"--partitions {args.partitions} must be at least 1")
    from ..methods import SPARK_METHODS
    from ..spark.session import spark_session

    if args.method not in SPARK_METHODS:  # before paying for a Spark session
        raise ConfigError(
            f"spark-dedup runs the methods {', '.join(SPARK_METHODS)}, not {args.method!r}; "
            "use `neardup dedup` for it"
        )

    local_out = args.output.removeprefix("file://")
    if "://" not in local_out and os.path.exists(local_out) and not os.path.isdir(local_out):
        raise ConfigError(f"{args.output} exists and is not a directory")  # before the job runs
    tables = loaded_tables(args, {args.method: options})  # refused before a session starts
    bar = not args.quiet and sys.stderr.isatty()  # a bar redrawn in a log file floods it
    conf = {"spark.ui.showConsoleProgress": "true" if bar else "false"}
    conf.update(spark_conf(args.conf))
    spark = spark_session(master=args.master, app_name="neardup spark-dedup", config=conf)
    if args.quiet:
        spark.sparkContext.setLogLevel("ERROR")
    try:
        summary = _run_job(spark, args, options, tables)
    except Exception as exc:
        if type(exc).__module__.split(".")[0] not in ("py4j", "pyspark"):
            raise
        raise NeardupError(f"the Spark job failed: {_cause(exc)}") from None
    if not args.quiet:
        c = summary["counts"]
        print(
            f"neardup: {c['records_read']} records: {c['kept']} kept, {c['duplicates_removed']} "
            f"duplicates removed in {c['duplicate_clusters']} clusters, {c['skipped']} skipped; "
            f"{sum(summary['seconds'].values()):.1f}s -> {args.output}",
            file=sys.stderr,
        )
    return 0


def _cause(exc: Exception) -> str:
    """The innermost Java exception's first line (what went wrong, not the stage that saw it),
    with a hint for a truncated compressed input."""
    java = getattr(exc, "java_exception", None)
    while java is not None and java.getCause() is not None:
        java = java.getCause()
    lines = (str(java.toString()) if java is not None else str(exc)).strip().splitlines()
    first = lines[0] if lines else type(exc).__name__
    if "EOFException" in first:
        first += (
            " — a compressed input is truncated; Spark cannot read the records before the "
            "break: `neardup dedup` reads them and counts the lost tail"
        )
    return first


def _run_job(spark, args: argparse.Namespace, options: dict, tables) -> dict:
    from ..spark.job import spark_dedup

    return spark_dedup(
        spark,
        args.input,
        args.output,
        method=args.method,
        options=options,
        keep=args.keep,
        text_field=args.text_field,
        id_field=args.id_field,
        fmt=args.format,
        on_error=args.on_error,
        partitions=args.partitions,
        quiet=args.quiet,
        tables=tables,
    )
