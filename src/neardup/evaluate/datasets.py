"""Labelled data for evaluation: pairs ``(text1, text2, label)`` or a clustered corpus.

Formats: JSON Lines (also ``.gz``/``.zst``), CSV or TSV (the readers of :mod:`neardup.readers`).

- **pairs**: fields ``text1``, ``text2`` and a 0/1 label (``label`` unless told otherwise);
- **clusters**: fields ``id``, ``text`` and ``cluster`` (documents with equal ``cluster`` are
  duplicates of each other; a singleton has a cluster of its own).

The kind is detected from the first record's fields (or given). A record with a missing field,
a text that is not a non-empty string, a label that is not 0/1, or a repeated document id
(a clustered corpus's, a corpus's; a pair's own ``id`` is not read) is an
:class:`~neardup.errors.InputError` naming the file and record — or, with ``on_error="skip"``,
skipped and counted by reason. Files are read by :class:`neardup.readers.RecordReader`, so a bad
record is what ``neardup dedup`` calls bad (``invalid_utf8``, ``unclosed_quote``, the lost tail
of a truncated or corrupt ``.gz``/``.zst``), and a file that cannot be read at all is an error
naming it. An id (``id``, ``id1``, ``id2``) is read as ``neardup dedup --id-field`` reads one
(:func:`neardup.readers.read_id`: a string or an integer; null, a float, a boolean or a list is
a bad record). A cluster label is a string or a number: an integral number is the integer
(``1.0`` is ``1``), then the label is compared as text, so ``1``, ``1.0`` and ``"1"`` are one
cluster.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, InputError
from ..readers import (
    LOST_TAIL,
    ON_ERROR,
    SURROGATE,
    RecordReader,
    Skipped,
    check_input,
    escape_undecodable,
    exact_integers,
    named_formats,
    read_id,
    split_suffix,
)
from ..shown import shown_path

KINDS = ("pairs", "clusters")
EVAL_FORMATS = ("jsonl", "csv", "tsv")  # formats of labelled evaluation data


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


@dataclass(frozen=True)
class _Row:
    number: int
    fields: dict[str, Any]


class _RowReader(RecordReader):
    """dedup's reader yielding whole rows: evaluation records have several texts, not one."""

    def required_fields(self) -> tuple[str | None, ...]:
        return ()  # which fields a row needs depends on the kind of data (detect_kind)

    def record(self, number: int, row: dict[str, Any], raw: Any) -> _Row | Skipped:
        if isinstance(raw, bytes):  # a JSON line: integers beyond 64 bits as written
            row = exact_integers(row, raw)
        for name, value in row.items():
            if isinstance(value, str) and SURROGATE.search(value):
                message = f"field {escape_undecodable(str(name))!r} is not valid UTF-8"
                return self.bad(number, None, "invalid_utf8", message)
        return _Row(number, row)


