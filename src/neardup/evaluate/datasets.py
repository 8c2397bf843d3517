"""Labelled data for evaluation: pairs ``(text1, text2, label)`` or a clustered corpus.

Formats: JSON Lines (also ``.gz``/``.zst``), CSV or TSV (the readers of :mod:`neardup.readers`).

- **pairs**: fields ``text1``, ``text2`` and a 0/1 label (``label`` unless told otherwise);
- **clusters**: fields ``id``, ``text`` and ``cluster`` (documents with equal ``cluster`` are
  duplicates of each other; a singleton has a cluster of its own).

The kind is detected from the first record's fields (or given). A record with a missing field,
a text that is not a non-empty string, a label that is not 0/1, or a repeated id is an
:class:`~neardup.errors.InputError` naming the file and record — or, with ``on_error="skip"``,
skipped and counted by reason.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..errors import ConfigError, InputError
from ..readers import (
    ON_ERROR,
    check_input,
    open_binary,
    parse_json_line,
    split_suffix,
)

KINDS = ("pairs", "clusters")


@dataclass
class PairData:
    text1: list[str]
    text2: list[str]
    labels: np.ndarray  # bool
    skipped: Counter = field(default_factory=Counter)


@dataclass
class ClusterData:
    ids: list[str]
    texts: list[str]
    clusters: np.ndarray  # int64 gold cluster index per document
    skipped: Counter = field(default_factory=Counter)


def sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _rows(path: Path, bad: _Problems | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of an evaluation file; one that is not a record (malformed JSON, more CSV
    fields than the header) is an error naming it, or with ``bad`` its call (a counted skip
    under ``on_error="skip"``)."""

    def problem(number: int, reason: str, message: str) -> None:
        if bad is None:
            raise InputError(message, source=str(path), record=number)
        bad(number, reason, message)

    fmt, _ = split_suffix(path)
    if fmt == "jsonl":
        with open_binary(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                row = parse_json_line(number, line)
                if not isinstance(row, dict):
                    problem(number, row.reason, row.message)
                    continue
                yield number, row
    elif fmt in ("csv", "tsv"):
        import csv
        import io

        with open_binary(path) as raw:
            handle = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
            reader = csv.DictReader(handle, delimiter="\t" if fmt == "tsv" else ",")
            for number, row in enumerate(reader, 1):
                if None in row:
                    problem(number, "malformed_row", "more fields than the header")
                    continue
                yield number, row
    else:
        raise ConfigError(f"{path}: evaluation data must be JSON Lines, CSV or TSV, not {fmt}")


def detect_kind(path: str | os.PathLike) -> str:
    """``pairs`` or ``clusters`` from the first record's fields."""
    p = check_input(path)
    for _, row in _rows(p, _Problems(str(p), "skip")):  # the loader reports the bad records
        if {"text1", "text2"} <= set(row) or {"id1", "id2"} <= set(row):
            return "pairs"
        if {"text", "cluster"} <= set(row):
            return "clusters"
        raise InputError(
            "cannot tell the kind of data: pairs need text1, text2 and a label; a clustered "
            f"corpus needs id, text and cluster (fields: {', '.join(sorted(map(str, row)))})",
            source=str(p),
            record=1,
        )
    raise InputError("the file holds no records", source=str(p))


class _Problems:
    def __init__(self, source: str, on_error: str):
        if on_error not in ON_ERROR:
            raise ConfigError(f"on_error={on_error!r} is not supported; choose 'fail' or 'skip'")
        self.source, self.on_error, self.skipped = source, on_error, Counter()

    def __call__(self, number: int, reason: str, message: str) -> None:
        if self.on_error == "fail":
            raise InputError(message, source=self.source, record=number)
        self.skipped[reason] += 1


def _text(row: dict, name: str) -> str | None:
    value = row.get(name)
    return value if isinstance(value, str) and value.strip() else None


def _label(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, float) and value in (0.0, 1.0):
        return bool(value)
    if isinstance(value, str) and value.strip() in ("0", "1"):
        return value.strip() == "1"
    return None


def load_corpus(path: str | os.PathLike) -> dict[str, str]:
    """``id -> text`` of a corpus that pairs refer to by ``id1``/``id2``."""
    p = check_input(path)
    out: dict[str, str] = {}
    for number, row in _rows(p):
        text = _text(row, "text")
        if "id" not in row or text is None:
            raise InputError(
                "a corpus record needs an id and a non-empty text", source=str(p), record=number
            )
        out[str(row["id"])] = text
    return out


def load_pairs(
    path: str | os.PathLike,
    *,
    label_field: str = "label",
    on_error: str = "fail",
    corpus: dict[str, str] | None = None,
) -> PairData:
    """Labelled pairs; with ``corpus``, a pair may give ``id1``/``id2`` instead of its texts."""
    p = check_input(path)
    bad = _Problems(str(p), on_error)
    t1: list[str] = []
    t2: list[str] = []
    labels: list[bool] = []
    for number, row in _rows(p, bad):
        if corpus is not None and not {"text1", "text2"} <= set(row) and {"id1", "id2"} <= set(row):
            unknown = [str(row[k]) for k in ("id1", "id2") if str(row[k]) not in corpus]
            if unknown:
                bad(number, "unknown_id", f"id {unknown[0]!r} is not in the corpus")
                continue
            row = {**row, "text1": corpus[str(row["id1"])], "text2": corpus[str(row["id2"])]}
        missing = [f for f in ("text1", "text2", label_field) if f not in row]
        if missing:
            bad(
                number,
                "missing_field",
                f"no field {missing[0]!r} (a pair needs text1, text2, "
                f"{label_field}; use --label-field for another label)",
            )
            continue
        a, b = _text(row, "text1"), _text(row, "text2")
        if a is None or b is None:
            bad(
                number, "bad_text", f"{'text1' if a is None else 'text2'} is not a non-empty string"
            )
            continue
        label = _label(row[label_field])
        if label is None:
            bad(number, "bad_label", f"label {row[label_field]!r} is not 0 or 1")
            continue
        t1.append(a)
        t2.append(b)
        labels.append(label)
    if not labels:
        raise InputError("no usable labelled pairs", source=str(p))
    return PairData(t1, t2, np.array(labels, bool), bad.skipped)


def load_clusters(
    path: str | os.PathLike, *, cluster_field: str = "cluster", on_error: str = "fail"
) -> ClusterData:
    p = check_input(path)
    bad = _Problems(str(p), on_error)
    ids: list[str] = []
    texts: list[str] = []
    gold: list[Any] = []
    seen: dict[str, int] = {}
    for number, row in _rows(p, bad):
        missing = [f for f in ("id", "text", cluster_field) if f not in row]
        if missing:
            bad(
                number,
                "missing_field",
                f"no field {missing[0]!r} (a clustered corpus needs id, text, {cluster_field})",
            )
            continue
        doc_id, text, cluster = str(row["id"]), _text(row, "text"), row[cluster_field]
        if text is None:
            bad(number, "bad_text", "text is not a non-empty string")
            continue
        if cluster is None or isinstance(cluster, (dict, list)):
            bad(number, "bad_cluster", f"cluster {cluster!r} is not a label")
            continue
        if doc_id in seen:
            bad(number, "duplicate_id", f"id {doc_id!r} already used by record {seen[doc_id]}")
            continue
        seen[doc_id] = number
        ids.append(doc_id)
        texts.append(text)
        gold.append(orjson.dumps(cluster))
    if not ids:
        raise InputError("no usable documents", source=str(p))
    _, clusters = np.unique(np.array(gold, dtype=object).astype(str), return_inverse=True)
    return ClusterData(ids, texts, clusters.astype(np.int64), bad.skipped)
