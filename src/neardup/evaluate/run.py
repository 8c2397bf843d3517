"""Scoring methods on labelled data: the numbers behind ``neardup eval``, and the whole run
(:func:`evaluate_file`: load, score, write the report) that the command calls."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..compiling import kernels_preferred
from ..dedup import dedup_with
from ..methods import TABLE_METHODS, create
from ..methods.base import is_close
from ..parallel import resolve_workers
from .datasets import ClusterData, PairData
from .metrics import cluster_scores, pair_scores, threshold_sweep

SHORT_MAX = 140  # reference 004: where short and long texts separate
LONG_MIN = 500


def _params(method: Any) -> dict[str, Any]:
    import dataclasses

    config = getattr(method, "config", None)
    if hasattr(config, "to_dict"):
        return config.to_dict()
    return dataclasses.asdict(config) if dataclasses.is_dataclass(config) else {}


def _length_class(t1: Sequence[str], t2: Sequence[str]) -> np.ndarray:
    """``short`` when both texts are short, ``long`` when both are long, else ``mixed``."""
    l1 = np.fromiter((len(t) for t in t1), np.int64, len(t1))
    l2 = np.fromiter((len(t) for t in t2), np.int64, len(t2))
    out = np.full(len(t1), "mixed", dtype=object)
    out[(l1 <= SHORT_MAX) & (l2 <= SHORT_MAX)] = "short"
    out[(l1 >= LONG_MIN) & (l2 >= LONG_MIN)] = "long"
    return out


def _verification(
    method: Any, left: Sequence[str], right: Sequence[str]
) -> tuple[np.ndarray, np.ndarray] | None:
    """The similarity a method checks after its measure and which pairs pass it (``simhash``
    with ``verify``: its ``verify_pairs``, the check ``dedup`` and ``compare`` make), or None
    when it checks none: evaluation scores what the method decides, not its measure alone."""
    verify_pairs = getattr(method, "verify_pairs", None)
    return None if verify_pairs is None else verify_pairs(left, right)


WARM_ITEMS = 16  # the pairs (documents) a method runs on before it is timed
TIMING = {
    "pairs": (
        "seconds.score and pairs/s time each method scoring every pair (with its own "
        "verification), after a warm-up: another instance of the method first scores the "
        f"first {WARM_ITEMS} pairs (seconds.warm_up), so that compiling its kernels or loading "
        "them from the cache, done once per process, is not counted as speed; reading the "
        "file (seconds.load) is not counted either."
    ),
    "clusters": (
        "seconds.total and documents/s time each method deduplicating every document, after a "
        f"warm-up: another instance of the method first deduplicates the first {WARM_ITEMS} "
        "documents (seconds.warm_up), so that compiling its kernels or loading them from the "
        "cache, done once per process, is not counted as speed; reading the file "
        "(seconds.load) is not counted either."
    ),
}


def _method(
    name: str, options: dict[str, dict[str, Any]], workers: int | None, tables: Any = None
) -> Any:
    """The method ``name`` with its options, on ``workers``, with ``tables`` if it takes them."""
    method = create(name, tables=tables if name in TABLE_METHODS else None, **options.get(name, {}))
    if hasattr(method, "workers"):
        method.workers = resolve_workers(workers)
    return method


def _warm_up(run: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    """Seconds of ``run(*args, **kwargs)``: a method on the data's first ``WARM_ITEMS`` items,
    by an instance of its own, before it is timed. Its first call compiles numba's kernels (or
    loads them from the cache) and fills lazy tables, once per process: counted in its speed,
    a fresh checkout's ``auto`` scored 155 pairs/s where it scores 5,662. The warm-up takes
    every kernel, also those a small input leaves to their Python twins
    (:func:`~neardup.compiling.kernels_preferred`), since the timed run may be large enough
    for them (500 pairs take the copy rule's compiled shortcuts)."""
    t0 = time.perf_counter()
    with kernels_preferred():
        run(*args, **kwargs)
    return time.perf_counter() - t0


def _score(
    method: Any, left: Sequence[str], right: Sequence[str]
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """The method's measure of each pair, and its verification (:func:`_verification`)."""
    scores = np.asarray(method.score_pairs(left, right), np.float64)
    return scores, _verification(method, left, right)


def evaluate_pairs(
    data: PairData,
    methods: Sequence[str],
    *,
    sweep: bool,
    options: dict[str, dict[str, Any]],
    workers: int | None = None,
    tables: Any = None,
) -> dict[str, Any]:
    """Per method: scores at the default threshold, the sweep, the measure by label; timed
    after a warm-up (:func:`_warm_up`). A pair the method's own verification rejects
    (``simhash`` with ``verify``) is never predicted duplicate, at the default threshold or
    any threshold of the sweep."""
    results: dict[str, Any] = {}
    classes = _length_class(data.text1, data.text2)
    few = (data.text1[:WARM_ITEMS], data.text2[:WARM_ITEMS])
    for name in methods:
        warm_up = _warm_up(_score, _method(name, options, workers, tables), *few)
        method = _method(name, options, workers, tables)
        t0 = time.perf_counter()
        scores, verified = _score(method, data.text1, data.text2)
        seconds = time.perf_counter() - t0
        decided = scores  # the measure where the method's verification passes, NaN elsewhere
        if verified is not None:
            decided = np.where(verified[1], scores, np.nan)
        predicted = is_close(decided, method.threshold, higher_is_closer=method.higher_is_closer)
        entry: dict[str, Any] = {
            "measure": method.measure,
            "higher_is_closer": method.higher_is_closer,
            "threshold": method.threshold,
            "parameters": _params(method),
            "at_default_threshold": pair_scores(predicted, data.labels).to_dict(),
            "seconds": {"score": round(seconds, 4), "warm_up": round(warm_up, 4)},
            "pairs_per_second": round(len(scores) / seconds, 1) if seconds > 0 else None,
            "scores": {  # per pair, in input order
                "length_class": classes.tolist(),
                "labels": data.labels.astype(int).tolist(),
                "all": scores.tolist(),
            },
        }
        if verified is not None:
            entry["verification"] = {
                "measure": method.config.verify,
                "min_similarity": method.config.min_similarity,
                "similarity": verified[0].astype(np.float64).tolist(),  # per pair, input order
                "passed": int(verified[1].sum()),
            }
        if sweep:
            curve = threshold_sweep(decided, data.labels, higher_is_closer=method.higher_is_closer)
            entry["sweep"] = curve.to_dict()
            entry["best_f1"] = curve.best()
        results[name] = entry
    return results


def evaluate_clusters(
    data: ClusterData,
    methods: Sequence[str],
    *,
    options: dict[str, dict[str, Any]],
    workers: int | None = None,
    tables: Any = None,
) -> dict[str, Any]:
    """Per method: run the full dedup, score predicted clusters against the gold ones; timed
    after a warm-up (:func:`_warm_up`)."""
    results: dict[str, Any] = {}
    for name in methods:
        few = data.texts[:WARM_ITEMS]
        warm_up = _warm_up(
            dedup_with, _method(name, options, workers, tables), few, workers=workers
        )
        method = _method(name, options, workers, tables)
        t0 = time.perf_counter()
        result = dedup_with(method, data.texts, workers=workers)
        seconds = time.perf_counter() - t0
        clusters = result.clusters
        scores = cluster_scores(data.clusters, clusters.cluster_id, clusters.representative)
        results[name] = {
            "parameters": _params(method),
            "scores": scores.to_dict(),
            "predicted_clusters": int(clusters.n_clusters),
            "gold_clusters": int(data.clusters.max() + 1) if len(data.clusters) else 0,
            "seconds": {
                k: round(v, 4)
                for k, v in {**result.timings, "total": seconds, "warm_up": warm_up}.items()
            },
            "documents_per_second": round(len(data.texts) / seconds, 1) if seconds > 0 else None,
        }
    return results


KIND_OPTIONS = {"--label-field": "pairs", "--corpus": "pairs", "--cluster-field": "clusters"}
KIND_NAMES = {
    "pairs": "labelled pairs (text1, text2 or id1, id2, and a 0/1 label)",
    "clusters": "a clustered corpus (id, text and a gold cluster)",
}


def _refuse_other_kind(data_path: str, kind: str, given: dict[str, Any], *, detected: bool) -> None:
    """An option of the other kind of data would be ignored without a word (a ``--corpus``
    file not even opened): an error naming the kind it belongs to."""
    from ..errors import ConfigError
    from ..shown import shown_path

    for option, value in given.items():
        if value is None or KIND_OPTIONS[option] == kind:
            continue
        how = ", as its first record's fields tell (--kind to say otherwise)" if detected else ""
        raise ConfigError(
            f"{option} is an option of {KIND_NAMES[KIND_OPTIONS[option]]}, and "
            f"{shown_path(data_path)} is "
            f"{KIND_NAMES[kind]}{how}: leave {option} out"
        )


def evaluate_file(
    data_path: str,
    output: str,
    *,
    methods: Sequence[str],
    options: dict[str, dict[str, Any]],
    kind: str | None = None,
    label_field: str | None = None,
    cluster_field: str | None = None,
    corpus: str | None = None,
    on_error: str = "fail",
    sweep: bool = False,
    workers: int | None = None,
    tables: Any = None,
) -> tuple[dict[str, Any], Path]:
    """Score ``methods`` on the labelled file ``data_path`` (pairs or a clustered corpus; ``kind``
    None: from its fields) and write ``output``/report.json and report.html; the report and the
    HTML page's path. ``label_field`` and ``corpus`` belong to pairs, ``cluster_field`` to a
    clustered corpus: one given for the other kind is refused (None: not given; the fields
    are then ``label`` and ``cluster``). ``tables``: a frozen common-gram table for the
    methods that take one (``auto``, ``paragraph``), as a run with ``--tables``."""
    from .. import __version__
    from ..config import FINGERPRINT_VERSION
    from ..errors import InputError
    from ..shown import shown_path
    from . import datasets
    from .metrics import CONVENTIONS
    from .report import refuse_foreign_files, require_plots, write_report

    require_plots()  # the report needs it: asked before the work, not after
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory", source=str(out))
    refuse_foreign_files(out)  # before the work, as at the write
    given = {"--label-field": label_field, "--cluster-field": cluster_field, "--corpus": corpus}
    label_field = "label" if label_field is None else label_field
    cluster_field = "cluster" if cluster_field is None else cluster_field
    detected = kind is None
    kind = kind or datasets.detect_kind(
        data_path, on_error=on_error, label_field=label_field, cluster_field=cluster_field
    )
    _refuse_other_kind(data_path, kind, given, detected=detected)
    t0 = time.perf_counter()
    if kind == "pairs":
        texts = datasets.load_corpus(corpus, on_error=on_error) if corpus else None
        data = datasets.load_pairs(
            data_path,
            label_field=label_field,
            on_error=on_error,
            corpus=None if texts is None else texts.texts,
        )
        if texts is not None:  # the corpus's skipped records, told apart from the pairs'
            data.skipped.update({f"corpus_{k}": n for k, n in texts.skipped.items()})
        records = len(data.labels)
    else:
        data = datasets.load_clusters(data_path, cluster_field=cluster_field, on_error=on_error)
        records = len(data.ids)
    load_seconds = time.perf_counter() - t0
    if kind == "pairs":
        results = evaluate_pairs(
            data, methods, sweep=sweep, options=options, workers=workers, tables=tables
        )
    else:
        results = evaluate_clusters(data, methods, options=options, workers=workers, tables=tables)
    report = {
        "neardup_version": __version__,
        "fingerprint_version": FINGERPRINT_VERSION,
        "input": shown_path(Path(data_path).resolve()),
        "sha256": datasets.sha256(data_path),
        "kind": kind,
        "label_field": label_field if kind == "pairs" else cluster_field,
        "records": records,
        "skipped": dict(data.skipped),
        "positives": int(data.labels.sum()) if kind == "pairs" else None,
        "methods": list(methods),
        "sweep": bool(sweep),
        "tables": tables.digest() if tables is not None else None,
        "conventions": CONVENTIONS,
        "seconds": {"load": round(load_seconds, 4)},
        "timing": TIMING[kind],
        "results": results,
    }
    try:
        _json, html_path = write_report(report, out)
    except OSError as exc:
        raise InputError(f"cannot write the report ({exc.strerror})", source=str(out)) from None
    return report, html_path
