"""The clusters table in input order, and the outputs written to any Hadoop path.

The table is built from columnar batches (no Python object per document, no Spark SQL join,
no global sort): documents meet their cluster evidence by position range, the ranges of the
input partitions, so the part files come out in input order. The kept records are the input's
own lines (or Parquet rows) selected by a broadcast bit per record."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..arrays import unique_sorted
from ..errors import ConfigError, InputError
from ..pipeline.outputs import is_run_summary
from .batches import Batch, cogroup, size, targets
from .read import SKIP, hadoop_path, indexed_parquet_rows

_NO_ROWS: Batch = {
    "id": np.empty(0, object),
    "cluster_id": np.empty(0, np.int64),
    "representative_id": np.empty(0, object),
    "distance": np.empty(0, np.int64),
    "similarity": np.empty(0, np.float32),
    "code": np.empty(0, np.int64),
    "is_rep": np.empty(0, np.bool_),
}


def range_bounds(prepared: Any) -> np.ndarray:
    """The first position of each non-empty partition of ``prepared`` (which holds consecutive
    positions in input order), sorted: the bounds of a range partitioning in input order."""

    def first(batches: Iterator[Batch]) -> Iterator[int]:
        lows = [int(b["pos"].min()) for b in batches if size(b)]
        if lows:
            yield min(lows)

    return np.array(sorted(prepared.mapPartitions(first).collect()), np.int64)


def _later_members(b: Batch) -> Batch:
    """The positions that are not the first member of their cluster."""
    return {"pos": b["pos"][b["first"] != b["pos"]]}


def _sorted_later(group: dict[str, Batch]) -> np.ndarray:
    """The later members routed to this range, sorted (for counting those before a position)."""
    later = group.get("later")
    return np.sort(later["pos"]) if size(later) else np.empty(0, np.int64)


def _before(groups: Iterator[dict[str, Batch]], part: int, prefix: np.ndarray):
    """Each row with its cluster id: clusters are numbered by their first member in input
    order, so the id of a cluster first at ``f`` is ``f`` minus the later members before ``f``
    (those of earlier ranges, ``prefix``, and those of this range)."""
    for g in groups:
        rows = g.get("rows")
        if not size(rows):
            continue
        later = _sorted_later(g)
        first = rows["first"]
        rows["cluster_id"] = first - prefix[part] - np.searchsorted(later, first)
        yield rows


def _table(groups: Iterator[dict[str, Batch]], part: int, prefix: np.ndarray) -> Iterator[Batch]:
    """One range of documents in input order with the columns of ``clusters.csv``: a document
    outside every component represents itself."""
    for g in groups:
        docs = g.get("docs")
        if not size(docs):
            continue
        order = np.argsort(docs["pos"], kind="stable")
        pos = docs["pos"][order]
        ids = docs["id"][order]
        n = len(pos)
        later = _sorted_later(g)
        out = {
            "pos": pos,
            "number": docs["number"][order],
            "id": ids,
            "cluster_id": pos - prefix[part] - np.searchsorted(later, pos),
            "representative_id": ids.copy(),
            "distance": np.zeros(n, np.int64),
            "similarity": np.full(n, np.nan, np.float32),
            "code": np.zeros(n, np.int64),
            "is_rep": np.ones(n, np.bool_),
        }
        rows = g.get("rows")
        if size(rows):
            at = np.searchsorted(pos, rows["pos"])
            out["cluster_id"][at] = rows["cluster_id"]
            out["representative_id"][at] = rows["rep_id"]
            out["distance"][at] = rows["distance"]
            out["similarity"][at] = rows["similarity"]
            out["code"][at] = rows["code"]
            out["is_rep"][at] = rows["rep"] == rows["pos"]
        yield out


def assemble(prepared: Any, resolved: Any, *, storage: Any) -> tuple[Any, int]:
    """Batches of documents in input order, one per range, with the columns of the local
    ``clusters.csv`` (see :func:`_table`), cached; and the number of duplicate clusters.

    ``resolved`` holds, for every document in a component, the representative and evidence the
    core's clustering gave (:mod:`neardup.spark.resolve`). Every step is a batch-wise co-group
    by position range: no Python object per document, no global sort.
    """
    bounds = range_bounds(prepared)
    ranges = len(bounds)
    if not ranges:
        return prepared.context.emptyRDD(), 0
    later = resolved.map(_later_members)
    counts = later.map(
        lambda b: np.bincount(targets(b["pos"], ranges, bounds), minlength=ranges)
    ).fold(np.zeros(ranges, np.int64), np.add)
    prefix = np.r_[0, np.cumsum(counts)[:-1]]
    numbered = cogroup(
        {"rows": (resolved, "first"), "later": (later, "pos")}, partitions=ranges, bounds=bounds
    ).mapPartitionsWithIndex(lambda k, it: _before(it, k, prefix))
    docs = prepared.map(lambda b: {"pos": b["pos"], "number": b["number"], "id": b["id"]})
    table = cogroup(
        {"docs": (docs, "pos"), "rows": (numbered, "pos"), "later": (later, "pos")},
        partitions=ranges,
        bounds=bounds,
    ).mapPartitionsWithIndex(lambda k, it: _table(it, k, prefix))
    duplicate_clusters = int(
        resolved.map(lambda b: len(unique_sorted(b["rep"][b["rep"] != b["pos"]]))).sum()
    )
    return table.persist(storage), duplicate_clusters


def _csv(b: Batch) -> bytes:
    """A range of ``clusters.csv`` with its header (a part file), as the local run writes it."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pcsv

    from ..frames import evidence_columns

    evidence = evidence_columns(
        b["distance"], b["similarity"], b["code"], b["is_rep"], no_method=""
    )
    table = pa.table(
        {
            "id": pa.array(b["id"], pa.string()),
            "cluster_id": pa.array(b["cluster_id"], pa.int64()),
            "representative_id": pa.array(b["representative_id"], pa.string()),
            **{c: evidence[c] for c in ("distance", "similarity", "method")},
        }
    )
    buffer = io.BytesIO()
    pcsv.write_csv(table, buffer)
    return buffer.getvalue().removesuffix(b"\n")


