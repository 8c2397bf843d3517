"""Assembling the clusters table with Spark SQL and writing the outputs to any Hadoop path."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..pairs import METHODS
from .read import SKIP, indexed_parquet_rows

CLUSTER_COLUMNS = ("id", "cluster_id", "representative_id", "distance", "similarity", "method")


def _doc_rows(b: dict[str, np.ndarray]):
    fps = b["fp"].view(np.int64).tolist() if "fp" in b else [None] * len(b["pos"])
    return zip(
        b["pos"].tolist(),
        b["number"].tolist(),
        b["id"].tolist(),
        fps,
        b["length"].tolist(),
        strict=True,
    )


def _resolved_rows(b: dict[str, np.ndarray]):
    dist = [None if x < 0 else x for x in b["distance"].astype(int).tolist()]
    sim = [None if x != x else x for x in b["similarity"].astype(float).tolist()]
    return zip(b["pos"].tolist(), b["rep"].tolist(), dist, sim, b["code"].tolist(), strict=True)


def assemble(spark: Any, prepared: Any, resolved: Any) -> Any:
    """DataFrame ``pos, number, rep`` and the clusters columns, one row per document.

    ``resolved`` holds, for every document in a component, the representative and evidence the
    core's clustering gave (:mod:`neardup.spark.resolve`); other documents represent themselves.
    Clusters are numbered by their first member, as :func:`neardup.cluster.clusters_from_representatives`.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import (
        FloatType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    docs = spark.createDataFrame(
        prepared.flatMap(_doc_rows),
        StructType(
            [
                StructField("pos", LongType(), False),
                StructField("number", LongType(), False),
                StructField("id", StringType(), False),
                StructField("fp", LongType(), True),
                StructField("length", LongType(), False),
            ]
        ),
    )
    found = spark.createDataFrame(
        resolved.flatMap(_resolved_rows),
        StructType(
            [
                StructField("pos", LongType(), False),
                StructField("r", LongType(), False),
                StructField("rd", IntegerType(), True),
                StructField("rs", FloatType(), True),
                StructField("rc", IntegerType(), False),
            ]
        ),
    )
    d = docs.join(found, "pos", "left").withColumn("rep", F.coalesce("r", "pos"))
    firsts = d.groupBy("rep").agg(F.min("pos").alias("first"))
    rank = firsts.select("first").rdd.map(lambda r: r[0]).sortBy(lambda x: x).zipWithIndex()
    d = d.join(firsts, "rep").join(
        spark.createDataFrame(rank, "first long, cluster_id long"), "first"
    )
    reps = docs.select(F.col("pos").alias("rep"), F.col("id").alias("representative_id"))
    d = d.join(reps, "rep")
    is_member = F.col("pos") != F.col("rep")
    names = F.array(*[F.lit(x) for x in METHODS])
    d = (
        d.withColumn("distance", F.when(is_member, F.col("rd")).otherwise(F.lit(0)).cast("int"))
        .withColumn("similarity", F.when(is_member, F.col("rs")).cast("float"))
        .withColumn(
            "method", F.when(is_member, F.element_at(names, F.col("rc") + 1)).otherwise(F.lit(""))
        )
    )
    return d.select("pos", "number", "rep", *CLUSTER_COLUMNS)


def write_outputs(
    spark: Any, table: Any, rows: Any, *, input_path: str, output_path: str, fmt: str
) -> dict[str, int]:
    """Write kept records, the clusters table and the skipped records; return counts."""
    import orjson
    from pyspark.sql import functions as F

    out = output_path.rstrip("/")
    table = table.persist()
    table.orderBy("pos").select(*CLUSTER_COLUMNS).write.mode("overwrite").option(
        "header", True
    ).option("emptyValue", '""').csv(out + "/clusters")
    kept_numbers = table.filter(F.col("pos") == F.col("rep")).select("number")
    n_kept = kept_numbers.count()
    sizes = table.groupBy("rep").count()
    duplicate_clusters = sizes.filter(F.col("count") > 1).count()
    if fmt == "parquet":
        source = indexed_parquet_rows(spark, input_path)
        kept = source.join(kept_numbers.withColumnRenamed("number", "_number"), "_number")
        kept.orderBy("_number").drop("_number").write.mode("overwrite").parquet(out + "/kept")
    else:
        lines = spark.sparkContext.textFile(input_path, use_unicode=False).zipWithIndex()
        line_df = spark.createDataFrame(
            lines.map(lambda x: (x[1] + 1, bytearray(x[0]))), "number long, line binary"
        )
        kept = line_df.join(kept_numbers, "number").orderBy("number")
        writer = kept.select(F.col("line").cast("string").alias("value")).write.mode("overwrite")
        if input_path.endswith(".gz"):
            writer = writer.option("compression", "gzip")
        writer.text(out + "/kept")
    delete(spark, out + "/skipped")
    skipped = rows.filter(lambda r: r[1] == SKIP)
    if not skipped.isEmpty():
        skipped.sortBy(lambda r: r[0]).map(
            lambda r: orjson.dumps(
                {"record": r[0], "id": r[2], "reason": r[3], "message": r[4]}
            ).decode()
        ).saveAsTextFile(out + "/skipped")
    table.unpersist()
    return {"kept": n_kept, "clusters": n_kept, "duplicate_clusters": duplicate_clusters}


def _fs(spark: Any, path: str):
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def input_exists(spark: Any, path: str) -> bool:
    """Whether ``path`` (a file, directory or glob on any Hadoop file system) matches anything."""
    fs, hpath = _fs(spark, path)
    matches = fs.globStatus(hpath)
    return matches is not None and len(matches) > 0


def delete(spark: Any, path: str) -> None:
    fs, hpath = _fs(spark, path)
    if fs.exists(hpath):
        fs.delete(hpath, True)


def write_text(spark: Any, path: str, text: str) -> None:
    """Write a small text file (the summary) through Hadoop's file system API."""
    write_bytes(spark, path, text.encode("utf-8"))


def write_bytes(spark: Any, path: str, data: bytes) -> None:
    """Write a small file through Hadoop's file system API, e.g. to HDFS or S3."""
    fs, hpath = _fs(spark, path)
    stream = fs.create(hpath, True)
    try:
        stream.write(bytearray(data))
    finally:
        stream.close()
