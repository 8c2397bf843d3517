"""``spark_dedup``: the deduplication of ``neardup dedup``, run on a Spark cluster.

Stages (each a Spark job; the driver holds only counts and the layout):

1. read and check every record (:mod:`neardup.spark.read`), number the documents in input
   order (the positions of the local run);
2. normalise and fingerprint inside ``mapPartitions`` with the method's own core functions;
3. candidate pairs by permuted-table keys and their verification (:mod:`neardup.spark.simhash`);
4. connected components by large-star / small-star (:mod:`neardup.spark.components`), then
   each component resolved by the core's clustering rule on one executor
   (:mod:`neardup.spark.resolve`);
5. cluster ids and representative ids with Spark SQL joins; write the outputs.

The output directory holds ``kept/`` (the kept records, input format), ``clusters/`` (CSV part
files with the columns of the local ``clusters.csv``, rows in input order), ``skipped/`` (when
records were skipped) and ``summary.json``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from functools import partial
from operator import add
from typing import Any

import numpy as np

from ..cluster import CONTAINER_BATCH_ONLY, DISTRIBUTED_KEEP_RULES
from ..errors import ConfigError, InputError
from ..index.layout import choose_blocks, make_layout
from ..methods import SPARK_DEFAULT_METHOD, SPARK_METHODS, create
from ..methods.simhash import featureless
from ..normalize import normalize_many
from ..pairs import method_code
from ..pipeline.outputs import TABLES_FILE
from ..pipeline.reading import FIELD_REASONS, fieldless_error
from ..pipeline.summary import ACCOUNTING, run_counts, run_header
from ..readers import ON_ERROR
from .auto import auto_edges
from .batches import Batch, concat, count_rows, route, size
from .components import connected_components
from .ngram import candidate_edges, exact_groups, key_rows, text_hashes
from .paragraph import document_batch, paragraph_edges
from .read import DOC, SKIP, checked_records, spark_format
from .resolve import resolve
from .simhash import identical_groups, near_pairs, verified
from .workers import worker_method

CHUNK = 20_000
MAX_DOCUMENTS = (1 << 32) - 1  # pairs and edges pack two positions into one 64-bit key


def _prepare(
    rows: Iterator[tuple[tuple[int, str, str], int]],
    name: str,
    options: dict[str, Any],
    keep_text: bool,
) -> Iterator[Batch]:
    """Normalise (and fingerprint, for simhash) chunks of documents with the local code."""
    method = worker_method(name, options)
    chunk: list[tuple[tuple[int, str, str], int]] = []

    def batch() -> Batch:
        texts = [r[0][2] for r in chunk]
        if name == "auto":
            norm = method.compared(texts)
        elif name == "ngram":
            norm = method.normalized(texts)
        elif name == "simhash":
            norm = normalize_many(texts, method.config.normalize)
        else:
            norm = []
        out = {
            "pos": np.fromiter((r[1] for r in chunk), np.int64, len(chunk)),
            "number": np.fromiter((r[0][0] for r in chunk), np.int64, len(chunk)),
            "id": np.array([r[0][1] for r in chunk], dtype=object),
            "length": np.fromiter((len(t) for t in texts), np.int64, len(chunk)),
        }
        if name == "simhash":
            out["fp"] = method.fingerprinter.fingerprint_many(norm, normalized=True)
        elif name in ("ngram", "auto"):
            out["h"] = text_hashes(norm)  # identical texts meet by it
        else:  # paragraph: exact-copy keys and nested paragraph rows
            out.update(document_batch(method, texts, out["pos"]))
        if keep_text:
            out["norm"] = np.array(norm, dtype=object)
        return out

    for row in rows:
        chunk.append(row)
        if len(chunk) >= CHUNK:
            yield batch()
            chunk = []
    if chunk:
        yield batch()


def _rows(b: Batch, usable: np.ndarray, *columns: str) -> Batch:
    """The ``columns`` of the rows of ``b`` that can be matched: a text with nothing left once
    normalised is never a duplicate, as locally (:func:`neardup.methods.simhash.featureless`)."""
    return {c: b[c][usable] for c in columns}


def _with_method(edges: Any, code: int) -> Any:
    def add(b: Batch) -> Batch:
        n = size(b)
        out = dict(b)
        out.setdefault("d", np.full(n, -1, np.int16))
        out.setdefault("sim", np.full(n, np.nan, np.float32))
        out["m"] = np.full(n, code, np.uint8)
        return out

    return edges.map(add)


def _first_per_id(item: tuple[str, Any]) -> Iterator[tuple]:
    _, rows = item
    rows = sorted(rows)
    yield rows[0]
    first = rows[0][0]
    for r in rows[1:]:
        yield (r[0], SKIP, r[2], "duplicate_id", f"id already used by record {first}")


class _Clock:
    """Seconds per stage; each stage's Spark jobs carry the description ``neardup: <stage>``
    (the Spark UI and its REST API group them by it: ``benchmarks/bench_spark.py`` reports the
    shuffle bytes per stage from there)."""

    def __init__(self, quiet: bool, sc: Any, first: str):
        self.quiet, self.sc = quiet, sc
        self.seconds: dict[str, float] = {}
        self._t = time.perf_counter()
        sc.setJobDescription(f"neardup: {first}")

    def lap(self, stage: str, detail: str = "", *, then: str | None = None) -> None:
        now = time.perf_counter()
        self.seconds[stage] = round(now - self._t, 4)
        self._t = now
        self.sc.setJobDescription(f"neardup: {then}" if then else None)
        if not self.quiet:
            print(f"neardup: {stage}: {self.seconds[stage]:.1f}s {detail}", file=sys.stderr)


def spark_dedup(
    spark: Any,
    input_path: str,
    output_path: str,
    *,
    method: str = SPARK_DEFAULT_METHOD,
    options: dict[str, Any] | None = None,
    keep: str = "first",
    text_field: str = "text",
    id_field: str | None = None,
    fmt: str | None = None,
    on_error: str = "fail",
    partitions: int | None = None,
    quiet: bool = True,
    tables: Any = None,
) -> dict[str, Any]:
    """Deduplicate ``input_path`` on ``spark``; write the outputs; return the summary.

    ``tables``: a frozen :class:`~neardup.methods.commongrams.CommonGrams` for ``auto`` (e.g. the
    ``common_grams.npz`` of an earlier run); without it the job fits one on the input, as
    ``neardup dedup`` does, and writes it beside the outputs."""
    from pyspark import StorageLevel

    from .write import assemble, input_exists, refuse_foreign_outputs, write_outputs

    options = dict(options or {})
    config = _checked_config(method, options, keep=keep, on_error=on_error)
    fmt = spark_format(input_path, fmt)
    if not input_exists(spark, input_path):
        raise InputError("no such file or directory", source=input_path)
    refuse_foreign_outputs(spark, input_path, output_path)
    sc = spark.sparkContext
    held_before = set(sc._jsc.getPersistentRDDs().keys())
    parts = partitions or max(2 * sc.defaultParallelism, 2)
    disk = StorageLevel.MEMORY_AND_DISK
    spark.conf.set("spark.sql.shuffle.partitions", str(parts))
    clock = _Clock(quiet, sc, "read")
    prepare_stage = "fingerprint" if method == "simhash" else "normalise"

    # 1. read, check, number
    rows, docs, records_read, reasons = _read(
        spark, input_path, fmt=fmt, text_field=text_field, id_field=id_field,
        on_error=on_error, parts=parts, disk=disk,
    )  # fmt: skip
    clock.lap("read", f"{records_read} records", then=prepare_stage)

    # 2. normalise and fingerprint
    keep_text = method in ("ngram", "auto") or bool(getattr(config, "verify", None))
    prepared = (
        docs.zipWithIndex()
        .mapPartitions(partial(_prepare, name=method, options=options, keep_text=keep_text))
        .persist(disk)
    )
    n = count_rows(prepared)
    if n > MAX_DOCUMENTS:
        raise InputError(
            f"{n} documents: the job numbers documents in 32 bits (at most {MAX_DOCUMENTS}); "
            "split the input into parts below that",
            source=input_path,
        )
    clock.lap(prepare_stage, f"{n} documents", then="find_pairs")

    # 3. candidate pairs and verification
    edges, engine, common = _edges(
        prepared, method, options, config, tables=tables, keep_text=keep_text, documents=n,
        parts=parts, disk=disk,
    )  # fmt: skip
    edges = edges.persist(disk)
    n_pairs = count_rows(edges)
    clock.lap("find_pairs", f"{n_pairs} pairs", then="cluster")

    # 4. connected components, each resolved by the core clustering rule
    resolved = _clusters(
        prepared, edges, method=method, keep=keep, parts=parts, disk=disk, edge_count=n_pairs
    )
    clock.lap("cluster", f"{count_rows(resolved)} documents in components", then="write")

    # 5. assemble and write
    table, duplicate_clusters = assemble(prepared, resolved, storage=disk)
    written = write_outputs(
        spark, table, rows, input_path=input_path, output_path=output_path, fmt=fmt
    )
    written["duplicate_clusters"] = duplicate_clusters
    clock.lap("write")
    summary = _summary(
        input_path=input_path, fmt=fmt, method=method, config=config, keep=keep,
        engine={"spark": spark.version, "master": sc.master, "partitions": parts, **engine},
        records_read=records_read, documents=n, reasons=reasons, pairs=n_pairs,
        written=written, seconds=clock.seconds, table=common,
    )  # fmt: skip
    _write_summary(spark, output_path, summary, common)
    _release(sc, held_before)
    return summary


def _release(sc: Any, held_before: set[int]) -> None:
    """Unpersist every RDD the job cached (whichever stage cached it), so that a session that
    runs several jobs does not keep their data."""
    for rdd_id, rdd in sc._jsc.getPersistentRDDs().items():
        if rdd_id not in held_before:
            rdd.unpersist(False)


def _edges(
    prepared: Any,
    method: str,
    options: dict[str, Any],
    config: Any,
    *,
    tables: Any,
    keep_text: bool,
    documents: int,
    parts: int,
    disk: Any,
) -> tuple[Any, dict[str, Any], Any]:
    """The method's verified edges, its counts for the summary, and the common-gram table of
    ``auto`` and ``paragraph``'s ``copy`` evidence (None for the other methods)."""
    if method == "auto":
        return auto_edges(prepared, options, tables=tables, partitions=parts, storage=disk)
    if method == "paragraph":
        return paragraph_edges(
            prepared, options, config, tables=tables, documents=documents, partitions=parts,
            storage=disk,
        )  # fmt: skip
    texts = prepared.map(lambda b: {"pos": b["pos"], "norm": b["norm"]}) if keep_text else None
    stage = {"simhash": _simhash_edges, "ngram": _ngram_edges}
    edges, engine = stage[method](prepared, texts, config, parts, disk)
    return edges, engine, None