def _kept_segment(b: Batch) -> tuple[int, bytes]:
    """``(first byte, packed bits)``: which records of this range are kept, one bit per record
    number (``np.packbits`` order), from a whole byte on so that the driver ORs bytes."""
    numbers = b["number"]
    lo = int(numbers.min()) & ~7
    bits = np.zeros(int(numbers.max()) - lo + 1, np.bool_)
    bits[numbers[b["is_rep"]] - lo] = True
    return lo >> 3, np.packbits(bits).tobytes()


def kept_records(table: Any) -> np.ndarray:
    """A bit per record number (1-based; packed, ``np.packbits`` order): 1 for a kept record.
    The driver holds one bit per record (12.5 MB for 100 million)."""
    segments = table.map(_kept_segment).collect()
    size_ = max((start + len(packed) for start, packed in segments), default=1)
    bits = np.zeros(size_, np.uint8)
    for start, packed in segments:
        bits[start : start + len(packed)] |= np.frombuffer(packed, np.uint8)
    return bits


def _is_kept(bits: np.ndarray, number: int) -> bool:
    byte = number >> 3
    return byte < len(bits) and bool(bits[byte] & (0x80 >> (number & 7)))


def write_outputs(
    spark: Any, table: Any, rows: Any, *, input_path: str, output_path: str, fmt: str
) -> dict[str, int]:
    """Write the clusters table, the kept records (input format, input order, each record's
    bytes unchanged) and the skipped records; return counts. ``table`` is :func:`assemble`'s."""
    import orjson

    out = output_path.rstrip("/")
    # the old summary first: until the new one lands the folder reads as incomplete; and no
    # table of an earlier run stays beside a run that fitted none
    for part in ("summary.json", "common_grams.npz", "clusters", "kept", "skipped"):
        delete(spark, f"{out}/{part}")
    sc = spark.sparkContext
    if table.isEmpty():  # the header alone, as the local run writes it
        write_text(spark, f"{out}/clusters/part-00000.csv", _csv(_NO_ROWS).decode() + "\n")
    else:
        table.map(_csv).saveAsTextFile(f"{out}/clusters")
        _name_parts(spark, f"{out}/clusters", ".csv")
    n_kept = int(table.map(lambda b: int(b["is_rep"].sum())).sum())
    bits = sc.broadcast(kept_records(table))
    if fmt == "parquet":
        kept = indexed_parquet_rows(spark, input_path, keep=lambda n: _is_kept(bits.value, n))
        kept.write.mode("overwrite").parquet(out + "/kept")
    else:
        lines = sc.textFile(hadoop_path(input_path), use_unicode=False).zipWithIndex()
        kept_lines = lines.filter(lambda x: _is_kept(bits.value, x[1] + 1)).map(lambda x: x[0])
        gzip = input_path.lower().endswith(".gz")  # kept as the input is: compressed or not
        codec = "org.apache.hadoop.io.compress.GzipCodec" if gzip else None
        kept_lines.saveAsTextFile(out + "/kept", compressionCodecClass=codec)
    bits.unpersist()
    skipped = rows.filter(lambda r: r[1] == SKIP)
    if not skipped.isEmpty():
        skipped.sortBy(lambda r: r[0]).map(
            lambda r: orjson.dumps(
                {"record": r[0], "id": r[2], "reason": r[3], "message": r[4]}
            ).decode()
        ).saveAsTextFile(out + "/skipped")
    table.unpersist()
    return {"kept": n_kept, "clusters": n_kept}


