"""Reading the inputs of a command into one batch of documents, with a progress bar."""

from __future__ import annotations

import sys
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blocks import Columns
from ..errors import InputError
from ..inputs import Inputs, Item
from ..readers import LOST_TAIL, Record, RecordReader, Skipped
from .ids import Ids

CHUNK = 65_536  # documents fingerprinted, or their texts compared, at once
PENDING = 8_192  # documents whose ids, numbers and lengths are made arrays at once


def progress(quiet: bool, desc: str):
    """A progress bar on stderr (none with ``quiet`` or off a terminal). tqdm's monitor thread is
    left out: it would outlive the bar, and a process with a second thread cannot fork the
    children that verify pairs on every core (:mod:`neardup.forked`)."""
    from tqdm import tqdm

    class Bar(tqdm):
        monitor_interval = 0

    return Bar(
        desc=desc,
        unit=" docs",
        unit_scale=True,
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
        mininterval=0.5,
    )


def warn_lost_tail(reader: RecordReader, item: Skipped) -> None:
    """Say on stderr (even with --quiet) that a truncated or corrupt input lost its tail."""
    if item.reason in LOST_TAIL:
        print(f"neardup: warning: {reader.source}: {item.message}", file=sys.stderr)


@dataclass
class Batch:
    """The documents of a run, in order: ids, record numbers and input numbers (``sources``),
    lengths, texts (or, for streaming methods, fingerprints), and the skipped records.
    ``start``: documents before it are the ``--against`` reference. Per-document values are
    arrays, not Python lists (about 100 bytes per document less: 75 MB on 772k posts)."""

    ids: Ids
    numbers: np.ndarray
    sources: np.ndarray
    lengths: np.ndarray
    texts: list[str]
    skipped: list[Item]
    fps: np.ndarray | None
    start: int = 0
    compared: bool = False  # ``texts`` are the method's compared texts, not as written

    def joined(self, batch: Batch) -> Batch:
        """This batch (the reference) followed by ``batch`` (the input)."""
        fps = None if self.fps is None else np.concatenate([self.fps, batch.fps])
        return Batch(
            self.ids + batch.ids,
            np.concatenate([self.numbers, batch.numbers]),
            np.concatenate([self.sources, batch.sources]),
            np.concatenate([self.lengths, batch.lengths]),
            self.texts + batch.texts,
            batch.skipped,
            fps,
            start=len(self.ids),
            compared=self.compared and batch.compared,
        )


def read_all(inputs: Inputs, method: Any, *, quiet: bool, keep_texts: bool = False) -> Batch:
    """Read every record of every input, keeping per document what the method needs (unless
    ``keep_texts``: the texts as written): a streaming method's fingerprints, or the compared
    texts of a method that compares texts as it finds pairs (``auto``), made a chunk at a time,
    so that the texts as written are never all held. An id used twice is an error naming both
    records (or, with ``--on-error skip``, a counted skip of the second). Clean blocks of
    records are taken whole (:mod:`neardup.blocks`), the others record by record."""
    reading = _Reading(inputs, method, _keeps(method, keep_texts=keep_texts))
    bar = progress(quiet, "reading")
    for source, block in inputs.blocks():
        bar.update(len(block))
        if isinstance(block, Columns):
            reading.add_columns(source, block)
        else:
            for rec in block:
                reading.add(source, rec)
    bar.close()
    batch = reading.batch()
    if not len(batch.ids):
        refuse_fieldless(inputs, reading.skipped)
    return batch


FIELD_REASONS = frozenset({"missing_text", "missing_id"})


def refuse_fieldless(inputs: Inputs, skipped: list[Item]) -> None:
    """A run in which no record was usable, every skip a missing text or id field: the fields
    named are not those of the input (a setting, not bad records), so ``--on-error skip``
    does not turn it into an empty run that succeeds."""
    if not skipped or any(entry.item.reason not in FIELD_REASONS for entry in skipped):
        return
    first = skipped[0]
    raise fieldless_error(
        len(skipped), first.item.message, inputs.readers[first.source].source, first.item.number
    )


def fieldless_error(skipped: int, first: str, source: str, record: int) -> InputError:
    """The error of a run whose every record lacked a field asked for (local and Spark)."""
    return InputError(
        f"no record holds the fields asked for: all {skipped} were skipped, the first with: "
        f"{first}",
        source=source,
        record=record,
    )


def _keeps(method: Any, *, keep_texts: bool) -> str:
    """What a batch keeps per document: ``texts``, ``fingerprints`` or ``compared`` texts."""
    if keep_texts:
        return "texts"
    if hasattr(method, "pairs_from_fingerprints") and method.config.verify is None:
        return "fingerprints"
    if hasattr(method, "compared") and not getattr(method.config, "partial", False):
        return "compared"  # partial duplicates are measured on the texts as written
    return "texts"


