"""Reading the inputs of a command into one batch of documents, with a progress bar."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blocks import Columns
from ..errors import InputError
from ..inputs import Inputs, Item
from ..readers import LOST_TAIL, Record, RecordReader, Skipped

CHUNK = 100_000  # documents fingerprinted at once by a streaming method


def progress(quiet: bool, desc: str):
    from tqdm import tqdm

    return tqdm(
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
    ``start``: documents before it are the ``--against`` reference."""

    ids: list[str]
    numbers: list[int]
    sources: list[int]
    lengths: np.ndarray
    texts: list[str]
    skipped: list[Item]
    fps: np.ndarray | None
    start: int = 0

    def joined(self, batch: Batch) -> Batch:
        """This batch (the reference) followed by ``batch`` (the input)."""
        fps = None if self.fps is None else np.concatenate([self.fps, batch.fps])
        return Batch(
            self.ids + batch.ids,
            self.numbers + batch.numbers,
            self.sources + batch.sources,
            np.concatenate([self.lengths, batch.lengths]),
            self.texts + batch.texts,
            batch.skipped,
            fps,
            start=len(self.ids),
        )


def read_all(inputs: Inputs, method: Any, *, quiet: bool, keep_texts: bool = False) -> Batch:
    """Read every record of every input; for streaming methods, fingerprint in chunks and drop
    the texts (unless ``keep_texts``). An id used twice is an error naming both records (or, with
    ``--on-error skip``, a counted skip of the second). Clean blocks of records are taken whole
    (:mod:`neardup.blocks`), the others record by record."""
    streaming = (
        not keep_texts
        and hasattr(method, "pairs_from_fingerprints")
        and method.config.verify is None
    )
    reading = _Reading(inputs, method if streaming else None)
    bar = progress(quiet, "reading")
    for source, block in inputs.blocks():
        bar.update(len(block))
        if isinstance(block, Columns):
            reading.add_columns(source, block)
        else:
            for rec in block:
                reading.add(source, rec)
    bar.close()
    return reading.batch()


class _Reading:
    """The documents read so far (see :func:`read_all`)."""

    def __init__(self, inputs: Inputs, streaming: Any):
        self.inputs = inputs
        self.method = streaming  # a streaming method fingerprints chunks; None keeps the texts
        self.ids: list[str] = []
        self.numbers: list[int] = []
        self.sources: list[int] = []
        self.lengths: list[int] = []
        self.texts: list[str] = []
        self.skipped: list[Item] = []
        self.seen: dict[str, int] = {}  # each id's position in the batch
        self.fp_parts: list[np.ndarray] = []
        self.chunk: list[str] = []

    def add(self, source: int, rec: Record | Skipped) -> None:
        """One record or skip."""
        if isinstance(rec, Skipped):
            warn_lost_tail(self.inputs.readers[source], rec)
            self.skipped.append(Item(source, rec))
            return
        first = self.seen.get(rec.id)
        if first is not None:
            where = _record(self.inputs, self.sources[first], self.numbers[first])
            if self.inputs.on_error == "fail":
                raise InputError(
                    f"duplicate id {rec.id!r} (first at {where})",
                    source=self.inputs.readers[source].source,
                    record=rec.number,
                )
            why = Skipped(rec.number, rec.id, "duplicate_id", f"id already used by {where}")
            self.skipped.append(Item(source, why))
            return
        self.seen[rec.id] = len(self.ids)
        self._take(source, [rec.number], [rec.id], [rec.text])

    def add_columns(self, source: int, cols: Columns) -> None:
        """A block of clean records: whole when no id repeats, else record by record (the ids
        are entered at once, and the index is rebuilt from the batch when one was seen)."""
        before = len(self.seen)
        start = len(self.ids)
        self.seen.update(zip(cols.ids, range(start, start + len(cols)), strict=True))
        if len(self.seen) != before + len(cols):  # an id repeats: undo, then one at a time
            self.seen = dict(zip(self.ids, range(len(self.ids)), strict=True))
            for number, doc_id, text in zip(cols.numbers, cols.ids, cols.texts, strict=True):
                self.add(source, Record(number, doc_id, text, None))
            return
        self._take(source, cols.numbers, cols.ids, cols.texts)

    def _take(self, source: int, numbers: list[int], ids: list[str], texts: list[str]) -> None:
        self.ids += ids
        self.numbers += numbers
        self.sources += [source] * len(ids)
        self.lengths += map(len, texts)
        if self.method is None:
            self.texts += texts
            return
        self.chunk += texts
        if len(self.chunk) >= CHUNK:
            self.fp_parts.append(self.method.fingerprint_many(self.chunk))
            self.chunk = []

    def batch(self) -> Batch:
        if self.method is None:
            fps = None
        else:
            if self.chunk:
                self.fp_parts.append(self.method.fingerprint_many(self.chunk))
            fps = np.concatenate(self.fp_parts) if self.fp_parts else np.empty(0, np.uint64)
        lengths = np.array(self.lengths, np.int64)
        return Batch(self.ids, self.numbers, self.sources, lengths, self.texts, self.skipped, fps)


def _record(inputs: Inputs, source: int, number: int) -> str:
    """``record N``, or ``<input>, record N`` among several inputs."""
    return f"record {number}" if len(inputs) == 1 else inputs.where(source, number)
