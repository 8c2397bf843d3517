"""Reading the inputs of a command into one batch of documents, with a progress bar."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..inputs import Inputs, Item
from ..readers import LOST_TAIL, RecordReader, Skipped

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
    the texts (unless ``keep_texts``). An id used twice is an error naming both records (or, with ``--on-error skip``, a
    counted skip of the second)."""
    ids: list[str] = []
    numbers: list[int] = []
    sources: list[int] = []
    lengths: list[int] = []
    texts: list[str] = []
    skipped: list[Item] = []
    seen: dict[str, tuple[int, int]] = {}
    streaming = (
        not keep_texts
        and hasattr(method, "pairs_from_fingerprints")
        and method.config.verify is None
    )
    fp_parts: list[np.ndarray] = []
    chunk: list[str] = []
    bar = progress(quiet, "reading")
    for entry in inputs:
        bar.update(1)
        source, rec = entry.source, entry.item
        if isinstance(rec, Skipped):
            warn_lost_tail(inputs.readers[source], rec)
            skipped.append(entry)
            continue
        first = seen.get(rec.id)
        if first is not None:
            where = _record(inputs, *first)
            if inputs.on_error == "fail":
                raise InputError(
                    f"duplicate id {rec.id!r} (first at {where})",
                    source=inputs.readers[source].source,
                    record=rec.number,
                )
            why = Skipped(rec.number, rec.id, "duplicate_id", f"id already used by {where}")
            skipped.append(Item(source, why))
            continue
        seen[rec.id] = (source, rec.number)
        ids.append(rec.id)
        numbers.append(rec.number)
        sources.append(source)
        lengths.append(len(rec.text))
        (chunk if streaming else texts).append(rec.text)
        if streaming and len(chunk) >= CHUNK:
            fp_parts.append(method.fingerprint_many(chunk))
            chunk = []
    if streaming and chunk:
        fp_parts.append(method.fingerprint_many(chunk))
    bar.close()
    fps = np.concatenate(fp_parts) if fp_parts else (np.empty(0, np.uint64) if streaming else None)
    return Batch(ids, numbers, sources, np.array(lengths, np.int64), texts, skipped, fps)


def _record(inputs: Inputs, source: int, number: int) -> str:
    """``record N``, or ``<input>, record N`` among several inputs."""
    return f"record {number}" if len(inputs) == 1 else inputs.where(source, number)