def _checked_config(method: str, options: dict[str, Any], *, keep: str, on_error: str) -> Any:
    """The method's config, after refusing what the job cannot run (with the fix)."""
    if method not in SPARK_METHODS:
        raise ConfigError(
            f"spark-dedup runs the methods {', '.join(SPARK_METHODS)}, not {method!r}; "
            "use `neardup dedup` for it"
        )
    if keep == "container":
        raise ConfigError(CONTAINER_BATCH_ONLY)
    if keep not in DISTRIBUTED_KEEP_RULES:
        raise ConfigError(
            f"keep={keep!r} is not supported; choose one of {', '.join(DISTRIBUTED_KEEP_RULES)}"
        )
    if on_error not in ON_ERROR:
        raise ConfigError(f"on_error={on_error!r} is not supported; choose 'fail' or 'skip'")
    config = create(method, **options).config  # validates the options on the driver
    if getattr(config, "partial", False):
        raise ConfigError(
            "partial=true (partial duplicates reported beside the decisions) is not distributed; "
            "run it with `neardup dedup --partial`, or drop the option"
        )
    if getattr(config, "idf", None) == "corpus" and config.weights == "tfidf":
        raise ConfigError(
            "idf='corpus' is fitted on the whole input and is not supported by spark-dedup; "
            "use idf='default' or the path of a 'word idf' file fitted beforehand"
        )
    return config


