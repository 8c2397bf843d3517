"""Reading the input on the cluster: records numbered as the local reader numbers them.

JSON Lines (plain or Hadoop-compressed, e.g. ``.gz``/``.bz2``) are read as UTF-8 bytes with
``textFile``, lines ending at "\n" alone (the session's record delimiter); Hadoop has already
replaced bytes that are not UTF-8 with U+FFFD (docs/spark.md: where Spark differs); a record's
number is its line number (blank lines are counted and ignored, as locally). Parquet rows are numbered in
``(file, row index)`` order. Every record comes out either as a document or as a skip with its
reason, through :func:`neardup.readers.check_row`, the function the local reader uses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from ..errors import ConfigError
from ..readers import Record, Skipped, blank_line, check_row, parse_json_line

SPARK_FORMATS = ("jsonl", "parquet")

# row kinds in the checked RDD
DOC, SKIP = 0, 1


def spark_format(path: str, fmt: str | None) -> str:
    if fmt:
        if fmt not in SPARK_FORMATS:
            raise ConfigError(f"spark-dedup reads {' or '.join(SPARK_FORMATS)}, not {fmt!r}")
        return fmt
    name = path.rstrip("/").lower()
    if name.endswith(".zst"):
        raise ConfigError(
            f"{path!r}: zstd-compressed JSON Lines are not read by Hadoop without native "
            "libraries; recompress with gzip or bzip2, or convert to Parquet"
        )
    for suffix in (".gz", ".bz2", ".deflate"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    raise ConfigError(
        f"cannot tell the format of {path!r} from its name (a directory?); "
        "pass --format jsonl or --format parquet"
    )


def _check_json(
    rows: Iterator[tuple[bytes, int]], text_field: str, id_field: str | None
) -> Iterator[tuple]:
    for line, index in rows:
        number = index + 1
        if blank_line(line):
            continue
        row = parse_json_line(number, line)
        if not isinstance(row, Skipped):
            row = check_row(number, row, None, text_field=text_field, id_field=id_field, line=line)
        yield _as_tuple(row)


def _check_parquet(rows: Iterator[tuple[Any, int]], text_field: str, id_field: str | None):
    for row, index in rows:
        number = index + 1
        values = {text_field: row[0]}
        if id_field:
            values[id_field] = row[1]
        yield _as_tuple(check_row(number, values, None, text_field=text_field, id_field=id_field))


def _as_tuple(item: Record | Skipped) -> tuple:
    if isinstance(item, Record):
        return (item.number, DOC, item.id, item.text, "")
    return (item.number, SKIP, item.id, item.reason, item.message)


def hadoop_path(path: str) -> str:
    """``path`` as Hadoop should read it: a local file or folder that exists under this very
    name is read as named, its glob characters (``[]{}*?\\``) escaped and its commas (which
    ``textFile`` takes for a list of paths) put in braces — ``x[1].jsonl`` was read as the
    pattern matching ``x1.jsonl``, silently, and ``news,2023.jsonl`` as two paths; anything
    else (a pattern, another file system's URL) as given, as the local command does."""
    local = path[len("file://") :] if path.startswith("file://") else path
    if "://" in local or not os.path.exists(local):
        return path
    return re.sub(r"([\\\[\]{}*?])", r"\\\1", path).replace(",", "{\\,}")


def checked_records(
    spark: Any, path: str, *, fmt: str, text_field: str, id_field: str | None
) -> Any:
    """RDD of ``(number, kind, id, text_or_reason, message)`` in record order."""
    if fmt == "jsonl":
        lines = spark.sparkContext.textFile(hadoop_path(path), use_unicode=False)
        return lines.zipWithIndex().mapPartitions(lambda it: _check_json(it, text_field, id_field))
    from pyspark.sql import functions as F

    df = spark.read.parquet(hadoop_path(path))
    missing = [c for c in (text_field, id_field) if c and c not in df.columns]
    if missing:
        from ..errors import InputError

        raise InputError(
            f"no column {missing[0]!r} (columns: {', '.join(df.columns)})", source=path
        )
    columns = [F.col(text_field), F.col(id_field) if id_field else F.lit(None)]
    ordered = df.select(
        *columns, F.col("_metadata.file_path").alias("_f"), F.col("_metadata.row_index").alias("_r")
    ).orderBy("_f", "_r")
    return (
        ordered.rdd.map(lambda r: (r[0], r[1]))
        .zipWithIndex()
        .mapPartitions(lambda it: _check_parquet(it, text_field, id_field))
    )


def indexed_parquet_rows(spark: Any, path: str, *, keep: Any = None) -> Any:
    """The input's Parquet rows in record order as a DataFrame; with ``keep`` (a predicate on
    the 1-based record number) only the rows it keeps."""
    from pyspark.sql import functions as F

    df = spark.read.parquet(hadoop_path(path))
    ordered = df.select(
        "*", F.col("_metadata.file_path").alias("_f"), F.col("_metadata.row_index").alias("_r")
    ).orderBy("_f", "_r")
    columns = df.columns
    numbered = ordered.rdd.zipWithIndex()
    if keep is not None:
        numbered = numbered.filter(lambda ri: keep(ri[1] + 1))
    return spark.createDataFrame(numbered.map(lambda ri: [ri[0][c] for c in columns]), df.schema)