class _Reading:
    """The documents read so far (see :func:`read_all`)."""

    def __init__(self, inputs: Inputs, method: Any, keeps: str):
        self.inputs = inputs
        self.method = method
        self.keeps = keeps
        self.ids = Ids()
        self.numbers: list[np.ndarray] = []
        self.sources: list[np.ndarray] = []
        self.lengths: list[np.ndarray] = []
        self.count = 0  # documents taken
        self.pending: list[tuple[int, list[int], list[str], list[str]]] = []  # not yet arrays
        self.pending_count = 0
        self.ends: list[int] = []  # documents taken up to each flushed part
        self.texts: list[str] = []
        self.skipped: list[Item] = []
        self.seen: dict[str, int] = {}  # each given id's position in the batch (not numbers)
        self.fp_parts: list[np.ndarray] = []
        self.chunk: list[str] = []

    def add(self, source: int, rec: Record | Skipped) -> None:
        """One record or skip."""
        if isinstance(rec, Skipped):
            warn_lost_tail(self.inputs.readers[source], rec)
            self.skipped.append(Item(source, rec))
            return
        first = self.seen.get(rec.id) if self._given(source) else None
        if first is not None:
            where = self._where(first)
            if self.inputs.on_error == "fail":
                raise InputError(
                    f"duplicate id {rec.id!r} (first at {where})",
                    source=self.inputs.readers[source].source,
                    record=rec.number,
                )
            why = Skipped(rec.number, rec.id, "duplicate_id", f"id already used by {where}")
            self.skipped.append(Item(source, why))
            return
        if self._given(source):
            self.seen[rec.id] = self.count
        self._take(source, [rec.number], [rec.id], [rec.text])

    def add_columns(self, source: int, cols: Columns) -> None:
        """A block of clean records: whole when no id repeats, else record by record (the ids
        are entered at once, and the index is rebuilt from the batch when one was seen)."""
        if self._given(source):
            block = dict(zip(cols.ids, range(self.count, self.count + len(cols)), strict=True))
            if len(block) != len(cols) or not self.seen.keys().isdisjoint(block):
                for number, doc_id, text in zip(cols.numbers, cols.ids, cols.texts, strict=True):
                    self.add(source, Record(number, doc_id, text, None))  # an id repeats
                return
            self.seen.update(block)
        self._take(source, cols.numbers, cols.ids, cols.texts)

    def _given(self, source: int) -> bool:
        """Whether the input's ids come from a field (record numbers cannot repeat)."""
        return self.inputs.readers[source].id_field is not None

    def _where(self, position: int) -> str:
        """Where the document at ``position`` came from, for messages."""
        self._flush()
        k = bisect_right(self.ends, position)
        at = position - (self.ends[k - 1] if k else 0)
        return _record(self.inputs, int(self.sources[k][at]), int(self.numbers[k][at]))

    def _take(self, source: int, numbers: list[int], ids: list[str], texts: list[str]) -> None:
        self.pending.append((source, numbers, ids, texts))
        self.pending_count += len(ids)
        self.count += len(ids)
        if self.pending_count >= PENDING:
            self._flush()
        if self.keeps == "texts":
            self.texts += texts
            return
        self.chunk += texts
        if len(self.chunk) >= CHUNK:
            self._convert()

    def _convert(self) -> None:
        """The texts of the chunk read so far as fingerprints or compared texts."""
        if self.keeps == "fingerprints":
            self.fp_parts.append(self.method.fingerprint_many(self.chunk))
        else:
            self.texts += self.method.compared(self.chunk)
        self.chunk = []

    def _flush(self) -> None:
        """The pending blocks' ids, numbers, sources and lengths as arrays (records read one by
        one are taken a few thousand at a time, not as one small array each)."""
        if not self.pending:
            return
        self.ids.extend([i for _, _, ids, _ in self.pending for i in ids])
        self.numbers.append(  # lists converted in C, not a generator's item at a time
            np.concatenate([np.asarray(numbers, np.int64) for _, numbers, _, _ in self.pending])
        )
        self.sources.append(
            np.concatenate([np.full(len(ids), s, np.int32) for s, _, ids, _ in self.pending])
        )
        self.lengths.append(
            np.concatenate(
                [np.fromiter(map(len, texts), np.int64, len(texts)) for *_, texts in self.pending]
            )
        )
        self.ends.append(self.count)
        self.pending, self.pending_count = [], 0

    def batch(self) -> Batch:
        self._flush()
        if self.chunk:
            self._convert()
        fps = None
        if self.keeps == "fingerprints":
            fps = np.concatenate(self.fp_parts) if self.fp_parts else np.empty(0, np.uint64)
        return Batch(
            self.ids,
            _joined(self.numbers, np.int64),
            _joined(self.sources, np.int32),
            _joined(self.lengths, np.int64),
            self.texts,
            self.skipped,
            fps,
            compared=self.keeps == "compared",
        )


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype)


def _record(inputs: Inputs, source: int, number: int) -> str:
    """``record N``, or ``<input>, record N`` among several inputs."""
    return f"record {number}" if len(inputs) == 1 else inputs.where(source, number)