RUN_FOLDERS = ("clusters", "kept", "skipped")  # folders of part files a run writes
RUN_FILES = ("summary.json", "common_grams.npz")
_PART = re.compile(r"\.?(_SUCCESS|part-\d+.*?)(\.crc)?")  # what Spark writes in a folder


def refuse_foreign_outputs(spark: Any, input_path: str, output_path: str) -> None:
    """The local run's guard (:func:`neardup.pipeline.outputs.refuse_foreign_outputs`) on any
    Hadoop file system, before the job: an input that an output would replace (or a folder of
    inputs holding one) is refused, and so is a file or folder with an output's name that an
    earlier run did not write — a folder of other files than Spark's parts, a summary.json or
    common_grams.npz that is not a run's. The job deletes its outputs before writing them."""
    out = output_path.rstrip("/")
    fs, hout = _fs(spark, out)
    root = str(fs.makeQualified(hout)).rstrip("/")
    outputs = [f"{root}/{name}" for name in (*RUN_FOLDERS, *RUN_FILES)]
    in_fs, hin = _fs(spark, input_path)
    for status in in_fs.globStatus(hin) or []:
        path = str(status.getPath()).rstrip("/")
        for target in outputs:
            inside = path == target or path.startswith(target + "/")
            holds = target.startswith(path + "/") and _exists(spark, target)
            if inside or holds:
                raise ConfigError(
                    f"the input {input_path} is an output of a run into {output_path} (a run "
                    "would replace it, and read its outputs as input); choose another output "
                    "directory (-o) or move the file"
                )
    for name in RUN_FOLDERS:
        _, hpath = _fs(spark, f"{out}/{name}")
        if not fs.exists(hpath):
            continue
        files = fs.listFiles(hpath, True) if fs.getFileStatus(hpath).isDirectory() else None
        while files is not None and files.hasNext():
            if not _PART.fullmatch(files.next().getPath().getName()):
                files = None
        if files is None:
            _refuse(
                output_path,
                f"{name} is not an output of an earlier run (it holds other "
                "files than Spark's parts), and a run would replace it with all it holds",
            )
    for name, ours in (("summary.json", _is_summary), ("common_grams.npz", _is_table)):
        _, hpath = _fs(spark, f"{out}/{name}")
        if fs.exists(hpath) and not ours(_read_bytes(spark, f"{out}/{name}")):
            _refuse(output_path, f"{name} is not a neardup run's, and a run would replace it")


def _refuse(output_path: str, what: str) -> None:
    raise InputError(f"{what}; move it or choose another output directory (-o)", source=output_path)


def _exists(spark: Any, path: str) -> bool:
    fs, hpath = _fs(spark, path)
    return bool(fs.exists(hpath))


def _is_summary(data: bytes | None) -> bool:
    import orjson

    try:
        return is_run_summary(orjson.loads(data or b""))
    except orjson.JSONDecodeError:
        return False


def _is_table(data: bytes | None) -> bool:
    import io
    import zipfile

    try:
        with np.load(io.BytesIO(data or b""), allow_pickle=False) as z:
            return str(z["version"]).startswith("neardup-common-grams")
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return False


def _read_bytes(spark: Any, path: str, most: int = 64 << 20) -> bytes | None:
    """A small file's bytes through Hadoop's file system API (None when it is a folder or
    larger than ``most``: not a run's summary or table)."""
    fs, hpath = _fs(spark, path)
    status = fs.getFileStatus(hpath)
    if status.isDirectory() or status.getLen() > most:
        return None
    stream = fs.open(hpath)
    try:  # one byte[] across the gateway (py4j gives it as bytes)
        return bytes(spark.sparkContext._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    finally:
        stream.close()


def _name_parts(spark: Any, directory: str, suffix: str) -> None:
    """Give the part files of ``directory`` the ``suffix`` of their format."""
    fs, hpath = _fs(spark, directory)
    jvm = spark.sparkContext._jvm
    for status in fs.listStatus(hpath):
        path = status.getPath()
        if path.getName().startswith("part-"):
            fs.rename(path, jvm.org.apache.hadoop.fs.Path(path.toString() + suffix))


def _fs(spark: Any, path: str):
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def input_exists(spark: Any, path: str) -> bool:
    """Whether ``path`` (a file, directory or glob on any Hadoop file system) matches anything."""
    fs, hpath = _fs(spark, hadoop_path(path))
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
