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


def _edge_rows(b: dict[str, np.ndarray]):
    sim = [None if x != x else x for x in b["sim"].astype(float).tolist()]
    dist = [None if x < 0 else x for x in b["d"].tolist()]
    return zip(b["a"].tolist(), b["b"].tolist(), dist, sim, b["m"].tolist(), strict=True)


def assemble(
    spark: Any, prepared: Any, roots: Any, edges: Any, *, keep: str, with_fingerprints: bool
) -> Any:
    """DataFrame ``pos, number, rep`` and the clusters columns, one row per document.

    Same rules as :func:`neardup.cluster.cluster_pairs` and
    :func:`neardup.dedup.evidence_to_representative`: the root is the smallest position of the
    component; ``keep="first"`` keeps the root, ``"longest"`` the longest text (ties: the
    earliest); clusters are numbered by their first member; the distance is recomputed from the
    fingerprints when there are any; similarity and distance otherwise come from the direct
    (representative, document) pair, the method from it or else from the smallest pair that
    touches the document.
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
    root_df = spark.createDataFrame(
        roots.flatMap(lambda b: zip(b["child"].tolist(), b["root"].tolist(), strict=True)),
        "pos long, root long",
    )
    pairs = spark.createDataFrame(
        edges.flatMap(_edge_rows),
        StructType(
            [
                StructField("lo", LongType(), False),
                StructField("hi", LongType(), False),
                StructField("pd", IntegerType(), True),
                StructField("sim", FloatType(), True),
                StructField("pm", IntegerType(), False),
            ]
        ),
    ).dropDuplicates(["lo", "hi"])
    d = docs.join(root_df, "pos", "left").withColumn("root", F.coalesce("root", "pos"))
    if keep == "first":
        d = d.withColumn("rep", F.col("root"))
    else:
        best = d.groupBy("root").agg(
            F.max(F.struct(F.col("length"), (-F.col("pos")).alias("neg"))).alias("m")
        )
        d = d.join(best.select("root", (-F.col("m.neg")).alias("rep")), "root")
    root_rank = (
        d.filter(F.col("pos") == F.col("root"))
        .select("pos")
        .rdd.map(lambda r: r[0])
        .sortBy(lambda x: x)
        .zipWithIndex()
    )
    d = d.join(spark.createDataFrame(root_rank, "root long, cluster_id long"), "root")
    reps = docs.select(
        F.col("pos").alias("rep"),
        F.col("id").alias("representative_id"),
        F.col("fp").alias("rep_fp"),
    )
    d = d.join(reps, "rep")
    d = d.withColumn("lo", F.least("pos", "rep")).withColumn("hi", F.greatest("pos", "rep"))
    d = d.join(pairs, ["lo", "hi"], "left")
    touching = (
        pairs.select(F.col("lo").alias("pos"), "lo", "hi", "pm")
        .unionByName(pairs.select(F.col("hi").alias("pos"), "lo", "hi", "pm"))
        .groupBy("pos")
        .agg(F.min(F.struct("lo", "hi", "pm")).alias("t"))
        .select("pos", F.col("t.pm").alias("tm"))
    )
    d = d.join(touching, "pos", "left")
    is_member = F.col("pos") != F.col("rep")
    if with_fingerprints:
        distance = F.bit_count(F.col("fp").bitwiseXOR(F.col("rep_fp"))).cast("int")
    else:
        distance = F.when(is_member, F.col("pd")).otherwise(F.lit(0)).cast("int")
    names = F.array(*[F.lit(x) for x in METHODS])
    code = F.coalesce(F.col("pm"), F.col("tm"))
    d = (
        d.withColumn("distance", distance)
        .withColumn("similarity", F.when(is_member, F.col("sim")).cast("float"))
        .withColumn("method", F.when(is_member, F.element_at(names, code + 1)).otherwise(F.lit("")))
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
    """Write a small file (the summary) through Hadoop's file system API, e.g. to HDFS or S3."""
    fs, hpath = _fs(spark, path)
    stream = fs.create(hpath, True)
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()