def _read(
    spark: Any,
    input_path: str,
    *,
    fmt: str,
    text_field: str,
    id_field: str | None,
    on_error: str,
    parts: int,
    disk: Any,
) -> tuple[Any, Any, int, dict[str, int]]:
    """Every record checked and numbered (an id used twice: the first keeps it); the rows
    (documents and skips), the documents ``(number, id, text)`` in input order, the records
    read and the skips by reason. With ``on_error='fail'`` a bad record is an error naming it."""
    checked = checked_records(spark, input_path, fmt=fmt, text_field=text_field, id_field=id_field)
    if id_field is not None:
        docs_by_id = (
            checked.filter(lambda r: r[1] == DOC)
            .map(lambda r: (r[2], r))
            .groupByKey(parts)
            .flatMap(_first_per_id)
        )
        rows = checked.filter(lambda r: r[1] == SKIP).union(docs_by_id)
    else:
        rows = checked
    rows = rows.persist(disk)
    # by reduceByKey, not countByKey, which fails on an input without records (an empty RDD)
    counts = dict(rows.map(lambda r: (r[3] if r[1] == SKIP else "", 1)).reduceByKey(add).collect())
    records_read = int(sum(counts.values()))
    reasons = {k: int(v) for k, v in sorted(counts.items()) if k}
    if records_read == 0:
        rows.unpersist()
        raise InputError("the input holds no records", source=input_path)
    if on_error == "skip" and "" not in counts and set(reasons) <= FIELD_REASONS:
        # the local rule (refuse_fieldless): wrong field names are a setting, not bad records
        first = rows.takeOrdered(1, key=lambda r: r[0])[0]
        rows.unpersist()
        raise fieldless_error(records_read, first[4], input_path, first[0])
    if on_error == "fail" and set(reasons) - {"empty_text"}:
        bad = rows.filter(lambda r: r[1] == SKIP and r[3] != "empty_text")
        number, _, _, _, message = bad.takeOrdered(1, key=lambda r: r[0])[0]
        raise InputError(message, source=input_path, record=number)
    docs = rows.filter(lambda r: r[1] == DOC).map(lambda r: (r[0], r[2], r[3]))
    if id_field is not None:
        docs = docs.sortBy(lambda r: r[0], numPartitions=parts)
    return rows, docs, records_read, reasons