def _rows(
    path: Path, bad: _Problems | None = None, *, warn: bool = True
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of an evaluation file; one that is not a record (malformed JSON, invalid
    UTF-8, a CSV row of the wrong width or an unclosed quote, a lost compressed tail) is an
    error naming it, or with ``bad`` its call (a counted skip under ``on_error="skip"``; a lost
    tail is also told on stderr when ``warn``)."""
    try:
        fmt, _ = split_suffix(path)
    except ConfigError:  # its message offers --format, which eval does not take
        raise ConfigError(
            f"cannot tell the format of {shown_path(path)!r} from its name: evaluation data is "
            f"{named_formats(EVAL_FORMATS)}; name the file so"
        ) from None
    if fmt not in EVAL_FORMATS:
        raise ConfigError(
            f"{shown_path(path)}: evaluation data must be JSON Lines, CSV or TSV, not {fmt}"
        )
    reader = _RowReader(path, fmt=fmt, on_error="fail" if bad is None else bad.on_error)
    for item in reader:
        if isinstance(item, Skipped):  # only under on_error="skip": the reader raises otherwise
            if warn and item.reason in LOST_TAIL:
                from ..pipeline.reading import warn_lost_tail

                warn_lost_tail(reader, item)
            if bad is not None:
                bad(item.number, item.reason, item.message)
            continue
        yield item.number, item.fields


def detect_kind(
    path: str | os.PathLike,
    *,
    on_error: str = "fail",
    label_field: str = "label",
    cluster_field: str = "cluster",
) -> str:
    """``pairs`` or ``clusters`` from the first record's fields, by the field names the run
    reads (``cluster_field``; ``label_field`` is named when neither kind fits). A bad record
    before it is an error naming it (``fail``) or passed over (``skip``: the loader counts it);
    a file with no readable record is an error giving the first record's problem."""
    p = check_input(path)
    bad = _Problems(str(p), on_error)
    for number, row in _rows(p, bad, warn=False):  # the loader warns of a lost tail
        if {"text1", "text2"} <= set(row) or {"id1", "id2"} <= set(row):
            return "pairs"
        if {"text", cluster_field} <= set(row):
            return "clusters"
        raise InputError(
            f"cannot tell the kind of data: pairs need text1, text2 and {label_field}; a "
            f"clustered corpus needs id, text and {cluster_field} (fields: "
            f"{', '.join(sorted(map(str, row)))}); --kind says which it is",
            source=str(p),
            record=number,
        )
    if bad.first is not None:
        raise InputError(bad.none_usable("records"), source=str(p))
    raise InputError("the file holds no records", source=str(p))


class _Problems:
    """Bad records of one file: an error naming it (``fail``), or counted by reason (``skip``);
    the first one is kept so that a file with no good record can say why."""

    def __init__(self, source: str, on_error: str):
        if on_error not in ON_ERROR:
            raise ConfigError(f"on_error={on_error!r} is not supported; choose 'fail' or 'skip'")
        self.source, self.on_error, self.skipped = source, on_error, Counter()
        self.first: tuple[int, str] | None = None

    def __call__(self, number: int, reason: str, message: str) -> None:
        if self.on_error == "fail":
            raise InputError(message, source=self.source, record=number)
        self.skipped[reason] += 1
        if self.first is None:
            self.first = (number, message)

    def none_usable(self, what: str) -> str:
        """The message for a file none of whose records could be used: why the first failed."""
        if self.first is None:
            return f"no usable {what}"
        number, message = self.first
        skipped = sum(self.skipped.values())
        return f"no usable {what} ({skipped} skipped; record {number}: {message})"


def _ids(bad: _Problems, number: int, row: dict, fields: tuple[str, ...]) -> list[str] | None:
    """The ids in ``fields`` as ``neardup dedup`` reads an id (:func:`~neardup.readers.read_id`:
    a string or an integer; null, a float, a boolean or a list is none), or None once ``bad``
    is told why the first that is no id is not."""
    ids = []
    for name in fields:
        item = read_id(number, row, name)
        if isinstance(item, Skipped):
            bad(number, item.reason, item.message)
            return None
        ids.append(item)
    return ids


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
    if isinstance(value, str):  # a CSV or TSV cell reads as the JSON value would
        cell = value.strip().lower()
        if cell in ("0", "1", "0.0", "1.0", "false", "true"):
            return cell in ("1", "1.0", "true")
    return None


_WHOLE_NUMBER = re.compile(r"(-?\d+)\.0*")  # 1.0 and 1.00 are the cluster 1


def _cluster_label(value: Any) -> str | None:
    """A gold cluster label: an integral number as the integer (``1.0`` is ``1``), then as
    text, so ``1``, ``1.0`` and ``"1"`` are one cluster; None for a value that
    is no label (null, true/false, a list or an object)."""
    if value is None or isinstance(value, (bool, dict, list)):
        return None
    if isinstance(value, str):  # a CSV or TSV cell: an empty one is no label, "1.0" is 1
        value = value.strip()
        if not value:
            return None
        whole = _WHOLE_NUMBER.fullmatch(value)  # not float(): 17900000000000000001 stays
        return whole.group(1) if whole else value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


@dataclass
class CorpusData:
    texts: dict[str, str]  # id -> text
    skipped: Counter = field(default_factory=Counter)


def load_corpus(path: str | os.PathLike, *, on_error: str = "fail") -> CorpusData:
    """``id -> text`` of a corpus that pairs refer to by ``id1``/``id2``. A record without an
    id or a non-empty text, or repeating an id (its first record is kept), is an error naming
    the file and record — or, with ``on_error="skip"``, skipped and counted by reason."""
    p = check_input(path)
    bad = _Problems(str(p), on_error)
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for number, row in _rows(p, bad):
        row_ids = _ids(bad, number, row, ("id",))
        if row_ids is None:
            continue
        doc_id, text = row_ids[0], _text(row, "text")
        if text is None:
            bad(number, "bad_text", "text is not a non-empty string")
            continue
        if doc_id in seen:
            bad(number, "duplicate_id", f"id {doc_id!r} already used by record {seen[doc_id]}")
            continue
        seen[doc_id] = number
        out[doc_id] = text
    return CorpusData(out, bad.skipped)


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
            ids = _ids(bad, number, row, ("id1", "id2"))
            if ids is None:
                continue
            unknown = [i for i in ids if i not in corpus]
            if unknown:
                bad(number, "unknown_id", f"id {unknown[0]!r} is not in the corpus")
                continue
            row = {**row, "text1": corpus[ids[0]], "text2": corpus[ids[1]]}
        missing = [f for f in ("text1", "text2", label_field) if f not in row]
        if corpus is None and {"id1", "id2"} <= set(row) and not {"text1", "text2"} <= set(row):
            bad(
                number,
                "missing_field",
                "the pair names its texts by id1/id2: give the corpus they refer to (--corpus "
                "FILE, records with id and text)",
            )
            continue
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
        raise InputError(bad.none_usable("labelled pairs"), source=str(p))
    return PairData(t1, t2, np.array(labels, bool), bad.skipped)


def load_clusters(
    path: str | os.PathLike, *, cluster_field: str = "cluster", on_error: str = "fail"
) -> ClusterData:
    p = check_input(path)
    bad = _Problems(str(p), on_error)
    ids: list[str] = []
    texts: list[str] = []
    gold: list[str] = []
    seen: dict[str, int] = {}
    for number, row in _rows(p, bad):
        row_ids = _ids(bad, number, row, ("id",))
        if row_ids is None:
            continue
        missing = [f for f in ("text", cluster_field) if f not in row]
        if missing:
            bad(
                number,
                "missing_field",
                f"no field {missing[0]!r} (a clustered corpus needs id, text, {cluster_field})",
            )
            continue
        doc_id, text, cluster = row_ids[0], _text(row, "text"), row[cluster_field]
        if text is None:
            bad(number, "bad_text", "text is not a non-empty string")
            continue
        label = _cluster_label(cluster)
        if label is None:
            bad(number, "bad_cluster", f"cluster {cluster!r} is not a label (a string or number)")
            continue
        if doc_id in seen:
            bad(number, "duplicate_id", f"id {doc_id!r} already used by record {seen[doc_id]}")
            continue
        seen[doc_id] = number
        ids.append(doc_id)
        texts.append(text)
        gold.append(label)
    if not ids:
        raise InputError(bad.none_usable("documents"), source=str(p))
    _, clusters = np.unique(np.array(gold, dtype=str), return_inverse=True)
    return ClusterData(ids, texts, clusters.astype(np.int64), bad.skipped)