def _clusters(
    prepared: Any, edges: Any, *, method: str, keep: str, parts: int, disk: Any, edge_count: int
):
    """Connected components of the verified edges, then each component's representatives by
    the core rule (:mod:`.resolve`); the resolved rows, cached."""
    roots = connected_components(
        edges.map(lambda b: {"a": b["a"], "b": b["b"]}),
        partitions=parts,
        storage=disk,
        edge_count=edge_count,
    )
    roots = route(roots, key="child", partitions=parts).mapPartitions(_one_root).persist(disk)
    resolved = resolve(prepared, roots, edges, method=method, keep=keep, partitions=parts)
    return resolved.persist(disk)


def _summary(
    *,
    input_path: str,
    fmt: str,
    method: str,
    config: Any,
    keep: str,
    engine: dict[str, Any],
    records_read: int,
    documents: int,
    reasons: dict[str, int],
    pairs: int,
    written: dict[str, int],
    seconds: dict[str, float],
    table: Any = None,
) -> dict[str, Any]:
    """The job's summary.json: the local summary's header and counts, plus the Spark engine."""
    return {
        **run_header(method, config),
        "input": input_path,
        "format": fmt,
        "keep": keep,
        "clusters": "greedy",
        "engine": engine,
        "counts": run_counts(
            records_read=records_read,
            documents=documents,
            reasons=reasons,
            clusters=written["clusters"],
            duplicate_clusters=written["duplicate_clusters"],
            duplicates_removed=documents - written["clusters"],
            kept=written["kept"],
            pairs=pairs,
        ),
        "accounting": ACCOUNTING,
        "outputs": {
            "kept": "kept/",
            "clusters": "clusters/",
            "skipped": "skipped/" if records_read > documents else None,
            "tables": TABLES_FILE if table is not None else None,
        },
        "tables": table.digest() if table is not None else None,
        "seconds": seconds,
    }


def _write_summary(spark: Any, output_path: str, summary: dict[str, Any], table: Any) -> None:
    """``summary.json``, and beside it the frozen table the pairs were judged with (``auto``:
    what the online detector loads)."""
    import io
    import json

    from .write import write_bytes, write_text

    if table is not None:
        buffer = io.BytesIO()
        table.save(buffer)
        write_bytes(spark, f"{output_path.rstrip('/')}/{TABLES_FILE}", buffer.getvalue())
    write_text(
        spark,
        output_path.rstrip("/") + "/summary.json",
        json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
    )


def _one_root(batches: Iterator[Batch]) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    order = np.lexsort((b["root"], b["child"]))
    child, root = b["child"][order], b["root"][order]
    first = np.r_[True, child[1:] != child[:-1]]
    yield {"child": child[first], "root": root[first]}


def _simhash_edges(prepared: Any, texts: Any, config: Any, parts: int, disk: Any):
    distinct, copy_edges = identical_groups(
        prepared.map(lambda b: _rows(b, ~featureless(b["fp"]), "pos", "fp")), partitions=parts
    )
    distinct = distinct.persist(disk)
    n_distinct = count_rows(distinct)
    blocks = config.blocks or choose_blocks(n_distinct, config.max_distance)
    layout = make_layout(max_distance=config.max_distance, blocks=blocks)
    edges = copy_edges.union(near_pairs(distinct, layout, partitions=parts))
    if config.verify:
        edges = verified(
            edges,
            texts,
            measure=config.verify,
            ngram=config.verify_ngram,
            threshold=config.min_similarity,
            partitions=parts,
        )
    edges = _with_method(edges, method_code("simhash"))
    info = {"distinct_fingerprints": n_distinct, "blocks": blocks, "tables": layout.tables}
    return edges, info


def _ngram_edges(prepared: Any, texts: Any, config: Any, parts: int, disk: Any):
    reps, exact = exact_groups(
        prepared.map(lambda b: _rows(b, b["norm"].astype(bool), "pos", "h", "norm")),
        partitions=parts,
    )
    reps = reps.persist(disk)
    rows = key_rows(reps, key_length=config.key_length, sketch=config.sketch)
    candidates, stats = candidate_edges(rows, max_posting=config.max_posting, partitions=parts)
    candidates = candidates.persist(disk)
    keys, pruned_keys, pruned_postings = stats.fold(
        (0, 0, 0), lambda x, y: (x[0] + y[0], x[1] + y[1], x[2] + y[2])
    )
    n_candidates = count_rows(candidates)
    checked = verified(
        candidates,
        reps,
        measure=config.measure,
        ngram=config.ngram,
        threshold=config.threshold,
        partitions=parts,
    )
    edges = exact.union(_with_method(checked, method_code("ngram")))
    info = {
        "distinct_texts": count_rows(reps),
        "keys": int(keys),
        "pruned_keys": int(pruned_keys),
        "pruned_postings": int(pruned_postings),
        "candidates": n_candidates,
    }
    return edges, info
